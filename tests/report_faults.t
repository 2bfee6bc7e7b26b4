#!/bin/sh
# --report's failure paths (issue 38 item 7): a disk that fills while
# gnuplot draws gives exit 3 (a runtime error, not a usage one) and no
# empty chart, and SIGTERM while gnuplot draws ends gnuplot with collbench
# and leaves no private folder in --out. No MPI needed.
. tests/lib.sh
plan 6

result() { # OP: one measured result line
  printf '{"type":"result","op":"%s","backend":"mpi","mem":"host","transport":"shm",' "$1"
  printf '"dtype":"float","redop":"sum","inplace":false,"bytes":%s,"count":2,"nranks":2,' "$2"
  printf '"nnodes":1,"iters":10,"time_us":%s,"ci95_us":0.1,"algbw_GBps":1,' "$3"
  printf '"busbw_GBps":1,"wrong":0,"samples":10,"noisy":false}\n'
}
for op in allreduce allgather; do
  for b in 8 64 512 4096; do result $op $b 2; done
done >"$TMP/small.jsonl"

# A full disk: a tmpfs too small for the charts (root; a visible skip else)
mkdir "$TMP/mnt"
if mount -t tmpfs -o size=96k tmpfs "$TMP/mnt" 2>/dev/null; then
  ./collbench --report "$TMP/small.jsonl" --out "$TMP/mnt/rep" >"$TMP/out" 2>"$TMP/err"
  st=$?
  ok $([ $st -eq 3 ] && echo 0 || echo 1) "a full disk while charts are drawn: exit 3 (got $st)"
  [ $st -eq 3 ] || diag "$TMP/err"
  check "the message names the file and the cause" \
    grep -Eq "empty '$TMP/mnt/rep/.*' \(a write failed: is the disk full\?\)|No space left on device" \
    "$TMP/err"
  check "no empty chart and no private folder left in --out" \
    sh -c "[ -z \"\$(find '$TMP/mnt/rep' -size 0)\" ] && ! ls -a '$TMP/mnt/rep' | grep -q '^\.gnuplot'"
  umount "$TMP/mnt"
else
  skip "mounting a small tmpfs (a full disk of our own) needs root"
  skip "mounting a small tmpfs (a full disk of our own) needs root"
  skip "mounting a small tmpfs (a full disk of our own) needs root"
fi

# SIGTERM while gnuplot draws: 64 ops keep gnuplot busy long enough to be
# seen running (polled, bounded: no sleep decides anything)
i=0
while [ $i -lt 64 ]; do
  for b in 8 64 512 4096 32768; do result "op$i" $b 2; done
  i=$((i + 1))
done >"$TMP/many.jsonl"
./collbench --report "$TMP/many.jsonl" --out "$TMP/rep" >"$TMP/out" 2>"$TMP/err" &
cb=$!
gp=
tries=0
while [ -z "$gp" ] && [ $tries -lt 6000 ] && kill -0 $cb 2>/dev/null; do
  gp=$(pgrep -P $cb -x gnuplot | head -1)
  tries=$((tries + 1))
done
if [ -n "$gp" ]; then
  kill -TERM $cb
  wait $cb
  st=$?
  ok $([ $st -eq 3 ] && echo 0 || echo 1) "SIGTERM while gnuplot draws: exit 3 (got $st)"
  left=
  for p in $(pgrep -x gnuplot); do
    [ "$(readlink "/proc/$p/cwd")" = "$TMP/rep" ] && left="$left $p"
  done
  ok $([ -z "$left" ] && echo 0 || echo 1) "no gnuplot left running in --out (left:${left:- none})"
  check "no private .gnuplot.* folder left in --out" sh -c "! ls -a '$TMP/rep' | grep -q '^\.gnuplot'"
else
  wait $cb
  skip "gnuplot was never seen running (the report ended first): nothing to interrupt"
  skip "gnuplot was never seen running"
  skip "gnuplot was never seen running"
fi
finish
