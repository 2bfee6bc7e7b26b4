#!/bin/sh
# Measures --compare's false alarms and its power (issue 57): N pairs of
# identical back-to-back sweeps on 2 ranks, each pair judged by
# `collbench --compare A B` (a false alarm: anything SLOWER, exit 1), and
# T sweeps with every float all-reduce throttled PCT% by the test fault
# shim (tests/fixtures/standin/mpi_fault.c), each judged against pair i's
# first sweep (named: all-reduce rows SLOWER).
#   scripts/compare-falsealarms.sh [-n PAIRS] [-t THROTTLED] [-p PCT] [-k DIR] [-j] [-S P] [-- SWEEP ARGS]
# -k keeps the sweeps in DIR (made if absent); with -j the sweeps already in
# DIR are judged again, nothing is run (a changed --compare, same data);
# -S P judges with --compare --launch-spread P instead of the default table.
# SWEEP ARGS default to --sweep. Prints one line per comparison, then the
# totals.
set -u
cd "$(dirname "$0")/.." || exit 2
pairs=20 thr=5 pct=20 dir= judge_only=0 spread=
while getopts n:t:p:k:jS: o; do
  case $o in
  n) pairs=$OPTARG ;;
  t) thr=$OPTARG ;;
  p) pct=$OPTARG ;;
  k) dir=$OPTARG ;;
  j) judge_only=1 ;;
  S) spread=$OPTARG ;;
  *) echo "usage: scripts/compare-falsealarms.sh [-n PAIRS] [-t THROTTLED] [-p PCT] [-k DIR] [-j] [-S P] [-- SWEEP ARGS]" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- --sweep
case $pairs$thr$pct in *[!0-9]*) echo "compare-falsealarms: -n, -t and -p take counts" >&2; exit 2 ;; esac
[ "$thr" -le "$pairs" ] || { echo "compare-falsealarms: -t $thr is more than -n $pairs" >&2; exit 2; }
[ -n "$dir" ] || { dir=$(mktemp -d "${TMPDIR:-/tmp}/compare.XXXXXX") || exit 2; trap 'rm -rf "$dir"' EXIT; }
mkdir -p "$dir" || exit 2
bin=$(realpath ./collbench) || exit 2
cmp_opts=
[ -n "$spread" ] && cmp_opts="--launch-spread $spread"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
if [ "$judge_only" -eq 0 ]; then
  mpicc -std=gnu11 -fPIC -shared -o "$dir/fault.so" tests/fixtures/standin/mpi_fault.c || exit 2
  i=1
  while [ "$i" -le "$pairs" ]; do
    for s in a b; do
      rm -f "$dir/$s$i.jsonl"
      mpirun -np 2 "$bin" "$@" --json "$dir/$s$i.jsonl" </dev/null >"$dir/$s$i.out" 2>&1
    done
    if [ "$i" -le "$thr" ]; then
      rm -f "$dir/t$i.jsonl"
      mpirun -np 2 -x LD_PRELOAD="$dir/fault.so" -x COLLBENCH_TEST_FAULT="throttle:0:$pct" \
        "$bin" "$@" --json "$dir/t$i.jsonl" </dev/null >"$dir/t$i.out" 2>&1
    fi
    echo "pair $i measured" >&2
    i=$((i + 1))
  done
fi
alarms=0 named=0
i=1
while [ "$i" -le "$pairs" ]; do
  "$bin" --compare "$dir/a$i.jsonl" "$dir/b$i.jsonl" $cmp_opts >"$dir/cmp$i.txt" 2>&1
  st=$?
  [ $st -eq 1 ] && alarms=$((alarms + 1))
  echo "pair $i: exit $st, $(tail -n 1 "$dir/cmp$i.txt")"
  if [ "$i" -le "$thr" ]; then
    "$bin" --compare "$dir/a$i.jsonl" "$dir/t$i.jsonl" $cmp_opts >"$dir/thr$i.txt" 2>&1
    st=$?
    n=$(grep -c '^SLOWER *allreduce' "$dir/thr$i.txt")
    all=$(grep -c '^[A-Za-z]* *allreduce' "$dir/thr$i.txt")
    [ "$st" -eq 1 ] && [ "$n" -gt 0 ] && named=$((named + 1))
    echo "throttled $pct% run $i: exit $st, $n of $all all-reduce rows SLOWER, $(grep -vc '^SLOWER *allreduce\|^#\|^same\|^unknown' "$dir/thr$i.txt") other rows SLOWER"
  fi
  i=$((i + 1))
done
echo "pairs $pairs: false alarms $alarms; throttled $pct%: named in $named of $thr"
# Baselines of 5 launches a side (scripts/launches.sh's way, where the spread
# between launches is measured, not assumed): a's against b's in disjoint
# fives (false alarms), and the first five a's against the five throttled
# runs (named) when there are five
L=5
k=1 balarms=0 btries=0
while [ $((k + L - 1)) -le "$pairs" ]; do
  fa= fb=
  j=$k
  while [ "$j" -lt $((k + L)) ]; do fa="$fa $dir/a$j.jsonl" fb="$fb $dir/b$j.jsonl"; j=$((j + 1)); done
  "$bin" --baseline-out "$dir/A$k.json" $fa >/dev/null && "$bin" --baseline-out "$dir/B$k.json" $fb >/dev/null &&
    "$bin" --compare "$dir/A$k.json" "$dir/B$k.json" $cmp_opts >"$dir/cmpL$k.txt" 2>&1
  st=$?
  btries=$((btries + 1))
  [ $st -eq 1 ] && balarms=$((balarms + 1))
  echo "launches $k-$((k + L - 1)), $L a side: exit $st, $(tail -n 1 "$dir/cmpL$k.txt")"
  k=$((k + L))
done
if [ "$thr" -ge "$L" ]; then
  ft=
  j=1
  while [ "$j" -le "$L" ]; do ft="$ft $dir/t$j.jsonl"; j=$((j + 1)); done
  "$bin" --baseline-out "$dir/T.json" $ft >/dev/null &&
    "$bin" --compare "$dir/A1.json" "$dir/T.json" $cmp_opts >"$dir/thrL.txt" 2>&1
  st=$?
  echo "throttled $pct%, $L launches a side: exit $st, $(grep -c '^SLOWER *allreduce' "$dir/thrL.txt") of $(grep -c '^[A-Za-z]* *allreduce' "$dir/thrL.txt") all-reduce rows SLOWER, $(grep -vc '^SLOWER *allreduce\|^#\|^same\|^unknown' "$dir/thrL.txt") other rows SLOWER"
fi
echo "baselines of $L launches: false alarms $balarms of $btries"
# The launch spread each size class needs (cb_launch_sigma, bench/base/robust.c):
# per row of a pair, the sigma a side of one launch must add so that --compare
# calls that row no slower (its slowdown's 95% CI reaching down to x1.1, either
# way round); per pair and class the most any row needs; then, left out one
# pair at a time, whether that pair would alarm under the most the other
# pairs need (a false alarm rate not fitted to the pair it is judged on).
i=1
while [ "$i" -le "$pairs" ]; do
  jq -rn --arg i "$i" --slurpfile a "$dir/a$i.jsonl" --slurpfile b "$dir/b$i.jsonl" '
    [$a[] | select(.type == "result" and .ci95_us != null and .time_us > 0)] as $A
    | [$b[] | select(.type == "result" and .ci95_us != null and .time_us > 0)][] | . as $y
    | ($A[] | select(.op == $y.op and .backend == $y.backend and .mem == $y.mem
        and .transport == $y.transport and .dtype == $y.dtype and .redop == $y.redop
        and .inplace == $y.inplace and .bytes == $y.bytes and .nranks == $y.nranks)) as $x
    | [$i, $x.bytes, (($y.time_us / $x.time_us) | log), ($x.ci95_us / 1.96 / $x.time_us),
       ($y.ci95_us / 1.96 / $y.time_us)] | @tsv'
  i=$((i + 1))
done | awk -v pairs="$pairs" '
  function cls(b) { return b <= 65536 ? 1 : b <= 4194304 ? 2 : 3 }
  { lr = $3 < 0 ? -$3 : $3; x = (lr - log(1.1)) / 1.96; s2 = (x * x - $4 * $4 - $5 * $5) / 2
    need = x > 0 && s2 > 0 ? sqrt(s2) : 0; c = cls($2)
    if (need > n[$1, c]) n[$1, c] = need }
  END {
    name[1] = "up to 64 KiB"; name[2] = "64 KiB to 4 MiB"; name[3] = "above 4 MiB"
    for (c = 1; c <= 3; c++) {
      worst = 0; second = 0
      for (p = 1; p <= pairs; p++) { v = n[p, c]; if (v > worst) { second = worst; worst = v } else if (v > second) second = v }
      printf "class %-16s sigma needed: most of any pair %.3f, second %.3f\n", name[c], worst, second
    }
    alarms = 0
    for (p = 1; p <= pairs; p++) {
      bad = 0
      for (c = 1; c <= 3; c++) {
        m = 0; for (q = 1; q <= pairs; q++) if (q != p && n[q, c] > m) m = n[q, c]
        if (n[p, c] > m) bad = 1
      }
      alarms += bad
    }
    printf "left out one at a time: %d of %d pairs need more than the others allow\n", alarms, pairs
  }'

