#!/bin/sh
# collbench's wall time beside OSU's for the same sizes, launch to exit (a
# benchmark, not a test): what a user waits for each tool, start-up included.
#
#   startup    osu_allreduce -m 4:4           collbench --op allreduce -b 4 -e 4 -n 1 -w 0
#   allreduce  osu_allreduce (1 B-1 MiB)      collbench --op allreduce -b 1 -e 1M
#   allgather  osu_allgather (1 B-1 MiB)      collbench --op allgather -b 2 -e 2M
#   p2p_bw     osu_bw (1 B-4 MiB)             collbench --op p2p_bw -b 1 -e 4M
#
# Like with like: OSU's defaults (MPI_CHAR, 1,000 iterations below 8 KiB
# and 100 above, after 200 and 10 warm-ups) against collbench's defaults
# (iterations until the 95% CI of the median is within 5%, at most 1 s per
# size, every element checked) with -d int8 and --variant out-of-place, as
# OSU measures; "allreduce_both" is collbench's default of both layouts.
# collbench's all-gather row is the whole gathered buffer (as nccl-tests),
# OSU's the part of one rank: 2 ranks, so twice OSU's sizes.
#
# Launches are interleaved (OSU then collbench, every case once per launch
# round) so that drift hits both alike; scripts/paired.awk gives per case the
# medians of the wall times, the median of the paired ratios collbench / OSU
# (for startup: of the differences, seconds) with its 95% interval, and the
# verdict against issue 45's goals: startup within 0.3 s of OSU, the sweeps
# within 2x. Beside it, collbench's noisy rows per launch (median, max).
#
# OSU is built by the user beside collbench, never by this script:
#   OSU=DIR   folder holding osu_allreduce, osu_allgather and osu_bw (OSU
#             Micro-Benchmarks: ./configure CC=mpicc CXX=mpicxx && make;
#             the binaries are under c/mpi/.../)
# On a GPU machine, NCCL_TESTS=DIR (all_reduce_perf built by the user) adds
# "nccl": all_reduce_perf -b 8 -e 128M -f 2 -g 1 against collbench
# --backend nccl --mem device -b 8 -e 128M (both layouts, as nccl-tests
# measures), on one rank.
# usage: OSU=DIR scripts/compare-osu.sh [LAUNCHES]   (default 10; 6 at least)
#   KEEP=FILE keeps the raw lines (NP CASE BYTES OSU_S CB_S NOISY);
#   COLLBENCH=PATH times another build (default ./collbench)
set -eu
launches=${1:-10}
case $launches in '' | *[!0-9]*) echo "compare-osu.sh: LAUNCHES must be a count (got '$launches')" >&2; exit 2 ;; esac
[ "$launches" -ge 6 ] || { echo "compare-osu.sh: 6 launches at least (a 95% interval needs 6 pairs), got $launches" >&2; exit 2; }
[ -n "${OSU:-}" ] || { echo "compare-osu.sh: set OSU=DIR, the folder holding osu_allreduce, osu_allgather, osu_bw" >&2; exit 2; }
for b in osu_allreduce osu_allgather osu_bw; do
  [ -x "$OSU/$b" ] || { echo "compare-osu.sh: $OSU/$b is missing or not executable" >&2; exit 2; }
done
[ -z "${NCCL_TESTS:-}" ] || [ -x "$NCCL_TESTS/all_reduce_perf" ] ||
  { echo "compare-osu.sh: $NCCL_TESTS/all_reduce_perf is missing or not executable" >&2; exit 2; }
cb=${COLLBENCH:-./collbench}
[ -x "$cb" ] || { echo "compare-osu.sh: build collbench first (./configure && make), or COLLBENCH=PATH" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/pairs" "$KEEP"; rm -rf "$tmp"' EXIT
: >"$tmp/pairs"

wall() { # COMMAND...: its wall time in seconds; a failed launch stops the script (exit 3)
  t0=$(date +%s.%N)
  "$@" >"$tmp/last" 2>&1 || { echo "compare-osu.sh: failed: $*" >&2; tail -n 20 "$tmp/last" >&2; exit 3; }
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

one() { # NP CASE BYTES "OSU COMMAND" "COLLBENCH OPTIONS": one pair, appended to pairs
  rm -f "$tmp/c.jsonl"
  # shellcheck disable=SC2086 # a command line
  o=$(wall $4)
  # shellcheck disable=SC2086 # option lists
  c=$(wall mpirun -np "$1" "$cb" --json "$tmp/c.jsonl" $5)
  jq -s -e '[.[] | select(.type == "result")] | length > 0 and all(.wrong == 0)' "$tmp/c.jsonl" >/dev/null ||
    { echo "compare-osu.sh: collbench $5: wrong values or no results" >&2; exit 3; }
  noisy=$(jq -s '[.[] | select(.type == "result" and .noisy)] | length' "$tmp/c.jsonl")
  echo "$1 $2 $3 $o $c $noisy" >>"$tmp/pairs"
}

np="mpirun -np 2"
oop="-d int8 --variant out-of-place"
i=1
while [ "$i" -le "$launches" ]; do
  one 2 startup 4 "$np $OSU/osu_allreduce -m 4:4" "--op allreduce -b 4 -e 4 -n 1 -w 0 $oop"
  one 2 allreduce 1048576 "$np $OSU/osu_allreduce" "--op allreduce -b 1 -e 1M $oop"
  one 2 allreduce_both 1048576 "$np $OSU/osu_allreduce" "--op allreduce -b 1 -e 1M -d int8"
  one 2 allgather 1048576 "$np $OSU/osu_allgather" "--op allgather -b 2 -e 2M $oop"
  one 2 p2p_bw 4194304 "$np $OSU/osu_bw" "--op p2p_bw -b 1 -e 4M $oop"
  [ -z "${NCCL_TESTS:-}" ] ||
    one 1 nccl 134217728 "$NCCL_TESTS/all_reduce_perf -b 8 -e 128M -f 2 -g 1" \
      "--backend nccl --mem device -b 8 -e 128M"
  echo "launch round $i of $launches done" >&2
  i=$((i + 1))
done

echo "# NP CASE BYTES n median_osu_s median_cb_s ratio lo hi coverage% verdict (startup: difference cb-osu, s)"
grep ' startup ' "$tmp/pairs" | awk -v max_diff=0.3 -f scripts/paired.awk | grep -v '^verdicts'
grep -v ' startup ' "$tmp/pairs" | awk -v max_ratio=2 -f scripts/paired.awk | grep -v '^verdicts'
echo "# collbench's noisy rows per launch: CASE median max"
awk '{ k = $2; n[k]++; v[k, n[k]] = $6 } END {
  for (k in n) { m = n[k]; for (i = 1; i <= m; i++) a[i] = v[k, i]
    for (i = 2; i <= m; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    printf "%s %s %d\n", k, m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2, a[m] } }' "$tmp/pairs" | sort
