#!/bin/sh
# The report shows what the table shows (issue 40 item 5): every noisy
# point is marked on the charts (an open circle, a key entry) and counted
# in the key figures, and a latency test (p2p_lat) gets no bandwidth chart,
# as its table has no bandwidth columns. No MPI needed.
. tests/lib.sh
plan 6

result() { # OP BYTES NOISY
  printf '{"type":"result","op":"%s","backend":"mpi","mem":"host","transport":"shm",' "$1"
  printf '"dtype":"float","redop":"sum","inplace":false,"bytes":%s,"count":2,"nranks":2,' "$2"
  printf '"nnodes":1,"iters":10,"time_us":2,"ci95_us":null,"algbw_GBps":1,' 
  printf '"busbw_GBps":1,"wrong":0,"samples":1,"noisy":%s}\n' "$3"
}
{ result allreduce 8 false; result allreduce 64 true; result allreduce 512 false
  result p2p_lat 8 false; result p2p_lat 64 true; } >"$TMP/n.jsonl"
./collbench --report "$TMP/n.jsonl" --out "$TMP/rep" >"$TMP/out" 2>"$TMP/err"
ok $? "--report exits 0"
check "the data carry the noise mark as a 5th column (the 64 B point)" \
  sh -c "grep -q '^64 2 1 1 1\$' '$TMP/rep/allreduce.dat' && grep -q '^8 2 1 1 0\$' '$TMP/rep/allreduce.dat'"
check "the script counts the noisy points for the chart's key" grep -q '^nnoisy = 1$' "$TMP/rep/allreduce.gp"
check "the key figures count them per series" \
  sh -c "grep -q '<th title=\"sizes measured; ~: how many of them noisy' '$TMP/rep/index.html' && grep -q '<td class=n>3, 1~</td>' '$TMP/rep/index.html'"
check "p2p_lat: a latency chart, no bandwidth chart drawn or linked" \
  sh -c "[ -s '$TMP/rep/p2p_lat_latency.png' ] && [ ! -e '$TMP/rep/p2p_lat_busbw.png' ] &&
    [ ! -e '$TMP/rep/p2p_lat_algbw.png' ] && ! grep -q 'p2p_lat_busbw\|p2p_lat_algbw' '$TMP/rep/index.html'"
check "allreduce keeps its bandwidth charts" \
  sh -c "[ -s '$TMP/rep/allreduce_busbw.png' ] && [ -s '$TMP/rep/allreduce_algbw.png' ]"
finish
