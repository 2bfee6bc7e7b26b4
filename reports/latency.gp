# Time per operation against message size, log-log, one line per series.
# collbench --report copies this after the same generated header as
# busbw.gp (xtics and the model's dashed lines included).
# Data columns: 1 bytes, 2 time_us, 3 busbw_GBps, 4 algbw_GBps, 5 noisy (1:
# the table's ~; drawn as an open circle, others filled; nnoisy counts them).
if (!exists('nnoisy')) nnoisy = 0
set title chart_title
set xlabel 'message size'
set ylabel 'time per op (us, median)'
unset logscale
set logscale x 2
set logscale y 10
set format y '%g'
set autoscale y
set grid
# the key under the axis label, samples first; its blank title keeps it off the label
set key below left Left reverse title ' '
plot for [i=1:nseries] datafile index (i-1) using 1:2:(column(5) > 0 ? 6 : 7) with linespoints linecolor i pointtype variable pointsize 0.8 title titles[i], \
     for [k=1:(nnoisy > 0)] NaN with points linecolor rgb 'black' pointtype 6 pointsize 0.8 title 'noisy (~): the CI stayed wider than --precision, or no interval', \
     for [k=1:nmodel] modelfile index (k-1) using 1:2 with lines linecolor model_of[k] dashtype 2 notitle, \
     for [k=1:(nmodel > 0)] NaN with lines linecolor rgb 'black' dashtype 2 title model_title
