#!/bin/sh
# --accept's [step] checks on host with the tiny model: the tuner's step
# measured on 2 ranks and judged on its communication overhead,
# (T_step - T_compute) / T_step, in the table, JSON, JUnit and Prometheus.
. tests/lib.sh
if ! grep -q 'HAVE_OPENBLAS = 1' config.mk; then
  echo "1..0 # SKIP configured without OpenBLAS: the step (--tune's) is disabled"
  exit 0
fi
plan 12

# pass: the step as it is, any overhead under 99% of it (the communication of
# 3 MiB takes about a tenth of the compute here). fail: one token per step, so
# compute is almost nothing and the whole all-reduce, in one bucket, is
# exposed after it: T_step is about T_compute + T_comm (40% overhead here),
# far above a 5% limit. 20 rounds, not 5: a round whose T_compute a loaded
# machine stretched can read near 0%, and with 5 rounds one such round
# widened the interval below 5% (INCONCLUSIVE, CI at 9cdbfee).
cat >"$TMP/step.conf" <<'EOF2'
[system]
name = this host

[step tiny-pass]
workload = tiny
ranks = 2
reps = 5
limit = 99%

[step tiny-fail]
model = tiny
model_config = seq=1
bucket = 1G
reps = 20
limit = 5%
EOF2
mpi 2 --accept "$TMP/step.conf" --json "$TMP/s.jsonl" --junit "$TMP/s.xml" --prom "$TMP/s.prom"
[ $STATUS -eq 1 ]
ok $? "one [step] fails: exit 1 (got $STATUS)"
[ $STATUS -eq 1 ] || diag "$TMP/out" "$TMP/err"
[ "$(grep -c 'step.conf:11: \[step tiny-fail\] model is now workload (the old name works for this release)' "$TMP/err")" = 1 ]
ok $? "[step]'s old key model: read, and said once by rank 0"
grep -q '^  PASS    tiny-pass  .* % \[[^]]*\]  .*+[0-9]*%  step tiny, bucket 3098 KiB, 2 ranks (mpi, float on host): overhead ' "$TMP/out"
ok $? "the table: tiny-pass PASS with measured %, margin and what was run"
grep -q '^  FAIL    tiny-fail  .* % \[[^]]*\]  .*  5  *-[0-9]*%  step tiny (custom), bucket 3098 KiB' "$TMP/out"
ok $? "the table: tiny-fail FAIL against 5% with a negative margin"
jq -e -s '[.[] | select(.type == "verdict" and .check == "tiny-pass")][0]
          | .status == "PASS" and .unit == "%" and .fail == 99 and .measured < 99
            and ((.margin - (99 - .measured) / 99) | . < 1e-6 and . > -1e-6)' \
  "$TMP/s.jsonl" >/dev/null
ok $? "--json: the PASS verdict with measured overhead (%) and its margin"
jq -e -s '[.[] | select(.type == "verdict" and .check == "tiny-fail")][0]
          | .status == "FAIL" and .fail == 5 and .measured > 5 and .margin < 0
            and .lo > 5 and .hi >= .lo
            and (.what | test("overhead [0-9.]+% \\(95% CI [0-9.]+% to [0-9.]+%\\) of T_step"))' \
  "$TMP/s.jsonl" >/dev/null
ok $? "--json: the FAIL verdict, its whole 95% interval above the limit"
grep -q '<testsuite name="collbench acceptance" tests="3" failures="1"' "$TMP/s.xml" &&
  grep -q '<failure message="FAIL: measured [0-9.]* %, fail level 5 %; step tiny' "$TMP/s.xml"
ok $? "--junit: the [step] checks as test cases, tiny-fail failing"
grep -q '^collbench_acceptance_verdict{check="tiny-pass"} 0$' "$TMP/s.prom" &&
  grep -q '^collbench_acceptance_verdict{check="tiny-fail"} 2$' "$TMP/s.prom"
ok $? "--prom: the verdict gauges (0 pass, 2 fail)"
promtool_ok "$TMP/s.prom"

# a check for another rank count is refused before anything runs
cat >"$TMP/four.conf" <<'EOF2'
[system]
name = this host
[step four]
workload = tiny
ranks = 4
limit = 20%
EOF2
mpi 2 --accept "$TMP/four.conf" --json "$TMP/s.jsonl"
[ $STATUS -eq 2 ] && grep -q "step 'four' (line 3): it is for 4 ranks, and this run has 2" "$TMP/err"
ok $? "ranks = 4 on 2 ranks: exit 2 naming the check (got $STATUS)"
grep -q '"tiny-fail"' "$TMP/s.jsonl"
ok $? "the refused run left the earlier --json as it was"
printf '[system]\nname = x\n[step s]\nworkload = tiny\nlimit = 120%%\n' >"$TMP/bad.conf"
./collbench --accept "$TMP/bad.conf" >"$TMP/out" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "bad.conf:5: \[step s\] limit: '120%'" "$TMP/err"
ok $? "limit = 120%: exit 2 naming file, line and value"
finish
