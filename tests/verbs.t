#!/bin/sh
# The verbs backend where there is no RDMA device (this machine, CI): it is
# built, --list says why it cannot run, an explicit run exits 2 with that
# reason, and a sweep leaves it out. Its pure logic is unit-tested
# (test_verbs_logic). With RDMA devices present these checks do not apply.
. tests/lib.sh
./collbench --list >"$TMP/list"
if ! grep -q '^  verbs ' "$TMP/list"; then
  echo "1..0 # SKIP this build has no verbs backend (configure found no libibverbs)"
  exit 0
fi
if grep -q '^  verbs *usable' "$TMP/list"; then
  echo "1..0 # SKIP RDMA devices present: the no-device checks do not apply (run the verbs backend by hand)"
  exit 0
fi
plan 7

grep -q '^  verbs *not usable (no RDMA devices (.*))' "$TMP/list"
ok $? "--list: verbs: no RDMA devices (reason)"
mpi 2 --backend verbs --op p2p_lat
[ $STATUS -eq 2 ] && grep -q 'backend verbs: no RDMA devices' "$TMP/err"
ok $? "--backend verbs exits 2 naming the reason (got $STATUS)"
[ "$(grep -c 'no RDMA devices' "$TMP/err")" -eq 1 ]
ok $? "the reason is printed once"
mpi 2 --sweep --op p2p_lat -e 64 --max-time 0.05 --json "$TMP/s.jsonl"
[ $STATUS -eq 0 ] && jq_all "$TMP/s.jsonl" '.backend != "verbs"'
ok $? "--sweep runs without verbs"

# GPU memory asked of a host without RDMA: the missing device is the reason
for mem in device pinned; do
  mpi 2 --backend verbs --mem $mem --op p2p_bw --json "$TMP/$mem.jsonl"
  [ $STATUS -eq 2 ] && [ "$(grep -c '^collbench: ' "$TMP/err")" -eq 1 ] &&
    grep -q -e 'backend verbs: no RDMA devices' -e "--mem $mem: no usable GPU" -e "--mem $mem: not built" "$TMP/err" &&
    [ ! -e "$TMP/$mem.jsonl" ]
  ok $? "--backend verbs --mem $mem: exit 2, one message ($(grep '^collbench: ' "$TMP/err"))"
done
skip "needs an RDMA device and a GPU: GPU buffers through dma-buf or nvidia-peermem (logic in test_verbs_logic)"
finish
