# Time per operation against message size, log-log, one line per series.
# collbench --report copies this after the same generated header as
# busbw.gp (xtics included).
# Data columns: 1 bytes, 2 time_us, 3 busbw_GBps.
set title chart_title
set xlabel 'message size'
set ylabel 'time per op (us, median)'
unset logscale
set logscale x 2
set logscale y 10
set format y '%g'
set autoscale y
set grid
set key below
plot for [i=1:nseries] datafile index (i-1) using 1:2 with linespoints pointtype 7 pointsize 0.6 title titles[i]
