#!/bin/sh
# The published-figure table of bench/model/PLANNING.md, "NCCL's cost model": each row is
# a figure someone published (the source is named; each was read for this
# table), and what `collbench --predict` says for the same system, GPU count,
# size and algorithm, with the error predicted / published - 1. Prints the
# Markdown table, then each class of system's band (a prediction interval
# made from these figures by bench/model/nccl_band.c, as `--predict --json`
# reports it) and how the bands held with each figure left out in turn.
# With --c it prints instead the figures as bench/model/nccl_band.c's table
# holds them; tests/nccl_model.t checks that file, and bench/model/PLANNING.md,
# carry exactly this script's output.
#   scripts/nccl-figures.sh [--c] [COLLBENCH]
set -u
cd "$(dirname "$0")/.." || exit 2
c_table=0
[ "${1:-}" = --c ] && { c_table=1; shift; }
bin=${1:-./collbench}
tmp=$(mktemp -d) || exit 3
trap 'rm -rf "$tmp"' EXIT
# Systems no preset describes, written as the sources describe them: a
# preset with keys changed, or a small file of its own (topologies/README.md)
sed 's/^nvswitch = nvls/nvswitch = yes/; s/^kind = ib-ndr/kind = roce-400g/' \
    topologies/h100-ndr.conf >"$tmp/h100-roce-nonvls.conf"
sed 's/^kind = ib-ndr/kind = roce-400g/' topologies/h100-ndr.conf >"$tmp/h100-roce.conf"
sed 's/^nics_per_node = 8/nics_per_node = 4/' "$tmp/h100-roce.conf" >"$tmp/h100-roce4.conf"
sed 's/^fabric_sharp = no/fabric_sharp = yes/' topologies/h100-ndr.conf >"$tmp/h100-sharp.conf"
sed 's/^kind = ib-ndr/kind = efa/; s/^bandwidth = 400 Gb\/s/bandwidth = 100 Gb\/s/;
     s/^nics_per_node = 8/nics_per_node = 32/' topologies/h100-ndr.conf >"$tmp/p5.conf"
sed 's/^kind = ib-ndr/kind = tcpxo/; s/^bandwidth = 400 Gb\/s/bandwidth = 200 Gb\/s/' \
    topologies/h100-ndr.conf >"$tmp/a3mega.conf"
sed 's/^nics_per_node = 8/nics_per_node = 4/' topologies/a100-hdr.conf >"$tmp/a100-hdr4.conf"
sed 's/^kind = ib-hdr/kind = efa/; s/^bandwidth = 200 Gb\/s/bandwidth = 100 Gb\/s/;
     s/^nics_per_node = 8/nics_per_node = 4/' topologies/a100-hdr.conf >"$tmp/p4de.conf"
sed 's/^kind = ib-hdr/kind = roce-100g/; s/^bandwidth = 200 Gb\/s/bandwidth = 100 Gb\/s/;
     s/^nics_per_node = 8/nics_per_node = 16/' topologies/a100-hdr.conf >"$tmp/oci-a100.conf"
sed 's/^gpu_arch = hopper/gpu_arch = blackwell/; s/^nvlink = 4/nvlink = 5/' \
    topologies/h100-ndr.conf >"$tmp/b200-ib.conf"
sed 's/^kind = ib-ndr/kind = roce-400g/' "$tmp/b200-ib.conf" >"$tmp/b200-roce.conf"
# CoreWeave's GB200 job sets NCCL_NVLS_ENABLE=0 and NCCL_COLLNET_ENABLE=0
sed 's/^nvswitch = nvls/nvswitch = yes/' topologies/gb200-nvl72.conf >"$tmp/nvl72-nonvls.conf"
node() { # NAME GPUS KEYS...: one node without NVSwitch, no network
    f="$tmp/$1.conf" g=$2
    shift 2
    { printf '[system]\nname = %s\ngpus_per_node = %s\nnvswitch = no\n' "$f" "$g"
      for k in "$@"; do echo "$k"; done
      printf '[tier local]\nscope = intra-node\nkind = local\nbandwidth = 1 GB/s\nlatency = 1 us\n'
    } >"$f"
}
node h100-pcie-pair 2 'gpu_arch = hopper' 'nvlink = 4' 'nvlink_links = 12' 'pcie_gen = 5'
node a100-pcie-pairs 8 'gpu_arch = ampere' 'nvlink = 3' 'nvlink_links = 12' 'nvlink_peers = 1' 'pcie_gen = 4' \
    'gpu_path = node'
node a100-ncv4 4 'gpu_arch = ampere' 'nvlink = 3' 'nvlink_links = 12' 'nvlink_peers = 1' 'pcie_gen = 4' \
    'gpu_path = sys' 'cpu = amd'
node rtx4090 4 'compute_capability = 8.9' 'nvlink = 0' 'pcie_gen = 4'
node rtx5090 8 'compute_capability = 12.0' 'nvlink = 0' 'pcie_gen = 5' 'gpu_p2p = no'
node rtxpro6000 8 'compute_capability = 12.0' 'nvlink = 0' 'pcie_gen = 5' 'gpu_path = pxb'
node rtxpro6000-shm 4 'compute_capability = 12.0' 'nvlink = 0' 'pcie_gen = 5' 'gpu_path = node' \
    'cpu = amd'
node rtxpro6000-node 4 'compute_capability = 12.0' 'nvlink = 0' 'pcie_gen = 5' 'gpu_path = node' \
    'cpu = amd' 'p2p_level = sys'
node dgx1v 8 'gpu_arch = volta' 'nvlink = 2' 'nvlink_links = 6' 'nvlink_peers = 4' 'pcie_gen = 3'

# system|topology|gpus|size|algorithm column (pick: NCCL's own)|published GB/s|source|class|
# confidence|NCCL|state[|why]
# (class: node, one NVSwitch node; nvl72, NVLink domains; ib, roce, efa, tcpx: nodes across
# that network; pcie, one node without NVSwitch; --predict must agree. Confidence: measured, a
# run's output or its runner's figure; pass floor, a cloud's acceptance floor; expected, a
# maintainer's figure. Size 8G where the source gives none, said in the confidence. NCCL: the
# version the source states, - where none. State: healthy, or degraded where the source or a
# like machine shows it fell short (kept in the table, out of the bands). Why: the reason a
# row is more than 25% off, where it is.)
rows='8x H100 SXM, NCCL default|topologies/h100-ndr.conf|8|16G|pick|480|nccl-tests#212 (NVIDIA: "peak busBw of ~480GB/s")|node|expected|-|healthy
8x H100 SXM, NCCL_ALGO=Ring|topologies/h100-ndr.conf|8|16G|Ring|370|nccl-tests#212 (NVIDIA: "370GB/s ... with NCCL_ALGO=RING")|node|expected|-|healthy
8x H100 SXM, NCCL_ALGO=NVLS|topologies/h100-ndr.conf|8|4G|NVLS|480|nccl#1455 (2G-4G, 8 GPUs)|node|measured|-|healthy
6x H100 SXM, NCCL_ALGO=NVLS|topologies/h100-ndr.conf|6|4G|NVLS|440|nccl#1455 (2G-4G, 6 GPUs)|node|measured|-|healthy
4x H100 SXM, NCCL_ALGO=Ring|topologies/h100-ndr.conf|4|4G|Ring|367|nccl#1455 ("365-370 GBps when gpus from 2 to 8")|node|measured|-|healthy
8x H100 SXM, NCCL default|topologies/h100-ndr.conf|8|16G|pick|460|Azure/azurehpc-health-checks conf/nd96isr_h100_v5.conf|node|pass floor|-|healthy
8x H200 SXM, NCCL default|topologies/h200-ndr.conf|8|16G|pick|431|Azure/azurehpc-health-checks conf/nd96isr_h200_v5.conf|node|pass floor|-|healthy
8x H200 SXM, NCCL default (in place)|topologies/h200-ndr.conf|8|8G|pick|480|Azure/AI-benchmarking-guide Azure_Results/ND_H200_v5_results.md (NCCL 2.20.5)|node|measured|2.20.5|healthy
8x H200 SXM, NCCL default (nccl-tests#272)|topologies/h200-ndr.conf|8|4G|pick|475|nccl-tests#272 ("peak bandwidth of 475 GB/s", -e 4G, NCCL 2.20.3)|node|measured, size not given|2.20.3|healthy
8x B200, NCCL default|TMP/b200-ib.conf|8|8G|pick|830|nccl#1807 ("Ours is 830+", NCCL 2.27.1; its log: "maxBw 721.8")|node|measured, size not given|2.27.1|healthy
4x GB200, one host of an NVL72 rack, NCCL_ALGO=Ring (in place)|TMP/b200-ib.conf|4|8G|Ring|679.61|Azure/AI-benchmarking-guide Azure_Results/ND_GB200_v6_results.md at fa79995 (NCCL 2.25.1; 8 GiB: 679.61)|node|measured|2.25.1|healthy
8x A100 SXM4, NCCL default|topologies/a100-hdr.conf|8|4G|pick|228|Azure/azurehpc-health-checks conf/nd96amsr_a100_v4.conf|node|pass floor|-|healthy
8x A100 SXM4, NCCL default|topologies/a100-hdr.conf|8|1G|pick|200|nccl-tests#149 ("busbw of ~200 GB/s", NCCL 2.18)|node|measured|2.18|healthy
8x A100, NCCL default (nccl-tests#175)|topologies/a100-hdr.conf|8|4G|pick|232.54|nccl-tests#175 and nccl#1048 ("-b 8 -e 4G ... result: 232.54GB/s")|node|measured, size not given|-|healthy
8x A100 SXM4 (Azure ND A100 v4, in place)|topologies/a100-hdr.conf|8|8G|pick|232|Azure/AI-benchmarking-guide Azure_Results/ND_A100_v4_results.md (8 GiB: 231.58)|node|measured|-|healthy
8x H100 SXM (Azure ND H100 v5, in place)|topologies/h100-ndr.conf|8|8G|pick|479|Azure/AI-benchmarking-guide Azure_Results/ND_H100_v5_results.md (8 GiB: 478.87)|node|measured|-|healthy
8x A100 SXM4 40GB (OCI BM.GPU4.8)|topologies/a100-hdr.conf|8|10G|pick|232|oracle-japan/ocitutorials run-nccltests-ubuntu (NCCL 2.26.5)|node|measured|2.26.5|healthy
2x H100 PCIe, NVLink bridge|TMP/h100-pcie-pair.conf|2|4G|pick|116|nccl#1161 (4 GiB: 116.26)|pcie|measured|-|degraded|the machine, not the model: Azure passes a bridged H100 NVL pair at 208 GB/s and up (row below), this one measured half of that; NCCL counts its 12 bridge links at 20.6 GB/s, and the source, closed without an answer, does not say what held it back
A100 PCIe bridged in pairs, one pair|TMP/a100-pcie-pairs.conf|2|8G|pick|208|nccl-tests#178 ("Bus_BW: 208 GBps", peak of a sweep to 12G)|pcie|measured, size not given|-|healthy
2x H100 NVL, NVLink bridge (Azure NC80adis H100 v5)|TMP/h100-pcie-pair.conf|2|16G|pick|208|Azure/azurehpc-health-checks conf/nc80adis_h100_v5.conf|pcie|pass floor|-|healthy
2x A100 PCIe, NVLink bridge (Azure NC48ads A100 v4)|TMP/a100-pcie-pairs.conf|2|16G|pick|193|Azure/azurehpc-health-checks conf/nc48ads_a100_v4.conf|pcie|pass floor|-|healthy
4x A100 PCIe, bridged pairs across the CPU, AMD (Azure NC96ads A100 v4)|TMP/a100-ncv4.conf|4|8G|pick|25|Azure/azurehpc-health-checks conf/nc96ads_a100_v4.conf (with its ncv4-topo.xml)|pcie|pass floor|-|healthy
A100 PCIe bridged in pairs, 3 GPUs (the third through the CPU)|TMP/a100-pcie-pairs.conf|3|8G|pick|20|nccl-tests#178 ("bus_bw drops to 20 GBps"; NODE between the pairs)|pcie|measured, size not given|-|healthy
4x RTX 4090, PCIe Gen4, P2P on|TMP/rtx4090.conf|4|1G|pick|26|tinygrad/open-gpu-kernel-modules#36 (1 GiB: 25.95)|pcie|measured|-|healthy
8x RTX 5090, PCIe Gen5, 2 sockets|TMP/rtx5090.conf|8|8G|pick|28|nccl#1639 ("8 GPU max ... 28GB/s", 1G-8G)|pcie|measured, size not given|-|healthy|GeForce cards have no GPU peer-to-peer (nccl#1309): NCCL copies through host memory, which bounds it (nccl#1639); the NCCL estimate takes the PCIe link, and --predict says unknown
4x RTX 5090, PCIe Gen5|TMP/rtx5090.conf|4|8G|pick|35|nccl#1639 ("4GPU max ... 35GB/s", 1G-8G)|pcie|measured, size not given|-|healthy|as the row above
8x RTX PRO 6000 Blackwell, PCIe Gen5, 3 switches, NCCL_MIN_NCHANNELS=8|TMP/rtxpro6000.conf|8|2G|pick|41.1|voipmonitor/rtx6kpro hardware/pcie-bandwidth.md at 070506ff (41.1, the peak of a sweep 8M-2G; one CPU)|pcie|measured, size not given|-|healthy
8x RTX PRO 6000 Blackwell, PCIe Gen5, 4 switches, one CPU|TMP/rtxpro6000.conf|8|32M|pick|40.1|voipmonitor/rtx6kpro hardware/pcie-bandwidth.md at 070506ff (32 MiB: 40.1, "Default"; the 32M command on the page sets NCCL_P2P_LEVEL=SYS)|pcie|measured|-|healthy
4x RTX PRO 6000 Blackwell Server, two PCIe Gen5 switches and NODE between them, NCCL_P2P_LEVEL=SYS|TMP/rtxpro6000-node.conf|4|32M|pick|39.3|voipmonitor/rtx6kpro hardware/asus-esc8000a-e13p-broadcom-switches.md at 070506ff (32 MiB: 39.3; ACS off)|pcie|measured|-|healthy
4x RTX PRO 6000 Blackwell Server, as the row above, NCCL default|TMP/rtxpro6000-shm.conf|4|32M|pick|30.3|voipmonitor/rtx6kpro hardware/asus-esc8000a-e13p-broadcom-switches.md at 070506ff (32 MiB: 30.3, "Default (SHM for NODE pairs)")|pcie|measured|-|healthy
8x V100, NVLink hybrid cube mesh (DGX-1)|TMP/dgx1v.conf|8|8G|pick|130|nccl#258 ("busbw is 130 with 8 gpu in the NVlink")|pcie|measured, size not given|-|healthy
8x V100 SXM2, NVLink hybrid cube mesh (OCI BM.GPU3.8)|TMP/dgx1v.conf|8|1G|pick|136|oracle-japan/ocitutorials tutorials/_hpc/spinup-ml-instance-cntnd.md (1 GiB: 135.50)|pcie|measured|-|healthy
8x V100 SXM2, NVLink hybrid cube mesh (Azure ND40rs v2)|TMP/dgx1v.conf|8|8G|pick|110|Azure/azurehpc-health-checks conf/nd40rs_v2.conf (with its ndv2-topo.xml)|pcie|pass floor|-|healthy
72x GB200, one NVL72 rack, NVLS off|TMP/nvl72-nonvls.conf|72|8G|pick|835|coreweave/nccl-tests README at bee97e7 (NCCL 2.26.2; 8 GiB: 834.57; its job sets NCCL_NVLS_ENABLE=0)|nvl72|measured|2.26.2|healthy
2x NVL72 racks over IB, NVLS and CollNet off|TMP/nvl72-nonvls.conf|144|16G|pick|810|coreweave/nccl-tests README at bee97e7, 2 racks (NCCL 2.26.2; 810.41)|nvl72|measured|2.26.2|healthy
20x NVL72 racks over IB, NVLS and CollNet off|TMP/nvl72-nonvls.conf|1440|16G|pick|406|coreweave/nccl-tests README at bee97e7, 20 racks (NCCL 2.26.2; 405.74)|nvl72|measured|2.26.2|healthy|the pick, not the bandwidth: NCCL 2.28.9 caps Tree at 24 GB/s a channel on Blackwell past 2 nodes (at 72 in 2.26.2, which ran here), which gives Tree 381 GB/s (-6%), and the run follows that estimate from 4 to 16 GiB (346, 381, 406 against 372, 378, 381); 2.28.9 then picks Ring/LL128, which no run here checks
2x 8 H100, 8x 400G RoCE, default|TMP/h100-roce.conf|16|8G|pick|430|nccl#1221 (NVLS on, 4G-8G, NCCL 2.19.3, RoCE)|roce|measured|2.19.3|healthy
2x 8 H100, 8x 400G RoCE, NVLS off|TMP/h100-roce-nonvls.conf|16|8G|pick|330|nccl#1221 (NCCL_NVLS_ENABLE=0)|roce|measured|-|healthy
4x 8 H100, 8x 400G RoCE, default|TMP/h100-roce.conf|32|8G|pick|320|nccl#1221 ("more than 2 [nodes] ... same busbw 320GB")|roce|measured|-|healthy
5x 8 H100, 4x 400G RoCE, NCCL_ALGO=Ring|TMP/h100-roce4.conf|40|1G|Ring|190|nccl#1368 ("ring bandwidth (190GB/s)")|roce|measured|-|healthy
2x 8 A100 40GB, 16x 100G RoCE (OCI)|TMP/oci-a100.conf|16|8G|pick|238|oracle-quickstart/oci-hpc-oke README (8 GiB: 237.94)|roce|measured|-|healthy
2x 8 B200, 8x 400G RoCE (GCP A4)|TMP/b200-roce.conf|16|8G|pick|684|dstackai/dstack examples/clusters/a4 (8 GiB: 683.52)|roce|measured|-|healthy|the NCCL estimate is under the fabric: its NVLS graph across nodes takes 48 GB/s a head on Blackwell (the step under 96 in the inter-node speed list); one node of B200 ran 830 where NCCL logged its estimate as 721.8 (nccl#1807)
2x 8 H100, 8x 400G IB (Nebius)|topologies/h100-ndr.conf|16|8G|pick|468|dstackai/dstack examples/clusters/nebius (8 GiB: 467.54)|ib|measured|-|healthy
2x 8 H100, 8x 400G IB (Dell XE9680)|topologies/h100-ndr.conf|16|8G|pick|470|nccl-tests#309 ("2 nodes ... 470 GB/s", NCCL 2.26.2)|ib|measured, size not given|2.26.2|healthy
4x 8 H100, 8x 400G IB (Dell XE9680)|topologies/h100-ndr.conf|32|8G|pick|366|nccl-tests#309 ("4 nodes ... 365.84 GB/s")|ib|measured, size not given|-|healthy
8x 8 H100, 8x 400G IB with SHARP, NCCL_ALGO=CollNetChain|TMP/h100-sharp.conf|64|8G|CollNetChain|387|coreweave/nccl-tests README (NCCL 2.18.1; 8 GiB: 386.56; its job sets NCCL_ALGO=COLLNETCHAIN)|ib|measured|2.18.1|healthy
2x 8 A100 80GB SXM, 8x IB (Crusoe)|topologies/a100-hdr.conf|16|2G|pick|194|dstackai/dstack examples/clusters/crusoe/README.md at 107fefef5 (2 GiB: 194.06; 8 HCAs, their speed not given: on A100, PCIe Gen4 caps each at 24 GB/s)|ib|measured|-|healthy
2x 8 A100 80GB, 4x 200G IB|TMP/a100-hdr4.conf|16|8G|pick|91|nccl-tests#100 ("can reach 91GB/s", 1G-8G)|ib|measured, size not given|-|healthy
2x 8 A100, 4x 200G IB (nccl-tests#175)|TMP/a100-hdr4.conf|16|8G|pick|86|nccl-tests#175 and nccl#1048 ("between two nodes only 86GB/s"; 24 GB/s on one HCA)|ib|measured, size not given|-|healthy
2x 8 B200, 8x 400G IB (Lambda)|TMP/b200-ib.conf|16|2G|pick|696|dstackai/dstack examples/clusters/lambda (NCCL 2.26.2; 2 GiB: 696.06)|ib|measured|2.26.2|healthy|as the row above
2x 8 H100, 32x 100G EFA (AWS p5)|TMP/p5.conf|16|16G|pick|487|aws-samples/awsome-distributed-training micro-benchmarks/nccl-tests (16 GiB: 487.09)|efa|measured|-|healthy
2x 8 A100 80GB, 4x 100G EFA (AWS p4de)|TMP/p4de.conf|16|2G|pick|78|aws-samples/awsome-distributed-training micro-benchmarks/nccl-tests (2 GiB: 78.33)|efa|measured|-|healthy
2x 8 A100 40GB, 4x 100G EFA (AWS p4dn)|TMP/p4de.conf|16|1G|pick|57.17|nccl#527 (NCCL 2.9.9; 2 nodes, 1 GiB: 57.17)|efa|measured|2.9.9|healthy|EFA through aws-ofi-nccl of 2022 measured 0.62-0.69 of what NCCL counts for its four 100G NICs, at 2 to 4 nodes; the source asks what to expect and calls it slow, no answer says the nodes were at fault
3x 8 A100 40GB, 4x 100G EFA (AWS p4dn)|TMP/p4de.conf|24|1G|pick|31.77|nccl#527 (NCCL 2.9.9; 3 nodes, 1 GiB: 31.77)|efa|measured|2.9.9|healthy|as the row above
4x 8 A100 40GB, 4x 100G EFA (AWS p4dn)|TMP/p4de.conf|32|1G|pick|29.61|nccl#527 (NCCL 2.9.9; 4 nodes, 1 GiB: 29.61)|efa|measured|2.9.9|healthy|as the row above
2x 8 H100, 8x 200G TCPXO (GCP A3 Mega)|TMP/a3mega.conf|16|8G|pick|339|lessizzmore/create-a3mega-ztan-fork (8 GiB: 338.82; the system from the repository name)|tcpx|measured|-|healthy|what TCPXO achieves of its NICs is not in the NCCL model (a NIC is its speed); one figure, from a fork whose system its name implies'

[ $c_table = 1 ] || echo "| System | Size | Algorithm | Published busbw | Source | Confidence | NCCL | State | Predicted (NCCL's pick) | Error | Why, beyond 25% |"
[ $c_table = 1 ] || echo "|---|---|---|---|---|---|---|---|---|---|---|"
echo "$rows" | while IFS='|' read -r sys topo gpus size col pub src cls conf nccl state why; do
    topo=$(echo "$topo" | sed "s|^TMP|$tmp|")
    "$bin" --predict --topology "$topo" --gpus "$gpus" --op allreduce -b "$size" -e "$size" \
        --json "$tmp/p.json" >/dev/null || exit 3
    if [ "$col" = pick ]; then
        got=$(jq -r '.predictions.nccl.rows[0] | "\(.busbw_GBps) \(.algo)/\(.proto)"' "$tmp/p.json")
    else
        got=$(jq -r --arg a "$col" '.predictions.nccl.rows[0].algorithms[$a] |
            "\(.busbw_GBps) \($a)/\(.proto)"' "$tmp/p.json")
    fi
    # a row --predict calls unknown has no interval: it is shown, not counted
    unk=$(jq -r '.predictions.nccl.rows[0].unknown // ""' "$tmp/p.json")
    # the class the row was written in must be the one --predict puts it in
    pcls=$(jq -r '.predictions.nccl.rows[0].interval.class // "-"' "$tmp/p.json")
    cp "$tmp/p.json" "$tmp/last.json"
    set -- $got
    awk -v s="$sys" -v z="$size" -v c="$col" -v p="$pub" -v src="$src" -v g="$1" -v a="$2" \
        -v cls="$cls" -v conf="$conf" -v why="$why" -v gpus="$gpus" -v bands="$tmp/bands" \
        -v unk="$unk" -v nccl="$nccl" -v state="$state" -v pcls="$pcls" -v ctab="$c_table" 'BEGIN {
        e = g / p - 1
        split("node:one NVSwitch node|nvl72:NVLink domains (NVL72)|ib:nodes over InfiniBand|" \
              "roce:nodes over RoCE|efa:nodes over EFA|tcpx:nodes over GPUDirect-TCPX|" \
              "pcie:one node without NVSwitch", m, "|")
        for (i in m) { split(m[i], kv, ":"); name[kv[1]] = kv[2] }
        if (unk == "" && name[cls] != pcls) { print s ": written as " cls ", --predict says " pcls >"/dev/stderr"; exit 3 }
        if (state != "healthy" && state != "degraded") { print s ": state " state >"/dev/stderr"; exit 3 }
        got = sprintf("%.0f GB/s (%s)", g, a); err = sprintf("%+.1f%%", 100 * e)
        if (unk != "") { # no interval: shown with NCCL'"'"'s estimate, not counted
            got = sprintf("unknown (NCCL'"'"'s estimate: %.0f GB/s, %s, %s)", g, a, err); err = "not counted"
            if (why == "") why = unk
        } else if ((e > 0.25 || e < -0.25) && why == "") { print "a row beyond 25% without a reason: " s >"/dev/stderr"; exit 3 }
        gib = z ~ /M$/ ? z / 1024 : z + 0
        if (ctab && unk == "") { # bench/model/nccl_band.c: class, error, GPUs, GiB, NCCL, floor, degraded
            split("node:N nvl72:L ib:IB roce:R efa:E tcpx:X pcie:P", mm, " ")
            for (i in mm) { split(mm[i], kv, ":"); macro[kv[1]] = kv[2] }
            printf "    {%s, %.6f, %d, %g, \"%s\", %d, %d}, /* %s */\n", macro[cls], e, gpus, gib,
                   nccl == "-" ? "" : nccl, conf == "pass floor", state == "degraded", s
        }
        if (!ctab)
            printf "| %s | %s | %s | %s GB/s | %s | %s | %s | %s | %s | %s | %s |\n",
                   s, z, c == "pick" ? "NCCL default" : c, p, src, conf, nccl, state, got, err, why
        if (unk != "") printf "%s unknown\n", cls >>bands
        else printf "%s %s %s %.6f %d %s\n", cls, gpus, gib, e, conf == "pass floor", state >>bands }' || exit 3
done || exit 3 # the loop runs in a subshell: its exit must end the script too
[ $c_table = 1 ] && exit 0

# Per class: the band as nccl_band.c makes it from these figures (--predict
# --json's bands), and the check out of sample
echo
echo "| Class | Healthy figures | Degraded, kept out | NCCL | Spread | 95% of healthy systems measure (of the model's busbw) | GPUs | Sizes | Unknown to --predict, not counted |"
echo "|---|---|---|---|---|---|---|---|---|"
jq -r '.predictions.nccl.bands.classes[] | [.class, .figures, .pass_floors, .degraded, .nccl, .spread,
        .busbw_ratio_lo, .busbw_ratio_hi, .gpus_lo, .gpus_hi, .bytes_lo, .bytes_hi] | @tsv' \
    "$tmp/last.json" | while IFS="$(printf '\t')" read -r name n f d v sp lo hi g0 g1 b0 b1; do
    key=$(echo "$name" | sed 's/^one NVSwitch node$/node/; s/^NVLink.*/nvl72/; s/.*InfiniBand$/ib/;
        s/.*RoCE$/roce/; s/.*EFA$/efa/; s/.*TCPX$/tcpx/; s/.*over TCP$/tcp/; s/.*another network$/other/;
        s/.*without NVSwitch$/pcie/')
    u=$(awk -v c="$key" '$1 == c && $2 == "unknown"' "$tmp/bands" | wc -l)
    if [ "$n" = 0 ]; then
        echo "| $name | 0 | $d | - | - | unknown | - | - | $u |"
        continue
    fi
    awk -v name="$name" -v n="$n" -v f="$f" -v d="$d" -v v="$v" -v sp="$sp" -v lo="$lo" -v hi="$hi" \
        -v g0="$g0" -v g1="$g1" -v b0="$b0" -v b1="$b1" -v u="$u" 'BEGIN {
        printf "| %s | %d (%d pass floors) | %d | %s | %s | %.3f to %.3f | %s | %s | %d |\n", name, n, f, d,
            v, sp == "own" ? "its own" : "pooled", lo, hi, g0 == g1 ? g0 : g0 "-" g1,
            b0 == b1 ? sz(b0) : sz(b0) "-" sz(b1), u }
        function sz(b) { b = int(b / 1048576 + 0.5); return b < 1024 ? b "M" : b / 1024 "G" }'
done
jq -r '.predictions.nccl.bands.leave_one_out |
    "\nOut of sample, each figure left out of its class in turn: \(.below) of \(.healthy - .unbanded) healthy figures under their band, \(.above) over (\(.unbanded) in a class with no other figure, not counted); \(.degraded_inside) of \(.degraded) degraded figures inside their band."' \
    "$tmp/last.json"

# The issue's three groups: median and worst absolute error
echo
echo "| Group | Figures | Median error | Worst error | Unknown to --predict, not counted |"
echo "|---|---|---|---|---|"
for grp in 'node:single NVSwitch nodes' 'pcie:nodes without NVSwitch' \
    'nvl72 ib roce efa tcpx tcp other:multi-node'; do
    awk -v cls=" ${grp%%:*} " -v name="${grp#*:}" 'index(cls, " " $1 " ") && $2 == "unknown" { u++; next }
        index(cls, " " $1 " ") && $6 == "healthy" {
            e = $4 < 0 ? -$4 : $4; a[++n] = e }
        END { for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
              m = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
              printf "| %s | %d | %.1f%% | %.1f%% | %d |\n", name, n, 100 * m, 100 * a[n], u }' "$tmp/bands"
done

# Crossovers: where NCCL's log showed the switch, against the model's switches
echo
echo "| System | Published switch | Source | The model's switches |"
echo "|---|---|---|---|"
"$bin" --predict --topology topologies/h200-ndr.conf --gpus 512 --op allreduce -b 1M -e 1M \
    >"$tmp/x.out" || exit 3
sw=$(sed -n 's/^#   512 GPUs: //p' "$tmp/x.out")
echo "| 64x 8 H200 | Tree/LL128 at 16 MiB, NVLS_TREE/Simple from 32 MiB | nccl#1752 (NCCL_DEBUG log, Ethernet fabric) | $sw |"
