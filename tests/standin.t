#!/bin/sh
# The GPU paths without a GPU (issue 75): scripts/gpu-check.sh --standin runs
# the GPU machine's plan against the test stand-in of CUDA and NCCL
# (tests/fixtures/standin, STANDIN.md there), then the findings the stand-in
# can show, each of which failed on the code before its fix.
. tests/lib.sh
plan 9
if [ ! -e build/standin/libnccl.so.2 ]; then
  for i in 1 2 3 4 5 6 7 8 9; do skip "no stand-in: this build has no CUDA and NCCL to stand in for"; done
  finish
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
# (mpirun itself, not lib.sh's mpi: the stand-in goes in through env)
SI="env LD_LIBRARY_PATH=$PWD/build/standin"

# the plan: every step passes, or is skipped saying why
GPU_CHECK_OUT=$TMP/gc sh scripts/gpu-check.sh --standin basics nccl copy watchdog ran anchor ucx tests \
  >"$TMP/gc.out" 2>&1
st=$?
R=$TMP/gc/report.txt
pass=$(grep -c '^PASS ' "$R") fail=$(grep -c '^FAIL ' "$R")
[ $st -eq 0 ] && [ "$fail" -eq 0 ] && [ "$pass" -ge 16 ]
ok $? "gpu-check --standin: exit $st, $pass steps PASS, $fail FAIL"
[ $st -eq 0 ] || diag "$R"
# finding 1: one rank makes no kernel plan, so no row says what ran; finding
# 2: forced NVLS is refused with NCCL's words (no fallback), exit 3
grep -q '^  ran-1: 0 of [1-9][0-9]* nccl rows say what ran' "$R" &&
  grep -q '^  ran-2: \([0-9]*\) of \1 nccl rows say what ran' "$R" && grep -q '^PASS ran-nvls (exit 3' "$R" &&
  grep -q 'no algorithm/protocol available.*NCCL_ALGO was set to NVLS' "$TMP/gc/ran-nvls.out"
ok $? "one rank: no row says what ran; two: every row; forced NVLS refused with NCCL's words"
grep -q '^SKIP anchor (stand-in: ' "$R" && grep -q '^SKIP ucx (stand-in: ' "$R" &&
  grep -q '^SKIP tests (stand-in: ' "$R" &&
  grep -q 'copy_sm and copy_sm_bidir not measured: the SM copy kernel cannot run' "$TMP/gc/copy.out"
ok $? "what needs hardware is skipped saying why (anchor, ucx, tests, the SM copy kernel)"
# no figure from the stand-in passes for a GPU's: the header, the run record
# and the library's version say so
grep -q '^# not a GPU: collbench.s stand-in' "$TMP/gc/share-2.out" &&
  grep '"type":"run"' "$TMP/gc/share-2.jsonl" | grep -q '"standin":"collbench.s stand-in' &&
  grep -q '"version":"NCCL 2.28.9, CUDA runtime 13.0 (the test stand-in, no GPU)"' "$TMP/gc/share-2.jsonl"
ok $? "the stand-in's runs say so in the header, the run record and NCCL's version"

# the stand-in's reductions and collbench's checks agree on every type and op
mpirun -np 2 $SI ./collbench --backend nccl --mem device --share-gpu --op allreduce,reducescatter,allgather \
  --dtype all --redop all -e 4K --check 1 --max-time 0.005 >"$TMP/dt.out" 2>&1
st=$?
[ $st -eq 0 ] && grep -q '^# Out of bounds values : 0 OK' "$TMP/dt.out"
ok $? "every dtype and redop through the stand-in checked exact (exit $st)"

# finding 5: NCCL_ALGO in the per-collective form --env-out writes forces
# allreduce only; broadcast's rows are not marked as running other than asked
NCCL_ALGO='allreduce:ring' mpirun -np 2 -x NCCL_ALGO $SI ./collbench --backend nccl --mem device --share-gpu \
  --op allreduce,broadcast -e 64K --max-time 0.005 --json "$TMP/f5.jsonl" >"$TMP/f5.out" 2>&1
st=$?
rows=$(grep -c '"nccl_ran":' "$TMP/f5.jsonl") other=$(grep -c '"nccl_ran_other":true' "$TMP/f5.jsonl")
ring=$(grep '"op":"allreduce"' "$TMP/f5.jsonl" | grep -c '"nccl_ran":"RING/')
[ $st -eq 0 ] && [ "$rows" -gt 0 ] && [ "$other" -eq 0 ] && [ "$ring" -gt 0 ]
ok $? "NCCL_ALGO=allreduce:ring: $rows rows say what ran, $other ran other than asked (exit $st)"

# finding 7: an abort after --register symmetric deregisters no window on
# the aborted communicator (the stand-in crashes as NCCL would)
STANDIN_FAULT=async:1:20 mpirun -np 2 -x STANDIN_FAULT $SI ./collbench --backend nccl --mem device \
  --share-gpu --op allreduce --register symmetric -e 64K --max-time 0.005 >"$TMP/f7.out" 2>&1
st=$?
[ $st -eq 3 ] && grep -q 'remote process exited or there was a network error' "$TMP/f7.out" &&
  ! grep -q 'ncclCommWindowDeregister(NULL' "$TMP/f7.out"
ok $? "an async error under --register symmetric: exit $st with NCCL's words, no deregistration crash"
[ $st -eq 3 ] || diag "$TMP/f7.out"

# a rank the stand-in refuses (nothing can run there) ends the run with
# NCCL's words, not a hang
STANDIN_FAULT=refuse:1 mpirun -np 2 -x STANDIN_FAULT $SI ./collbench --backend nccl --mem device \
  --share-gpu --op allreduce -e 64K --max-time 0.005 --timeout 60 >"$TMP/ref.out" 2>&1
st=$?
[ $st -eq 3 ] && grep -q 'rank 1 .*internal error.*no algorithm/protocol available for function AllReduce' "$TMP/ref.out"
ok $? "a collective refused on one rank only: exit $st with NCCL's code and words"

# a failing cudaMalloc: the sizes that do not fit are skipped, saying why
# with CUDA's words (as on a GPU whose memory is taken)
STANDIN_FAULT=alloc:0 mpirun -np 2 -x STANDIN_FAULT $SI ./collbench --backend nccl --mem device \
  --share-gpu --op allreduce -e 64K --max-time 0.005 >"$TMP/al.out" 2>&1
st=$?
[ $st -eq 0 ] && grep -q 'rank 0 .*cudaMalloc failed for [0-9]* bytes: out of memory (2)' "$TMP/al.out" &&
  grep -q '^# allreduce 64 KiB skipped: buffers do not fit on every rank' "$TMP/al.out" &&
  grep -q '^# 0 rows, 0 records' "$TMP/al.out"
ok $? "cudaMalloc failing on rank 0: every size skipped with CUDA's words (exit $st)"
[ $st -eq 0 ] || diag "$TMP/al.out"
finish
