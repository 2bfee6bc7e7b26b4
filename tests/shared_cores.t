#!/bin/sh
# Ranks that share cores (issue 76): busy-polling ranks take turns on a
# core, so their times are not the links'; every run's table says so in
# its header, as --accept already did, and a run with a core per rank
# says nothing.
. tests/lib.sh
plan 3
cores=$(nproc)
over=$((cores + 1))
mpi "$over" --op allreduce -e 1K
[ "$STATUS" -eq 0 ] && grep -q "^# warning: $over ranks share $cores cores on [^:]*: times include waiting for a core" "$TMP/out"
ok $? "$over ranks on $cores cores: the header warns (exit $STATUS)"
[ "$STATUS" -eq 0 ] || diag "$TMP/err"
if [ "$cores" -ge 2 ]; then
  mpi 2 --op allreduce -e 1K
  [ "$STATUS" -eq 0 ] && ! grep -q 'share .* cores' "$TMP/out"
  ok $? "2 ranks on $cores cores: no warning"
else
  skip "one core: 2 ranks share it"
fi
# --concurrent's run has the same header
if [ "$cores" -lt 4 ]; then
  mpi 4 --parallel tp=2,dp=2 --concurrent allreduce@tp,allgather@dp -b 1K -e 4K
  [ "$STATUS" -eq 0 ] && grep -q '^# warning: 4 ranks share' "$TMP/out"
  ok $? "--concurrent on 4 ranks and $cores cores: the header warns (exit $STATUS)"
  [ "$STATUS" -eq 0 ] || diag "$TMP/err"
else
  skip "4 cores or more: 4 ranks need not share them"
fi
finish
