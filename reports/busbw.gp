# Bus bandwidth against message size, one line per series.
# collbench --report copies this after a generated header that sets the
# terminal, the output, datafile, nseries, titles[1..nseries] and
# chart_title, and xtics labelled in B/KiB/MiB; and for the model's dashed
# lines modelfile, nmodel, model_of[1..nmodel] (the series each block
# predicts, for its colour) and model_title.
# Data columns: 1 bytes, 2 time_us, 3 busbw_GBps, 4 algbw_GBps, 5 noisy (1:
# the table's ~; drawn as an open circle, others filled; nnoisy counts them),
# 6 and 7 the busbw's 95% CI (nan: none; error bars) (modelfile: the first
# three, predicted).
if (!exists('nnoisy')) nnoisy = 0
set title chart_title
set xlabel 'message size'
set ylabel 'bus bandwidth (GB/s, GB = 1e9 B)'
unset logscale
set logscale x 2
set format y '%g'
# the range holds every point; a launch's wide bar is clipped to it, not
# allowed to flatten the others (bw_ymax: 1.3 x the highest point)
if (exists('bw_ymax')) set yrange [0:bw_ymax]; else set yrange [0:*]
set grid
# the key under the axis label, samples first; its blank title keeps it off the label
set key below left Left reverse title ' '
# the bars first: drawn over, they hide the points (gnuplot 5.4)
plot for [i=1:nseries] datafile index (i-1) using 1:3:6:7 with yerrorbars linecolor i pointtype 0 notitle, \
     for [i=1:nseries] datafile index (i-1) using 1:3:(column(5) > 0 ? 6 : 7) with linespoints linecolor i pointtype variable pointsize 0.8 title titles[i], \
     '+' using (NaN):(NaN):(NaN):(NaN) with yerrorbars linecolor rgb 'black' pointtype 0 title 'bars: 95% CI of the median, within one launch', \
     for [k=1:(nnoisy > 0)] NaN with points linecolor rgb 'black' pointtype 6 pointsize 0.8 title 'noisy (~): the CI stayed wider than --precision, or no interval', \
     for [k=1:nmodel] modelfile index (k-1) using 1:3 with lines linecolor model_of[k] dashtype 2 notitle, \
     for [k=1:(nmodel > 0)] NaN with lines linecolor rgb 'black' dashtype 2 title model_title
