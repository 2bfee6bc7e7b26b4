# All-pairs heatmap: one cell per sending rank (row) and receiving rank
# (column), rank 0 at the top left as a matrix reads; the diagonal (a rank
# with itself) and unmeasured pairs stay white. Cells carry their values up
# to 16 ranks.
# collbench --report copies this after a generated header that sets the
# terminal, the output, matrixfile, block (its index in matrixfile), nranks,
# x_label and y_label (ranks, or GPUs for copy matrices),
# value_label, high_is_good (1: bandwidth, green high; 0: latency, green
# low), the colour range cb_low..cb_high and chart_title.
# Data columns: 1 receiving rank, 2 sending rank, 3 value (NaN: none).
# nretested cells were measured again alone (the matrix's retests of its
# suspects; retestfile: receiving rank, sending rank, 1 where its bandwidth
# was, 1 where its latency was): their value is the retests' mean, and they
# are outlined in black.
set title chart_title
unset logscale
unset grid
unset key
set xlabel x_label
set ylabel y_label
set xrange [-0.5:nranks-0.5]
set yrange [nranks-0.5:-0.5]
set size ratio -1
if (nranks <= 32) { set xtics 1; set ytics 1 } else { set xtics autofreq; set ytics autofreq }
set format x '%g'
set format y '%g'
set cblabel value_label offset 1.5,0  # clear of the colour bar's numbers
set cbrange [cb_low:cb_high]
if (high_is_good) {
  set palette defined (0 '#f46d43', 0.5 '#fee08b', 1 '#66bd63')
} else {
  set palette defined (0 '#66bd63', 0.5 '#fee08b', 1 '#f46d43')
}
if (!exists('nretested')) nretested = 0
if (nretested > 0) {
  set title chart_title . "\noutlined: measured again alone (retests); the colour is their mean"
}
plot matrixfile index block using 1:2:3 with image, \
     matrixfile index block using 1:2:(nranks <= 16 && valid(3) ? sprintf('%.3g', $3) : '') with labels, \
     for [k=1:(nretested > 0)] retestfile using 1:((block == 0 ? column(3) : column(4)) > 0 ? column(2) : NaN):(0.45):(0.45) with boxxyerror fillstyle empty linecolor rgb 'black' linewidth 3
