#!/bin/sh
# Runs collbench side by side with independent anchors on 2 ranks and
# prints how far apart they are (a benchmark, not a test):
#   8 B p2p_lat   vs NetPIPE ping-pong (NPopenmpi, Debian netpipe-openmpi)
#   1 MiB p2p_bw  vs NetPIPE streaming (-s)
#   1 MiB allreduce (float) vs a plain timed MPI_Allreduce loop (its mean,
#   and the median of its per-call times: collbench reports a median)
# Runs are interleaved REPEATS times (default 5) so that machine drift hits
# both sides alike; 'paired' is the median over repeats of each repeat's
# difference between the two runs made back to back.
# NetPIPE reports the best of its trials (each a mean over many
# repetitions): collbench's equivalent is time_us_min, the fastest batch
# mean, so both collbench's median and its min are shown.
# usage: scripts/compare-anchors.sh [REPEATS]   (from the repository root)
set -eu
repeats=${1:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
np="mpirun -np 2"
tmp=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$tmp/all" "$KEEP"; rm -rf "$tmp"' EXIT
command -v NPopenmpi >/dev/null || { echo "NPopenmpi missing: apt-get install netpipe-openmpi" >&2; exit 2; }
[ -x ./collbench ] || { echo "build collbench first (./configure && make)" >&2; exit 2; }
mpicc -O2 -o "$tmp/loop" scripts/allreduce-loop.c

netpipe() { # ARGS... -> microseconds of the one size measured
  (cd "$tmp" && $np NPopenmpi -p 0 -o np.out "$@" >/dev/null 2>&1)
  awk '{printf "%.4f\n", $3 * 1e6}' "$tmp/np.out"
}

collbench() { # FIELD ARGS... -> that field of the single result line
  field=$1
  shift
  $np ./collbench --json "$tmp/c.jsonl" "$@" >/dev/null 2>&1
  jq -r "select(.type == \"result\") | .$field" "$tmp/c.jsonl" | head -n 1
}

for i in $(seq "$repeats"); do
  echo "lat_np $(netpipe -l 8 -u 8)" >>"$tmp/all"
  $np ./collbench --json "$tmp/c.jsonl" --op p2p_lat -b 8 -e 8 >/dev/null 2>&1
  jq -r 'select(.type == "result") | "lat_cb \(.time_us)\nlat_cbmin \(.time_us_min)"' "$tmp/c.jsonl" >>"$tmp/all"
  echo "bw_np $(netpipe -s -l 1048576 -u 1048576)" >>"$tmp/all"
  $np ./collbench --json "$tmp/c.jsonl" --op p2p_bw -b 1M -e 1M >/dev/null 2>&1
  jq -r 'select(.type == "result") | "bw_cb \(.time_us)\nbw_cbmin \(.time_us_min)"' "$tmp/c.jsonl" >>"$tmp/all"
  $np "$tmp/loop" 1048576 200 | awk '{print "ar_loop " $1 "\nar_loopmed " $2}' >>"$tmp/all"
  echo "ar_cb $(collbench time_us --op allreduce -b 1M -e 1M)" >>"$tmp/all"
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
values() { grep "^$1 " "$tmp/all" | awk '{print $2}'; }
# The VM this was written on drifts between a fast and a slow state every
# few seconds, so each repeat's pair (measured back to back) is compared and
# the median of the paired differences is the verdict.
row() { # LABEL ANCHOR-KEY COLLBENCH-KEY
  a=$(values "$2" | median)
  c=$(values "$3" | median)
  d=$(paste "$tmp/$2" "$tmp/$3" 2>/dev/null | awk '{printf "%.6f\n", ($2 - $1) / $1 * 100}' | median)
  awk -v l="$1" -v a="$a" -v c="$c" -v d="$d" 'BEGIN {printf "%-34s %12.3f %12.3f %+8.1f%%\n", l, a, c, d}'
}
for key in lat_np lat_cb lat_cbmin bw_np bw_cb bw_cbmin ar_loop ar_loopmed ar_cb; do values $key >"$tmp/$key"; done
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $repeats interleaved repeats"
printf '%-34s %12s %12s %9s\n' "figure (us per message/op)" "anchor(med)" "collbench" "paired"
row "8 B p2p_lat median / NetPIPE" lat_np lat_cb
row "8 B p2p_lat min / NetPIPE" lat_np lat_cbmin
row "1 MiB p2p_bw median / NetPIPE -s" bw_np bw_cb
row "1 MiB p2p_bw min / NetPIPE -s" bw_np bw_cbmin
row "1 MiB allreduce / plain loop mean" ar_loop ar_cb
row "1 MiB allreduce / plain loop median" ar_loopmed ar_cb
