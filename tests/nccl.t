#!/bin/sh
# The nccl backend and GPU memory. Without a GPU (CI): every GPU request is
# refused with CUDA's reason and exit 2, --sweep runs the host backends and
# says nccl was skipped, and the GPU runs are visible TAP skips. With a GPU:
# 1 rank, 2 ranks sharing it (--share-gpu), --graph, and a stalled rank that
# the watchdog names (exit 3), all checked with wrong = 0.
. tests/lib.sh
plan 14
./collbench --list >"$TMP/list" 2>&1
if grep -q '^  nccl *not built' "$TMP/list"; then
  ok 0 "this build has no nccl backend and --list says why: $(grep '^  nccl' "$TMP/list" | sed 's/  */ /g')"
  for i in $(seq 2 14); do echo "ok $i # SKIP collbench built without CUDA/NCCL"; done
  exit 0
fi
gpu=0
grep -q '^  nccl *usable' "$TMP/list" && gpu=1

if [ $gpu -eq 0 ]; then
  grep -q '^  nccl *not usable (no usable GPU (cudaGetDeviceCount: .*))' "$TMP/list"
  ok $? "--list: nccl not usable, with cudaGetDeviceCount's reason"
  grep -q '^  device *no usable GPU (cudaGetDeviceCount: ' "$TMP/list" &&
    grep -q '^  pinned *no usable GPU (cudaGetDeviceCount: ' "$TMP/list"
  ok $? "--list: device and pinned memory say why they are unusable"

  echo '{"previous": 1}' >"$TMP/keep.jsonl"
  mpi 1 --backend nccl --json "$TMP/keep.jsonl"
  [ $STATUS -eq 2 ] && grep -q -- '--backend nccl: no usable GPU (cudaGetDeviceCount: ' "$TMP/err" &&
    ! grep -q -- "Try 'collbench --help'" "$TMP/err"
  ok $? "--backend nccl exits 2 naming the reason, with no --help hint: the command line is sound (status $STATUS)"
  grep -q previous "$TMP/keep.jsonl"
  ok $? "... and runs nothing: the earlier --json file is untouched"

  mpi 1 --mem device
  [ $STATUS -eq 2 ] && grep -q -- '--mem device: no usable GPU' "$TMP/err"
  ok $? "--mem device exits 2 with the reason (status $STATUS)"

  mpi 1 --sweep -e 256 --max-time 0.02 --json "$TMP/sweep.jsonl"
  [ $STATUS -eq 0 ] && grep -q '^# backend nccl skipped: no usable GPU' "$TMP/out"
  ok $? "--sweep runs the host backends (status $STATUS) and notes that nccl was skipped"
  jq_all "$TMP/sweep.jsonl" '.backend != "nccl" and .mem == "host" and .wrong == 0'
  ok $? "... every sweep record is of host memory on a host backend, checked"
else
  grep -q '^  nccl *usable (NCCL [0-9.]*, CUDA runtime' "$TMP/list"
  ok $? "--list: nccl usable, with NCCL's version"
  grep -q '^  device *usable' "$TMP/list"
  ok $? "--list: device memory usable"
  for i in 3 4 5 6 7; do skip "a GPU is present (no-GPU messages not tested)"; done
fi

mpi 1 --backend nccl --graph 0
[ $STATUS -eq 2 ] && grep -q -- '--graph' "$TMP/err"
ok $? "--graph 0 is refused with exit 2"
mpi 1 --backend mpi --graph 10
[ $STATUS -eq 2 ] && grep -q -- '--graph 10: only the nccl backend' "$TMP/err"
ok $? "--graph with the mpi backend is refused with exit 2"
mpi 1 --gpu-list 0,x
[ $STATUS -eq 2 ] && grep -q -- "--gpu-list" "$TMP/err"
ok $? "--gpu-list with a bad entry exits 2 naming it"

if [ $gpu -eq 0 ]; then
  for what in "1 rank allreduce on the GPU, wrong = 0" \
    "2 ranks --share-gpu allreduce over NCCL's network, wrong = 0" \
    "--graph 20: allreduce timed as CUDA graph launches, wrong = 0" \
    "COLLBENCH_STALL_RANK=1: the watchdog aborts NCCL and names the stuck op (exit 3)"; do
    TESTS_RUN=$((TESTS_RUN + 1))
    echo "ok $TESTS_RUN # SKIP no GPU: $what"
  done
  finish
fi

mpi 1 --backend nccl -e 1M --max-time 0.05 --json "$TMP/one.jsonl"
[ $STATUS -eq 0 ] && jq_all "$TMP/one.jsonl" '.backend == "nccl" and .mem == "device" and .wrong == 0'
ok $? "1 rank allreduce on the GPU, wrong = 0 (status $STATUS)"
[ $STATUS -eq 0 ] || diag "$TMP/err"

mpi 2 --backend nccl --share-gpu -e 1M --max-time 0.05 --json "$TMP/two.jsonl"
[ $STATUS -eq 0 ] && jq_all "$TMP/two.jsonl" '.nranks == 2 and .wrong == 0'
ok $? "2 ranks --share-gpu allreduce over NCCL's network, wrong = 0 (status $STATUS; path $(jq -r 'select(.type == "result") | .transport' "$TMP/two.jsonl" 2>/dev/null | head -n 1))"
[ $STATUS -eq 0 ] || diag "$TMP/err"

mpi 1 --backend nccl --graph 20 -e 64K --max-time 0.05 --json "$TMP/graph.jsonl"
[ $STATUS -eq 0 ] && jq_all "$TMP/graph.jsonl" '.wrong == 0 and .time_us > 0'
ok $? "--graph 20: allreduce timed as CUDA graph launches, wrong = 0 (status $STATUS)"

COLLBENCH_STALL_RANK=1 mpi 2 --backend nccl --share-gpu -b 1K -e 1K --timeout 5
[ $STATUS -eq 3 ] && grep -q 'timeout: rank 0 .*nccl allreduce' "$TMP/err"
ok $? "COLLBENCH_STALL_RANK=1: the watchdog aborts NCCL and names the stuck op (exit 3, got $STATUS)"
[ $STATUS -eq 3 ] || diag "$TMP/err"
finish
