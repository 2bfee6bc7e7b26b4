# Parallel layouts: each dimension's exposed share of the step (percent of
# T_step, the slowest rank's wait), median with its 95% interval, one bar
# per layout line and dimension, the tuned settings' bar beside it.
# collbench --report copies this after a generated header that sets the
# terminal, the output, datafile, chart_title, the bars' xtics, has_tuned
# and nbars. Data blocks: the launch settings (1 bar, 2 share, 3 lo, 4 hi),
# then the tuned ones where the search changed anything.
set title chart_title
set ylabel 'exposed share of T_step (%)'
unset logscale
set format y '%g'
set yrange [0:*]
set xrange [-0.6:nbars - 0.2]
set xtics rotate by -30 left
set grid y
set style fill solid 0.5
set boxwidth 0.3
set key below left Left reverse title ' '
launch = "datafile index 0 using 1:2 with boxes linecolor rgb 'steelblue' title 'launch settings', datafile index 0 using 1:2:3:4 with yerrorbars linecolor rgb 'black' pointtype 0 notitle"
tuned = "datafile index 1 using 1:2 with boxes linecolor rgb 'red' title 'tuned', datafile index 1 using 1:2:3:4 with yerrorbars linecolor rgb 'black' pointtype 0 notitle"
if (has_tuned) {
  plot @launch, @tuned
} else {
  plot @launch
}
