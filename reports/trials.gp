# Tuner trials: rho (or the step time, when the run ended before its
# summary) against bucket size, one line per all-reduce algorithm (and
# segment size), the chosen setting circled, and the closing re-measure of
# the default and tuned settings with their 95% confidence intervals.
# collbench --report copies this after a generated header that sets the
# terminal, the output, datafile, nconfigs, config_titles[], has_chosen,
# chosen_title, has_summary, y_label, chart_title and the bucket xtics.
# Data blocks: nconfigs lines (1 bucket bytes, 2 value), then the chosen
# point if has_chosen, then if has_summary the default and the tuned
# re-measure (1 bucket bytes, 2 rho, 3 its 95% CI).
set title chart_title
set xlabel 'gradient bucket size'
set ylabel y_label
unset logscale
set logscale x 2
set format y '%g'
set autoscale y
set grid
# the key under the axis label, samples first; its blank title keeps it off the label
set key below left Left reverse title ' '
chosen = nconfigs
measured = nconfigs + has_chosen
# gnuplot opens the file even for an empty loop: absent parts get no clause
configs = 'for [k=1:nconfigs] datafile index (k-1) using 1:2 with linespoints linecolor k pointtype 7 pointsize 0.6 title config_titles[k]'
mark = "datafile index chosen using 1:2 with points linecolor rgb 'black' pointtype 6 pointsize 3 linewidth 2 title chosen_title"
remeasure = "datafile index measured using 1:2:3 with yerrorbars linecolor rgb 'gray30' pointtype 4 pointsize 1.5 title 're-measured: default', datafile index (measured + 1) using 1:2:3 with yerrorbars linecolor rgb 'red' pointtype 8 pointsize 1.5 title 're-measured: tuned'"
if (has_chosen) {
  plot @configs, @mark, @remeasure
} else {
  if (has_summary) {
    plot @configs, @remeasure
  } else {
    plot @configs
  }
}
