#!/bin/sh
# Command-line mistakes from issues 16 and 40, each exit 2 with one message
# naming the bad item and, where one is near, what was meant ("did you
# mean"), mpirun's options given to collbench said for what they are: a bad item beside "all" (not "all" blamed), a percentage
# where seconds are meant, empty list items, and an acceptance check whose
# buffers cannot fit in memory (a configuration error, not a FAIL).
. tests/lib.sh

cases='--op all,nope|--op: unknown value .nope.
--backend all,nope|--backend: unknown value .nope.
--mem all,nope|--mem: unknown value .nope.
-d all,nope|--dtype: unknown value .nope.
-o all,nope|--redop: unknown value .nope.
--transport all,nope|--transport nope:
--transport all|--transport all: transports are named one by one
-T 10%|--timeout: .10%. is not a number of seconds
--max-time 5%|--max-time: .5%. is not a number of seconds
--op allreduce,|--op: empty item in the list .allreduce,.
-d ,float|--dtype: empty item in the list .,float.
--transport shm,,tcp|--transport: empty item in the list .shm,,tcp.
--tune --tune-buckets 1M,,2M|--tune-buckets: empty item in the list .1M,,2M.
--tune --tune-algorithms 0,,4|--tune-algorithms: empty item in the list .0,,4.
--tune --tune-segments 64K,|--tune-segments: empty item in the list .64K,.
--op all_reduce|--op: unknown value .all_reduce., did you mean .allreduce.?
--backend MPI|--backend: unknown value .MPI., did you mean .mpi.?
--mem hots|--mem: unknown value .hots., did you mean .host.?
-d flaot|--dtype: unknown value .flaot., did you mean .float.?
--op nonsense|--op: unknown value .nonsense. (see
--sweeep|unknown option .--sweeep., did you mean .--sweep.?
-np 2 --sweep|.-np. is an option of mpirun (or mpiexec), not of collbench: .* .mpirun -np 2 ./collbench --sweep.
--hostfile hosts.txt|.--hostfile. is an option of mpirun .*.mpirun --hostfile hosts.txt ./collbench
-H a,b --sweep|.-H. is an option of mpirun
--accept h100ndr|cannot read topology file .h100ndr.: no such file here, nor a preset .*, did you mean .h100-ndr.?'

plan $(($(printf '%s\n' "$cases" | wc -l) + 5))

while IFS='|' read -r args want; do
  # shellcheck disable=SC2086
  timeout 60 ./collbench $args -e 1K >"$TMP/out" 2>"$TMP/err"
  status=$?
  [ $status -eq 2 ] && [ "$(grep -c . "$TMP/err")" -le 2 ] && grep -q -- "^collbench: $want" "$TMP/err"
  ok $? "'$args': exit 2 naming the bad item (got $status: $(head -n 1 "$TMP/err"))"
done <<EOF
$cases
EOF

# A check of a size larger than the machine's memory cannot run: refused
# before anything is measured, naming the file, line and check.
cat >"$TMP/big.conf" <<'CONF'
[system]
name = big
[check huge]
op = allreduce
backend = mpi
size = 1T
metric = busbw
fail = 1 GB/s
CONF
timeout 120 ./collbench --accept "$TMP/big.conf" >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ] && grep -q "^collbench: $TMP/big.conf:3: check 'huge': size 1 TiB is too large" "$TMP/err"
ok $? "a 1 TiB check exits 2 naming file, line and check (got $status: $(head -n 1 "$TMP/err"))"
! grep -q 'FAIL' "$TMP/out"
ok $? "no verdict is printed for it"

# --tune on one rank once searched for minutes without a word
echo keep >"$TMP/keep.jsonl"
timeout 120 ./collbench --tune --trials "$TMP/keep.jsonl" >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ] && grep -q "^collbench: --tune on 1 rank: there is no communication to tune.*mpirun -np 2" "$TMP/err" &&
  [ "$(cat "$TMP/keep.jsonl")" = keep ]
ok $? "--tune on 1 rank: exit 2 saying to launch on 2 or more, its --trials file untouched (got $status: $(head -n 1 "$TMP/err"))"
# with --resume of a file not there yet: the refusal comes before the file is started
timeout 120 ./collbench --tune --resume --trials "$TMP/new.jsonl" >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ] && grep -q "^collbench: --tune on 1 rank" "$TMP/err" && [ ! -e "$TMP/new.jsonl" ] &&
  ! grep -q 'starting a fresh search' "$TMP/err"
ok $? "--tune --resume on 1 rank with a new --trials file: exit 2, no file made (got $status)"
# collbench's CSV given where its JSON Lines are read: said once, not per line
printf 'op,backend,mem,transport\nallreduce,mpi,host,shm\nallreduce,mpi,host,shm\n' >"$TMP/s.csv"
./collbench --report "$TMP/s.csv" --out "$TMP/rep" >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ] && [ "$(grep -c . "$TMP/err")" -eq 1 ] &&
  grep -q "^collbench: --report: $TMP/s.csv is collbench's CSV (--csv); --report reads the JSON Lines of --json" "$TMP/err"
ok $? "--report on a CSV: exit 2, one line saying to give the --json file (got $status)"
finish
