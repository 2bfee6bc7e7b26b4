#!/bin/sh
# --probe on 2 ranks: the summary, the JSON probe object (also in a sweep's
# run record), and --op copy: a usage error without a GPU, a matrix with one.
. tests/lib.sh
plan 10

mpi 2 --probe
ok $STATUS "mpirun -np 2 --probe exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"
nodes=$(grep -c '^node ' "$TMP/out")
[ "$nodes" -eq 1 ] && grep -q "^node $(hostname)\$" "$TMP/out"
ok $? "one node in the summary, named by its hostname ($nodes)"
grep -Eq '^  GPUs: (none \(cudaGetDeviceCount: .+\)|[0-9]+; driver )' "$TMP/out" &&
  grep -Eq '^  RDMA NICs:( none \(ibv_get_device_list: .+\))?$' "$TMP/out" &&
  grep -q '^  CPU: .*NUMA node' "$TMP/out"
ok $? "summary says CPUs and NUMA, and GPUs and RDMA NICs or why there are none"
gpus=$(sed -n 's/^  GPUs: \([0-9]*\);.*/\1/p' "$TMP/out")
gpus=${gpus:-0}

mpi 2 --probe --json "$TMP/p.jsonl"
ok $STATUS "--probe --json exits 0"
jq -e -s 'length == 1 and .[0].type == "run" and (.[0].probe.nodes | length) == 1 and
  (.[0].probe.nodes[0].hostname | length) > 0 and (.[0].probe.nodes[0].numa_nodes >= 1) and
  (.[0].probe.nodes[0].gpus | length) == '"$gpus"' and
  ((.[0].probe.nodes[0].gpus | length) > 0 or (.[0].probe.nodes[0].gpus_why_none | startswith("cudaGetDeviceCount: "))) and
  ((.[0].probe.nodes[0].rdma_nics > 0) or (.[0].probe.nodes[0].rdma_why_none | startswith("ibv_get_device_list: ")))' \
  "$TMP/p.jsonl" >/dev/null
ok $? "the JSON file is one run line whose probe matches the summary ($gpus GPUs)"

mpi 2 -e 1K --max-time 0.05 --json "$TMP/s.jsonl"
jq -e -s '.[0].probe.nodes[0].cpu_model | length > 0' "$TMP/s.jsonl" >/dev/null
ok $? "a sweep's run record carries the probe too"

echo keep >"$TMP/c.jsonl"
if [ "$gpus" -eq 0 ]; then
  mpi 2 --op copy --json "$TMP/c.jsonl"
  [ $STATUS -eq 2 ]
  ok $? "--op copy without a GPU exits 2 ($STATUS)"
  grep -q 'collbench: --op copy needs a GPU: cudaGetDeviceCount: ' "$TMP/err"
  ok $? "and says why"
  [ "$(cat "$TMP/c.jsonl")" = keep ]
  ok $? "and leaves the earlier --json file alone"
  echo "ok 10 # SKIP no GPU here: the copy matrix itself is not run"
  TESTS_RUN=$((TESTS_RUN + 1))
else
  mpi 1 --op copy -e 4M --json "$TMP/c.jsonl"
  ok $STATUS "--op copy -e 4M exits 0 (wrong bytes would exit 1)"
  [ $STATUS -eq 0 ] || diag "$TMP/err"
  jq -e -s '[.[] | select(.type == "pair")] as $p | ($p | length) > 0 and
    all($p[]; .bw_GBps > 0 and .bytes == 4194304 and (.link | length) > 0)' "$TMP/c.jsonl" >/dev/null
  ok $? "every copy cell has a bandwidth, the size and a link"
  n=$(jq -s '[.[] | select(.type == "pair" and (.matrix == "copy_h2d" or .matrix == "copy_d2h"))] | length' "$TMP/c.jsonl")
  [ "$n" -eq $((2 * gpus)) ]
  ok $? "h2d and d2h for each of the $gpus GPUs ($n cells)"
  n=$(jq -s '[.[] | select(.type == "pair" and .matrix == "copy_ce")] | length' "$TMP/c.jsonl")
  [ "$n" -eq $((gpus * gpus)) ]
  ok $? "copy_ce has every ordered pair and the diagonal ($n cells)"
fi
finish
