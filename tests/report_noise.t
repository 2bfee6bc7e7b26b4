#!/bin/sh
# The report shows what the table shows (issue 40 item 5): every noisy
# point is marked on the charts (an open circle, a key entry) and counted
# in the key figures, and a latency test (p2p_lat) gets no bandwidth chart,
# as its table has no bandwidth columns. No MPI needed.
. tests/lib.sh
plan 10

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
check "the data carry the noise mark as a 5th column (the 64 B point), and no interval where none was measured" \
  sh -c "grep -q '^64 2 1 1 1 nan nan\$' '$TMP/rep/allreduce.dat' && grep -q '^8 2 1 1 0 nan nan\$' '$TMP/rep/allreduce.dat'"
check "the script counts the noisy points for the chart's key" grep -q '^nnoisy = 1$' "$TMP/rep/allreduce.gp"
check "the key figures count them per series" \
  sh -c "grep -q '<th title=\"sizes measured, and how many of them noisy' '$TMP/rep/index.html' && grep -q '<td class=n>3<br>1 noisy</td>' '$TMP/rep/index.html'"
check "p2p_lat: a latency chart, no bandwidth chart drawn or linked" \
  sh -c "[ -s '$TMP/rep/p2p_lat_latency.png' ] && [ ! -e '$TMP/rep/p2p_lat_busbw.png' ] &&
    [ ! -e '$TMP/rep/p2p_lat_algbw.png' ] && ! grep -q 'p2p_lat_busbw\|p2p_lat_algbw' '$TMP/rep/index.html'"
check "allreduce keeps its bandwidth charts" \
  sh -c "[ -s '$TMP/rep/allreduce_busbw.png' ] && [ -s '$TMP/rep/allreduce_algbw.png' ]"
# issue 57: a noisy spike is never a key figure, and the busbw chart draws
# each point's interval as an error bar
{ result allgather 1024 false; result allgather 2048 false; } >"$TMP/s.jsonl"
printf '%s\n' '{"type":"result","op":"allgather","backend":"mpi","mem":"host","transport":"shm","dtype":"float","redop":"sum","inplace":false,"bytes":4096,"count":2,"nranks":2,"nnodes":1,"iters":10,"time_us":1,"ci95_us":0.8,"algbw_GBps":9,"busbw_GBps":9,"wrong":0,"samples":40,"noisy":true}' \
  '{"type":"result","op":"allgather","backend":"mpi","mem":"host","transport":"shm","dtype":"float","redop":"sum","inplace":false,"bytes":8192,"count":2,"nranks":2,"nnodes":1,"iters":10,"time_us":4,"ci95_us":0.1,"algbw_GBps":2,"busbw_GBps":2,"wrong":0,"samples":40,"noisy":false}' >>"$TMP/s.jsonl"
./collbench --report "$TMP/s.jsonl" --out "$TMP/srep" >"$TMP/out" 2>&1
check "the 9 GB/s noisy spike is not the peak: the 2 GB/s point at 8 KiB is" \
  sh -c "grep -o '<td class=n>4<br>1 noisy</td><td class=n>[0-9.]*</td><td[^>]*>[^<]*</td>' '$TMP/srep/index.html' | grep -q '>2.000</td><td[^>]*>8 KiB<'"
check "the chart data carry the busbw interval (8 KiB: 2 x 4/4.1 to 2 x 4/3.9) and the chart draws bars" \
  sh -c "grep -q '^8192 4 2 2 0 1.95121951 2.05128205\$' '$TMP/srep/allgather.dat' && grep -q 'with yerrorbars' '$TMP/srep/allgather.gp'"
check "one cluster size (2 ranks, one node): no capacity chart, a sentence saying why (issue 57)" \
  sh -c "[ ! -e '$TMP/rep/allreduce_capacity.png' ] && grep -q 'Capacity planning: no chart' '$TMP/rep/index.html'"
# a burn-in resumed after an hour's downtime, its time doubled from
# interval 7: drawn with a gap at the downtime (a blank line inside the
# case's block), and the step the verdict reads as its two ends' means
k=1
while [ $k -le 12 ]; do
  t=$((1764300000 + (k - 1) * 2))
  [ $k -gt 8 ] && t=$((t + 3600))
  us=10
  [ $k -ge 7 ] && us=20
  printf '{"type":"result","op":"allreduce","backend":"mpi","mem":"host","transport":"shm","dtype":"float","redop":"sum","inplace":false,"bytes":1024,"count":256,"nranks":2,"nnodes":1,"iters":10,"time_us":%s,"ci95_us":0.1,"algbw_GBps":0.1,"busbw_GBps":0.1,"wrong":0,"samples":40,"noisy":false,"interval":%s,"interval_start":"%s"}\n' \
    $us $k "$(date -u -d @$t +%Y-%m-%dT%H:%M:%SZ)"
  k=$((k + 1))
done >"$TMP/bi.jsonl"
./collbench --report "$TMP/bi.jsonl" --out "$TMP/birep" >"$TMP/out" 2>&1
check "a resumed burn-in: a gap at the downtime, and the first and last third's means drawn (-33%, +33%)" \
  sh -c "awk 'NF == 0 { gaps++ } NF == 8 && \$7 != \"nan\" { if (\$7 > -33.4 && \$7 < -33.3) f++ }
    NF == 8 && \$8 != \"nan\" { if (\$8 > 33.3 && \$8 < 33.4) l++ }
    END { exit !(gaps == 1 && f == 4 && l == 4) }' '$TMP/birep/burnin1_1.dat'"
finish
