#!/bin/sh
# The fixed GPU test set, for a lent GPU machine (one H100 or H200, CUDA,
# no MPI, no apt, no internet), in named parts so that a caller with 10
# minutes a command can run them together or one per command:
#
#   scripts/gpu-check.sh [--standin] [PART...]   (no PART: all, in this order)
#
# --standin runs the plan here, without a GPU, against the test stand-in of
# CUDA and NCCL (tests/fixtures/standin, built by `make standin`; make check
# calls this): smaller sizes, nothing built or configured, and what only
# hardware can answer (anchor's timings, the CUDA-aware UCX, the GPU
# machine's unit tests) reported SKIP with why. Its figures are of the
# stand-in, never of a GPU (every record says so).
#
#   basics    driver, CUDA and NCCL versions, `mpirun -np 2 hostname` (the
#             carried Open MPI starts), then configure and build
#   nccl      probe; nccl sweep on 1 rank, device memory, every op, checked;
#             2 and 4 ranks on the GPU (--share-gpu); --graph 10; --rotate
#             (each call on the next slice of a 256 MiB buffer)
#   copy      the copy matrix (--op copy); MPI with device memory when Open
#             MPI is CUDA-aware (Debian's is not: reported as skipped)
#   watchdog  COLLBENCH_STALL_RANK=1: rank 1 stalls, --timeout 10 must end
#             the run with exit 3 within 60 s
#   anchor    collbench's 1- and 2-rank allreduce at 8 B, 1 MiB, 64 MiB and
#             256 MiB against a plain timed ncclAllReduce loop
#             (scripts/nccl-allreduce-loop.c, which waits as nccl-tests does:
#             polling and yielding), like with like: the mean of 100 calls
#             (20 on 2 ranks) by CUDA events in both, slowest rank; launches
#             interleaved (loop, then collbench), GPU_CHECK_REPEATS times
#             (default 6); scripts/paired.awk judges each size by the 95%
#             interval of the paired ratios' median: PASS inside 2% from
#             1 MiB (5% below), FAIL wholly outside, INCONCLUSIVE when the
#             spread measured in the same call crosses the band (not failed)
#   tuner     --tune on NCCL, 2 ranks sharing the GPU, the tiny model, with
#             --env-out and --plugin-out; the env file sourced into a fresh
#             run of allreduce, broadcast and allgather; NCCL loading
#             collbench's tuner plugin with those rules (its INFO log must say
#             "TUNER/Plugin: Using collbench")
#   layouts   the layouts' step on NCCL and cuBLAS (issue 59), 2 ranks
#             sharing the GPU: tiny as dp=2 --shard full, tp=2 and pp=2,
#             each with its exposed line, its search over each
#             communicator's NCCL (algorithm, protocol) pairs and --trials;
#             tp=2 and dp=2 also write --env-out and --plugin-out, and
#             tp=2's rules are then loaded by NCCL through collbench's
#             tuner plugin on a tp-sized all-reduce
#   layouts2  ep=2 with zipf:1.2 skew; --concurrent on NCCL (4 ranks, tp's
#             all-reduce beside dp's all-gather, each checked, with its time
#             alone); gpt2-124m cut to 4 layers and seq 256 as FSDP (dp=2
#             --shard full) and tp=2, for tests/measured-2026.md
#   ran       what NCCL really ran (issue 60): every nccl row of allreduce
#             on 2 and 4 ranks sharing the GPU must carry nccl_ran
#             (collbench's profiler plugin loaded by NCCL), and no row of a
#             1-rank sweep (NCCL launches no kernel plan on one rank and
#             emits no coll event: enqueue.cc:2569-2571 at v2.28.9-1);
#             allreduce with NCCL_ALGO=Tree forced on 2 ranks runs Tree on
#             every row; NCCL_ALGO=NVLS there (2 ranks --share-gpu are two
#             nodes to NCCL) must fail the call: NCCL 2.28.9 has no fallback
#             for a forced algorithm it cannot run (ncclInvalidUsage,
#             enqueue.cc:1848-1860), exit 3 with NCCL's words
#   ucx       UCX on GPU memory (issue 60): the CUDA-aware UCX that
#             scripts/build-cuda-ucx.sh built into .gpu-deps/ucx (carried, or
#             built first from the carried .gpu-deps/ucx-src):
#             ucx_info lists cuda_copy and cuda_ipc; the ucx backend's
#             device-memory p2p on 2 ranks on the GPU, checked; the mpi
#             backend's through Open MPI's pml ucx over the same UCX (Debian's
#             Open MPI is not built CUDA-aware: exit 2 is its answer, said);
#             both --share-gpu (one GPU). collbench is configured again
#             with that UCX when its build had none (no pkg-config on the
#             machine: configure links against .gpu-deps/ucx)
#   tests     make check's GPU tests (unit tests and tests/*.t that touch the
#             GPU), counting how many ran and how many skipped
#
# Time: every step has its own limit and the whole call a budget,
# GPU_CHECK_BUDGET seconds (default 480, so one call fits a 10-minute
# command with room to copy results back); a step that would start past the
# budget is reported SKIP (budget) instead. Each part's steps are planned
# within the budget by themselves (tests/gpu_check.t checks), so one part a
# call always runs whole; the default order puts first what has never run
# on a GPU (layouts). The first part run builds (make
# rebuilds what is older than its sources: a warm machine keeps the last
# call's binaries; configure runs again when configure is newer than config.mk).
# Where it looks: GPU_CHECK_DEV (default /dev) for nvidia0..., MPS_DEFAULT_PIPE
# (default /tmp/nvidia-mps) for a running MPS daemon's control pipe; tests
# point both into a temp folder (tests/gpu_scripts.t).
#
# Output: everything (report, logs, JSON Lines, the NCCL link folder) goes
# under $GPU_CHECK_OUT (default gpu-check-out/); report.txt there and stdout
# get what ran, PASS/FAIL/SKIP and key figures. Exit 1 when any step failed,
# 2 when there is no GPU (nothing run) or an unknown part, 3 when collbench
# cannot be built or MPI cannot start. Figures are read from collbench's
# table output with awk, so neither jq nor python is needed.
#
# Without mpirun on the machine: on a Debian 12 machine with apt, run
#   scripts/fetch-gpu-deps.sh
# which unpacks Debian's Open MPI and the libraries collbench builds against
# into .gpu-deps/root (about 29 MiB, git-ignored); carry that folder with the
# working tree (device tool: carry=[".gpu-deps/root"]). This script then sets
# PATH, LD_LIBRARY_PATH, OPAL_PREFIX and PMIx's component path from it, and
# points configure at its headers (CPATH, LIBRARY_PATH: configure falls back
# to a link test where there is no pkg-config). The libraries need glibc 2.36
# or newer.
set -u
cd "$(dirname "$0")/.." || exit 3
STANDIN=0
[ "${1:-}" = --standin ] && STANDIN=1 && shift
OUT=${GPU_CHECK_OUT:-gpu-check-out}
BUDGET=${GPU_CHECK_BUDGET:-480}
START=$(date +%s)
PARTS=${*:-basics layouts layouts2 ran ucx tuner nccl copy watchdog anchor tests}
for p in $PARTS; do
  case $p in
  basics | nccl | copy | watchdog | anchor | tuner | layouts | layouts2 | ran | ucx | tests) ;;
  *)
    echo "gpu-check: unknown part '$p' (parts: basics layouts layouts2 ran ucx tuner nccl copy watchdog anchor tests)" >&2
    exit 2
    ;;
  esac
done
mkdir -p "$OUT" || exit 3
OUT=$(cd "$OUT" && pwd)
REPORT=$OUT/report.txt
: >"$REPORT"
say() { printf '%s\n' "$*" | tee -a "$REPORT"; }
FAILED=0

# --- the plan: every step of the parts asked for, with its own limit ---
# (the table step() takes its limit from; anchor-R-N stands for its launches)
steps_of() {
  case $1 in
  basics) echo mpi-hostname build ;;
  nccl) echo probe nccl-1 share-2 share-4 graph rotate ;;
  copy) echo copy mpi-device ;;
  watchdog) echo watchdog ;;
  anchor) echo anchor-build anchor-R-N ;;
  tuner) echo tune-tiny tune-sourced tune-plugin ;;
  layouts) echo layout-full layout-tp layout-rules layout-pp ;;
  layouts2) echo layout-ep concurrent-nccl layout-gpt2-full layout-gpt2-tp ;;
  ran) echo ran-1 ran-2 ran-4 ran-nvls ran-tree reg-local reg-symmetric ;;
  ucx) echo ucx-build ucx-configure ucx-info ucx-device mpi-ucx-device ;;
  tests) echo tests-build tests ;;
  esac
}
planned() {
  case $1 in
  mpi-hostname | probe) echo 30 ;;
  anchor-build | anchor-*) echo 60 ;;
  build) echo 300 ;;
  tests-build) echo 120 ;; # the unit tests only: collbench is built
  nccl-1) echo 90 ;;
  share-2 | share-4) echo 120 ;; # ranks may take turns on the GPU (no MPS)
  graph | rotate) echo 45 ;;
  ran-1 | ran-2 | ran-4 | ran-nvls | ran-tree | reg-local | reg-symmetric) echo 60 ;;
  copy | mpi-device | watchdog | tune-sourced | tune-plugin) echo 60 ;;
  tune-tiny) echo 120 ;;
  layout-full | layout-tp | layout-pp | layout-ep) echo 90 ;; # a communicator per pair
  layout-rules) echo 60 ;;
  concurrent-nccl) echo 90 ;;
  layout-gpt2-full | layout-gpt2-tp) echo 120 ;;
  ucx-build) echo 240 ;;
  ucx-configure) echo 90 ;;
  ucx-info) echo 20 ;;
  ucx-device | mpi-ucx-device) echo 60 ;;
  tests) echo 300 ;;
  *) echo 0 ;;
  esac
}
say "gpu-check: plan (budget $BUDGET s in all; a step past the budget is skipped):"
for p in $PARTS; do
  for st in $(steps_of "$p"); do
    say "  $p: $st, up to $(planned "$st") s"
  done
done

# --- a GPU, or nothing to do (or the stand-in) ---
# (GPU_CHECK_DEV: the device folder, /dev unless a test points it elsewhere)
DEV=${GPU_CHECK_DEV:-/dev}
# sizes: the GPU's, or the stand-in's (host memory through MPI on this core count)
E1=256M E2=64M E4=16M ERAN=64M ERAN2=16M ERAN4=4M EROT=64M EREG=64M G2=layers=4,seq=256
if [ "$STANDIN" = 1 ]; then
  for f in collbench build/standin/libnccl.so.2 build/libnccl-profiler-collbench.so; do
    [ -e "$f" ] || {
      say "gpu-check --standin: no $f: build first (make && make standin)"
      exit 3
    }
  done
  export OMPI_MCA_rmaps_base_oversubscribe=1 # 4 ranks on a 2-core test machine
  E1=4M E2=1M E4=256K ERAN=1M ERAN2=1M ERAN4=256K EROT=4M EREG=1M G2=layers=1,seq=32
  say "gpu-check: the stand-in of CUDA and NCCL (build/standin): no GPU; no figure below is a GPU's"
elif ! ls "$DEV"/nvidia[0-9]* >/dev/null 2>&1; then
  why="no $DEV/nvidia0"
  command -v nvidia-smi >/dev/null 2>&1 && why="$why; nvidia-smi: $(nvidia-smi -L 2>&1 | head -n 1)"
  say "gpu-check: no GPU here ($why): nothing run"
  exit 2
fi

# --- MPI: the machine's, or the carried one ---
R=$PWD/.gpu-deps/root L=$PWD/.gpu-deps/root/usr/lib/x86_64-linux-gnu
if ! command -v mpirun >/dev/null 2>&1; then
  if [ ! -x "$R/usr/bin/mpirun" ]; then
    say "gpu-check: no mpirun and no .gpu-deps/root: run scripts/fetch-gpu-deps.sh on a Debian 12"
    say "  machine and carry .gpu-deps/root with the working tree"
    exit 3
  fi
  glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
  case $glibc in
  2.[0-9] | 2.[0-2][0-9] | 2.3[0-5])
    say "gpu-check: glibc $glibc here; the carried Open MPI (Debian 12) needs 2.36 or newer"
    exit 3
    ;;
  esac
  export PATH="$R/usr/bin:$PATH" OPAL_PREFIX="$R/usr"
  export LD_LIBRARY_PATH="$L:$L/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PMIX_MCA_mca_base_component_path="$L/pmix2/lib/pmix"
  export CPATH="$R/usr/include${CPATH:+:$CPATH}" LIBRARY_PATH="$L${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export PKG_CONFIG_PATH="$L/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  say "gpu-check: using the carried Open MPI in .gpu-deps/root"
elif [ -d "$R" ] && ! printf '#include <ini.h>\n' | cc -E - >/dev/null 2>&1; then
  # the machine's own MPI (the lent H100 had Open MPI 4.1.6) but not
  # collbench's build libraries: take only those from the carried tree (its
  # libmpi would not match this mpirun), through a folder of links
  D=$OUT/deps
  mkdir -p "$D/include" "$D/lib"
  for f in "$R"/usr/include/ini.h "$R"/usr/include/jansson*.h; do ln -sf "$f" "$D/include/"; done
  for f in "$L"/libinih.so* "$L"/libjansson.so*; do ln -sf "$f" "$D/lib/"; done
  export CPATH="$D/include${CPATH:+:$CPATH}" LIBRARY_PATH="$D/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$D/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  say "gpu-check: this machine's MPI, libinih and jansson from .gpu-deps/root"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_base_warn_component_unused=0
# ranks sharing one GPU talk through NCCL's socket transport on loopback
export NCCL_SOCKET_IFNAME=${NCCL_SOCKET_IFNAME:-lo}
CUDA_DIR=${CUDA_DIR:-/usr/local/cuda}
# NCCL: the CUDA toolkit's, else the one PyTorch's wheel brings (nvidia/nccl,
# with only libnccl.so.2: a folder of links under $OUT gives configure what
# it looks for)
NCCL_DIR=${NCCL_DIR:-$CUDA_DIR}
if [ ! -e "$NCCL_DIR/lib64/libnccl.so" ] && [ ! -e "$NCCL_DIR/lib/libnccl.so" ]; then
  py=$(python3 -c 'import nvidia.nccl, os; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null)
  if [ -n "$py" ] && [ -e "$py/lib/libnccl.so.2" ]; then
    NCCL_DIR=$OUT/nccl
    mkdir -p "$NCCL_DIR/lib"
    ln -sfn "$py/include" "$NCCL_DIR/include"
    ln -sf "$py/lib/libnccl.so.2" "$NCCL_DIR/lib/libnccl.so"
    ln -sf "$py/lib/libnccl.so.2" "$NCCL_DIR/lib/libnccl.so.2"
  fi
fi
export LD_LIBRARY_PATH="$NCCL_DIR/lib:$NCCL_DIR/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# the stand-in's libraries before the toolkit's (collbench's RUNPATH names the toolkit)
[ "$STANDIN" = 1 ] && export LD_LIBRARY_PATH="$PWD/build/standin:$LD_LIBRARY_PATH"

# left: seconds of the call's budget still unspent
left() { echo $((BUDGET - ($(date +%s) - START))); }

# limit SECONDS: the step's own limit, cut to what the budget has left
# (keeping 10 s to write the report); 0 when the step should not start
limit() {
  l=$(($(left) - 10))
  [ "$l" -gt "$1" ] && l=$1
  [ "$l" -lt 5 ] && l=0
  echo "$l"
}

# step NAME EXPECTED-STATUS COMMAND...: runs it within its planned limit
# (output in $OUT/NAME.out), PASS when it exits as expected and its table
# reports no wrong values
step() {
  name=$1 want=$2 lim=$(limit "$(planned "$1")")
  shift 2
  if [ "$lim" -eq 0 ]; then
    say "SKIP $name (budget: $(left) s of $BUDGET s left)"
    return 1
  fi
  t0=$(date +%s)
  timeout -k 5 "$lim" "$@" >"$OUT/$name.out" 2>&1
  rc=$?
  secs=$(($(date +%s) - t0))
  wrong=$(awk '/^# Out of bounds values/ {print $7}' "$OUT/$name.out")
  if [ "$rc" -eq "$want" ] && [ "${wrong:-0}" = 0 ]; then
    say "PASS $name (exit $rc, ${secs} s)"
    return 0
  fi
  late=
  [ "$rc" -eq 124 ] && late=" (its limit, ${lim} s)"
  say "FAIL $name (exit $rc$late, wanted $want; wrong values ${wrong:-none reported}; ${secs} s; see $OUT/$name.out)"
  tail -n 5 "$OUT/$name.out" | sed 's/^/    /' | tee -a "$REPORT"
  FAILED=$((FAILED + 1))
  return 1
}

# figures NAME: algbw and busbw at the largest size (busbw is 0 on one rank,
# as in nccl-tests) and latency at 8 B per series of the table in
# $OUT/NAME.out (out-of-place columns)
figures() {
  awk '/^# [a-z0-9_]+: backend / { op = $2; sub(":", "", op); next }
       /^ +[0-9]+ / && op != "" { if (!(op in lat) && $1 == 8) lat[op] = $6; alg[op] = $7; big[op] = $8; size[op] = $1 }
       END { for (o in big) printf "    %-14s algbw %8s busbw %8s GB/s at %s B; time at 8 B %s us\n", o, alg[o], big[o], size[o], (o in lat) ? lat[o] : "-" }' \
    "$OUT/$1.out" | sort | tee -a "$REPORT"
}

BUILT=0
build() {
  BUILT=1
  [ "$STANDIN" = 1 ] && return 0 # this tree's build, made before
  cfg=true
  { [ -f config.mk ] && [ config.mk -nt configure ]; } ||
    cfg="./configure --with-cuda='$CUDA_DIR' --with-nccl='$NCCL_DIR'"
  step build 0 sh -c "$cfg && make -j$(nproc)" || exit 3
  grep -E '^(cuda|nccl|cublas|hwloc|json):' "$OUT/build.out" | sed 's/^/  /' | tee -a "$REPORT"
}

part_basics() {
  if [ "$STANDIN" = 1 ]; then
    say "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), the stand-in, parts: $PARTS"
    step mpi-hostname 0 mpirun -np 2 hostname || exit 3
    return
  fi
  say "gpu-check: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), budget $BUDGET s, parts: $PARTS"
  say "  GPUs:   $(nvidia-smi -L 2>/dev/null | head -n 4 | tr '\n' ' ')"
  say "  driver: $(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
  say "  CUDA:   $("$CUDA_DIR/bin/nvcc" --version 2>/dev/null | sed -n 's/.*release \([0-9.]*\).*/\1/p') (nvcc in $CUDA_DIR)"
  say "  NCCL:   $(awk '/#define NCCL_(MAJOR|MINOR|PATCH) / {v = v (v ? "." : "") $3} END {print v}' \
    "$NCCL_DIR/include/nccl.h" 2>/dev/null) ($NCCL_DIR)"
  say "  MPI:    $(mpirun --version 2>&1 | head -n 1)"
  step mpi-hostname 0 mpirun -np 2 hostname || {
    say "gpu-check: mpirun cannot start 2 ranks: nothing else can run"
    exit 3
  }
  build
}

# MPS for the steps where ranks share the GPU: without it their contexts
# take turns and NCCL's spinning kernels crawl. Started here when it is not
# running (its pipe and logs under $OUT), and stopped after, by its PID.
MPS_PID=
mps_start() {
  [ "$STANDIN" = 1 ] && return 0 # no GPU to share
  # a daemon on the default pipe (CUDA_MPS_PIPE_DIRECTORY unset) serves every
  # client that does not name another: a second one would split the ranks
  if [ -z "${CUDA_MPS_PIPE_DIRECTORY:-}" ] && [ -e "${MPS_DEFAULT_PIPE:-/tmp/nvidia-mps}/control" ]; then
    say "  MPS: already running on the default pipe (${MPS_DEFAULT_PIPE:-/tmp/nvidia-mps})"
    return 0
  fi
  export CUDA_MPS_PIPE_DIRECTORY=${CUDA_MPS_PIPE_DIRECTORY:-$OUT/mps-pipe}
  export CUDA_MPS_LOG_DIRECTORY=${CUDA_MPS_LOG_DIRECTORY:-$OUT/mps-log}
  if [ -p "$CUDA_MPS_PIPE_DIRECTORY/control" ] || [ -S "$CUDA_MPS_PIPE_DIRECTORY/control" ]; then
    say "  MPS: already running ($CUDA_MPS_PIPE_DIRECTORY)"
    return 0
  fi
  command -v nvidia-cuda-mps-control >/dev/null 2>&1 || {
    say "  MPS: nvidia-cuda-mps-control not found: shared steps take turns on the GPU"
    return 1
  }
  mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY"
  nvidia-cuda-mps-control -d || return 1
  # (by its command line: the process name is cut to 15 characters)
  MPS_PID=$(pgrep -n -f '^nvidia-cuda-mps-control -d')
  say "  MPS: started (pid ${MPS_PID:-unknown}, pipe $CUDA_MPS_PIPE_DIRECTORY)"
}
mps_stop() {
  [ -n "$MPS_PID" ] || return 0
  echo quit | nvidia-cuda-mps-control >/dev/null 2>&1
  kill "$MPS_PID" 2>/dev/null
  MPS_PID=
}
trap mps_stop EXIT

part_nccl() {
  nccl="./collbench --backend nccl --mem device --op all --check 1 --max-time 0.1 -f 4"
  # turns on one GPU: smaller shared sweeps when MPS could not be started
  big2=$E2 big4=$E4
  mps_start || big2=16M big4=4M
  step probe 0 mpirun -np 1 ./collbench --probe --json "$OUT/probe.jsonl" &&
    { grep -E '^  GPUs: [1-9]' "$OUT/probe.out" >/dev/null || {
      say "FAIL probe: the summary shows no GPU"
      FAILED=$((FAILED + 1))
    }; }
  sed -n 's/^  \(GPUs\|    GPU[0-9]\|RDMA NICs\)/  &/p' "$OUT/probe.out" | head -n 10 | tee -a "$REPORT"
  step nccl-1 0 mpirun -np 1 $nccl -e $E1 --json "$OUT/nccl-1.jsonl" && figures nccl-1
  step share-2 0 mpirun -np 2 $nccl --share-gpu -e $big2 --json "$OUT/share-2.jsonl" && figures share-2
  step share-4 0 mpirun -np 4 $nccl --share-gpu -e $big4 --json "$OUT/share-4.jsonl" && figures share-4
  step graph 0 mpirun -np 1 ./collbench --backend nccl --mem device --op allreduce --graph 10 \
    -e 1M --json "$OUT/graph.jsonl" && figures graph
  step rotate 0 mpirun -np 1 ./collbench --backend nccl --mem device --op allreduce --rotate \
    -e $EROT --json "$OUT/rotate.jsonl" && figures rotate
}

part_copy() {
  if step copy 0 mpirun -np 1 ./collbench --op copy --json "$OUT/copy.jsonl"; then
    awk '/^# copy_[a-z0-9_]+ on / { kind = $2; next }
         kind != "" && /^  (GPU|host)/ { for (i = 2; i <= NF; i++) if ($i != "-" && $i + 0 > best[kind]) best[kind] = $i + 0 }
         END { for (k in best) printf "    %-14s best cell %.1f GB/s\n", k, best[k] }' \
      "$OUT/copy.out" | sort | tee -a "$REPORT"
  fi
  if ompi_info --parsable --all 2>/dev/null | grep -q 'mpi_built_with_cuda_support:value:true'; then
    mps_start >/dev/null
    step mpi-device 0 mpirun -np 2 ./collbench --backend mpi --mem device --op allreduce,allgather \
      --share-gpu -e 16M && figures mpi-device
  else
    say "SKIP mpi-device: this Open MPI is not CUDA-aware (ompi_info: mpi_built_with_cuda_support false)"
  fi
}

part_watchdog() {
  mps_start >/dev/null
  # exit 3 is the expected outcome; the step's limit (60 s) is the bound
  if step watchdog 3 env COLLBENCH_STALL_RANK=1 mpirun -np 2 ./collbench --backend nccl \
    --mem device --share-gpu --op allreduce -b 1M -e 1M --timeout 10; then
    say "  $(grep -m 1 -i 'timeout\|stuck\|did not' "$OUT/watchdog.out")"
  fi
}

part_anchor() {
  if [ "$STANDIN" = 1 ]; then
    say "SKIP anchor (stand-in: timing collbench against NCCL's own loop measures a GPU, and there is none)"
    return
  fi
  step anchor-build 0 mpicc -O2 -I"$NCCL_DIR/include" -I"$CUDA_DIR/include" \
    scripts/nccl-allreduce-loop.c -L"$NCCL_DIR/lib" -L"$NCCL_DIR/lib64" -L"$CUDA_DIR/lib64" \
    -Wl,-rpath,"$CUDA_DIR/lib64" -lnccl -lcudart -o "$OUT/nccl-allreduce-loop" || return
  reps=${GPU_CHECK_REPEATS:-6} sizes="8 1048576 67108864 268435456"
  say "anchor: collbench allreduce (float, out of place) vs a plain ncclAllReduce loop, $reps"
  say "  interleaved launches a rank count, CUDA events in both (rule: scripts/paired.awk)"
  mps_start >/dev/null
  : >"$OUT/anchor.pairs"
  for r in $(seq "$reps"); do
    for np in 1 2; do
      share= iters=100
      [ "$np" -gt 1 ] && share=--share-gpu iters=20
      n=$r-$np
      step anchor-loop-$n 0 env SHARE_GPU=1 mpirun -np $np "$OUT/nccl-allreduce-loop" $iters $sizes ||
        continue
      step anchor-cb-$n 0 mpirun -np $np ./collbench --backend nccl --mem device --op allreduce \
        -b 8 -e 256M -f 2 $share -n $iters -w 20 --json "$OUT/anchor-$n.jsonl" || continue
      grep '"type": *"result"' "$OUT/anchor-$n.jsonl" | grep '"inplace": *false' |
        sed -n 's/.*"bytes": *\([0-9]*\).*"time_us_gpu": *\([0-9.eE+-]*\).*/\1 \2/p' >"$OUT/anchor-$n.cb"
      awk -v np="$np" 'NR == FNR { cb[$1] = $2; next } NF == 3 && ($1 in cb) { print np, "allreduce", $1, $2, cb[$1] }' \
        "$OUT/anchor-$n.cb" "$OUT/anchor-loop-$n.out" >>"$OUT/anchor.pairs"
    done
  done
  awk -f scripts/paired.awk "$OUT/anchor.pairs" >"$OUT/anchor.table"
  while read -r np op size m ref cb ratio lo hi cover verdict; do
    [ "$np" = verdicts ] && continue
    [ "$verdict" = FAIL ] || [ "$verdict" = NOREF ] && FAILED=$((FAILED + 1))
    say "$verdict anchor $np rank(s) $size B: loop $ref us, collbench $cb us (medians of $m), ratio $ratio (95% $lo..$hi)"
  done <"$OUT/anchor.table"
}

# the tuner on the GPU: its search, then its two outputs put to use
part_tuner() {
  mps_start >/dev/null
  # --tune last: Open MPI's mpirun reads a --tune with an argument after it
  # as its own option (tuner/TUNING.md)
  step tune-tiny 0 mpirun -np 2 ./collbench --backend nccl --share-gpu --workload tiny --tune-reps 5 \
    --tune-buckets 1M,4M -e 4M --max-time 0.05 --env-out "$OUT/tiny.env" \
    --plugin-out "$OUT/rules.csv" --trials "$OUT/tiny.jsonl" --tune || return
  grep -E '^ *(T_compute|overhead|exposed)|^(gain|tuned)' "$OUT/tune-tiny.out" | sed 's/^ */    /' |
    tee -a "$REPORT"
  step tune-sourced 0 sh -c ". '$OUT/tiny.env' && exec mpirun -np 2 ./collbench --backend nccl \
    --mem device --share-gpu --op allreduce,broadcast,allgather -b 1M -e 4M"
  plugin_run tune-plugin "$OUT/rules.csv" --op allreduce -b 1M -e 4M
}

# NAME: a run with collbench's tuner plugin reading RULES, NCCL logging each
# decision (tuner/plugin/RULES.md): NCCL must say it loaded the plugin, and
# every decision must be its rule's line
plugin_run() {
  name=$1 rules=$2
  shift 2
  step "$name" 0 env NCCL_TUNER_PLUGIN="$PWD/build/libnccl-tuner-collbench.so" \
    COLLBENCH_TUNER_RULES="$rules" NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,TUNING \
    mpirun -np 2 ./collbench --backend nccl --mem device --share-gpu "$@" || return
  if ! grep -q 'TUNER/Plugin: Using collbench' "$OUT/$name.out"; then
    say "FAIL $name: NCCL's log does not say it used collbench's tuner plugin"
    FAILED=$((FAILED + 1))
  elif ! grep -qv '^#' "$rules"; then
    say "  $name: no rule in $rules (NCCL's own choices held): the plugin loaded, nothing to apply"
  elif ! applied=$(sh scripts/plugin-applied.sh "$rules" "$OUT/$name.out"); then
    say "FAIL $name: $applied"
    FAILED=$((FAILED + 1))
  else
    say "  $applied"
  fi
}

# the layouts' step on the GPU: each run's calls, exposed line and verdict
layout() {
  name=$1 reps=$2
  shift 2
  # --tune last: mpirun would read a --tune followed by an argument itself
  step "$name" 0 mpirun -np 2 ./collbench --backend nccl --share-gpu --tune-reps "$reps" \
    --trials "$OUT/$name.jsonl" "$@" --tune || return
  grep -E '^# each step|^# dp (bucket|prefetch)|^# (tp|ep|dp|edp) (allreduce|allgather|reducescatter):|^(default|tuned|T_compute|overhead|exposed|gain)' \
    "$OUT/$name.out" | sed 's/^/    /' | tee -a "$REPORT"
  for f in "$OUT/$name.env" "$OUT/$name.rules"; do
    [ -f "$f" ] && grep -v '^# format\|^# use\|^# NCCL.s example\|^# margin\|^# chunk\|^# channels' "$f" |
      sed 's/^/    /' | tee -a "$REPORT"
  done
  return 0
}

part_layouts() {
  mps_start >/dev/null
  layout layout-full 10 --workload tiny --parallel dp=2 --shard full \
    --env-out "$OUT/layout-full.env" --plugin-out "$OUT/layout-full.rules"
  layout layout-tp 10 --workload tiny --parallel tp=2 \
    --env-out "$OUT/layout-tp.env" --plugin-out "$OUT/layout-tp.rules"
  # the rules NCCL reads: tp's all-reduce sizes through the plugin, which
  # logs each decision (tuner/plugin/RULES.md)
  [ -f "$OUT/layout-tp.rules" ] &&
    plugin_run layout-rules "$OUT/layout-tp.rules" --op allreduce -b 4K -e 64M
  layout layout-pp 10 --workload tiny --parallel pp=2
}

part_layouts2() {
  mps_start >/dev/null
  layout layout-ep 10 --workload tiny --parallel ep=2 --skew zipf:1.2
  # --concurrent on NCCL: a split communicator and a stream for each op
  step concurrent-nccl 0 mpirun -np 4 ./collbench --backend nccl --share-gpu --parallel tp=2,dp=2 \
    --concurrent allreduce@tp,allgather@dp -b 1M -e 16M --json "$OUT/concurrent-nccl.jsonl" &&
    grep -E '^#.*(concurrent|alone)|^ *[0-9]' "$OUT/concurrent-nccl.out" | head -n 14 |
    sed 's/^/    /' | tee -a "$REPORT"
  layout layout-gpt2-full 20 --workload gpt2-124m --workload-config $G2 \
    --parallel dp=2 --shard full
  layout layout-gpt2-tp 20 --workload gpt2-124m --workload-config $G2 --parallel tp=2
}

# make check's tests that touch the GPU must run here, not skip: count both
# ran_rows NAME [none]: how many of NAME's nccl result lines carry
# nccl_ran, of how many, and the distinct values (no jq on the GPU
# machine); with "none" (one rank: NCCL emits no coll event) no row may
# say what ran
ran_rows() {
  f=$OUT/$1.jsonl
  all=$(grep -c '"type":"result".*"backend":"nccl"\|"backend":"nccl".*"type":"result"' "$f" 2>/dev/null)
  with=$(grep -c '"nccl_ran":' "$f" 2>/dev/null)
  other=$(grep -c '"nccl_ran_other":true' "$f" 2>/dev/null)
  say "  $1: ${with:-0} of ${all:-0} nccl rows say what ran, ${other:-0} ran other than asked"
  grep -o '"bytes":[0-9]*\|"nccl_ran":"[^"]*"' "$f" 2>/dev/null | paste -d' ' - - | sort -u -t: -k2n |
    head -n 12 | sed 's/^/    /' | tee -a "$REPORT"
  if [ "${2:-}" = none ]; then
    [ "${all:-0}" -gt 0 ] && [ "${with:-0}" = 0 ] && return 0
    say "FAIL $1: on one rank NCCL runs no kernel plan and emits no coll event, yet ${with:-0} rows say what ran"
    FAILED=$((FAILED + 1))
    return 1
  fi
  [ "${with:-0}" -gt 0 ] && [ "$with" = "$all" ] && return 0
  say "FAIL $1: rows without nccl_ran (is NCCL loading build/libnccl-profiler-collbench.so?)"
  FAILED=$((FAILED + 1))
  return 1
}

part_ran() {
  mps_start >/dev/null
  r="./collbench --backend nccl --mem device --check 1 --max-time 0.05 -f 4"
  step ran-1 0 mpirun -np 1 $r --op all -e $ERAN --json "$OUT/ran-1.jsonl" && ran_rows ran-1 none
  step ran-2 0 mpirun -np 2 $r --share-gpu --op allreduce -e $ERAN2 --json "$OUT/ran-2.jsonl" &&
    ran_rows ran-2
  step ran-4 0 mpirun -np 4 $r --share-gpu --op allreduce -e $ERAN4 --json "$OUT/ran-4.jsonl" &&
    ran_rows ran-4
  # forced: Tree runs on two "nodes" (every row marked as asked); NVLS
  # cannot, and NCCL 2.28.9 fails the call rather than fall back
  step ran-tree 0 env NCCL_ALGO=Tree mpirun -x NCCL_ALGO -np 2 $r --share-gpu --op allreduce \
    -e $ERAN2 --json "$OUT/ran-tree.jsonl" && ran_rows ran-tree
  other=$(grep -c '"nccl_ran_other":true' "$OUT/ran-tree.jsonl" 2>/dev/null)
  [ "${other:-0}" = 0 ] || { say "FAIL ran-tree: $other rows ran other than Tree"; FAILED=$((FAILED + 1)); }
  step ran-nvls 3 env NCCL_ALGO=NVLS mpirun -x NCCL_ALGO -np 2 $r --share-gpu --op allreduce \
    -e $ERAN2 --json "$OUT/ran-nvls.jsonl" &&
    { grep -q 'invalid usage\|no algorithm/protocol available' "$OUT/ran-nvls.out" || {
      say "FAIL ran-nvls: exit 3 without NCCL's refusal (ncclInvalidUsage)"
      FAILED=$((FAILED + 1))
    }; }
  grep -m 3 'NCCL_ALGO\|invalid usage\|no algorithm' "$OUT/ran-nvls.out" | sed 's/^/    /' | tee -a "$REPORT"
  # --register (nccl-tests -R 1/2): exact, "register" on each row, what ran;
  # NCCL may refuse symmetric windows where the topology has no symmetric
  # kernels (its error said, exit 3) or run its usual kernels (nccl_ran says)
  for g in local symmetric; do
    step reg-$g 0 mpirun -np 1 $r --op allreduce,allgather,reducescatter --register $g -e $EREG \
      --json "$OUT/reg-$g.jsonl" && ran_rows reg-$g none
    say "  reg-$g: $(grep -c "\"register\":\"$g\"" "$OUT/reg-$g.jsonl" 2>/dev/null) rows registered"
  done
}

part_ucx() {
  if [ "$STANDIN" = 1 ]; then
    say "SKIP ucx (stand-in: UCX's cuda_copy and cuda_ipc need the real CUDA driver)"
    return
  fi
  # built here from the tree --source-only prepared (this toolkit has NVML)
  if [ ! -x .gpu-deps/ucx/bin/ucx_info ] && [ -x .gpu-deps/ucx-src/configure ]; then
    step ucx-build 0 scripts/build-cuda-ucx.sh .gpu-deps/ucx-src &&
      tail -n 1 "$OUT/ucx-build.out" | sed 's/^/  /' | tee -a "$REPORT"
  fi
  if [ ! -x .gpu-deps/ucx/bin/ucx_info ]; then
    say "SKIP ucx: no .gpu-deps/ucx (scripts/build-cuda-ucx.sh [--source-only]; carry it)"
    return
  fi
  LD_LIBRARY_PATH=$PWD/.gpu-deps/ucx/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export LD_LIBRARY_PATH
  # no pkg-config here: configure links against the UCX in CPATH and
  # LIBRARY_PATH; a build made before that UCX existed is configured again
  export CPATH="$PWD/.gpu-deps/ucx/include${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$PWD/.gpu-deps/ucx/lib${LIBRARY_PATH:+:$LIBRARY_PATH}"
  if ! grep -q '^HAVE_UCX = 1' config.mk 2>/dev/null; then
    step ucx-configure 0 sh -c "./configure --with-cuda='$CUDA_DIR' --with-nccl='$NCCL_DIR' && make -j$(nproc)" ||
      return
    grep -q '^HAVE_UCX = 1' config.mk || {
      say "FAIL ucx-configure: configure did not find .gpu-deps/ucx ($(grep '^ucx:' "$OUT/ucx-configure.out"))"
      FAILED=$((FAILED + 1))
      return
    }
  fi
  step ucx-info 0 .gpu-deps/ucx/bin/ucx_info -d &&
    say "  ucx-info: $(grep -o 'Transport: cuda[a-z_]*' "$OUT/ucx-info.out" | sort -u | tr '\n' ' ')"
  r="./collbench --mem device --op p2p_lat,p2p_bw,p2p_bibw --check 2 --max-time 0.05 -e 64M"
  step ucx-device 0 mpirun -x LD_LIBRARY_PATH -np 2 $r --share-gpu --backend ucx --json "$OUT/ucx-device.jsonl" &&
    figures ucx-device
  grep -o '"transport":"[^"]*"' "$OUT/ucx-device.jsonl" 2>/dev/null | sort | uniq -c |
    sed 's/^/    /' | tee -a "$REPORT"
  # Open MPI's pml ucx over the same UCX; its own CUDA support decides
  step mpi-ucx-device 0 mpirun -x LD_LIBRARY_PATH --mca pml ucx -np 2 $r --share-gpu --backend mpi ||
    grep -m 2 'CUDA\|cuda\|device' "$OUT/mpi-ucx-device.out" | sed 's/^/    /' | tee -a "$REPORT"
}

part_tests() {
  if [ "$STANDIN" = 1 ]; then
    say "SKIP tests (stand-in: make check runs every test here already)"
    return
  fi
  units="build/tests/test_gpu_pattern.t build/tests/test_gpu_step.t build/tests/test_gpu_alloc.t
    build/tests/test_engine_staging.t build/tests/test_cli.t build/tests/test_nccl_tuner.t
    build/tests/test_nccl_abort.t build/tests/test_nccl_paths.t build/tests/test_probe.t
    build/tests/test_gpu_yield.t"
  step tests-build 0 make -j"$(nproc)" $units || return
  # every tests/*.t that has a GPU branch (bad_input*.t and ucx.t included)
  step tests 0 prove -v --exec '' $units tests/nccl.t tests/fp8.t tests/probe.t tests/tune.t \
    tests/matrix_gpu.t tests/nccl_model.t tests/gpu_check.t tests/report_matrix.t tests/bad_input.t \
    tests/bad_input_table.t tests/ucx.t
  ran=$(grep -c '^ok [0-9]*\( -\|$\)' "$OUT/tests.out")
  skipped=$(grep -c '^ok [0-9]* # SKIP' "$OUT/tests.out")
  # a file that skips itself whole (1..0 # SKIP) prints "FILE .. skipped: why"
  files=$(grep -c '\.\. skipped: ' "$OUT/tests.out")
  say "  tests: $ran ok, $skipped skipped, $files whole files skipped (on a GPU machine only the no-GPU checks skip):"
  { grep '^ok [0-9]* # SKIP' "$OUT/tests.out"; grep '\.\. skipped: ' "$OUT/tests.out"; } |
    sort | uniq -c | sort -rn | head -n 15 | sed 's/^/    /' | tee -a "$REPORT"
}

for p in $PARTS; do
  [ "$p" = basics ] || [ "$BUILT" = 1 ] || build
  part_$p
done

say "gpu-check: $FAILED step(s) failed in $(($(date +%s) - START)) s; report in $REPORT"
[ "$FAILED" -eq 0 ] || exit 1
exit 0
