#!/bin/sh
# The GPU paths without a GPU (issue 75): scripts/gpu-check.sh --standin runs
# the GPU machine's plan against the test stand-in of CUDA and NCCL
# (tests/fixtures/standin, STANDIN.md there), then the findings the stand-in
# can show, each of which failed on the code before its fix.
. tests/lib.sh
plan 12
if [ ! -e build/standin/libnccl.so.2 ]; then
  for i in 1 2 3 4 5 6 7 8 9 10 11 12; do skip "no stand-in: this build has no CUDA and NCCL to stand in for"; done
  finish
fi
export OMPI_MCA_rmaps_base_oversubscribe=1
# (mpirun itself, not lib.sh's mpi: the stand-in goes in through env)
SI="env LD_LIBRARY_PATH=$PWD/build/standin"

# the whole plan: every step passes, or is skipped saying why
GPU_CHECK_OUT=$TMP/gc sh scripts/gpu-check.sh --standin >"$TMP/gc.out" 2>&1
st=$?
R=$TMP/gc/report.txt
pass=$(grep -c '^PASS ' "$R") fail=$(grep -c '^FAIL ' "$R")
[ $st -eq 0 ] && [ "$fail" -eq 0 ] && [ "$pass" -ge 27 ]
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
# the tuner and the layouts, where collbench's kernels cannot run: the host's
# step with its gradients on the GPU, NCCL loading collbench's tuner plugin
# and applying its rules; --concurrent checked through host copies
grep -q 'the step is computed on the host (OpenBLAS, float) and its gradients copied to the GPU' \
  "$TMP/gc/tune-tiny.out" && grep -q '^  the plugin applied [1-9][0-9]* decision(s) by the rules' "$R" &&
  grep -q '^PASS layout-rules' "$R" && grep -q '^PASS layout-gpt2-tp' "$R" &&
  grep -q '^# Out of bounds values : 0 OK' "$TMP/gc/concurrent-nccl.out"
ok $? "--tune on the host's step, its rules applied through NCCL's tuner plugin; layouts; --concurrent checked"

# no figure from the stand-in passes for a GPU's: the header, the run record
# and the library's version say so
grep -q '^# not hardware: collbench.s stand-in' "$TMP/gc/share-2.out" &&
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
# finding 9: tuner v6 (NCCL 2.30.7): a rule's chunk under LL128's grain (1920
# bytes, not 1792) is left to NCCL; the stand-in fails a chunk of 0 grains
printf '# collbench-tuner-rules 1\nallreduce,0,65535,ring,ll128,-1,-1,-1,-1,-1,none,1800\n%s\n' \
  'allreduce,65536,18446744073709551615,ring,ll128,-1,-1,-1,-1,-1,none,4096' >"$TMP/chunk.rules"
STANDIN_NCCL_VERSION=23007 NCCL_TUNER_PLUGIN=$PWD/build/libnccl-tuner-collbench.so \
  COLLBENCH_TUNER_RULES=$TMP/chunk.rules NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING \
  mpirun -np 2 -x STANDIN_NCCL_VERSION -x NCCL_TUNER_PLUGIN -x COLLBENCH_TUNER_RULES -x NCCL_DEBUG \
  -x NCCL_DEBUG_SUBSYS $SI ./collbench --backend nccl --mem device --share-gpu --op allreduce -e 256K \
  --max-time 0.005 >"$TMP/f9.out" 2>&1
st=$?
[ $st -eq 0 ] && grep -q 'TUNER/Plugin: Using collbench (v6)' "$TMP/f9.out" &&
  grep -q 'chunk 131072, NCCL.s (the rule.s chunk size is under the protocol.s grain)' "$TMP/f9.out" &&
  grep -q 'ran ring/ll128 on 1 channels: chunk 131072 -> 4096 by the rule of line 3' "$TMP/f9.out"
ok $? "tuner v6: a chunk under LL128's 1920-byte grain left to NCCL, 4096 applied (exit $st)"
[ $st -eq 0 ] || diag "$TMP/f9.out"
# finding 12: NCCL 2.24 to 2.26 look for profiler v2 and v3, which the
# plugin now exports; each row says which interface NCCL took
got=
for v in 22503 22606 22809 23007; do
  STANDIN_NCCL_VERSION=$v mpirun -np 2 -x STANDIN_NCCL_VERSION $SI ./collbench --backend nccl --mem device \
    --share-gpu --op allreduce -e 1K --max-time 0.005 --json "$TMP/p$v.jsonl" >"$TMP/p$v.out" 2>&1
  rows=$(grep -c '"nccl_ran":"RING/\|"nccl_ran":"TREE/' "$TMP/p$v.jsonl")
  got="$got $v:$rows:$(grep -o '"nccl_profiler":[0-9]*' "$TMP/p$v.jsonl" | sort -u | tr -d '\n' | sed 's/"nccl_profiler"://g')"
done
[ "$got" = " 22503:16:2 22606:16:3 22809:16:5 23007:16:6" ]
ok $? "the profiler plugin as NCCL 2.25, 2.26, 2.28 and 2.30 take it (version:rows:interface):$got"
finish
