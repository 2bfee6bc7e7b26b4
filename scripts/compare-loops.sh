#!/bin/sh
# collbench beside plain timed MPI loops (a benchmark, not a test), on 2
# ranks: allreduce (scripts/allreduce-loop.c), p2p_lat and p2p_bw
# (scripts/p2p-loop.c: OSU's ping-pong and acknowledged window, the window
# collbench uses at that size) at 8 B, 1 MiB and 16 MiB. Each repeat runs
# every cell's loop and collbench back to back; cells and repeats are
# interleaved, so machine drift hits both sides alike.
#
# For each cell it prints, over the repeats: the loop's mean and median (per
# op or message), collbench's mean (time_us_mean, total time over
# iterations, the anchors' definition) and median (time_us), the median of
# the paired ratios collbench/loop for the mean and for the median, the 10th
# to 90th percentile of those ratios, and the loop's own repeat-to-repeat
# spread (its p10..p90 over its median): collbench agrees with the loop when
# the paired ratio sits inside that spread.
#
# usage: scripts/compare-loops.sh [REPEATS] [COLLBENCH-ARGS...]
#   (from the repository root; REPEATS default 20; KEEP=FILE keeps the raw
#   figures; COLLBENCH=path picks another binary, e.g. an older build;
#   OPS and SIZES pick cells, e.g. OPS=p2p_bw SIZES=16777216; CB_FIRST=1
#   runs collbench before the loop in each cell, to see an order effect)
set -eu
repeats=${1:-20}
[ $# -gt 0 ] && shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
np="mpirun -np 2"
cb=${COLLBENCH:-./collbench}
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
[ -x "$cb" ] || { echo "build collbench first (./configure && make)" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq missing" >&2; exit 2; }
mpicc -O2 -o "$tmp/ar" scripts/allreduce-loop.c
mpicc -O2 -o "$tmp/p2p" scripts/p2p-loop.c

# iterations per loop run: about half a second each here
iters() { case $1 in 8) echo 20000 ;; 1048576) echo 400 ;; *) echo 40 ;; esac; }
# collbench's window at a size: --window 64, capped at 64 MiB in flight
window() { w=$((67108864 / $1)); [ "$w" -gt 64 ] && w=64; [ "$w" -lt 1 ] && w=1; echo "$w"; }

run_cb() { # collbench at $op and $size, one line into $tmp/all
  $np "$cb" --op "$op" -b "$size" -e "$size" --json "$tmp/c.jsonl" "$@" >/dev/null 2>&1
  jq -r --arg c "$cell" 'select(.type == "result" and .inplace == false) |
    "\($c) cb \(.time_us_mean // 0) \(.time_us) \(.iters) \(.samples // 0)"' "$tmp/c.jsonl" >>"$tmp/all"
}

for i in $(seq "$repeats"); do
  for op in ${OPS:-allreduce p2p_lat p2p_bw}; do
    for size in ${SIZES:-8 1048576 16777216}; do
      cell="$op-$size"
      [ "${CB_FIRST:-0}" = 1 ] && run_cb "$@"
      case $op in
      allreduce) $np "$tmp/ar" "$size" "$(iters "$size")" ;;
      p2p_lat) $np "$tmp/p2p" lat "$size" "$(iters "$size")" ;;
      p2p_bw) $np "$tmp/p2p" bw "$size" "$(($(iters "$size") / 4 + 1))" "$(window "$size")" ;;
      esac | awk -v c="$cell" '{print c, "loop", $1, $2}' >>"$tmp/all"
      [ "${CB_FIRST:-0}" = 1 ] || run_cb "$@"
    done
  done
done

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //');" \
  "$repeats interleaved repeats; load $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
function q(a, n, p,   i, j, t) { # quantile p of a[1..n] (sorts a)
  for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
  return a[int(p * (n - 1)) + 1]
}
$2 == "loop" { k = $1; nl[k]++; lm[k, nl[k]] = $3; lmed[k, nl[k]] = $4; order[k] = order[k] ? order[k] : ++ncell; name[ncell] = k }
$2 == "cb"   { k = $1; nc[k]++; cm[k, nc[k]] = $3; cmed[k, nc[k]] = $4; if ($6 > 0) { bt[k] += $5 / $6; nb[k]++ } }
END {
  printf "%-18s %10s %10s %10s %10s %8s %8s %15s %15s %6s\n", "cell (us/op)", "loop mean", "loop med", "cb mean",
    "cb med", "mean r", "med r", "mean r p10-p90", "loop spread", "batch"
  for (c = 1; c <= ncell; c++) {
    k = name[c]; n = nl[k] < nc[k] ? nl[k] : nc[k]
    for (i = 1; i <= n; i++) { a1[i] = lm[k, i]; a2[i] = lmed[k, i]; a3[i] = cm[k, i]; a4[i] = cmed[k, i]
      r1[i] = cm[k, i] / lm[k, i]; r2[i] = cmed[k, i] / lmed[k, i]; s[i] = lm[k, i] }
    med1 = q(a1, n, 0.5); sp_lo = q(s, n, 0.1) / med1; sp_hi = q(s, n, 0.9) / med1
    printf "%-18s %10.3f %10.3f %10.3f %10.3f %8.3f %8.3f %7.3f-%-7.3f %7.3f-%-7.3f %6.0f\n", k, med1, q(a2, n, 0.5),
      q(a3, n, 0.5), q(a4, n, 0.5), q(r1, n, 0.5), q(r2, n, 0.5), q(r1, n, 0.1), q(r1, n, 0.9), sp_lo, sp_hi,
      nb[k] ? bt[k] / nb[k] : 0
  }
}' "$tmp/all"
