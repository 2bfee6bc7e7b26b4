#!/bin/sh
# Calibrates the stated 95% interval (a benchmark, not a test): runs the same
# command RUNS times, alternating between two builds when OLD is given, and
# for every run, size and variant asks whether the run's stated interval
# (time_us +- ci95_us) holds the median of the OTHER runs. A 95% interval that
# holds across runs does so in about 95% of cases; one that only describes
# its own run does so far less often.
#
# usage: scripts/ci-coverage.sh [RUNS] [COLLBENCH-ARGS...]
#   from the repository root; RUNS default 20; args default
#   "--op allreduce -b 1K -e 16M -f 128" (1 KiB, 128 KiB, 16 MiB);
#   OLD=path/to/collbench adds an older build, interleaved run by run;
#   KEEP=FILE keeps the raw records.
set -eu
runs=${1:-20}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- --op allreduce -b 1K -e 16M -f 128
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v jq >/dev/null || { echo "jq missing" >&2; exit 2; }
[ -x ./collbench ] || { echo "build collbench first (./configure && make)" >&2; exit 2; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
builds="new=./collbench"
[ -n "${OLD:-}" ] && builds="old=$OLD $builds"
: >"$tmp/all"
for i in $(seq "$runs"); do
  for b in $builds; do
    name=${b%%=*} bin=${b#*=}
    mpirun -np 2 "$bin" "$@" --json "$tmp/r.jsonl" >/dev/null 2>&1 || { echo "run $i ($name) failed" >&2; exit 3; }
    jq -r --arg b "$name" --arg i "$i" 'select(.type == "result") |
      "\($b) \(.op)-\(.bytes)\(if .inplace then "-in" else "" end) \($i) \(.time_us) \(.ci95_us) \(.iters) \(.samples // 0)"' \
      "$tmp/r.jsonl" >>"$tmp/all"
  done
done

echo "machine: $(nproc) cores; $runs runs of: collbench $*; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-22s %9s %9s %9s %10s %10s %9s\n' build size median ci_med% spread% covered coverage batch
awk '
function sort(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t } }
function med(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
{ k = $1 " " $2; if (!(k in n)) order[++nk] = k; n[k]++; t[k, n[k]] = $4; ci[k, n[k]] = $5
  if ($7 > 0) { bt[k] += $6 / $7; nb[k]++ } }
END {
  for (c = 1; c <= nk; c++) {
    k = order[c]; m = n[k]; hit = 0
    for (i = 1; i <= m; i++) {
      o = 0; for (j = 1; j <= m; j++) if (j != i) x[++o] = t[k, j]
      d = t[k, i] - med(x, o); if (d < 0) d = -d
      if (d <= ci[k, i]) hit++
    }
    for (i = 1; i <= m; i++) { a[i] = t[k, i]; r[i] = ci[k, i] / t[k, i] * 100 }
    mt = med(a, m); sort(a, m)
    lo = a[int(0.1 * (m - 1)) + 1]; hi = a[int(0.9 * (m - 1)) + 1]
    split(k, kk, " ")
    printf "%-5s %-22s %9.3f %9.2f %4.0f-%-4.0f %4d/%-5d %9.0f%% %9.1f\n", kk[1], kk[2], mt, med(r, m),
      (lo / mt - 1) * 100, (hi / mt - 1) * 100, hit, m, hit / m * 100, nb[k] ? bt[k] / nb[k] : 0
  }
}' "$tmp/all"
echo "ci_med%: median stated half-width over time; spread%: p10..p90 of the runs around their median;"
echo "covered: runs whose interval holds the median of the other runs; batch: mean ops per sample (0: not recorded)"
