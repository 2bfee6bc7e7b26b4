#!/bin/sh
# Issue 73, the fifth audit: each finding tried as it was found, failing on
# the code before the fix. Control bytes from files and names shown escaped;
# the skew, Inspector and calls readers bounded on an endless input, their
# numbers in range; acceptance levels decimal and within range; --tune
# --parallel's --trials kept until the end; isolate.sh's hostfile counts;
# NUL bytes and empty items refused with the right words. (The burn-in's
# /proc/stat on a 384-CPU host: tests/unit/test_burnin.c; a hang in every
# phase of acceptance: tests/hang_cluster.t.)
. tests/lib.sh
plan 26

ESC=$(printf '\033')
# raw: the output holds an ESC byte (the escaper writes it as \x1b)
raw() { grep -q "$ESC" "$@"; }

# 1: control bytes in a file reach the terminal escaped
printf '1 2\n3 %s[31m4\n' "$ESC" >"$TMP/skew.txt"
./collbench --op alltoallv --skew "$TMP/skew.txt" >"$TMP/out" 2>&1
[ $? -eq 2 ] && ! raw "$TMP/out" && grep -q 'holds .\\x1b\[31m4' "$TMP/out"
ok $? "an ESC in a --skew cell: exit 2, shown as \\x1b"
sed "s/^\[check allgather-busbw\]/[check a${ESC}[2Jb]/" topologies/localhost.conf >"$TMP/name.conf"
./collbench --accept "$TMP/name.conf" --dry-run >"$TMP/out" 2>&1
[ $? -eq 2 ] && ! raw "$TMP/out" && grep -q 'a\\x1b\[2Jb' "$TMP/out"
ok $? "an ESC in a [check NAME]: exit 2, escaped"
sed "0,/^op = /s//op${ESC}[2J = /" topologies/localhost.conf >"$TMP/key.conf"
./collbench --accept "$TMP/key.conf" --dry-run >"$TMP/out" 2>&1
[ $? -eq 2 ] && ! raw "$TMP/out" && grep -q "unknown key 'op\\\\x1b\[2J'" "$TMP/out"
ok $? "an ESC in a key's name: exit 2, escaped"
insp() { # FILE N_RANKS NNODES SN BYTES US BUSBW [COLL] [RANK]: one Inspector line
  printf '{"header":{"id":"0x1","rank":%s,"n_ranks":%s,"nnodes":%s},"coll_perf":{"coll":"%s","coll_sn":%s,"coll_msg_size_bytes":%s,"coll_exec_time_us":%s,"coll_busbw_gbs":%s}}\n' \
    "${9:-0}" "$2" "$3" "${8:-AllReduce}" "$4" "$5" "$6" "$7" >"$1"
}
insp "$TMP/esc.log" 2 1 1 8 3 1 'All\u001b[31mReduce'
./collbench --import-inspector "$TMP/esc.log" --out "$TMP/esc.calls" >"$TMP/out" 2>&1
[ $? -eq 0 ] && ! raw "$TMP/out" "$TMP/esc.calls" && grep -q 'All\\x1b\[31mReduce' "$TMP/out"
ok $? "an ESC in an Inspector line's coll: the table and the calls file escaped"
E="$TMP/a${ESC}[31mb"
for mode in "--report $E --out $TMP/r" "--compare $E $E" "--fit $E" "--baseline-out $TMP/b.json $E"; do
  ./collbench $mode >>"$TMP/paths" 2>&1
done
! raw "$TMP/paths" && [ "$(grep -c 'a\\x1b\[31mb' "$TMP/paths")" -ge 4 ]
ok $? "a file name with an ESC in --report, --compare, --fit and --baseline-out's refusals: escaped"

# 2: the four readers stop at a bound on an endless input
r=0
for a in "--op alltoallv --skew /dev/zero" "--calls /dev/zero" "--import-inspector /dev/zero" \
  "--tune --calls /dev/zero"; do
  (ulimit -v 4000000 && exec timeout 30 ./collbench $a) >"$TMP/out" 2>&1
  st=$?
  [ $st -eq 2 ] && grep -Eq 'over 256 MiB|longer than 1 MiB' "$TMP/out" || { r=1 && break; }
done
ok $r "/dev/zero to --skew, --calls, --import-inspector and --tune --calls: exit 2 at a bound ($a: exit $st, $(head -c 120 "$TMP/out"))"
(ulimit -v 400000 && exec ./collbench --op alltoallv --skew /dev/zero) >"$TMP/out" 2>&1
st=$?
[ $st -eq 3 ] && grep -q 'out of memory' "$TMP/out"
ok $? "--skew /dev/zero under ulimit -v: exit 3, said as out of memory (exit $st)"

# 3, 4: Inspector numbers out of range are not Inspector output
bad_insp() { # WHY ARGS...: insp ARGS refused, exit 2, WHY in the message
  why=$1
  shift
  insp "$TMP/i.log" "$@"
  ./collbench --import-inspector "$TMP/i.log" --out "$TMP/i.calls" >"$TMP/out" 2>&1
  st=$?
  [ $st -eq 2 ] && grep -q "$why" "$TMP/out" && [ ! -e "$TMP/i.calls" ] && return 0
  echo "exit $st" | diag; diag "$TMP/out"; return 1
}
r=0
bad_insp 'n_ranks 2147483648' 2147483648 1 1 8 3 1 || r=1
bad_insp 'n_ranks 1000000000' 1e9 1 1 8 3 1 || r=1
bad_insp 'nnodes 3' 2 3 1 8 3 1 || r=1
bad_insp 'rank 7' 2 1 1 8 3 1 AllReduce 7 || r=1
ok $r "n_ranks 2^31 and 1e9, nnodes over n_ranks, rank 7 of 2: exit 2, nothing written"
r=0
for v in "0 3 1" "-0 3 1" "1.5 3 1" "8 -3 1" "8 3 -1" "8 1e308 1"; do
  # shellcheck disable=SC2086 # BYTES US BUSBW
  bad_insp 'out of range' 2 1 1 $v || r=1
done
bad_insp 'coll_sn 1e+19' 2 1 1e19 8 3 1 || r=1
ok $r "bytes 0, -0, 1.5, a negative time or busbw, 1e308 us, coll_sn 1e19: exit 2"
printf '{"type":"calls"}\n{"type":"call","op":"allreduce","nranks":2,"nnodes":1,"bytes":0,"calls":1}\n' >"$TMP/zero.calls"
mpi 2 --calls "$TMP/zero.calls"
[ $STATUS -eq 2 ] && grep -q 'bytes from 1' "$TMP/err"
ok $? "a 0-byte call in a calls file: exit 2, not 0 rows and exit 0 (exit $STATUS)"
printf '{"type":"calls"}\n{"type":"call","op":"allreduce","nranks":2147483648,"nnodes":1,"bytes":8,"calls":1}\n' >"$TMP/big.calls"
mpi 2 --calls "$TMP/big.calls"
[ $STATUS -eq 2 ] && grep -q 'nranks <= 16777216' "$TMP/err"
ok $? "nranks 2^31 in a calls file: exit 2 (exit $STATUS)"

# 5: a file of p2p lines only (UBSan's qsort(NULL, 0)): refused as no calls
printf '{"header":{"id":"0x1","n_ranks":2,"nnodes":1},"p2p_perf":{}}\n' >"$TMP/p2p.log"
./collbench --import-inspector "$TMP/p2p.log" >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'no collective calls in 1 file (1 p2p lines)' "$TMP/out"
ok $? "p2p lines only: exit 2, no calls"

# 6: acceptance levels: decimal, and a percentage within 0.01% to 1000%
level() { # LINE_SED PATTERN: the sed applied to localhost.conf is refused with PATTERN
  sed "$1" topologies/localhost.conf >"$TMP/lv.conf"
  ./collbench --accept "$TMP/lv.conf" --dry-run >"$TMP/out" 2>&1
  [ $? -eq 2 ] && grep -q "$2" "$TMP/out"
}
level '0,/^fail = .*/s//fail = 0x10 GB\/s/' "'0x10 GB/s': expected a bandwidth"
ok $? "fail = 0x10 GB/s: refused, not 16 GB/s"
level '0,/^fail = .*/s//fail = 0x10% model/' "'0x10% model': expected"
ok $? "fail = 0x10% model: refused, not 16%"
level '0,/^bandwidth = .*/s//bandwidth = 0x190 Gb\/s/' "'0x190 Gb/s': expected a bandwidth"
ok $? "a tier's bandwidth = 0x190 Gb/s: refused, not 400 Gb/s"
level '0,/^fail = .*/s//fail = 1e-300% model/' "'1e-300% model' is out of range (0.01% to 1000%"
ok $? "fail = 1e-300% model: out of range, as 1e-300 GB/s is"

# 7: --tune --parallel's --trials is replaced at the end: a run stopped on
# the way leaves the earlier file
echo earlier >"$TMP/T.jsonl"
mpirun -np 2 ./collbench --backend mpi --workload tiny --parallel dp=2 --tune-reps 1000 \
  --trials "$TMP/T.jsonl" --tune >"$TMP/t.out" 2>&1 &
pid=$!
i=0
while ! grep -q '^# search' "$TMP/t.out" && kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do
  i=$((i + 1))
  sleep 0.1 # a polling interval, not a synchronisation
done
kill -TERM $pid 2>/dev/null
wait $pid
st=$?
[ "$(cat "$TMP/T.jsonl")" = earlier ] && grep -q '^# search' "$TMP/t.out"
ok $? "--tune --parallel stopped during its search (exit $st): --trials still holds the earlier file"

# also: Open MPI's mpirun reads a --tune before other arguments as its own
# and says so per process; collbench says what that means where it is seen
mpi 2 --tune --trials "$TMP/t.jsonl" --workload tiny --tune-reps 2 --tune-buckets 1M
[ $STATUS -eq 0 ] && grep -q 'note: any "Unable to locate the variable file "--trials"" above is Open MPI' "$TMP/err" &&
  jq -e -s '.[0].type == "tune"' "$TMP/t.jsonl" >/dev/null
ok $? "mpirun ... --tune --trials F: a note after Open MPI's message, and F written (exit $STATUS)"

# 8: isolate.sh: slots from 1 to 4096, a CRLF hostfile named as such, a
# limit past the shell's numbers refused by the script
cd "$TMP" || exit 1
iso=$OLDPWD/scripts/isolate.sh
refused() { # PATTERN ARGS...: exit 2, PATTERN on stderr, nothing launched
  pat=$1
  shift
  MPIRUN=false "$iso" "$@" >iso.out 2>iso.err
  st=$?
  [ $st -eq 2 ] && grep -q -e "$pat" iso.err && ! grep -q 'Illegal number' iso.err && return 0
  echo "exit $st" | diag; diag iso.err; return 1
}
r=0
printf 'node1 slots=0\n' >h0 && refused 'h0:1: cannot read "slots=0"' --hostfile h0 -- --accept x.conf || r=1
printf 'node1 slots=99999999999999999999\n' >hbig && refused 'cannot read "slots=9999' --hostfile hbig -- --accept x.conf || r=1
ok $r "isolate.sh: slots=0 and slots=1e20 refused, not launched as -np 0 or -np 1e+20"
printf 'node1\r\n' >hcr
refused 'hcr:1: the line ends in a carriage return' --hostfile hcr -- --accept x.conf
ok $? "isolate.sh: a CRLF hostfile named as such"
printf 'node1\n' >hok
refused '--time-limit 99999999999999999999: at most 999999999' --hostfile hok --time-limit 99999999999999999999 -- --accept x.conf
ok $? "isolate.sh: --time-limit 1e20 refused by the script, no shell error first"
cd "$OLDPWD" || exit 1

# 9: NUL bytes and empty items
sed 's/^\[check allgather-busbw\]/[check a]\x00/' topologies/localhost.conf >"$TMP/nul.conf"
./collbench --accept "$TMP/nul.conf" --dry-run >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'nul.conf:39: a NUL byte' "$TMP/out" && ! grep -q "is missing" "$TMP/out"
ok $? "a NUL byte after [check a]: named as such, not 'key op is missing'"
sed 's/^name = localhost/name = x\x00 y/' topologies/localhost.conf >"$TMP/nul2.conf"
./collbench --accept "$TMP/nul2.conf" --dry-run >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'a NUL byte' "$TMP/out"
ok $? "name = x<NUL> y: refused, not cut to x with exit 0"
./collbench --parallel ',,' --concurrent allreduce@tp >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q "parallel ,,: an empty item" "$TMP/out"
ok $? "--parallel ',,': refused as '' is"
./collbench --parallel tp=1 --concurrent allreduce@tp >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'gives tp=1' "$TMP/out" && ! grep -q 'dp=1' "$TMP/out"
ok $? "--parallel tp=1 with allreduce@tp: the refusal names tp=1, not dp=1"
./collbench --parallel tp=2000000 --concurrent allreduce@tp >"$TMP/out" 2>&1
[ $? -eq 2 ] && grep -q 'from 1 to 1048576' "$TMP/out"
ok $? "tp=2000000: the refusal says the limit"
finish
