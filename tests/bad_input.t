#!/bin/sh
# Bad input: one message naming the value, exit 2, nothing run, and no
# earlier output file overwritten.
. tests/lib.sh

cases='--bogus|--bogus
--op allreduc|allreduc
--backend nope|nope
-d float128|float128
-b 0|0
-b -5|-5
-b 12Q|12Q
-e 99999999999999999999|99999999999999999999
-b 1M -e 1K|1 MiB
-f 1|--step-factor
-f 2 -i 1K|--step-factor
-n 0|--iters
--precision 0|--precision
--timing fast|fast
--transport shm,tcp|shm
--transport ib|ib
--redop avg|avg
stray|stray'
# device memory is bad input only where no GPU is (tests/nccl.t runs it where one is)
gpu_usable || cases="$cases
--mem device|device"

plan $(($(printf '%s\n' "$cases" | wc -l) * 2 + 6))

echo '{"type":"run","keep":"me"}' >"$TMP/old.jsonl"
while IFS='|' read -r args want; do
  # shellcheck disable=SC2086
  ./collbench $args --json "$TMP/old.jsonl" >"$TMP/out" 2>"$TMP/err"
  status=$?
  [ $status -eq 2 ]
  ok $? "'$args' exits 2 (got $status)"
  [ "$(wc -l <"$TMP/err")" -le 2 ] && grep -qF -- "$want" "$TMP/err"
  ok $? "'$args' says one thing, naming '$want'"
done <<EOF
$cases
EOF
grep -q '"keep":"me"' "$TMP/old.jsonl"
ok $? "the earlier JSON file is untouched"

# Under mpirun too: every rank exits 2 and only one message is printed.
mpi 2 --op nope
[ $STATUS -eq 2 ]
ok $? "mpirun -np 2 with a bad op exits 2 (got $STATUS)"
[ "$(grep -c 'nope' "$TMP/err")" -eq 1 ]
ok $? "the message is printed once, not once per rank"

# Sizes larger than memory are refused before anything runs.
mpi 2 -b 1G -e 2T
[ $STATUS -eq 2 ] && grep -q 'too large' "$TMP/err"
ok $? "a size larger than memory exits 2 naming it (got $STATUS)"
mpi 2 --op broadcast --root 5 -e 1K
[ $STATUS -eq 2 ] && grep -q 'root 5' "$TMP/err"
ok $? "a root beyond the rank count exits 2 (got $STATUS)"

# The classic mis-launch: a launcher says N processes, MPI sees one.
PMI_SIZE=2 PMI_RANK=0 ./collbench -e 1K >"$TMP/out" 2>"$TMP/err"
status=$?
[ $status -eq 2 ] && grep -q 'mis-launch' "$TMP/err"
ok $? "a process that sees 1 rank while the launcher started 2 explains the mis-launch"
finish
