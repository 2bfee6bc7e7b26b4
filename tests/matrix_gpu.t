#!/bin/sh
# The GPU all-pairs matrix (--matrix --backend nccl): the options it takes
# and refuses, and with a GPU a real run on 2 ranks sharing it (--share-gpu)
# whose pairs and verdict name GPUs on hosts. Without a GPU the run is a
# visible TAP skip; the schedule and the names are unit-tested
# (tests/unit/test_matrix_names.c).
. tests/lib.sh
plan 6
./collbench --list >"$TMP/list" 2>&1
if grep -q '^  nccl *not built' "$TMP/list"; then
  for _ in 1 2 3 4 5 6; do skip "collbench built without CUDA/NCCL"; done
  exit 0
fi

mpi 2 --matrix --backend nccl --mem host
[ $STATUS -eq 2 ] && grep -q -- '--matrix --backend nccl --mem host: the nccl matrix moves device memory' "$TMP/err"
ok $? "--matrix --backend nccl --mem host exits 2 naming the memory (status $STATUS)"
mpi 2 --matrix --backend mpi
[ $STATUS -eq 2 ] && grep -q -- '--matrix --backend mpi: the matrix runs over MPI (no --backend) or over NCCL' "$TMP/err"
ok $? "--matrix --backend mpi exits 2 saying which backends the matrix runs on (status $STATUS)"

if ! grep -q '^  nccl *usable' "$TMP/list"; then
  # the CLI takes the combination: what stops it is the missing GPU
  echo '{"previous": 1}' >"$TMP/keep.jsonl"
  mpi 2 --matrix --backend nccl --mem device --json "$TMP/keep.jsonl"
  [ $STATUS -eq 2 ] && grep -q -- '--backend nccl: no usable GPU' "$TMP/err" && grep -q previous "$TMP/keep.jsonl"
  ok $? "--matrix --backend nccl --mem device is taken, and refused here for want of a GPU only (status $STATUS: $(head -n 1 "$TMP/err"))"
  for _ in 4 5 6; do skip "no usable GPU: the nccl matrix cannot run here"; done
  finish
fi
skip "a GPU is present (the no-GPU refusal is not tested)"

mpi 2 --matrix=1M --backend nccl --share-gpu --json "$TMP/m.jsonl"
ok $STATUS "2 ranks sharing one GPU: --matrix --backend nccl exits 0 (status $STATUS)"
diag "$TMP/err"
jq -e -s '[.[] | select(.type == "pair" and .round > 0)] | length == 4 and
  all(.src_gpu >= 0 and .dst_gpu >= 0 and (.bw_GBps // .lat_us) > 0)' "$TMP/m.jsonl" >/dev/null
ok $? "each of the 2 ordered pairs has a bandwidth and a latency figure, both ends named by GPU"
jq -e -s 'any(.type == "verdict" and .status == "PASS")' "$TMP/m.jsonl" >/dev/null &&
  grep -q 'nccl: device memory, ncclSend/ncclRecv' "$TMP/out"
ok $? "the matrix says it ran on nccl and gives its verdict"
finish
