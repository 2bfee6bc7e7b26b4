# A training step's predicted communication overhead against cluster size,
# one line per gradient bucket size: overhead = exposed communication / step
# time = (T_step - T_compute) / T_step, in percent (README.md, "Capacity
# planning"); the target as a dashed line; the measured overhead of the
# tuning run's closing re-measure as points with their 95% CI.
# collbench --report copies this after a generated header that sets the
# terminal, the output, datafile, nlines, step_titles[], target,
# target_title, default_title, tuned_title, chart_title and chart_note.
# Data blocks: nlines lines (1 GPUs, 2 overhead %), then default and tuned
# measured (1 ranks, 2 overhead %, 3 its 95% CI).
set title chart_title . "\n" . chart_note
set xlabel (unit eq 'GPUs' ? 'cluster size (GPUs, one rank each)' : 'cluster size (ranks)')
set ylabel 'communication overhead (% of the step)'
unset logscale
set logscale x 2
set xrange [1.5:24000]
set xtics ('2' 2, '8' 8, '32' 32, '128' 128, '512' 512, '2048' 2048, '8192' 8192, '16384' 16384)
set format y '%g'
set yrange [0:*]
set grid
set key below
plot for [k=1:nlines] datafile index (k-1) using 1:2 with linespoints linecolor k pointtype 7 pointsize 0.5 title step_titles[k], \
     target with lines linecolor rgb 'black' dashtype 2 linewidth 2 title target_title, \
     datafile index nlines using 1:2:3 with yerrorbars linecolor rgb 'gray30' pointtype 4 pointsize 1.5 title default_title, \
     datafile index (nlines + 1) using 1:2:3 with yerrorbars linecolor rgb 'red' pointtype 8 pointsize 1.5 title tuned_title
