#!/bin/sh
# collbench beside NVIDIA's nccl-tests on one GPU machine (a benchmark, not
# a test): all_reduce_perf and all_gather_perf against collbench's allreduce
# and allgather, float, out of place, on 1 rank and on NP ranks sharing the
# GPU (--share-gpu; nccl-tests' ranks get the same NCCL_HOSTID=collbench-<rank>
# scheme, so both run NCCL's network transport over loopback).
#
# Like with like: both tools time -w WARM warm-ups, then one batch of
# -n ITERS back-to-back calls by the host clock after a stream sync, and
# report the batch's mean per call, of the slowest rank (nccl-tests -a 3,
# its MAX over ranks; collbench --stat mean reports the slowest rank; its
# CUDA-event time time_us_gpu is kept beside). GRAPH=L times CUDA graphs in
# both: nccl-tests -G L (ITERS calls captured, launched L times), collbench
# --graph ITERS -n L. Without graphs collbench runs with --rotate, as
# nccl-tests moves its buffers.
#
# One launch per tool, op and repeat covers every size (-b MIN -e MAX -f 2,
# so each SIZE must be the smallest times a power of 2); launches are
# interleaved (nccl-tests then collbench, every op and rank count once per
# repeat), so drift hits both alike. scripts/paired.awk then gives per cell
# the medians, the median of the paired ratios collbench / nccl-tests with its
# 95% interval, and PASS / FAIL / INCONCLUSIVE against the goal band (2% from
# 1 MiB, 5% below).
#
# Checked on every launch, or the script stops (exit 3): nccl-tests ran as
# NP ranks of one job (a build without MPI under mpirun -np 2 runs two 1-rank
# tests, which print rank 0 twice), and neither tool reported wrong values.
# A size nccl-tests has no row for (it rounds an 8-byte all-gather down to
# 0 B: each rank's part is aligned to 16 bytes) is "nan" and the cell NOREF.
#
# The nccl-tests binaries are built by the user beside collbench, never by
# this script (NVIDIA's code is not part of collbench):
#   NCCL_TESTS=DIR  folder holding all_reduce_perf and all_gather_perf
#                   (built with MPI=1 for NP > 1)
# usage: scripts/compare-nccl-tests.sh [REPEATS]   (default 10)
#   SIZES (bytes, default 8 65536 1048576 67108864 268435456), NPS (default
#   1 2), OPS (default allreduce allgather), ITERS / WARM (default 100 / 20),
#   GRAPH (default 0: no graphs), KEEP=FILE keeps the raw lines (NP OP BYTES
#   NT_US CB_US CB_GPU_US). Start MPS first (nvidia-cuda-mps-control -d) when
#   NP > 1: without it the ranks' contexts take turns on the GPU.
set -eu
repeats=${1:-10}
nt=${NCCL_TESTS:?set NCCL_TESTS to the folder of the built nccl-tests binaries}
sizes=${SIZES:-8 65536 1048576 67108864 268435456}
nps=${NPS:-1 2}
ops=${OPS:-allreduce allgather}
iters=${ITERS:-100} warm=${WARM:-20} graph=${GRAPH:-0}
cb=${COLLBENCH:-./collbench}
here=$(cd "$(dirname "$0")" && pwd)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NCCL_TESTS_DEVICE=0
[ -x "$cb" ] || { echo "compare-nccl-tests: build collbench first ($cb)" >&2; exit 2; }
case $repeats in '' | *[!0-9]*) echo "compare-nccl-tests: REPEATS '$repeats' is not a count" >&2; exit 2 ;; esac
min= max=
for s in $sizes; do
  case $s in '' | *[!0-9]* | 0) echo "compare-nccl-tests: size '$s' is not a positive byte count" >&2; exit 2 ;; esac
  { [ -z "$min" ] || [ "$s" -lt "$min" ]; } && min=$s
  { [ -z "$max" ] || [ "$s" -gt "$max" ]; } && max=$s
done
for s in $sizes; do
  q=$((s / min))
  if [ $((s % min)) -ne 0 ] || [ $((q & (q - 1))) -ne 0 ]; then
    echo "compare-nccl-tests: size $s is not $min times a power of 2 (one -f 2 launch covers every size)" >&2
    exit 2
  fi
done
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
trap 'exit 3' INT TERM
: >"$tmp/all"
# nccl-tests moves each call to the next slice of its largest buffer
# (startColl); collbench does the same with --rotate (not with graphs, whose
# captured calls collbench keeps on one buffer: there the tools differ by it,
# bench/backends/GPUS.md)
ntgraph= cbtime="-n $iters -w $warm --rotate"
if [ "$graph" -gt 0 ]; then
  ntgraph="-G $graph"
  cbtime="--graph $iters -n $graph -w 1"
fi

# one rank's NCCL_HOSTID as collbench's --share-gpu sets it
hostid='NCCL_HOSTID=collbench-${OMPI_COMM_WORLD_RANK:-0} exec "$0" "$@"'

for r in $(seq "$repeats"); do
  for np in $nps; do
    share=
    [ "$np" -gt 1 ] && share=--share-gpu
    for op in $ops; do
      bin=$nt/all_reduce_perf
      [ "$op" = allgather ] && bin=$nt/all_gather_perf
      mpirun -np "$np" sh -c "$hostid" "$bin" -b "$min" -e "$max" -f 2 -n "$iters" -w "$warm" \
        -d float -c 1 -a 3 $ntgraph >"$tmp/nt.out" 2>&1 || { cat "$tmp/nt.out" >&2; exit 3; }
      # its header lists each rank once: "#  Rank  0 Group  0 Pid ..."
      ranks=$(sed -n 's/^#  *Rank *\([0-9]*\) .*/\1/p' "$tmp/nt.out" | sort -u | wc -l)
      lines=$(grep -c '^#  *Rank *[0-9]' "$tmp/nt.out" || true)
      if [ "$ranks" -ne "$np" ] || [ "$lines" -ne "$np" ]; then
        echo "compare-nccl-tests: $bin ran as $ranks distinct rank(s) in $lines line(s), not one job of $np (built without MPI=1?):" >&2
        grep '^#  *Rank' "$tmp/nt.out" >&2 || true
        exit 3
      fi
      mpirun -np "$np" "$cb" --backend nccl --mem device --op "$op" -b "$min" -e "$max" -f 2 \
        $cbtime --stat mean $share --json "$tmp/c.jsonl" >"$tmp/cb.out" 2>&1 ||
        { cat "$tmp/cb.out" >&2; exit 3; }
      # per size: nccl-tests' out-of-place time and #wrong (fields 6 and 9 of its
      # data rows), collbench's out-of-place result line
      awk -v np="$np" -v op="$op" -v sizes="$sizes" -v nt="$tmp/nt.out" '
        function num(line, key,   m) {
          if (match(line, "\"" key "\": *[-0-9.eE+]+")) { m = substr(line, RSTART, RLENGTH); sub(/.*: */, "", m); return m }
          return "nan" }
        BEGIN {
          while ((getline l < nt) > 0) { split(l, f, " "); if (l !~ /^ *#/ && f[1] ~ /^[0-9]+$/ && split(l, g, " ") >= 9) { ntt[f[1]] = f[6]; ntw[f[1]] = f[9] } }
        }
        /"type": *"result"/ && /"inplace": *false/ { b = num($0, "bytes"); cm[b] = num($0, "time_us_mean"); cg[b] = num($0, "time_us_gpu"); cw[b] = num($0, "wrong") }
        END {
          n = split(sizes, s, " ")
          for (i = 1; i <= n; i++) {
            z = s[i]
            printf "%s %s %s %s %s %s %s %s\n", np, op, z, (z in ntt) ? ntt[z] : "nan", (z in cm) ? cm[z] : "nan",
              (z in cg) ? cg[z] : "nan", (z in ntw) ? ntw[z] : 0, (z in cw) ? cw[z] : "nan"
          }
        }' "$tmp/c.jsonl" >"$tmp/rows"
      cat "$tmp/rows"
      if awk '$7 != 0 || ($8 != 0 && $8 != "nan") {bad = 1} END {exit !bad}' "$tmp/rows"; then
        echo "compare-nccl-tests: wrong values reported (fields 7, 8: nccl-tests, collbench #wrong)" >&2
        exit 3
      fi
      cat "$tmp/rows" >>"$tmp/all"
    done
  done
done

echo "# np op bytes n | nccl-tests us | collbench us (medians) | paired cb/nt: median, 95% interval, coverage % | verdict (2% from 1 MiB, 5% below)"
awk '{print $1, $2, $3, $4, $5}' "$tmp/all" | awk -f "$here/paired.awk"
