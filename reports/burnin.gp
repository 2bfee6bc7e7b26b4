# A burn-in's cases against the clock (--report on a --duration run): each
# case's time per interval as a percentage over its own mean, with the
# record's 95% interval, the fitted drift line (dashed, the least-squares
# line its verdict reads), and wrong results circled red.
# collbench --report copies this after a generated header that sets the
# terminal, the output, datafile, nseries, titles[1..nseries], nwrong,
# xunit and chart_title. Data columns, one block per case: 1 time since
# the first interval (xunit), 2 time over the mean (%), 3-4 its 95%
# interval (%), 5 the fitted line (%), 6 column 2 where the interval had
# wrong results (else NaN), 7 and 8 the mean of the first and last third
# (or hour) over their passes (else NaN): the step the verdict also reads.
# A blank line inside a block is downtime (a resumed burn-in): a gap.
set title chart_title
set xlabel sprintf('time since the first interval (%s)', xunit)
set ylabel 'time per op over its mean (%)'
unset logscale
set format y '%+g'
set autoscale
set grid
set key below left Left reverse title ' '
plot for [i=1:nseries] datafile index (i-1) using 1:2:3:4 with yerrorlines linecolor i pointtype 7 pointsize 0.5 title titles[i], \
     for [i=1:nseries] datafile index (i-1) using 1:5 with lines linecolor i dashtype 2 notitle, \
     for [i=1:nseries] datafile index (i-1) using 1:7 with lines linecolor i linewidth 4 notitle, \
     for [i=1:nseries] datafile index (i-1) using 1:8 with lines linecolor i linewidth 4 notitle, \
     NaN with lines linecolor rgb 'black' dashtype 2 title 'dashed: the fitted drift line', \
     NaN with lines linecolor rgb 'black' linewidth 4 title 'thick: the first and last third, the step the verdict reads', \
     for [i=1:nseries] datafile index (i-1) using 1:6 with points linecolor rgb 'red' pointtype 6 pointsize 2.5 \
       title (i == 1 && nwrong > 0 ? 'wrong result' : ''), \
     0 with lines linecolor rgb 'gray' notitle
