#!/bin/sh
# fp8 (e4m3, e5m2) and what a GPU run records. Host backends refuse fp8
# with one reason; with a GPU the nccl backend checks fp8 exactly (data
# movement anywhere, reductions from compute capability 9.0, else the
# series is skipped with NCCL's own rule), its device buffers are filled
# and checked by the GPU kernels (no "through host copies" note), and
# 2-rank allreduce records carry nccl_algo / nccl_proto. Without a GPU the
# GPU runs are visible TAP skips.
. tests/lib.sh
plan 6
mpi 1 --dtype float,e4m3,e5m2 -e 1K --json "$TMP/host.jsonl"
[ $STATUS -eq 0 ] &&
  grep -q '^# allreduce skipped for mpi, host memory, e4m3: fp8 (e4m3, e5m2) runs on the nccl backend only' "$TMP/out" &&
  grep -q '^# allreduce skipped for mpi, host memory, e5m2: fp8' "$TMP/out"
ok $? "the mpi backend skips e4m3 and e5m2 with the nccl-only reason (status $STATUS)"
[ "$(jq -c 'select(.type == "result" and .dtype != "float")' "$TMP/host.jsonl" | wc -l)" -eq 0 ]
ok $? "... and writes no result for them"
# fp8 alone on the mpi backend measures nothing: refused before it starts
mpi 1 --dtype e4m3,e5m2 -e 1K --json "$TMP/none.jsonl"
[ $STATUS -eq 2 ] && grep -q 'nothing to measure.*fp8 (e4m3, e5m2) runs on the nccl backend only' "$TMP/err" &&
  [ ! -e "$TMP/none.jsonl" ]
ok $? "fp8 alone on the mpi backend exits 2 before any output opens (status $STATUS)"

./collbench --list >"$TMP/list" 2>&1
if ! grep -q '^  nccl *usable' "$TMP/list"; then
  for what in "fp8 allgather and allreduce on the nccl backend, wrong = 0 or skipped below sm_90" \
    "device buffers checked by the GPU kernels (no staging note)" \
    "2 ranks --share-gpu: nccl_algo and nccl_proto in the records"; do
    TESTS_RUN=$((TESTS_RUN + 1))
    echo "ok $TESTS_RUN # SKIP no usable GPU: $what"
  done
  finish
fi

mpi 1 --backend nccl --op allgather,allreduce --dtype e4m3,e5m2 -e 64K --max-time 0.05 \
  --json "$TMP/fp8.jsonl"
[ $STATUS -eq 0 ] && jq_all "$TMP/fp8.jsonl" '.wrong == 0' &&
  [ "$(jq -c 'select(.type == "result" and .op == "allgather")' "$TMP/fp8.jsonl" | wc -l)" -gt 0 ] &&
  { grep -q 'allreduce.*e4m3.*compute capability 9.0' "$TMP/out" ||
    [ "$(jq -c 'select(.type == "result" and .op == "allreduce")' "$TMP/fp8.jsonl" | wc -l)" -gt 0 ]; }
ok $? "fp8 allgather and allreduce on the nccl backend, wrong = 0 or skipped below sm_90 (status $STATUS)"
[ $STATUS -eq 0 ] || diag "$TMP/err"
! grep -q 'through host copies' "$TMP/out"
ok $? "device buffers checked by the GPU kernels (no staging note)"
grep 'through host copies' "$TMP/out" | diag

mpi 2 --backend nccl --share-gpu -b 64K -e 1M --max-time 0.05 --json "$TMP/algo.jsonl"
[ $STATUS -eq 0 ] && jq_all "$TMP/algo.jsonl" \
  '.wrong == 0 and (.nccl_algo | test("^(Tree|Ring|CollNetDirect|CollNetChain|NVLS|NVLSTree|PAT)([+].*)?$")) and (.nccl_proto | test("^(LL|LL128|Simple)([+].*)?$"))'
ok $? "2 ranks --share-gpu: nccl_algo and nccl_proto in the records ($(jq -r 'select(.type == "result") | "\(.nccl_algo)/\(.nccl_proto)"' "$TMP/algo.jsonl" 2>/dev/null | head -n 1))"
[ $STATUS -eq 0 ] || diag "$TMP/err"
finish
