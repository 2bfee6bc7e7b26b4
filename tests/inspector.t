#!/bin/sh
# --import-inspector and --calls (issue 59 item 5): NCCL Inspector's output
# read into the calls a job made, and those calls measured here. The fixture
# (tests/fixtures/inspector/) is two processes' files of a tp=2,dp=2 job
# written line for line in the format of NCCL's
# plugins/profiler/inspector/inspector_json.cc (v4.0): per step 4 all-reduces
# of 8 MiB on the tensor-parallel group, an all-gather and a reduce-scatter of
# 16 MiB a rank on each data-parallel group, a Reduce and a Send; two steps,
# each call logged by both ranks of its communicator. Hand count: allreduce
# 8 calls on 1 communicator (slowest ranks 160-163 us: median 161.5),
# allgather and reducescatter 4 calls on 2 (32 MiB rows, as nccl-tests counts
# them), Reduce 4 (no collbench op), 20 calls, 4 p2p lines passed over.
# --tune --calls tunes each of those calls' Open MPI algorithms at its size.
. tests/lib.sh
plan 14
fx=tests/fixtures/inspector
./collbench --import-inspector "$fx" --out "$TMP/calls.jsonl" >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 0 ] && grep -q '^# what the job called: 20 collective calls in 32 lines of 2 files (4 p2p lines passed over)$' "$TMP/out"
ok $? "the fixture's folder: 20 calls in 32 lines of 2 files, 4 p2p lines (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
grep -Eq '^  allreduce +2 +1 +8388608 +8 +1 +40\.0% +161\.5 ' "$TMP/out" &&
  grep -Eq '^  allgather +2 +1 +33554432 +4 +2 +20\.0% +625\.0 ' "$TMP/out" &&
  grep -Eq '^  reducescatter +2 +1 +33554432 +4 +2 +20\.0% +665\.0 ' "$TMP/out" &&
  grep -Eq '^  Reduce +2 +1 +1048576 +4 +2 .*\(no collbench op: not measured\)$' "$TMP/out"
ok $? "each call as counted by hand: sizes, calls, communicators, shares, NCCL's median times"
jq -s -e '.[0].type == "calls" and .[0].calls == 20 and ([.[1:][] | .calls] | add) == 20
  and ([.[1:][] | select(.op == "allreduce")][0] | .time_us_nccl == 161.5 and .comms == 1)' \
  "$TMP/calls.jsonl" >/dev/null
ok $? "the calls file: its header and one line per call, the same counts"
./collbench --import-inspector "$fx/node1-pid4102.log" "$fx/node1-pid4101.log" >"$TMP/files" 2>&1
grep -v '^wrote' "$TMP/out" | cmp -s - "$TMP/files"
ok $? "the two files named, in any order, give what their folder gave"

# bad input: nothing written, an existing --out kept
echo keep >"$TMP/keep"
printf '{"type":"run"}\n' >"$TMP/collbench.jsonl"
./collbench --import-inspector "$fx" "$TMP/collbench.jsonl" --out "$TMP/keep" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "collbench.jsonl: line 1 is not NCCL Inspector output: no header with id, n_ranks and nnodes" "$TMP/out" &&
  [ "$(cat "$TMP/keep")" = keep ]
ok $? "a collbench file among them: exit 2 naming file and line, --out kept"
mkdir "$TMP/none"
./collbench --import-inspector "$TMP/none" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'a folder with no files' "$TMP/out"
ok $? "an empty folder: exit 2"

# --calls: the job's calls measured here on 2 ranks, as many as its communicators had
mpi 2 --calls "$TMP/calls.jsonl" --variant out-of-place --max-time 0.05 --json "$TMP/m.jsonl"
st=$STATUS
[ $st -eq 0 ] && grep -q '^# Out of bounds values : 0 OK' "$TMP/out" &&
  grep -q '^# --calls: Reduce of 1048576 B on 2 ranks (4 calls) left out: no collbench op$' "$TMP/out" &&
  grep -Eq '^# --calls: the 16 calls measured take [0-9.e+]+ ms here, 6\.452 ms as NCCL logged them in the job \(here/job x[0-9.e+]+\)$' "$TMP/out"
ok $? "--calls on 2 ranks: exit 0, exact, Reduce left out, the 16 calls' total beside NCCL's 6.452 ms (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
jq -s -e '[.[] | select(.type == "result")] | length == 3 and all(.wrong == 0)
  and ([.[] | "\(.op) \(.bytes)"] | sort) == ["allgather 33554432", "allreduce 8388608", "reducescatter 33554432"]' \
  "$TMP/m.jsonl" >/dev/null
ok $? "one record per measurable call, at the job's own sizes"
mpi 4 --calls "$TMP/calls.jsonl" --json "$TMP/m4.jsonl"
[ $STATUS -eq 2 ] && grep -q 'no call collbench can measure was made on 4 ranks (its calls were on 2)' "$TMP/err" &&
  [ ! -e "$TMP/m4.jsonl" ]
ok $? "--calls on 4 ranks: exit 2 naming both rank counts, nothing written (exit $STATUS)"
./collbench --calls "$TMP/calls.jsonl" --op allreduce >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q -- '--op does not go with it' "$TMP/out"
ok $? "--calls with --op: exit 2"
# --tune --calls: each call's coll/tuned algorithms, at its size, on 2 ranks
mpi 2 --tune --calls "$TMP/calls.jsonl" --tune-reps 2 --env-out "$TMP/calls.env"
st=$STATUS
NUM='[0-9.]+ \[[0-9.]+, [0-9.]+\]'
[ $st -eq 0 ] && grep -q "^# --tune --calls $TMP/calls.jsonl: each call's Open MPI coll/tuned algorithms at its size, 2 rounds" "$TMP/out" &&
  grep -Eq "^  allreduce +8388608 +8 +$NUM +[a-z_]+ $NUM\$" "$TMP/out" &&
  grep -Eq "^  allgather +33554432 +4 +$NUM +[a-z_]+ $NUM\$" "$TMP/out" &&
  grep -Eq "^  reducescatter +33554432 +4 +$NUM +[a-z_]+ $NUM\$" "$TMP/out" &&
  grep -q '^# Reduce of 1048576 B on 2 ranks (4 calls) left out: no collbench op$' "$TMP/out" &&
  grep -Eq '^total, weighted by calls: library [0-9.e+]+ ms, tuned [0-9.e+]+ ms \([0-9.-]+% less\); the job.s NCCL logged 6\.452 ms for them$' "$TMP/out"
ok $? "--tune --calls on 2 ranks: each call's library and tuned times, Reduce left out, the totals beside NCCL's (exit $st)"
[ $st -eq 0 ] || diag "$TMP/err"
exports=$(grep -v '^#' "$TMP/calls.env")
sh -n "$TMP/calls.env" &&
  ! echo "$exports" | grep -Evq "^(export OMPI_MCA_coll_tuned_(use_dynamic_rules|allreduce_algorithm|allgather_algorithm|reduce_scatter_block_algorithm)='[0-9]')?\$" &&
  { [ -z "$exports" ] || echo "$exports" | grep -q "^export OMPI_MCA_coll_tuned_use_dynamic_rules='1'\$"; }
ok $? "--env-out: coll/tuned's variables only, dynamic rules on wherever an algorithm is set"
mpi 2 --tune --calls "$TMP/calls.jsonl" --parallel dp=2
[ $STATUS -eq 2 ] && grep -q -- '--parallel with --tune --calls' "$TMP/err"
ok $? "--tune --calls with --parallel: exit 2 (exit $STATUS)"
./collbench --calls "$fx/node1-pid4101.log" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'line 1 is not the calls header (write one with --import-inspector)' "$TMP/out"
ok $? "--calls given Inspector's own file: exit 2 saying what to run first"
finish
