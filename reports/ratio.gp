# Bus bandwidth of each later file's series over the first file's matching
# series (same op, backend, memory, transport, dtype, redop, in-place), at
# the sizes both measured: 1 means equal, 2 twice as fast.
# collbench --report copies this after a generated header that sets the
# terminal, the output, ratiofile, nratio, ratio_titles[1..nratio],
# chart_title and the size xtics. Data columns: 1 bytes, 2 ratio.
set title chart_title
set xlabel 'message size'
set ylabel 'busbw ratio (later file / first file)'
unset logscale
set logscale x 2
set format y '%g'
set yrange [0:*]
set grid
# the key under the axis label, samples first; its blank title keeps it off the label
set key below left Left reverse title ' '
plot for [i=1:nratio] ratiofile index (i-1) using 1:2 with linespoints pointtype 7 pointsize 0.6 title ratio_titles[i], \
     1 with lines dashtype 2 linecolor rgb 'gray' notitle
