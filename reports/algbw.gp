# Algorithm bandwidth (bytes / time) against message size, one line per series.
# collbench --report copies this after a generated header that sets the
# terminal, the output, datafile, nseries, titles[1..nseries] and
# chart_title, and xtics labelled in B/KiB/MiB. No model lines: the model
# predicts time and busbw (busbw.gp).
# Data columns: 1 bytes, 2 time_us, 3 busbw_GBps, 4 algbw_GBps, 5 noisy (1:
# the table's ~; drawn as an open circle, others filled; nnoisy counts them).
if (!exists('nnoisy')) nnoisy = 0
set title chart_title
set xlabel 'message size'
set ylabel 'algorithm bandwidth (GB/s, GB = 1e9 B)'
unset logscale
set logscale x 2
set format y '%g'
set yrange [0:*]
set grid
# the key under the axis label, samples first; its blank title keeps it off the label
set key below left Left reverse title ' '
plot for [i=1:nseries] datafile index (i-1) using 1:4:(column(5) > 0 ? 6 : 7) with linespoints linecolor i pointtype variable pointsize 0.8 title titles[i], \
     for [k=1:(nnoisy > 0)] NaN with points linecolor rgb 'black' pointtype 6 pointsize 0.8 title 'noisy (~): the CI stayed wider than --precision, or no interval'
