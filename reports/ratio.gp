# Bus bandwidth of each later file's series over the first file's matching
# series (same op, backend, memory, transport, dtype, redop, in-place), at
# the sizes both measured: 1 means equal, 2 twice as fast.
# collbench --report copies this after a generated header that sets the
# terminal, the output, ratiofile, nratio, ratio_titles[1..nratio],
# chart_title and the size xtics. Data columns: 1 bytes, 2 ratio, 3 and 4
# its 95% CI (one launch's CI widened by the spread between launches, as
# --compare judges; nan: none), 5 1 when the CI leaves out 1: a change
# beyond the noise, a filled point; within it, an open one.
set title chart_title
set xlabel 'message size'
set ylabel 'busbw ratio (later file / first file)'
unset logscale
set logscale x 2
# ratios multiply: a log axis draws x2 and x0.5 as far from 1; the range
# holds every ratio, its bars clipped to it
set logscale y 2
set format y '%g'
if (!exists('ratio_ymin')) ratio_ymin = 0.5; ratio_ymax = 2
set yrange [ratio_ymin:ratio_ymax]
set grid
# the key under the axis label, samples first; its blank title keeps it off the label
set key below left Left reverse title ' '
# the bars first: drawn over, they hide the points (gnuplot 5.4)
plot for [i=1:nratio] ratiofile index (i-1) using 1:2:3:4 with yerrorbars linecolor i pointtype 0 notitle, \
     for [i=1:nratio] ratiofile index (i-1) using 1:2:(column(5) > 0 ? 7 : 6) with linespoints linecolor i pointtype variable pointsize 0.8 title ratio_titles[i], \
     NaN with points linecolor rgb 'black' pointtype 7 pointsize 0.8 title 'filled: beyond the noise (the 95% CI leaves out 1)', \
     NaN with points linecolor rgb 'black' pointtype 6 pointsize 0.8 title 'open: within the noise, or no interval', \
     1 with lines dashtype 2 linecolor rgb 'gray' notitle
