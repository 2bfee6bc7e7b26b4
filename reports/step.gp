# A training step's predicted communication ratio against cluster size,
# one line per gradient bucket size: rho = exposed communication / compute,
# the buckets all-reduced one by one while backward still runs, each with
# the model's fastest algorithm (README.md, "Capacity planning"); the
# measured rho of the tuning run's closing re-measure as points.
# collbench --report copies this after a generated header that sets the
# terminal, the output, datafile, nlines, step_titles[], default_title,
# tuned_title, chart_title and chart_note (where the tiers come from).
# Data blocks: nlines lines (1 GPUs, 2 rho), then default and tuned
# measured (1 ranks, 2 rho, 3 its 95% CI).
set title chart_title . "\n" . chart_note
set xlabel (unit eq 'GPUs' ? 'cluster size (GPUs, one rank each)' : 'cluster size (ranks)')
set ylabel 'rho = exposed communication / compute'
unset logscale
set logscale x 2
set xrange [1.5:24000]
set xtics ('2' 2, '8' 8, '32' 32, '128' 128, '512' 512, '2048' 2048, '8192' 8192, '16384' 16384)
set format y '%g'
set autoscale y
set grid
# the key under the axis label, samples first; its blank title keeps it off the label
set key below left Left reverse title ' '
plot for [k=1:nlines] datafile index (k-1) using 1:2 with linespoints linecolor k pointtype 7 pointsize 0.5 title step_titles[k], \
     datafile index nlines using 1:2:3 with yerrorbars linecolor rgb 'gray30' pointtype 4 pointsize 1.5 title default_title, \
     datafile index (nlines + 1) using 1:2:3 with yerrorbars linecolor rgb 'red' pointtype 8 pointsize 1.5 title tuned_title
