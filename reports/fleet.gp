# One series of one run against the fleet baseline (--report --baseline):
# the fleet's p10-p90 band and median per size, the run's time, outliers
# (robust z under -k) marked. collbench --report copies this after a header
# that sets the terminal, the output, datafile and chart_title.
# Data columns: 1 bytes, 2 fleet p10, 3 fleet p90, 4 fleet median,
# 5 measured time_us, 6 measured where an outlier (else NaN).
set title chart_title
set xlabel 'message size (B)'
set ylabel 'time per op (us, median)'
unset logscale
set logscale x 2
set logscale y 10
set format x '%.0b %BB'
set format y '%g'
set autoscale
set grid
set key below
plot datafile using 1:2:3 with filledcurves fillcolor rgb '#cce0ff' title 'fleet p10-p90', \
     datafile using 1:4 with lines linecolor rgb '#3060c0' dashtype 2 title 'fleet median', \
     datafile using 1:5 with linespoints linecolor rgb 'black' pointtype 7 pointsize 0.6 title 'this run', \
     datafile using 1:6 with points linecolor rgb 'red' pointtype 6 pointsize 2.5 title 'outlier (z < -5)'
