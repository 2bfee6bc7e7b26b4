#!/bin/sh
# collbench beside NVIDIA's nccl-tests on one GPU machine (a benchmark, not
# a test): all_reduce_perf and all_gather_perf against collbench's allreduce
# and allgather, float, out of place, on 1 rank and on NP ranks sharing the
# GPU (--share-gpu; nccl-tests' ranks get the same NCCL_HOSTID=collbench-<rank>
# scheme, so both run NCCL's network transport over loopback).
#
# Like with like: both tools time -w WARM warm-ups, then one batch of
# -n ITERS back-to-back calls by the host clock after a stream sync, and
# report the batch's mean per call (collbench: --stat mean, time_us_mean;
# its CUDA-event time time_us_gpu is shown beside). Cells and repeats are
# interleaved (each cell runs nccl-tests then collbench back to back, every
# cell once per repeat), so drift hits both tools alike; 'paired' is the
# median over repeats of each repeat's ratio collbench / nccl-tests, with
# its 10th-90th percentile. #wrong is summed over all runs of a cell.
#
# The nccl-tests binaries are built by the user beside collbench, never by
# this script (NVIDIA's code is not part of collbench):
#   NCCL_TESTS=DIR  folder holding all_reduce_perf and all_gather_perf
#                   (built with MPI=1 for NP > 1)
# usage: scripts/compare-nccl-tests.sh [REPEATS]   (default 5)
#   SIZES (bytes, default 8 1048576 67108864 268435456), NPS (default 1 2),
#   OPS (default allreduce allgather), ITERS / WARM (default 100 / 20),
#   KEEP=FILE keeps the raw lines. Start MPS first (nvidia-cuda-mps-control
#   -d) when NP > 1: without it the ranks' contexts take turns on the GPU.
set -eu
repeats=${1:-5}
nt=${NCCL_TESTS:?set NCCL_TESTS to the folder of the built nccl-tests binaries}
sizes=${SIZES:-8 1048576 67108864 268435456}
nps=${NPS:-1 2}
ops=${OPS:-allreduce allgather}
iters=${ITERS:-100} warm=${WARM:-20}
cb=${COLLBENCH:-./collbench}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo} NCCL_TESTS_DEVICE=0
[ -x "$cb" ] || { echo "compare-nccl-tests: build collbench first" >&2; exit 2; }
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
: >"$tmp/all"

# one rank's NCCL_HOSTID as collbench's --share-gpu sets it
hostid='NCCL_HOSTID=collbench-${OMPI_COMM_WORLD_RANK:-0} exec "$0" "$@"'

for r in $(seq "$repeats"); do
  for np in $nps; do
    share=
    [ "$np" -gt 1 ] && share=--share-gpu
    for op in $ops; do
      bin=$nt/all_reduce_perf
      [ "$op" = allgather ] && bin=$nt/all_gather_perf
      for s in $sizes; do
        # nccl-tests: the data row's fields 6 and 9 (out-of-place time, #wrong)
        mpirun -np "$np" sh -c "$hostid" "$bin" -b "$s" -e "$s" -n "$iters" -w "$warm" \
          -d float -c 1 >"$tmp/nt.out" 2>&1 || { cat "$tmp/nt.out" >&2; exit 3; }
        set -- $(awk -v s="$s" '$1 == s && NF >= 9 && $1 !~ /#/ {print $6, $9; exit}' "$tmp/nt.out")
        ntt=${1:-nan} ntw=${2:-0}
        [ "$ntt" = nan ] && { echo "# nccl-tests printed no row of $s B:"; grep -v '^#' "$tmp/nt.out" | head -n 5; } >&2
        mpirun -np "$np" "$cb" --backend nccl --mem device --op "$op" -b "$s" -e "$s" \
          -n "$iters" -w "$warm" --stat mean $share --json "$tmp/c.jsonl" >"$tmp/cb.out" 2>&1 ||
          { cat "$tmp/cb.out" >&2; exit 3; }
        row=$(grep '"type": *"result"' "$tmp/c.jsonl" | grep '"inplace": *false' | head -n 1)
        field() { printf '%s\n' "$row" | sed -n "s/.*\"$1\": *\([0-9.eE+-]*\).*/\1/p"; }
        echo "$np $op $s $ntt $ntw $(field time_us_mean) $(field time_us_gpu) $(field wrong)" |
          tee -a "$tmp/all"
      done
    done
  done
done

echo "# np op bytes | nccl-tests us (median) | collbench mean us, gpu us (medians) | paired cb/nt, p10..p90 | #wrong nt, cb | repeats"
sort -k1,1n -k2,2 -k3,3n "$tmp/all" | awk '
  function med(a, n,   i, j, t) { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  function q(a, n, p,   k) { k = int(p * (n - 1) + 1.5); return a[k < 1 ? 1 : k > n ? n : k] }
  function flush() { if (!n) return
    printf "%s %s %s | %.2f | %.2f %.2f | %.4f %.4f..%.4f | %d %d | %d\n", key1, key2, key3,
      med(nt, n), med(cm, n), med(cg, n), med(rt, n), q(rt, n, 0.1), q(rt, n, 0.9), wn, wc, n
    n = 0; wn = 0; wc = 0 }
  { k = $1 " " $2 " " $3; if (k != last) { flush(); last = k; key1 = $1; key2 = $2; key3 = $3 }
    n++; nt[n] = $4; cm[n] = $6; cg[n] = $7; rt[n] = ($4 > 0) ? $6 / $4 : 0; wn += $5; wc += $8 }
  END { flush() }'
