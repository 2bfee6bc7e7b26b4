#!/bin/sh
# collbench's ucx backend side by side with Debian's ucx_perftest (a
# benchmark, not a test): 8 B tag latency and 1 MiB tag bandwidth, same
# transport (UCX_TLS), 2 processes on this host. ucx_perftest's MB/s is
# MiB/s (2^20 B/s): it is converted to GB/s (1e9) before comparing.
# Runs are interleaved REPEATS times; 'paired' is the median over repeats of
# the difference between two runs made back to back.
# usage: scripts/compare-ucx-perftest.sh [REPEATS] [TRANSPORTS]  (from the repo root)
set -eu
repeats=${1:-5}
tls_list=${2:-shm tcp}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v ucx_perftest >/dev/null || { echo "ucx_perftest missing: apt-get install ucx-utils" >&2; exit 2; }
./collbench --list | grep -q '^  ucx *usable' || { echo "this collbench has no ucx backend" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
port=$((20000 + $$ % 20000))

# perftest TLS TEST SIZE ITERS -> its "Final:" line (server and client on this host)
perftest() {
  port=$((port + 1))
  UCX_TLS=$1 ucx_perftest -p "$port" -t "$2" -s "$3" -n "$4" >"$tmp/server" 2>&1 &
  server=$!
  # wait until the server listens (bounded), then run the client
  tries=0
  until ss -ltn 2>/dev/null | grep -q ":$port "; do
    tries=$((tries + 1))
    [ $tries -lt 200 ] || { echo "ucx_perftest server did not start" >&2; exit 3; }
    sleep 0.05
  done
  UCX_TLS=$1 ucx_perftest 127.0.0.1 -p "$port" -t "$2" -s "$3" -n "$4" 2>&1 | grep '^Final:'
  wait "$server"
}

collbench() { # TLS OP SIZE -> "time_us algbw_GBps"
  mpirun -np 2 ./collbench --backend ucx --transport "$1" --op "$2" -b "$3" -e "$3" \
    --json "$tmp/c.jsonl" >/dev/null 2>&1
  jq -r 'select(.type == "result") | "\(.time_us) \(.algbw_GBps)"' "$tmp/c.jsonl"
}

for tls in $tls_list; do
  for i in $(seq "$repeats"); do
    # Final: iters lat50% lat-avg lat-overall bw-avg(MiB/s) bw-overall rate-avg rate-overall
    echo "lat_pt $(perftest "$tls" tag_lat 8 100000 | awk '{print $3}')" >>"$tmp/$tls"
    echo "lat_cb $(collbench "$tls" p2p_lat 8 | awk '{print $1}')" >>"$tmp/$tls"
    echo "bw_pt $(perftest "$tls" tag_bw 1048576 2000 | awk '{printf "%.4f\n", $7 * 1048576 / 1e9}')" >>"$tmp/$tls"
    echo "bw_cb $(collbench "$tls" p2p_bw 1M | awk '{print $2}')" >>"$tmp/$tls"
  done
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
values() { grep "^$2 " "$tmp/$1" | awk '{print $2}'; }
row() { # TLS LABEL ANCHOR-KEY COLLBENCH-KEY
  a=$(values "$1" "$3" | median)
  c=$(values "$1" "$4" | median)
  values "$1" "$3" >"$tmp/a"
  values "$1" "$4" >"$tmp/c"
  d=$(paste "$tmp/a" "$tmp/c" | awk '{printf "%.6f\n", ($2 - $1) / $1 * 100}' | median)
  awk -v l="$2 ($1)" -v a="$a" -v c="$c" -v d="$d" 'BEGIN {printf "%-32s %12.3f %12.3f %+8.1f%%\n", l, a, c, d}'
}
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(ucx_info -v | head -n 1 | sed 's/# //'); $repeats interleaved repeats"
printf '%-32s %12s %12s %9s\n' figure "ucx_perftest" collbench paired
for tls in $tls_list; do
  row "$tls" "8 B tag latency, us" lat_pt lat_cb
  row "$tls" "1 MiB tag bandwidth, GB/s" bw_pt bw_cb
done
