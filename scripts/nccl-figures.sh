#!/bin/sh
# The published-figure table of reports/PLANNING.md, "NCCL's cost model": each row is
# a figure someone published (the source is named; each was read for this
# table), and what `collbench --predict` says for the same system, GPU count,
# size and algorithm, with the error predicted / published - 1. Prints the
# Markdown table, then each class of system's error range (the band
# --predict puts around NCCL's uncalibrated times: bench/model/nccl_band.c,
# whose numbers tests/nccl_model.t checks against this script's, as it checks
# reports/PLANNING.md carries exactly this output).
#   scripts/nccl-figures.sh [COLLBENCH]
set -u
cd "$(dirname "$0")/.." || exit 2
bin=${1:-./collbench}
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
# the H100 preset with NVLS turned off (NCCL_NVLS_ENABLE=0 in the source)
sed 's/^nvswitch = nvls/nvswitch = yes/' topologies/h100-ndr.conf >"$tmp/h100-nonvls.conf"

# system|topology|gpus|size|algorithm column (pick: NCCL's own)|published GB/s|source|class
# (class: node, one NVSwitch node; nodes, NVSwitch nodes across a network)
rows='8x H100 SXM, NCCL default|topologies/h100-ndr.conf|8|16G|pick|480|nccl-tests#212 (NVIDIA: "peak busBw of ~480GB/s")|node
8x H100 SXM, NCCL_ALGO=Ring|topologies/h100-ndr.conf|8|16G|Ring|370|nccl-tests#212 (NVIDIA: "370GB/s ... with NCCL_ALGO=RING")|node
8x H100 SXM, NCCL_ALGO=NVLS|topologies/h100-ndr.conf|8|4G|NVLS|480|nccl#1455 (2G-4G, 8 GPUs)|node
6x H100 SXM, NCCL_ALGO=NVLS|topologies/h100-ndr.conf|6|4G|NVLS|440|nccl#1455 (2G-4G, 6 GPUs)|node
4x H100 SXM, NCCL_ALGO=Ring|topologies/h100-ndr.conf|4|4G|Ring|367|nccl#1455 ("365-370 GBps when gpus from 2 to 8")|node
8x H100 SXM, NCCL default|topologies/h100-ndr.conf|8|16G|pick|460|Azure/azurehpc-health-checks conf/nd96isr_h100_v5.conf (pass floor at 16G)|node
8x H200 SXM, NCCL default|topologies/h200-ndr.conf|8|16G|pick|431|Azure/azurehpc-health-checks conf/nd96isr_h200_v5.conf (pass floor at 16G)|node
8x A100 SXM4, NCCL default|topologies/a100-hdr.conf|8|4G|pick|228|Azure/azurehpc-health-checks conf/nd96amsr_a100_v4.conf (pass floor at 4G)|node
8x A100 SXM4, NCCL default|topologies/a100-hdr.conf|8|1G|pick|200|nccl-tests#149 ("busbw of ~200 GB/s", NCCL 2.18)|node
2x 8 H100, 8x 400G per node, default|topologies/h100-ndr.conf|16|8G|pick|430|nccl#1221 (NVLS on, 4G-8G, NCCL 2.19.3, RoCE)|nodes
2x 8 H100, 8x 400G per node, NVLS off|TMP/h100-nonvls.conf|16|8G|pick|330|nccl#1221 (NCCL_NVLS_ENABLE=0)|nodes
4x 8 H100, 8x 400G per node, default|topologies/h100-ndr.conf|32|8G|pick|320|nccl#1221 ("more than 2 [nodes] ... same busbw 320GB")|nodes'

echo "| System | Size | Algorithm | Published busbw | Source | Predicted (NCCL's pick) | Error |"
echo "|---|---|---|---|---|---|---|"
echo "$rows" | while IFS='|' read -r sys topo gpus size col pub src cls; do
    topo=$(echo "$topo" | sed "s|^TMP|$tmp|")
    "$bin" --predict --topology "$topo" --gpus "$gpus" --op allreduce -b "$size" -e "$size" \
        --json "$tmp/p.json" >/dev/null || exit 3
    if [ "$col" = pick ]; then
        got=$(jq -r '.predictions.nccl.rows[0] | "\(.busbw_GBps) \(.algo)/\(.proto)"' "$tmp/p.json")
    else
        got=$(jq -r --arg a "$col" '.predictions.nccl.rows[0].algorithms[$a] |
            "\(.busbw_GBps) \($a)/\(.proto)"' "$tmp/p.json")
    fi
    set -- $got
    awk -v s="$sys" -v z="$size" -v c="$col" -v p="$pub" -v src="$src" -v g="$1" -v a="$2" \
        -v cls="$cls" -v gpus="$gpus" -v bands="$tmp/bands" 'BEGIN {
        printf "| %s | %s | %s | %d GB/s | %s | %.0f GB/s (%s) | %+.1f%% |\n",
               s, z, c == "pick" ? "NCCL default" : c, p, src, g, a, 100 * (g / p - 1)
        printf "%s %s %s %.6f %d\n", cls, gpus, z + 0, g / p - 1, src ~ /pass floor/ >>bands }'
done

# Per class: the least and most error, and the GPU counts and sizes they
# cover (sizes as written: 1G ... 16G)
echo
echo "| Class | Figures | Error range | GPUs | Sizes |"
echo "|---|---|---|---|---|"
for cls in node nodes; do
    awk -v c="$cls" '$1 == c {
            n++; f += $5
            if (n == 1 || $4 < lo) lo = $4; if (n == 1 || $4 > hi) hi = $4
            if (n == 1 || $2 < g0) g0 = $2; if ($2 > g1) g1 = $2
            if (n == 1 || $3 < s0) s0 = $3; if ($3 > s1) s1 = $3 }
        END { printf "| %s | %d (%d pass floors) | %+.1f%% to %+.1f%% | %d-%d | %s |\n",
              c == "node" ? "one NVSwitch node" : "NVSwitch nodes across a network",
              n, f, 100 * lo, 100 * hi, g0, g1, s0 == s1 ? s0 "G" : s0 "G-" s1 "G" }' "$tmp/bands"
done
echo "| without NVSwitch | 0 | unknown | - | - |"

# Crossovers: where NCCL's log showed the switch, against the model's switches
echo
echo "| System | Published switch | Source | The model's switches |"
echo "|---|---|---|---|"
"$bin" --predict --topology topologies/h200-ndr.conf --gpus 512 --op allreduce -b 1M -e 1M \
    >"$tmp/x.out" || exit 3
sw=$(sed -n 's/^#   512 GPUs: //p' "$tmp/x.out")
echo "| 64x 8 H200 | Tree/LL128 at 16 MiB, NVLS_TREE/Simple from 32 MiB | nccl#1752 (NCCL_DEBUG log, Ethernet fabric) | $sw |"
