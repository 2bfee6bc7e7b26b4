#!/bin/sh
# The evidence acceptance explains slow nodes with (issue 41), read from
# node trees laid out as the kernel lays out /sys
# (tests/fixtures/sysfs/make-node.sh) through COLLBENCH_SYSFS_ROOT, each
# with one planted fault: the fault shows in --probe and its JSON, and the
# healthy tree shows none of them.
. tests/lib.sh
plan 19

MK=tests/fixtures/sysfs/make-node.sh
probe() { # NAME FAULT...: a tree with those faults, probed to $TMP/NAME.json
  name=$1
  shift
  sh $MK "$TMP/$name" "$@" &&
    COLLBENCH_SYSFS_ROOT=$TMP/$name timeout 60 ./collbench --probe --json "$TMP/$name.jsonl" \
      >"$TMP/$name.out" 2>"$TMP/$name.err" &&
    jq -c 'select(.type == "run") | .probe.nodes[0]' "$TMP/$name.jsonl" >"$TMP/$name.json"
}
ev() { # NAME JQ-FILTER
  jq -e "$2" "$TMP/$1.json" >/dev/null
}

probe ok
check "a healthy HGX-like node: a GPU and a NIC, Gen5 x16 each, none trained down, IOMMU passthrough" \
  ev ok '.evidence.pci | length == 2 and (map(.kind) | sort == ["gpu", "nic"])
    and all(.link_gts == 32 and .link_width == 16 and .trained_down == false and .iommu == "identity")'
check "healthy: GPUDirect RDMA can work, no ACS redirect, the port ACTIVE with its MTU" \
  ev ok '.evidence.gpudirect_rdma == true and .evidence.acs_redirect == []
    and (.nics[] | select(.rdma) | .state == "ACTIVE" and .mtu == 4092 and .gbps == 400)'
check "the bridges above the NIC, nearest first (downstream port, switch, root port)" \
  ev ok '.evidence.pci[] | select(.kind == "nic") | .bridges == ["0000:02:01.0", "0000:01:00.0", "0000:00:01.0"]'

probe down nic-gen4x8
check "a NIC trained down to Gen4 x8 of Gen5 x16: shown as such" ev down '
  .evidence.pci[] | select(.kind == "nic") | .trained_down and .link_gts == 16 and .link_width == 8
    and .max_link_gts == 32 and .max_link_width == 16'
check "--probe prints it" grep -q 'mlx5_0   0000:04:00.0: Gen4 x8 / Gen5 x16 (trained down)' "$TMP/down.out"

probe acs acs
check "ACS redirect on the switch ports between the GPU and its NIC: both named" ev acs '
  .evidence.acs_redirect | length == 2 and all(test("ReqRedir CmplRedir"))
  and (map(.[0:12]) | sort == ["0000:02:00.0", "0000:02:01.0"])'

probe peer no-peermem
check "no nvidia-peermem: GPUDirect RDMA cannot work, saying how that was decided" ev peer '
  .evidence.gpudirect_rdma == false and (.evidence.gpudirect_rdma_why | test("nvidia_peermem"))'

probe dma iommu-dma
check "the IOMMU translating (DMA-FQ) for the GPU and the NIC" ev dma '.evidence.pci | all(.iommu == "DMA-FQ")'

probe pd port-down mtu-1500
check "a port DOWN and an MTU of 1500: both in the NIC's record" ev pd '
  .nics[] | select(.rdma) | .state == "DOWN" and .mtu == 1500'

probe short config-short acs
check "config space cut at 64 bytes (a non-root reader): ACS unknown, saying why, not 'none'" ev short '
  .evidence.acs_redirect == null and (.evidence.acs_why | test("root reads it"))'

probe fifo fifo
st=$?
check "a FIFO planted in the tree: the probe neither blocks nor fails (exit $st), the value unknown" \
  sh -c "[ $st = 0 ] && jq -e '.evidence.pci[] | select(.kind == \"nic\") | .max_link_gts == null and .trained_down == false' '$TMP/fifo.json' >/dev/null"

# "%h": one variable, a tree per host (a simulated cluster's nodes)
h=$(hostname)
sh $MK "$TMP/hosts/$h" nic-gen4x8
COLLBENCH_SYSFS_ROOT="$TMP/hosts/%h" ./collbench --probe --json "$TMP/h.jsonl" >/dev/null 2>&1
check "COLLBENCH_SYSFS_ROOT's %h is the host name" jq -e 'select(.type == "run") |
  .probe.nodes[0].evidence.pci[] | select(.kind == "nic") | .trained_down' "$TMP/h.jsonl"
./collbench --probe --json "$TMP/real.jsonl" >/dev/null 2>&1
want=$(cat /sys/bus/pci/devices/*/vendor 2>/dev/null | grep -c '^0x10de$')
check "without the variable, the real /sys: its NVIDIA functions counted as the kernel lists them ($want)" \
  jq -e --argjson w "$want" 'select(.type == "run") | .probe.nodes[0].evidence
    | (.pci | map(select(.kind == "gpu")) | length) <= $w and has("gpudirect_rdma")' "$TMP/real.jsonl"

# The GPU's state and error counters through NVML: a stand-in
# libnvidia-ml.so.1 (tests/fixtures/standin/nvml.c) found first on
# LD_LIBRARY_PATH, answering from STANDIN_NVML (a real GPU's driver is
# passed over, so this runs the same everywhere).
mkdir -p "$TMP/nvml"
if cc -std=gnu11 -Wall -Wextra -Werror -fPIC -shared -o "$TMP/nvml/libnvidia-ml.so.1" \
  tests/fixtures/standin/nvml.c >"$TMP/nvml/build.log" 2>&1; then
  nv() { # NAME STANDIN_NVML: the "ok" tree probed with that NVML
    LD_LIBRARY_PATH=$TMP/nvml${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} STANDIN_NVML=$2 \
      COLLBENCH_SYSFS_ROOT=$TMP/ok timeout 60 ./collbench --probe --json "$TMP/$1.jsonl" \
      >"$TMP/$1.out" 2>"$TMP/$1.err"
    jq -c 'select(.type == "run") | .probe.nodes[0]' "$TMP/$1.jsonl" >"$TMP/$1.json"
  }
  nv nvok "gpus=1"
  check "a healthy GPU: its clocks unrestricted, ECC on and clean, no slowdown, its counters read" \
    ev nvok '.evidence.gpus == [{bus_id: "0000:1b:00.0", sm_mhz: 1980, sm_max_mhz: 1980,
      clock_reasons: [], slowdown: false, ecc: true, ecc_uncorrected: 0, remap_pending: false,
      remap_failed: false, pcie_replay: 0, nvlinks: 0, nvlinks_down: 0, temperature_c: 40,
      power_w: 100.0}] and .evidence.nvml_why == ""
      and ([.counters[] | select(.dev == "GPU 0000:1b:00.0") | .name] | index("pcie_replay") != null)'
  nv nvbad "reasons=0x41,sm=990,ecc_unc=2,remap_pending=1,nvlinks=18,nvlinks_down=2,replay=7,xid=79"
  check "a hot, failing GPU: thermal slowdown, 2 uncorrectable errors, a remap pending, 2 NVLinks down" \
    ev nvbad '.evidence.gpus[0] | .slowdown and .clock_reasons == ["gpu_idle", "hw_thermal_slowdown"]
      and .ecc_uncorrected == 2 and .remap_pending and .nvlinks == 18 and .nvlinks_down == 2'
  check "--probe prints the GPU's state" grep -q \
    'GPU 0000:1b:00.0: SM 990 / 1980 MHz, clocks gpu_idle,hw_thermal_slowdown (SLOWDOWN); ECC on, 2 uncorrectable, row remap pending; PCIe replays 7; NVLink 16/18 active; 40 C, 100 W' \
    "$TMP/nvbad.out"
  check "an Xid event and the replay counter among the error counters, each with its value" sh -c \
    "grep -q '^    GPU 0000:1b:00.0: xid_79 1\$' '$TMP/nvbad.out' &&
     grep -q '^    GPU 0000:1b:00.0: pcie_replay 7\$' '$TMP/nvbad.out'"
  nv nvfail "fail=1"
  check "NVML that will not start: the GPU's state unknown, saying why" sh -c \
    "grep -q '^  GPU state: unknown (nvmlInit_v2 failed' '$TMP/nvfail.out' &&
     jq -e '.evidence.gpus == [] and (.evidence.nvml_why | test(\"nvmlInit_v2\"))' '$TMP/nvfail.json' >/dev/null"
  check "... and the probe still succeeds" jq -e '.hostname | length > 0' "$TMP/nvfail.json"
else
  diag "$TMP/nvml/build.log"
  for i in 1 2 3 4 5 6; do skip "no C compiler built the stand-in NVML"; done
fi
finish
