#!/bin/bash
# No thread outlives main's cleanup in the file modes (issue 28 item 7):
# OpenBLAS's pthreads build starts a worker from its library constructor
# in every process and stopped it only in its destructor at exit, a
# candidate for an ASan SEGV in a secondary thread at teardown after
# --fit/--validate/--predict. Traced with strace: every thread but main
# has exited before main writes its first output.
. tests/lib.sh
F=tests/fixtures
vectors=(
  "--fit $F/model_np2.jsonl"
  "--fit $F/model_np2.jsonl --validate $F/model_np4.jsonl"
  "--predict --topology topologies/h100-ndr.conf --size 1M"
  "--report $F/model_np2.jsonl --out $TMP/rep"
  "--import-nccl-tests $F/nccl_tests_allreduce.txt --json $TMP/imp.jsonl"
)
plan ${#vectors[@]}
if ! command -v strace >/dev/null || ! strace -f -o /dev/null true 2>/dev/null; then
  for v in "${vectors[@]}"; do skip "strace missing or not permitted: $v"; done
  finish
fi
for v in "${vectors[@]}"; do
  # shellcheck disable=SC2086 # the vector's words
  strace -f -e trace=clone,clone3,exit,write -o "$TMP/trace" ./collbench $v >"$TMP/out" 2>"$TMP/err"
  status=$?
  main=$(head -n 1 "$TMP/trace" | cut -d' ' -f1)
  first_write=$(grep -n "^$main  *write(" "$TMP/trace" | head -n 1 | cut -d: -f1)
  # main's threads (CLONE_THREAD), not gnuplot's processes
  threads=$(sed -n "s/^$main  *clone.*CLONE_THREAD.* = \([0-9][0-9]*\)\$/\1/p" "$TMP/trace" | paste -sd'|')
  last_exit=$(grep -nE "^(${threads:-none})  *exit\(" "$TMP/trace" | tail -n 1 | cut -d: -f1)
  [ "$status" -eq 0 ] && [ -n "$first_write" ] && [ "${last_exit:-0}" -lt "$first_write" ]
  ok $? "$v: no thread left when main writes (status $status, last thread exit at trace line ${last_exit:-none}, first write at ${first_write:-none})"
done
finish
