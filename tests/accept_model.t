#!/bin/sh
# "80% model" levels (issue 58): --accept FILE --dry-run prints every GPU
# preset's model levels with NCCL's pick and band, without MPI; a run on 2
# ranks judges a model level against the alpha-beta model on the file's
# tiers and shows what it expected in the table, JSON and JUnit; a level
# the measurement cannot reach FAILs (exit 1) with its expected figure.
. tests/lib.sh
plan 9

for f in h100-ndr h200-ndr a100-hdr roce-cluster gb200-nvl72 pcie-gpu-server; do
  ./collbench --accept "topologies/$f.conf" --dry-run >"$TMP/plan" 2>"$TMP/err"
  s=$?
  # issue 74: the level a share of healthy systems measure under, with its false alarms
  grep -Eq '^    fail: ([0-9]*% model = [0-9.]* GB/s|1% healthy = [0-9.]* GB/s \(0[.][0-9]* of the model.s figure\))$' "$TMP/plan" &&
    grep -q '^      false alarms: 1[.]0% of healthy systems measure under it' "$TMP/plan" &&
    grep -q '^    model: [0-9.]* GB/s from NCCL.s cost model.*, pick [A-Za-z]*/[A-Za-z0-9]*; band \[' "$TMP/plan"
  m=$?
  [ $s -eq 0 ] && [ $m -eq 0 ]
  ok $? "--dry-run on $f.conf: exit 0 (got $s), its model level with pick, band and false alarms (1.0%)"
  [ $s -eq 0 ] && [ $m -eq 0 ] || { diag "$TMP/plan"; diag "$TMP/err"; }
done

# Two ranks on this host: the tiers' nominal figures, the levels far under
# them (pass) or far over what shared memory moves (fail).
cat >"$TMP/host.conf" <<'CONF'
[system]
name = this host
gpus_per_node = 0
ranks_per_node = 2

[tier shm]
scope = intra-node
kind = shm
bandwidth = 5 GB/s
latency = 1 us

[check allreduce-model]
op = allreduce
backend = mpi
size = 1M
metric = busbw
fail = 1% model
CONF
mpi 2 --accept "$TMP/host.conf" --max-time 0.3 --json "$TMP/pass.jsonl" --junit "$TMP/pass.xml"
shown() {
  grep -q '^  PASS    allreduce-model ' "$TMP/out" &&
    grep -q '^          expected: [0-9.]* GB/s (the alpha-beta model on the file.s tiers, pick ring, 2 ranks on 1 node); band none' "$TMP/out" &&
    jq -e -s '[.[] | select(.type == "verdict" and .check == "allreduce-model")][0]
              | .expected.value > 0 and .expected.ranks == 2 and .expected.pick == "ring"
                and (.fail - 0.01 * .expected.value | fabs) < 1e-6 * .fail' "$TMP/pass.jsonl" >/dev/null &&
    grep -q 'expected [0-9.]* GB/s (the alpha-beta model' "$TMP/pass.xml"
}
shown
ok $? "a model level passes (exit $STATUS) with its expected figure in the table, JSON and JUnit"
[ "$STATUS" -eq 0 ] || diag "$TMP/out" "$TMP/err"

# 1000 TB/s and 1 ns: the model's 1 MiB all-reduce is far beyond shared memory
sed -e 's|^bandwidth = 5 GB/s|bandwidth = 1000 TB/s|' -e 's|^latency = 1 us|latency = 1 ns|' \
  -e 's|^fail = 1% model|fail = 50% model|' "$TMP/host.conf" >"$TMP/fail.conf"
mpi 2 --accept "$TMP/fail.conf" --max-time 0.3 --json "$TMP/fail.jsonl"
failed() {
  [ "$STATUS" -eq 1 ] &&
    jq -e -s '[.[] | select(.type == "verdict" and .check == "allreduce-model")][0]
              | .status == "FAIL" and .margin < 0 and .expected.value > 100' "$TMP/fail.jsonl" >/dev/null
}
failed
ok $? "a level beyond what the host moves FAILs (exit $STATUS, want 1) with its expected figure"
[ "$STATUS" -eq 1 ] || diag "$TMP/out" "$TMP/err"

# a model level the model cannot answer: refused before anything runs
sed -e 's|^op = allreduce|op = p2p_bw|' -e 's|^metric = busbw|metric = algbw|' "$TMP/host.conf" >"$TMP/p2p.conf"
mpi 2 --accept "$TMP/p2p.conf" --json "$TMP/keep.jsonl"
[ "$STATUS" -eq 2 ] && grep -q 'p2p.conf:17: \[check allreduce-model\] fail: a model level.*no p2p_bw' "$TMP/err" &&
  [ ! -s "$TMP/keep.jsonl" ]
ok $? "a p2p op's model level: exit 2 (got $STATUS) naming file, line and key; nothing written"
[ "$STATUS" -eq 2 ] || diag "$TMP/err"
finish
