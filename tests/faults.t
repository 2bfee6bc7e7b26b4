#!/bin/sh
# Faults of one rank of a 2-rank run (issue 16): kill -9 and SIGSTOP.
# Each: the job ends within a bound, with status 3 (runtime error; for
# kill -9 Open MPI's mpirun itself exits 137 = 128 + SIGKILL), a
# message naming what happened (for SIGSTOP: the stopped rank, as the one
# that did not arrive, with its host, op and size), and the JSON Lines
# written so far stay valid. The run is known to be under way when its
# first result line is in the JSON file (polled, bounded); no sleeps.
. tests/lib.sh
plan 12

# start_run NAME: a long 2-rank run in the background; waits (up to 60 s)
# for a result line. Sets PID (mpirun) and RANK1 (the pid of rank 1).
start_run() {
  json="$TMP/$1.jsonl"
  mpirun -np 2 ./collbench --op allreduce -b 8 -e 16M -n 5000 --max-time 3600 --timeout 3 \
    --json "$json" >"$TMP/$1.out" 2>"$TMP/$1.err" &
  PID=$!
  RANK1=
  deadline=$(($(date +%s) + 60))
  while [ "$(date +%s)" -lt "$deadline" ]; do
    if [ -z "$RANK1" ]; then
      for p in $(pgrep -P "$PID" -f collbench); do
        tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && RANK1=$p
      done
    fi
    [ -n "$RANK1" ] && grep -q '"type":"result"' "$json" 2>/dev/null && return 0
    kill -0 "$PID" 2>/dev/null || return 1
    sleep 0.2 # a polling interval, not a synchronisation
  done
  return 1
}

# end_run: waits for mpirun; sets STATUS and SECS (from the fault to the end).
end_run() {
  wait "$PID"
  STATUS=$?
  SECS=$(($(date +%s) - fault_at))
}

# valid_jsonl FILE: every line parses
valid_jsonl() { jq -e -c . "$1" >/dev/null; }

for fault in KILL STOP; do
  if ! start_run "$fault"; then
    ok 1 "$fault: the run started (result line within 60 s)"
    diag "$TMP/$fault.err"
    skip "$fault: no run"
    skip "$fault: no run"
    skip "$fault: no run"
    skip "$fault: no run"
    continue
  fi
  ok 0 "$fault: the run started (rank 1 is pid $RANK1)"
  fault_at=$(date +%s)
  kill -"$fault" "$RANK1"
  end_run
  kill -CONT "$RANK1" 2>/dev/null # should mpirun have left it stopped
  # --timeout 3, 3 s to ask the other rank, then mpirun's teardown
  [ "$SECS" -le 30 ]
  ok $? "$fault: the job ended $SECS s after the fault (bound 30 s)"
  [ $STATUS -eq 3 ] || { [ $fault = KILL ] && [ $STATUS -eq 137 ]; }
  ok $? "$fault: exit status 3 (or mpirun's 137 for a killed rank; got $STATUS)"
  if [ $fault = KILL ]; then
    grep -q 'exited on signal 9\|signal 9 (Killed)\|rank 1.*could not be reached\|killed' "$TMP/$fault.err"
    ok $? "KILL: the message says a rank was killed"
  else
    grep -q '^collbench: timeout: rank 0 on .* in mpi allreduce [0-9]* [KM]*i*B .*: rank 1 on .* did not arrive' \
      "$TMP/$fault.err"
    ok $? "STOP: rank 0's message names rank 1, its host, the op and size, as the one that did not arrive"
  fi
  [ $? -eq 0 ] || diag "$TMP/$fault.err"
  valid_jsonl "$TMP/$fault.jsonl"
  ok $? "$fault: the JSON Lines written so far are valid ($(wc -l <"$TMP/$fault.jsonl") lines)"
done
# MPI that cannot start (a PML that does not exist) once made collbench
# exit 1, read as "validation failed": now 3 with a line saying so. Under
# mpirun the job's status is mpirun's own; the line is there all the same.
OMPI_MCA_pml=no-such-pml ./collbench -e 1K >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 3 ] && grep -q '^collbench: error: MPI could not start' "$TMP/err" && ! grep -q '^ *1024' "$TMP/out"
ok $? "MPI that cannot start: exit 3, said so (exit $st)"
[ $st -eq 3 ] || diag "$TMP/err"
OMPI_MCA_pml=no-such-pml mpirun -np 2 ./collbench -e 1K >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -ne 0 ] && grep -q '^collbench: error: MPI could not start' "$TMP/err"
ok $? "the same under mpirun -np 2: the job fails (mpirun's status $st), the line names why"
finish
