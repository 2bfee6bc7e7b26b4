#!/bin/sh
# --duration (issue 42): a burn-in of passes ("intervals") on 2 ranks, every
# record with its interval, each case judged over the run. Faults are
# planted through MPI's profiling interface (tests/fixtures/standin/
# mpi_fault.c, preloaded): a wrong value from some time on must FAIL at
# once naming its interval; a slowdown from some time on must FAIL the
# drift; a healthy run must not FAIL (noise may leave it INCONCLUSIVE).
. tests/lib.sh
plan 40

# bad durations: exit 2 naming the value, nothing run, nothing replaced
echo '{"keep": 1}' >"$TMP/keep.jsonl"
for d in 0 -5m 10x 1e400 400d abc 0x1 0x1p3s 366d; do
  ./collbench --duration "$d" --json "$TMP/keep.jsonl" >"$TMP/out" 2>"$TMP/err"
  st=$?
  [ $st -eq 2 ] && grep -q -- "--duration: '$d'" "$TMP/err" && grep -q keep "$TMP/keep.jsonl"
  ok $? "--duration $d: exit 2 naming it, the earlier file kept (got $st: $(head -c 120 "$TMP/err"))"
done
./collbench --duration 1m --probe >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- "--duration goes with a sweep.*a burn-in of --probe is not built" "$TMP/err"
ok $? "--duration with --probe: exit 2 (nothing to judge over time)"

./collbench --drift-limit 25% >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- '--drift-limit goes with --duration' "$TMP/err"
ok $? "--drift-limit without --duration: exit 2"
./collbench --duration 1m --drift-limit 0 >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q -- "--drift-limit: '0' is out of range" "$TMP/err"
ok $? "--drift-limit 0: exit 2 naming it"

run="-b 1K -e 1K -n 20 -w 2 --json $TMP/b.jsonl"

# healthy: no FAIL; each record with its interval, the intervals 1, 2, ...
# (a limit of 1000%: this VM's load may change over 6 s, and a real change
# in speed is a drift; a wrong value would fail whatever the limit)
mpi 2 $run --duration 6 --drift-limit 1000% --prom "$TMP/b.prom" --csv "$TMP/b.csv"
h=$STATUS
jq -s -e '[.[] | select(.type == "verdict") | .status] | length == 2 and all(. != "FAIL")' \
  "$TMP/b.jsonl" >/dev/null
ok $? "healthy, 6 s: a verdict per case (in and out of place), none FAIL (exit $h)"
[ $h -eq 0 ] || [ $h -eq 1 ] && ! grep -q '^  FAIL' "$TMP/out"
ok $? "... exit 0, or 1 with only INCONCLUSIVE verdicts (noise) (exit $h)"
jq -s -e '[.[] | select(.type == "result")] as $r | ($r | length) >= 4 and
  ([$r[] | .interval] | unique) == [range(1; ([$r[] | .interval] | max) + 1)] and
  all($r[]; .interval_start | test("^20[0-9-]+T[0-9:]+Z$")) and
  ([.[] | select(.type == "run")] | length) == 1' "$TMP/b.jsonl" >/dev/null
ok $? "every result line has its interval (1, 2, ... none missing) and the interval's start; one run record"
[ "$(grep -c '^collbench_time_seconds{' "$TMP/b.prom")" -eq 2 ] && grep -q '^collbench_acceptance_verdict{' "$TMP/b.prom"
ok $? "--prom: one gauge per case (the latest interval's), and the verdicts"
promtool_ok "$TMP/b.prom"
head -n 1 "$TMP/b.csv" | grep -q ',noisy,interval,interval_start$' &&
  [ "$(awk -F, 'NR > 1 && $(NF - 1) >= 1 && $NF ~ /^20[0-9-]+T[0-9:]+Z$/' "$TMP/b.csv" | wc -l)" -eq \
    "$(jq -s '[.[] | select(.type == "result")] | length' "$TMP/b.jsonl")" ]
ok $? "--csv: the interval and its start as the last two columns, on every line"

# --report draws the series against the clock; the sweep's charts keep one
# point per size (the first interval's)
if have_gnuplot; then
  ./collbench --report "$TMP/b.jsonl" --out "$TMP/brep" >"$TMP/rout" 2>&1
  st=$?
  [ $st -eq 0 ] && png_ok "$TMP/brep/burnin1_1.png" && [ -s "$TMP/brep/burnin1_1.svg" ] &&
    [ "$(awk 'NF == 0 {blank++} END {print blank / 2 + 1}' "$TMP/brep/burnin1_1.dat")" -eq 2 ] &&
    [ "$(grep -c . "$TMP/brep/burnin1_1.dat")" -eq "$(jq -s '[.[] | select(.type == "result")] | length' "$TMP/b.jsonl")" ] &&
    grep -q '<h2>Burn-in</h2>' "$TMP/brep/index.html" && grep -q 'src="burnin1_1.png"' "$TMP/brep/index.html"
  ok $? "--report: the burn-in's chart, a block per case and a point per result line, in index.html (exit $st)"
  [ "$(grep -c '^1024 ' "$TMP/brep/allreduce.dat")" -eq 2 ]
  ok $? "... the sweep's chart data has one row for 1 KiB per case (in and out of place), not one per interval"
else
  skip "no gnuplot: --report draws nothing"
  skip "no gnuplot: --report draws nothing"
fi

# --accept over time: each check judged over the intervals, one run record
# (a limit of 500 ms no 1 KiB all-reduce reaches, however loaded the
# machine: 2 ms was crossed under two CPU hogs, and this is about the
# verdict's shape, not the speed)
cat >"$TMP/ar.conf" <<'CONF'
[system]
name = burn-in of one check
[check ar-time]
op = allreduce
backend = mpi
size = 1K
metric = time
fail = 500 ms
CONF
mpi 2 --accept "$TMP/ar.conf" --max-time 0.05 --duration 6 --drift-limit 1000% --json "$TMP/a.jsonl" \
  --exclude-out "$TMP/a.excl"
st=$STATUS
jq -s -e '([.[] | select(.type == "run")] | length) == 1 and
  ([.[] | select(.type == "result") | .interval] | max) as $m | $m >= 3 and
  ([.[] | select(.type == "verdict" and .check == "ar-time")] | length == 1 and
    (.[0].status == "PASS") and (.[0].what | test("PASS in [0-9]+ of " + ($m | tostring) + " intervals")))' \
  "$TMP/a.jsonl" >/dev/null && [ -f "$TMP/a.excl" ] && [ ! -s "$TMP/a.excl" ]
r=$?
ok $r "--accept --duration: one run record, the check PASS over every interval, nothing to exclude (exit $st)"
[ $r -eq 0 ] || jq -c 'select(.type == "verdict")' "$TMP/a.jsonl" | diag
mpi 2 --accept "$TMP/ar.conf" --duration 1m --json "$TMP/a.jsonl" --resume
[ $STATUS -eq 2 ] && grep -q -- "--resume with --duration goes on with a sweep's burn-in" "$TMP/err"
ok $? "--accept --duration --resume: exit 2 (an acceptance's passes start again)"

# --matrix over time: one verdict over the intervals for the matrix, the
# pairs of the first pass only (a link may be flagged in a loaded moment:
# exit 0 or 1, the verdict's count says in how many)
mpi 2 --matrix=64K --duration 3 --json "$TMP/x.jsonl"
st=$STATUS
n=$(grep -c '^# interval [0-9]* done' "$TMP/out")
{ [ $st -eq 0 ] || [ $st -eq 1 ]; } && [ "$n" -ge 2 ] &&
  jq -s -e --argjson n "$n" '([.[] | select(.type == "run")] | length) == 1 and
  ([.[] | select(.type == "verdict" and .check == "matrix")] | length == 1 and
    (.[0].what | test(" of " + ($n | tostring) + " intervals"))) and
  ([.[] | select(.type == "pair" and .round > 0)] | group_by([.src, .dst, .round, .bytes]) | map(length) | max) == 1' \
  "$TMP/x.jsonl" >/dev/null
ok $? "--matrix --duration: $n intervals, one matrix verdict over all of them, one pass's pairs (exit $st)"

# kill -9 in the middle, then --resume: one verdict per case over every
# interval of both parts, nothing lost or doubled (a kill between an
# interval's two rows leaves that interval to the out-of-place case alone:
# each verdict counts its own case's intervals)
krun="-b 1K -e 1K -n 20 -w 2 --json $TMP/k.jsonl"
mpirun -np 2 ./collbench $krun --duration 20 --prom "$TMP/k.prom" >"$TMP/k.out" 2>&1 &
mp=$!
wait_interval "$TMP/k.jsonl" 3 $mp
pkill -9 -f "collbench $krun --duration 20"
wait $mp
grep -q '^collbench_time_seconds{' "$TMP/k.prom"
ok $? "--prom rewritten after every interval: the killed run's file is there, with its figures"
before=$(jq -s '[.[] | select(.type == "result") | .interval] | max' "$TMP/k.jsonl")
cp "$TMP/k.jsonl" "$TMP/killed.jsonl"
mpi 2 $krun --duration 20 --resume
st=$STATUS
jq -s -e --argjson b "$before" '[.[] | select(.type == "result")] as $r | ([$r[] | .interval] | max) as $m |
  $m > $b and ([$r[] | .interval] | unique) == [range(1; $m + 1)] and
  ([$r | group_by(.interval, .inplace)[] | length] | max) == 1 and
  ([.[] | select(.type == "run")] | length) == 1 and
  ([.[] | select(.type == "verdict")] | length) == 2 and
  all(.[] | select(.type == "verdict"); (.check | endswith("in-place")) as $ip |
    ([$r[] | select(.inplace == $ip)] | length) as $n | .what | test("over \($n) intervals|wrong|too few"))' \
  "$TMP/k.jsonl" >/dev/null
ok $? "killed after interval $before, resumed: intervals 1 to the last once each, one run record, 2 verdicts over all of them (exit $st)"
cp "$TMP/killed.jsonl" "$TMP/k2.jsonl"
mpi 2 -b 1K -e 2K -n 20 -w 2 --json "$TMP/k2.jsonl" --duration 20 --resume
[ $STATUS -eq 2 ] && grep -q "another configuration: its max_bytes is 1024, this run's 2048" "$TMP/err" &&
  cmp -s "$TMP/killed.jsonl" "$TMP/k2.jsonl"
ok $? "--resume with other sizes: exit 2 naming what differs, the file untouched"
mpi 1 -b 1K -e 1K -n 20 -w 2 --json "$TMP/k2.jsonl" --duration 20 --resume
[ $STATUS -eq 2 ] && grep -q "measured on other nodes or ranks" "$TMP/err" && cmp -s "$TMP/killed.jsonl" "$TMP/k2.jsonl"
ok $? "--resume on another rank count: exit 2, the file untouched"
mpi 2 $krun --duration 20 --resume
[ $STATUS -eq 2 ] && grep -q "the burn-in ended already" "$TMP/err"
ok $? "--resume of a finished burn-in: exit 2, it says so"

# SIGTERM on every rank (as Slurm's scancel and preemption send it): the
# row in progress ends, the verdicts over the intervals done are written
# as partial, exit 3; --resume goes on and writes the whole verdicts
srun="-b 1K -e 1K -n 20 -w 2 --json $TMP/s.jsonl"
mpirun -np 2 ./collbench $srun --duration 20 >"$TMP/s.out" 2>"$TMP/s.err" &
mp=$!
wait_interval "$TMP/s.jsonl" 2 $mp
pkill -TERM -f "^./collbench $srun"
wait $mp
st=$?
[ $st -eq 3 ] && jq -e . "$TMP/s.jsonl" >/dev/null && grep -q 'burn-in stopped by SIGTERM after' "$TMP/s.err" &&
  jq -s -e '[.[] | select(.type == "verdict")] | length == 2 and all(.partial == true)' "$TMP/s.jsonl" >/dev/null
ok $? "SIGTERM on both ranks: exit 3, every line whole, 2 verdicts marked partial (exit $st)"
done1=$(last_interval "$TMP/s.jsonl")
mpi 2 $srun --duration 20 --resume
st=$STATUS
jq -s -e --argjson b "$done1" '[.[] | select(.type == "result")] as $r | ([$r[] | .interval] | max) as $m |
  $m > $b and ([$r[] | .interval] | unique) == [range(1; $m + 1)] and
  ([$r | group_by(.interval, .inplace)[] | length] | max) == 1 and
  ([.[] | select(.type == "verdict" and .partial != true)] | length) == 2 and
  all(.[] | select(.type == "verdict" and .partial != true); (.check | endswith("in-place")) as $ip |
    ([$r[] | select(.inplace == $ip)] | length) as $n | .what | test("over \($n) intervals|wrong|too few"))' \
  "$TMP/s.jsonl" >/dev/null
ok $? "--resume after the SIGTERM: intervals on from $done1, once each, then 2 whole verdicts over all (exit $st)"
# SIGUSR1 to mpirun, which passes it on (SIGTERM it follows with SIGKILL 1 s later)
rm -f "$TMP/s.jsonl"
mpirun -np 2 ./collbench $srun --duration 20 >"$TMP/s.out" 2>"$TMP/s.err" &
mp=$!
wait_interval "$TMP/s.jsonl" 1 $mp
kill -USR1 $mp
wait $mp
st=$?
[ $st -eq 3 ] && grep -q 'burn-in stopped by SIGUSR1 after' "$TMP/s.err" &&
  jq -s -e '[.[] | select(.type == "verdict")] | length == 2 and all(.partial == true)' "$TMP/s.jsonl" >/dev/null
ok $? "SIGUSR1 to mpirun: the same, partial verdicts and exit 3 (exit $st)"
# Ctrl-C: SIGINT to mpirun, which stops reading the ranks' output and sends
# them SIGTERM, then SIGKILL (after 5 s here, not 1, so a loaded machine
# still ends the row; MPI_Finalize then waits for that SIGKILL). Rank 0's
# table gives up on stdout, the verdicts reach the file, no MPI_ABORT
# notice, and the message, on one line, says why mpirun's own status is 1
rm -f "$TMP/s.jsonl"
mpirun --mca odls_base_sigkill_timeout 5 -np 2 ./collbench $srun --duration 20 >"$TMP/s.out" 2>"$TMP/s.err" &
mp=$!
wait_interval "$TMP/s.jsonl" 1 $mp
kill -INT $mp
wait $mp
st=$?
! grep -q 'MPI_ABORT' "$TMP/s.err" && grep -q '^collbench: error: burn-in stopped by SIGTERM after .*kill -USR1 on mpirun stops a burn-in with its exit status 3)$' "$TMP/s.err" &&
  jq -s -e '[.[] | select(.type == "verdict")] | length == 2 and all(.partial == true)' "$TMP/s.jsonl" >/dev/null
r=$?
[ $r -ne 0 ] && sed 's/^/# /' "$TMP/s.err"
ok $r "Ctrl-C to mpirun: partial verdicts, no MPI_ABORT notice, the message says mpirun's status (exit $st)"

# disk full in the middle of a burn-in: a 64 KiB tmpfs filled to its last
# page; the run stops with exit 3 naming the file, the lines before stay whole
mkdir "$TMP/mnt"
if mount -t tmpfs -o size=64k collbench-test "$TMP/mnt" 2>/dev/null; then
  dd if=/dev/zero of="$TMP/mnt/fill" bs=4096 count=15 2>/dev/null
  mpi 2 -b 1K -e 1K -n 20 -w 2 --duration 10m --json "$TMP/mnt/full.jsonl"
  st=$STATUS
  [ $st -eq 3 ] && grep -q "cannot write '$TMP/mnt/full.jsonl': No space left on device" "$TMP/err" &&
    [ "$(tail -c 1 "$TMP/mnt/full.jsonl" | od -An -c | tr -d ' ')" = '\n' ] &&
    jq -e . "$TMP/mnt/full.jsonl" >/dev/null
  ok $? "disk full mid-burn-in: exit 3 naming the file at once, not at 10 minutes; every line written whole (exit $st)"
  umount "$TMP/mnt"
else
  skip "cannot mount a tmpfs here (not root?): disk full mid-burn-in"
fi

# issue 57: a burn-in slowed by other processes says so. Eight CPU hogs
# start once interval 2 is written (whatever else loads the machine, eight
# more runnable processes on its cores slow a busy-polling 1 KiB all-reduce
# far past the 10% drift limit); every verdict that did not pass names the
# host's contention as a likely cause, and the table says when it began
mpirun -np 2 ./collbench -b 1K -e 1K -n 20 -w 2 --duration 12 --json "$TMP/h.jsonl" \
  >"$TMP/h.out" 2>"$TMP/h.err" &
mp=$!
wait_interval "$TMP/h.jsonl" 2 $mp
hogs=
for _ in 1 2 3 4 5 6 7 8; do
  yes >/dev/null &
  hogs="$hogs $!"
done
wait $mp
st=$?
kill $hogs 2>/dev/null
jq -s -e '[.[] | select(.type == "verdict")] | length == 2 and any(.status != "PASS")
  and all(select(.status != "PASS") | any(.causes[]; .rule == "host-contention"
    and (.text | test("^other processes took up to [0-9]+% of its [0-9]+ CPUs in"))))' \
  "$TMP/h.jsonl" >/dev/null &&
  grep -q '^# interval [0-9]*: host contention: .*: other processes took [0-9]*% of its [0-9]* CPUs' "$TMP/h.out"
r=$?
ok $r "CPU hogs started mid-burn-in: the verdicts that did not pass name the host's contention (exit $st)"
[ $r -eq 0 ] || { jq -c 'select(.type == "verdict")' "$TMP/h.jsonl" | diag; grep 'contention' "$TMP/h.out" | diag; }

# the planted faults
mkdir -p "$TMP/f"
if mpicc -std=gnu11 -Wall -Wextra -Werror -fPIC -shared -o "$TMP/f/fault.so" \
  tests/fixtures/standin/mpi_fault.c >"$TMP/f/build.log" 2>&1; then
  fault() { # FAULT ARGS...
    f=$1
    shift
    mpirun -np 2 -x LD_PRELOAD="$TMP/f/fault.so" -x COLLBENCH_TEST_FAULT="$f" ./collbench "$@" \
      >"$TMP/out" 2>"$TMP/err"
    STATUS=$?
  }
  # the nodes' error counters after every interval (issue 41's evidence): a
  # rise planted in the node's /sys (tests/fixtures/sysfs/make-node.sh) once
  # interval 2 is written is named on its interval's line and in the causes
  # of every verdict that did not pass. Once the rise is named, a wrong
  # value planted from then on (COLLBENCH_TEST_FAULT_WHEN) fails a case and
  # ends the run: each step waits for the one before, so however slow the
  # machine the rise falls inside the run and a verdict FAILs (a drift limit
  # alone left a run that sped up with a PASS, whose verdict carries no
  # causes; a fixed --duration could end before the rise)
  sh tests/fixtures/sysfs/make-node.sh "$TMP/node" >/dev/null 2>&1
  cnt=$TMP/node/sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error
  crun="-b 1K -e 1K -n 20 -w 2 --json $TMP/c.jsonl"
  mpirun -np 2 -x LD_PRELOAD="$TMP/f/fault.so" -x COLLBENCH_TEST_FAULT=wrong:0 \
    -x COLLBENCH_TEST_FAULT_WHEN="$TMP/go" -x COLLBENCH_SYSFS_ROOT="$TMP/node" \
    ./collbench $crun --duration 10m >"$TMP/c.out" 2>"$TMP/c.err" &
  mp=$!
  wait_interval "$TMP/c.jsonl" 2 $mp
  echo 412 >"$cnt"
  i=0
  while ! grep -q 'error counters rose' "$TMP/c.out" && [ $i -lt 600 ] && kill -0 $mp 2>/dev/null; do
    i=$((i + 1))
    sleep 0.1 # a polling interval (at most 60 s), not a synchronisation
  done
  touch "$TMP/go"
  wait $mp
  st=$?
  # The trigger can land between an interval's two cases: then only the
  # in-place case gets the wrong value, the run stops after that interval,
  # and the out-of-place verdict is judged on its times alone (CI at
  # cacd7c0: INCONCLUSIVE, the rise among its causes). So: one FAIL at
  # least, and every verdict that did not pass names the rise.
  [ $st -eq 1 ] && grep -q '^# interval [0-9]*: error counters rose: .* mlx5_0 port 1 symbol_error +412$' "$TMP/c.out" &&
    jq -s -e '[.[] | select(.type == "verdict")] | length == 2 and any(.status == "FAIL")
      and all(.status != "PASS") and all(select(.status != "PASS") | any(.causes[]; .rule == "counters-rose-in-burn-in"
        and .device == "mlx5_0" and (.text | test("port 1 symbol_error rose by 412 in interval [0-9]+$"))))' \
      "$TMP/c.jsonl" >/dev/null
  r=$?
  ok $r "a counter rising mid-burn-in: named on its interval's line and in each failed verdict's causes (exit $st)"
  grep 'error counters rose' "$TMP/c.out" | diag
  [ $r -eq 0 ] || jq -c 'select(.type == "verdict")' "$TMP/c.jsonl" | diag
  fault wrong:3 $run --duration 10m
  st=$STATUS
  last=$(jq -s '[.[] | select(.type == "result") | .interval] | max' "$TMP/b.jsonl")
  [ $st -eq 1 ] && jq -s -e --argjson l "$last" '[.[] | select(.type == "verdict" and .status == "FAIL")
    | .what] | any(test("wrong elements in interval " + ($l | tostring) + " of"))' "$TMP/b.jsonl" >/dev/null
  ok $? "a wrong value from 3 s on: exit 1, FAIL naming interval $last (exit $st)"
  jq -s -e --argjson l "$last" '[.[] | select(.type == "result" and .interval == $l) | .wrong]
    | any(. > 0)' "$TMP/b.jsonl" >/dev/null && grep -q 'stopped after the interval with wrong values' "$TMP/out"
  ok $? "... the burn-in stopped after that interval, not at 10 minutes"
  if have_gnuplot; then
    ./collbench --report "$TMP/b.jsonl" --out "$TMP/frep" >"$TMP/rout" 2>&1 &&
      awk '$6 != "nan" && NF == 8 {n++} END {exit !(n >= 1)}' "$TMP/frep/burnin1_1.dat" &&
      grep -q '^nwrong = [1-9]' "$TMP/frep/burnin1.gp" && png_ok "$TMP/frep/burnin1_1.png"
    ok $? "--report marks the wrong results on the burn-in's chart"
  else
    skip "no gnuplot: --report draws nothing"
  fi
  # acceptance: 3 ms more per all-reduce from 3 s on fails a 2 ms check
  # in those intervals, and the verdict over the run names them
  sed 's/^fail = .*/fail = 2 ms/' "$TMP/ar.conf" >"$TMP/ar2.conf"
  fault slow:3:3000 --accept "$TMP/ar2.conf" --max-time 0.05 --duration 8 --json "$TMP/a.jsonl"
  st=$STATUS
  [ $st -eq 1 ] && jq -s -e '[.[] | select(.type == "verdict" and .check == "ar-time")] | length == 1 and
    .[0].status == "FAIL" and (.[0].what | test("FAIL in [0-9]+ of [0-9]+ intervals \\(FAIL in [0-9,]+"))' \
    "$TMP/a.jsonl" >/dev/null
  ok $? "--accept --duration, the all-reduce 3 ms slower from 3 s on: FAIL naming the intervals (exit $st)"
  jq -r 'select(.type == "verdict" and .check == "ar-time") | .what' "$TMP/a.jsonl" | head -c 300 | diag
  fault slow:10:3000 $run --duration 30
  st=$STATUS
  [ $st -eq 1 ] && jq -s -e '[.[] | select(.type == "verdict" and .status == "FAIL")] | length >= 1' \
    "$TMP/b.jsonl" >/dev/null
  ok $? "3 ms more per call from 10 s on, over 30 s: a drift FAIL (exit $st)"
  grep '^  FAIL' "$TMP/out" | head -n 2 | diag
else
  diag "$TMP/f/build.log"
  for i in 1 2 3 4 5 6; do skip "mpicc could not build the fault shim"; done
fi
finish
