# Capacity planning: predicted bus bandwidth against cluster size for the
# ring, tree and hierarchical algorithms at fixed message sizes (dashed:
# the small size, solid: the large one), with measured points where the
# inputs have those sizes.
# collbench --report copies this after a generated header that sets the
# terminal, the output, capfile, nlines and npoints (its first nlines blocks
# are predicted lines, the next npoints measured points), cap_titles[],
# cap_lc[] (colour), cap_dt[] (dash), cap_xmax (the largest size drawn),
# chart_title, chart_note (where the link tiers come from) and unit ("GPUs",
# or "ranks" for host runs).
# Data columns: 1 GPUs or ranks, 2 busbw_GBps.
set title chart_title . "\n" . chart_note
set xlabel (unit eq 'GPUs' ? 'cluster size (GPUs, one rank each)' : 'cluster size (ranks)')
set ylabel 'bus bandwidth (GB/s, GB = 1e9 B)'
unset logscale
set logscale x 2
set logscale y 10
# the axis ends where the predictions and points do (cap_xmax)
set xrange [1.5:cap_xmax * 1.5]
set xtics ('2' 2, '8' 8, '32' 32, '128' 128, '512' 512, '2048' 2048, '8192' 8192, '16384' 16384)
set format y '%g'
set autoscale y
set grid
# the key under the axis label, samples first; its blank title keeps it off the label
set key below left Left reverse title ' '
# gnuplot opens the file even for an empty loop: no points, no clause
lines = 'for [k=1:nlines] capfile index (k-1) using 1:2 with linespoints linecolor cap_lc[k] dashtype cap_dt[k] pointtype 7 pointsize 0.5 title cap_titles[k]'
if (npoints > 0) {
  plot @lines, \
       for [k=nlines+1:nlines+npoints] capfile index (k-1) using 1:2 with points linecolor cap_lc[k] pointtype 5 pointsize 1.2 title cap_titles[k]
} else {
  plot @lines
}
