#!/bin/sh
# Issue 56, the fourth audit: each finding tried as it was found, failing on
# the code before the fix. Resume files (a changed command line, junk,
# a cut last line, interval 2^31 - 1, a big file's memory), counters past
# 96 per node and sysfs values that are not decimal counts, a hang under
# ulimit -v, a FIFO output, topology numbers out of physical range and
# lines past inih's buffer, one answer for --accept --duration, --predict's
# refusal, and a SIGTERM that arrives while the program is still loading.
. tests/lib.sh
plan 29

# a real burn-in's file, its verdicts cut off (an interrupted run)
B="-b 1K -e 4K -n 20 -w 2 --duration 1s"
mpi 2 $B --json "$TMP/full.jsonl" --drift-limit 1000%
grep -v '"type":"verdict"' "$TMP/full.jsonl" >"$TMP/cut.jsonl"
nres=$(grep -c '"type":"result"' "$TMP/cut.jsonl")
[ "$nres" -ge 6 ]
ok $? "a 1 s burn-in to resume from: $nres result lines (exit $STATUS)"

# 1: the refusal names the key, not freed memory (MALLOC_PERTURB_ fills
# freed blocks with 0xaa ^ 0xff = 'U': the old message read "its UUUUUUUUs")
cp "$TMP/cut.jsonl" "$TMP/r1.jsonl"
MALLOC_PERTURB_=85 mpi 2 -b 1K -e 8K -n 20 -w 2 --duration 1s --json "$TMP/r1.jsonl" --resume
[ $STATUS -eq 2 ] && grep -q "another configuration: its max_bytes is 4096, this run's 8192" "$TMP/err" &&
  cmp -s "$TMP/cut.jsonl" "$TMP/r1.jsonl"
ok $? "--resume with another -e: exit 2 naming max_bytes, the file untouched ($(head -c 160 "$TMP/err"))"

# 5: junk after the results is refused before anything is written; an
# unterminated last line (a kill's cut) is dropped and said
cp "$TMP/cut.jsonl" "$TMP/r5.jsonl"
printf 'junk\njunk again\n' >>"$TMP/r5.jsonl"
cp "$TMP/r5.jsonl" "$TMP/r5.ref"
mpi 2 $B --json "$TMP/r5.jsonl" --resume
[ $STATUS -eq 2 ] && grep -q "r5.jsonl:$((nres + 2)) is not a JSON line" "$TMP/err" && cmp -s "$TMP/r5.ref" "$TMP/r5.jsonl"
ok $? "two junk lines at the end: exit 2 naming the first, the file untouched ($(head -c 160 "$TMP/err"))"
{ head -n 1 "$TMP/cut.jsonl"; grep '"type":"result"' "$TMP/cut.jsonl" | sed 's/"type":"result"/"type":"result"/; s/^{/{ x/'; } >"$TMP/r5b.jsonl"
mpi 2 $B --json "$TMP/r5b.jsonl" --resume
[ $STATUS -eq 2 ] && grep -q "r5b.jsonl:2 is not a JSON line" "$TMP/err"
ok $? "every result line unparseable: refused, not restarted at interval 1 ($(head -c 120 "$TMP/err"))"
cp "$TMP/cut.jsonl" "$TMP/r5c.jsonl"
printf '{"type":"result","op":"allre' >>"$TMP/r5c.jsonl"
mpi 2 $B --json "$TMP/r5c.jsonl" --resume --drift-limit 1000%
{ [ $STATUS -eq 0 ] || [ $STATUS -eq 1 ]; } &&
  grep -q "line $((nres + 2)), cut by the interruption, dropped" "$TMP/out" && jq -e . "$TMP/r5c.jsonl" >/dev/null
ok $? "an unterminated last line: dropped, said, and the file whole after (exit $STATUS)"

# 6: interval 2^31 - 1 is past what a burn-in numbers: refused, not wrapped
sed -E '/"type":"result"/ s/"interval":[0-9]+/"interval":2147483647/' "$TMP/cut.jsonl" >"$TMP/r6.jsonl"
mpi 2 $B --json "$TMP/r6.jsonl" --resume
[ $STATUS -eq 2 ] && grep -q "interval is not 1 to 2147483646" "$TMP/err"
ok $? "interval 2147483647: exit 2 naming the range ($(head -c 120 "$TMP/err"))"

# 4: the first part is streamed, not held: a big file's RSS over a small
# one's stays far under the file's size (it was 10x the file)
python3 - "$TMP/cut.jsonl" "$TMP/big.jsonl" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
head, res = lines[0], [json.loads(l) for l in lines[1:] if '"type":"result"' in l]
out = open(sys.argv[2], "w")
out.write(head + "\n")
k = 0
while out.tell() < 24 << 20:  # 24 MB of results, as the 1 s run's repeated
    for r in res:
        r = dict(r)
        r["interval"] = r["interval"] + k * 1000
        out.write(json.dumps(r, separators=(",", ":")) + "\n")
    k += 1
PY
rss() { # FILE: rank 0's peak RSS in KiB resuming FILE (judging only: the time is used up)
  mpirun -np 2 sh -c '[ "$OMPI_COMM_WORLD_RANK" = 0 ] && exec /usr/bin/time -f %M -o "$0.rss" "$@"; exec "$@"' \
    "$1" ./collbench $B --json "$1" --resume --drift-limit 1000% >/dev/null 2>&1
  tail -n 1 "$1.rss" 2>/dev/null || echo 0 # time(1) says a non-zero exit on a line before
}
if [ -x /usr/bin/time ]; then
  cp "$TMP/cut.jsonl" "$TMP/small.jsonl"
  small=$(rss "$TMP/small.jsonl")
  big=$(rss "$TMP/big.jsonl")
  size=$(($(stat -c %s "$TMP/big.jsonl") / 1024))
  [ "$small" -gt 0 ] && [ "$big" -gt 0 ] && [ $((big - small)) -lt $((size / 4)) ]
  ok $? "resuming a ${size} KiB file: RSS ${big} KiB against ${small} KiB for a small one (under a quarter of the file more)"
else
  skip "/usr/bin/time is not installed: the resume's memory"
fi

# 2 and 10: eight mlx5 NICs' counter sets, all read (96 was the cap);
# a count that is not decimal is unknown, said; 010 is ten
S=$TMP/sys
for d in 0 1 2 3 4 5 6 7; do
  p=$S/sys/class/infiniband/mlx5_$d/ports/1
  mkdir -p "$p/counters" "$p/hw_counters"
  echo "4: ACTIVE" >"$p/state"
  echo InfiniBand >"$p/link_layer"
  echo "400 Gb/sec (4X NDR)" >"$p/rate"
  for c in symbol_error link_downed port_rcv_errors link_error_recovery; do echo 0 >"$p/counters/$c"; done
  for k in $(seq 1 48); do echo 0 >"$p/hw_counters/err_$k"; done
done
echo 800 >"$S/sys/class/infiniband/mlx5_7/ports/1/counters/symbol_error"
echo -1 >"$S/sys/class/infiniband/mlx5_1/ports/1/counters/link_downed"
echo 010 >"$S/sys/class/infiniband/mlx5_2/ports/1/counters/link_downed"
echo "1e308 Gb/sec (4X NDR)" >"$S/sys/class/infiniband/mlx5_3/ports/1/rate"
mkdir -p "$S/sys/class/infiniband/mlx5_4/device/net/ib4" "$S/sys/class/net/ib4"
echo 99999999999 >"$S/sys/class/net/ib4/mtu"
COLLBENCH_SYSFS_ROOT=$S ./collbench --probe >"$TMP/probe.out" 2>&1
grep -q '^    mlx5_7 port 1: symbol_error 800$' "$TMP/probe.out" && grep -q 'error counters: 415 read' "$TMP/probe.out"
ok $? "8 NICs x 52 counters: all 415 decimal ones read, mlx5_7's symbol_error 800 among them"
grep -q 'error counters: 1 unknown (not a decimal count), the first mlx5_1 port 1 link_downed' "$TMP/probe.out" &&
  ! grep -q 18446744073709551615 "$TMP/probe.out" && grep -q '^    mlx5_2 port 1: link_downed 10$' "$TMP/probe.out"
ok $? "'-1' is unknown and said (not 18446744073709551615); '010' is ten, not eight"
grep -q 'mlx5_3 port 1: InfiniBand, ACTIVE, speed unknown' "$TMP/probe.out" && ! grep -q 'MTU 1215752191' "$TMP/probe.out"
ok $? "a rate of 1e308 Gb/s and an MTU of 99999999999 are unknown, not taken"
for k in $(seq 49 150); do for d in 0 1 2 3 4 5 6 7; do echo 0 >"$S/sys/class/infiniband/mlx5_$d/ports/1/hw_counters/err_$k"; done; done
COLLBENCH_SYSFS_ROOT=$S ./collbench --probe >"$TMP/probe2.out" 2>&1
grep -q 'error counters: 1024 read' "$TMP/probe2.out" && grep -q 'error counters: 207 more not read (over 1024 a node)' "$TMP/probe2.out"
ok $? "1,231 counters on a node: 1024 read, the 207 more said, not dropped in silence"

# 3: under a virtual-memory limit (a batch system's h_vmem) nothing hangs
(ulimit -v 1000000 && timeout -k 5 30 ./collbench --version) >"$TMP/v.out" 2>&1
st=$?
[ $st -eq 0 ] && grep -q '^collbench ' "$TMP/v.out"
ok $? "ulimit -v 1000000: --version answers (exit $st; 124 was the old hang)"
(ulimit -v 1000000 && timeout -k 5 30 ./collbench --fit tests/fixtures/model_np2.jsonl) >"$TMP/v.out" 2>&1
ok $? "ulimit -v 1000000: --fit ends"

# 7: a FIFO output is refused before the run, never blocked on
mkfifo "$TMP/fifo"
for o in --json --csv --prom; do
  timeout -k 5 30 ./collbench -b 1K -e 1K -n 5 --duration 2s $o "$TMP/fifo" >"$TMP/out" 2>"$TMP/err"
  st=$?
  [ $st -eq 2 ] && grep -q -- "$o: refusing '$TMP/fifo': it is a named pipe (FIFO)" "$TMP/err"
  ok $? "$o to a FIFO with no reader: exit 2 at once (exit $st)"
done

# 8 and 9: topology numbers in physical ranges; inih's line limit
printf '[system]\nname = t\ngpus_per_node = 0\nranks_per_node = 2\n\n[tier shm]\nscope = intra-node\nkind = shm\nbandwidth = 10 GB/s\nlatency = 1 us\n\n[tier net]\nscope = inter-node\nkind = tcp\nbandwidth = 1e-300 Gb/s\nlatency = 20 us\n' >"$TMP/t8.conf"
./collbench --predict --topology "$TMP/t8.conf" --size 1M >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "t8.conf:15: \[tier net\] bandwidth: '1e-300 Gb/s' is out of range (1 MB/s to 1000 TB/s)" "$TMP/out"
ok $? "bandwidth = 1e-300 Gb/s: exit 2 naming the line and the range ($(head -c 140 "$TMP/out"))"
sed 's/latency = 20 us/latency = 0.00001 ns/; s/1e-300 Gb/1 Gb/' "$TMP/t8.conf" >"$TMP/t8b.conf"
./collbench --predict --topology "$TMP/t8b.conf" --size 1M >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "latency: '0.00001 ns' is out of range (1 ns to 3600 s)" "$TMP/out"
ok $? "latency = 0.00001 ns: exit 2 naming the range"
# inih's buffer holds 199 characters: the old reader cut this comment right
# before "latency" and read "latency = 400 us" as a line of its own
long=$(printf 'c%.0s' $(seq 1 300))
{ sed 's/latency = 0.00001 ns/latency = 20 us/' "$TMP/t8b.conf"; echo "; $(printf 'c%.0s' $(seq 1 197))latency = 400 us"; } >"$TMP/t9.conf"
./collbench --predict --topology "$TMP/t9.conf" --size 1M --gpus 4 >"$TMP/out" 2>&1
[ $? -eq 0 ] && grep -q "inter-node: alpha 20.000 us" "$TMP/out"
ok $? "a 214-character comment ending in 'latency = 400 us' sets nothing (latency stays 20 us)"
{ head -n 2 "$TMP/t8b.conf"; echo "source = $long"; tail -n +3 "$TMP/t8b.conf"; } >"$TMP/t9b.conf"
./collbench --predict --topology "$TMP/t9b.conf" --size 1M >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "t9b.conf:3: a line of 309 characters, over the 198" "$TMP/out"
ok $? "a 309-character key line: exit 2 naming line 3, not a later line ($(head -c 120 "$TMP/out"))"

# 13: --accept --duration answers once, at the end, over every interval
mpi 2 --accept topologies/localhost.conf --duration 2s --drift-limit 1000%
n=$(grep -c 'ACCEPTED' "$TMP/out")
[ "$n" -eq 1 ] && tail -n 1 "$TMP/out" | grep -q 'ACCEPTED: .* verdicts over [0-9]* intervals' &&
  ! grep -q '^# hosts: healthy' "$TMP/out"
ok $? "--accept --duration: one ACCEPTED line, the last, over the intervals ($n; exit $STATUS)"
if [ $STATUS -eq 0 ]; then tail -n 1 "$TMP/out" | grep -q '^ACCEPTED'; else tail -n 1 "$TMP/out" | grep -q '^NOT ACCEPTED'; fi
ok $? "... and it agrees with the exit status ($STATUS)"

# old finding: --predict names what it lacks, before a table of dashes
head -n 10 "$TMP/t8b.conf" >"$TMP/one.conf"
./collbench --predict --topology "$TMP/one.conf" --size 1M >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "the inter-node tier is unknown (the topology has none)" "$TMP/out" && ! grep -q '^  *8  *4 ' "$TMP/out"
ok $? "--predict on a one-node topology: exit 2 naming the missing tier, no rows of dashes"
./collbench --predict --topology "$TMP/one.conf" --size 1M --gpus 2 >"$TMP/out" 2>&1
ok $? "... and --gpus 2 (one node) predicts"

# old finding: a report whose capacity chart would be empty (one rank per
# node, no inter-node tier, no point at 1 MiB or 256 MiB) made gnuplot fail
if have_gnuplot; then
  jq -c 'select(.bytes != 1048576 and .bytes != 268435456)' tests/fixtures/model_np2.jsonl >"$TMP/no1m.jsonl"
  sed 's/ranks_per_node = 2/ranks_per_node = 1/' "$TMP/one.conf" >"$TMP/one1.conf"
  ./collbench --report "$TMP/no1m.jsonl" --topology "$TMP/one1.conf" --out "$TMP/rep" >"$TMP/out" 2>&1
  st=$?
  [ $st -eq 0 ] && grep -q 'Capacity planning: no chart' "$TMP/rep/index.html" &&
    [ ! -e "$TMP/rep/allreduce_capacity.png" ] && ! grep -q 'allreduce_capacity.png' "$TMP/rep/index.html"
  ok $? "--report with nothing for the capacity chart: exit 0, a sentence instead of the chart (exit $st)"
else
  skip "gnuplot not configured: the empty capacity chart"
fi

# old finding: a SIGTERM that arrives while the program loads (before its
# handler; kept pending here, so the test does not race the loader) ends
# with the message and exit 3, never a bare 143
python3 -c 'import os, signal
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
os.kill(os.getpid(), signal.SIGTERM)
os.execv("./collbench", ["./collbench", "-b", "1K", "-e", "1K", "-n", "5"])' >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 3 ] && grep -q 'stopped by SIGTERM' "$TMP/err"
ok $? "a SIGTERM before the handler: exit 3 with the message (exit $st)"

# old finding: the importer's --op names one of nccl-tests' collectives
./collbench --import-nccl-tests tests/fixtures/nccl_tests_allreduce.txt --op all --json "$TMP/i.jsonl" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q -- "--op all: not one of nccl-tests' collectives" "$TMP/out" && [ ! -e "$TMP/i.jsonl" ]
ok $? "--import-nccl-tests --op all: exit 2, nothing written"

# 11: disk full mid-burn-in: the verdicts over the intervals done, and how to go on
mkdir "$TMP/mnt"
if mount -t tmpfs -o size=64k tmpfs "$TMP/mnt" 2>/dev/null; then
  head -c 40K /dev/zero >"$TMP/mnt/fill" 2>/dev/null
  mpi 2 -b 1K -e 1K -n 20 -w 2 --duration 10m --json "$TMP/mnt/full.jsonl"
  st=$STATUS
  [ $st -eq 3 ] && grep -q "No space left on device; the burn-in stopped after [0-9]* intervals: .* (partial verdicts, on the table); make room and give the same command with --resume to go on" "$TMP/err" &&
    grep -q '^  [A-Z]* *burn-in allreduce mpi host 1 KiB' "$TMP/out"
  ok $? "disk full: exit 3, partial verdicts on the table, the --resume hint (exit $st)"
  cp "$TMP/mnt/full.jsonl" "$TMP/afterfull.jsonl"
  umount "$TMP/mnt"
  mpi 2 -b 1K -e 1K -n 20 -w 2 --duration 1s --json "$TMP/afterfull.jsonl" --resume
  [ $STATUS -eq 2 ] && grep -q "another configuration: its duration_s is 600.0, this run's 1.0" "$TMP/err"
  ok $? "... and the file it left is a burn-in's that --resume reads (another duration is refused by name: $(head -c 100 "$TMP/err"))"
else
  skip "cannot mount a tmpfs here (not root?): disk full mid-burn-in"
  skip "cannot mount a tmpfs here (not root?): the file a full disk left"
fi
finish
