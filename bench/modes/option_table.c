/* Every option of every mode, and what reads them all: the file modes'
 * word-by-word matching, "goes with" hints, old spellings and --help
 * (option_table.h). The rows are in --help's order within each section. */
#include "option_table.h"

#include <string.h>

static const char *const titles[CB_NSECTIONS] = {
    [CB_SEC_WHAT] = "What to run (comma lists; 'all' for every one):\n",
    [CB_SEC_SIZES] = "Sizes (bytes; K, M, G, T and KiB...TiB binary as in nccl-tests; KB, MB, GB, "
                     "TB decimal):\n",
    [CB_SEC_TIMING] = "Timing:\n",
    [CB_SEC_UCX] = "UCX backend:\n",
    [CB_SEC_VERBS] = "Verbs (RDMA) backend:\n",
    [CB_SEC_GPUS] = "GPUs and NCCL:\n",
    [CB_SEC_CHECKING] = "Checking and output:\n",
    [CB_SEC_ACCEPT] = "Acceptance (see topologies/README.md):\n",
    [CB_SEC_TUNE] = "Tuning (mpirun; GPU: cuBLAS step, NCCL all-reduce on a stream of its own;\n"
                    "host: OpenBLAS step, MPI all-reduce on a thread per rank):\n",
    [CB_SEC_REPORTS] = "Reports (no mpirun needed):\n",
    [CB_SEC_FLEET] = "Fleet baselines (no mpirun; topologies/ACCEPTANCE.md):\n",
    [CB_SEC_MODEL] = "Performance model (no mpirun; bench/model/PLANNING.md):\n",
    [CB_SEC_GENERAL] = "",
};

const struct cb_option cb_options[] = {
    // clang-format off
    /* What to run (comma lists; 'all' for every one): */
    {.name = "sweep", .arg = CB_ARG_NONE, .code = OPT_SWEEP, .modes = CB_IN_RUN,
     .section = CB_SEC_WHAT,
     .help = "every op on every usable backend and memory kind"},
    {.name = "op", .arg = CB_ARG_ONE, .code = OPT_OP, .modes = CB_IN_RUN, .section = CB_SEC_WHAT,
     .metavar = "LIST",
     .help = "allreduce allgather reducescatter broadcast alltoall\n"
             "p2p_lat p2p_bw p2p_bibw (default allreduce; 'all'\n"
             "and --sweep: these); alltoallv by name (--skew); copy\n"
             "alone: the GPU copy matrix of each node (copy\n"
             "engine and SM kernel, one and both ways, host to\n"
             "GPU and back; -e SIZE copies, default 64M)"},
    {.name = "skew", .arg = CB_ARG_ONE, .code = OPT_SKEW, .modes = CB_IN_RUN | CB_IN_TUNE,
     .section = CB_SEC_WHAT, .metavar = "SPEC",
     .help = "alltoallv's per-pair counts: uniform (default),\n"
             "zipf:E (rank j receives 1/(j+1)^E of each rank's\n"
             "tokens, as experts' popularity skews), or FILE, a\n"
             "square matrix of bytes i->j (nccl-tests 2.19's);\n"
             "with --tune --parallel, ep's token dispatch"},
    {.name = "parallel", .arg = CB_ARG_ONE, .code = OPT_PARALLEL, .modes = CB_IN_RUN | CB_IN_TUNE,
     .section = CB_SEC_WHAT, .metavar = "DIMS",
     .help = "a job's layout, e.g. tp=2,dp=2 (tp, ep, dp, pp; their\n"
             "product the rank count; tp innermost, inside a node,\n"
             "as Megatron places them): --concurrent's communicators;\n"
             "with --tune, the step in that layout"},
    {.name = "concurrent", .arg = CB_ARG_ONE, .code = OPT_CONCURRENT, .modes = CB_IN_RUN,
     .section = CB_SEC_WHAT, .metavar = "OP@DIM,...",
     .help = "these collectives at once, each on its --parallel\n"
             "communicator (allreduce@tp,allgather@dp), and each\n"
             "alone in the same rounds: the slowdown from sharing\n"
             "links (mpi on host memory, nccl on device memory;\n"
             "instead of --op)"},
    {.name = "calls", .arg = CB_ARG_ONE, .code = OPT_CALLS, .modes = CB_IN_RUN,
     .section = CB_SEC_WHAT, .metavar = "FILE",
     .help = "the collectives a job made (--import-inspector's\n"
             "--out), each at its size, and their total weighed\n"
             "by its calls beside NCCL's (instead of --op); with\n"
             "--tune, each call's Open MPI algorithms tuned"},
    {.name = "backend", .arg = CB_ARG_ONE, .code = OPT_BACKEND, .modes = CB_IN_RUN,
     .section = CB_SEC_WHAT, .metavar = "LIST",
     .help = "backends (default mpi; see --list)"},
    {.name = "mem", .arg = CB_ARG_ONE, .code = OPT_MEM, .modes = CB_IN_RUN, .section = CB_SEC_WHAT,
     .metavar = "LIST",
     .help = "host pinned device (default host)"},
    {.name = "transport", .arg = CB_ARG_ONE, .code = OPT_TRANSPORT, .modes = CB_IN_RUN,
     .section = CB_SEC_WHAT, .metavar = "LIST",
     .help = "path, e.g. shm or tcp for mpi; nvlink pcie shm net\n"
             "ib roce socket for nccl (default auto)"},
    {.name = "dtype", .short_name = 'd', .arg = CB_ARG_ONE, .code = 'd', .modes = CB_IN_RUN,
     .section = CB_SEC_WHAT, .metavar = "LIST",
     .help = "int8 int32 int64 float double half bfloat16\n"
             "e4m3 e5m2 (fp8: nccl only) (default float)"},
    {.name = "redop", .short_name = 'o', .arg = CB_ARG_ONE, .code = 'o', .modes = CB_IN_RUN,
     .section = CB_SEC_WHAT, .metavar = "LIST",
     .help = "sum prod min max (default sum)"},
    {.name = "root", .short_name = 'r', .arg = CB_ARG_ONE, .code = 'r', .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_WHAT, .metavar = "N",
     .help = "broadcast root (default 0)"},
    /* Sizes (bytes; K, M, G, T and KiB...TiB binary as in nccl-tes */
    {.name = "min-bytes", .short_name = 'b', .arg = CB_ARG_ONE, .code = 'b', .modes = CB_IN_RUN,
     .section = CB_SEC_SIZES, .metavar = "SIZE",
     .help = "smallest size (default 8)"},
    {.name = "max-bytes", .short_name = 'e', .arg = CB_ARG_ONE, .code = 'e', .modes = CB_IN_RUN,
     .section = CB_SEC_SIZES, .metavar = "SIZE",
     .help = "largest size (default 64M)"},
    {.name = "step-factor", .short_name = 'f', .arg = CB_ARG_ONE, .code = 'f', .modes = CB_IN_RUN,
     .section = CB_SEC_SIZES, .metavar = "N",
     .help = "multiply by N between sizes (default 2)"},
    {.name = "step-bytes", .short_name = 'i', .arg = CB_ARG_ONE, .code = 'i', .modes = CB_IN_RUN,
     .section = CB_SEC_SIZES, .metavar = "SIZE",
     .help = "add SIZE between sizes instead"},
    /* Timing: */
    {.name = "timing", .arg = CB_ARG_ONE, .code = OPT_TIMING, .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "MODE",
     .help = "throughput (batches timed whole, default) or latency\n"
             "(each iteration between barriers, slowest rank)"},
    {.name = "stat", .arg = CB_ARG_ONE, .code = OPT_STAT, .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "STAT",
     .help = "what the time column, algbw and busbw show: median\n"
             "(default), mean (total time / iterations, as in\n"
             "nccl-tests, OSU, IMB) or min; --json and --csv\n"
             "carry all three"},
    {.name = "variant", .arg = CB_ARG_ONE, .code = OPT_VARIANT, .modes = CB_IN_RUN,
     .section = CB_SEC_TIMING, .metavar = "V",
     .help = "out-of-place, in-place or both (default): which of\n"
             "an op's buffer layouts each size measures (OSU and\n"
             "IMB measure out of place only)"},
    {.name = "iters", .short_name = 'n', .arg = CB_ARG_ONE, .code = 'n', .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "N|auto",
     .help = "timed iterations per size (default auto: until the\n"
             "median's 95% CI is within --precision, or --max-time)"},
    {.name = "precision", .arg = CB_ARG_ONE, .code = OPT_PRECISION, .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "P",
     .help = "relative CI half-width, e.g. 5% or 0.05 (default 5%)"},
    {.name = "max-time", .arg = CB_ARG_ONE, .code = OPT_MAX_TIME, .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "SEC",
     .help = "wall-clock budget per size (both variants, checks\n"
             "included) in auto mode (default 1; 0.15 with --sweep)"},
    {.name = "warmup", .short_name = 'w', .arg = CB_ARG_ONE, .code = 'w', .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "N|auto",
     .help = "untimed iterations per size (default auto: at least\n"
             "one, more while they take under 2 ms)"},
    {.name = "window", .arg = CB_ARG_ONE, .code = OPT_WINDOW, .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "N",
     .help = "messages per p2p_bw/p2p_bibw window (default 64)"},
    {.name = "window-bytes", .arg = CB_ARG_ONE, .code = OPT_WINDOW_BYTES, .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "SIZE",
     .help = "fewer messages when a window would carry more than\n"
             "SIZE (default 64M: the pipe is full long before)"},
    {.name = "rotate", .arg = CB_ARG_NONE, .code = OPT_ROTATE, .modes = CB_IN_RUN,
     .section = CB_SEC_TIMING,
     .help = "time each call on the next slice of a 256 MiB buffer,\n"
             "past a GPU's L2 and most CPUs' caches, as nccl-tests\n"
             "does: small sizes timed cold (default: one buffer)"},
    {.name = "register", .arg = CB_ARG_ONE, .code = OPT_REGISTER, .modes = CB_IN_RUN,
     .section = CB_SEC_TIMING, .metavar = "HOW",
     .help = "nccl: none (default), local (ncclMemAlloc +\n"
             "ncclCommRegister, NCCL 2.19+) or symmetric (windows\n"
             "for NCCL's symmetric kernels, 2.27+), as nccl-tests -R"},
    {.name = "timeout", .short_name = 'T', .arg = CB_ARG_ONE, .code = 'T', .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_TIMING, .metavar = "SEC",
     .help = "give up (exit 3) naming the stuck rank after SEC\n"
             "in one measurement (--accept, --matrix: in any\n"
             "phase, start-up included); 0 disables (default 300)"},
    {.name = "duration", .arg = CB_ARG_ONE, .code = OPT_DURATION, .modes = CB_IN_RUN,
     .section = CB_SEC_TIMING, .metavar = "TIME",
     .help = "burn-in: the sweep, --accept or --matrix again and\n"
             "again until TIME (90s, 30m, 4h, 2d) has passed, each\n"
             "record with its interval; every case judged over\n"
             "them: wrong values and a slowdown past 10% over the\n"
             "run fail, and a check that failed in any interval;\n"
             "SIGTERM or SIGUSR1 ends it with partial verdicts;\n"
             "a sweep's goes on with --resume (its --json FILE)"},
    {.name = "drift-limit", .arg = CB_ARG_ONE, .code = OPT_DRIFT_LIMIT, .modes = CB_IN_RUN,
     .section = CB_SEC_TIMING, .metavar = "P",
     .help = "the slowdown over a burn-in that fails, e.g. 25% or\n"
             "0.25 (default 10%)"},
    /* UCX backend: */
    {.name = "ucx-api", .arg = CB_ARG_ONE, .code = OPT_UCX_API, .modes = CB_IN_RUN,
     .section = CB_SEC_UCX, .metavar = "tag|put",
     .help = "p2p_bw and p2p_bibw with tag sends (default) or RMA\n"
             "puts, flushed per window (p2p_lat is always tag)"},
    /* Verbs (RDMA) backend: */
    {.name = "ib-dev", .arg = CB_ARG_ONE, .code = OPT_IB_DEV, .modes = CB_IN_RUN,
     .section = CB_SEC_VERBS, .metavar = "DEV[:PORT]",
     .help = "NIC and port, e.g. mlx5_0:1 (default: one per local\n"
             "rank among the active ports)"},
    {.name = "gid-index", .arg = CB_ARG_ONE, .code = OPT_GID_INDEX, .modes = CB_IN_RUN,
     .section = CB_SEC_VERBS, .metavar = "N",
     .help = "RoCE GID index (default: RoCE v2 with IPv4, same rule\n"
             "on both sides; the one used is reported)"},
    /* GPUs and NCCL: */
    {.name = "gpu-list", .arg = CB_ARG_ONE, .code = OPT_GPU_LIST, .modes = CB_IN_RUN,
     .section = CB_SEC_GPUS, .metavar = "LIST",
     .help = "GPU ordinals indexed by local rank (default: the\n"
             "local rank's own ordinal)"},
    {.name = "graph", .arg = CB_ARG_ONE, .code = OPT_GRAPH, .modes = CB_IN_RUN,
     .section = CB_SEC_GPUS, .metavar = "N",
     .help = "nccl: capture N ops in a CUDA graph and time graph\n"
             "launches (small-message latency)"},
    {.name = "share-gpu", .arg = CB_ARG_NONE, .code = OPT_SHARE_GPU, .modes = CB_IN_RUN,
     .section = CB_SEC_GPUS,
     .help = "all ranks on one GPU, each its own NCCL_HOSTID: the\n"
             "figures are of NCCL's network transport (testing)"},
    /* Checking and output: */
    {.name = "check", .short_name = 'c', .arg = CB_ARG_ONE, .code = 'c', .modes = CB_IN_RUN | CB_IN_CHECK,
     .section = CB_SEC_CHECKING, .metavar = "N",
     .help = "checked iterations per size; 0 disables (default 1)"},
    {.name = "json", .short_name = 'J', .arg = CB_ARG_ONE, .code = 'J',
     .modes = CB_IN_RUN | CB_IN_IMPORT, .section = CB_SEC_CHECKING, .metavar = "FILE",
     .help = "JSON Lines: a run record, then one line per result"},
    {.name = "csv", .arg = CB_ARG_ONE, .code = OPT_CSV, .modes = CB_IN_RUN | CB_IN_IMPORT,
     .section = CB_SEC_CHECKING, .metavar = "FILE",
     .help = "the result lines as CSV"},
    {.name = "prom", .arg = CB_ARG_ONE, .code = OPT_PROM, .modes = CB_IN_RUN,
     .section = CB_SEC_CHECKING, .metavar = "FILE",
     .help = "Prometheus textfile (node_exporter), replaced\n"
             "atomically at the end of the run"},
    {.name = "progress", .arg = CB_ARG_NONE, .code = OPT_PROGRESS, .modes = CB_IN_RUN,
     .section = CB_SEC_CHECKING,
     .help = "progress (op, size, elapsed) on stderr even when it is\n"
             "not a terminal (under mpirun it is a pipe)"},
    {.name = "no-progress", .arg = CB_ARG_NONE, .code = OPT_NO_PROGRESS, .modes = CB_IN_RUN,
     .section = CB_SEC_CHECKING,
     .help = "never show progress"},
    {.name = "list", .arg = CB_ARG_NONE, .code = OPT_LIST, .modes = CB_IN_RUN,
     .section = CB_SEC_CHECKING,
     .help = "backends, memory kinds and transports usable here"},
    {.name = "probe", .arg = CB_ARG_NONE, .code = OPT_PROBE, .modes = CB_IN_RUN,
     .section = CB_SEC_CHECKING,
     .help = "each node: CPUs, NUMA, GPUs (NVLink), NICs (state,\n"
             "rate), GPU-NIC distance, driver, CUDA and NCCL\n"
             "versions; every --json run record carries it too"},
    /* Acceptance (see topologies/README.md): */
    {.name = "accept", .arg = CB_ARG_ONE, .code = OPT_ACCEPT, .modes = CB_IN_RUN,
     .section = CB_SEC_ACCEPT, .metavar = "FILE",
     .help = "run a topology file's checks; one PASS/WARN/FAIL line\n"
             "per check with its margin; exit 1 when any fails"},
    {.name = "dry-run", .arg = CB_ARG_NONE, .code = OPT_DRY_RUN, .modes = CB_IN_RUN,
     .section = CB_SEC_ACCEPT,
     .help = "with --accept: print every check's levels (absolute,\n"
             "measured at run time, or the model's figure with its\n"
             "pick and band) without MPI; nothing is measured"},
    {.name = "matrix", .arg = CB_ARG_OPTIONAL, .code = OPT_MATRIX, .modes = CB_IN_RUN,
     .section = CB_SEC_ACCEPT, .metavar = "[=SIZE]",
     .help = "all-pairs bandwidth (SIZE messages, default 1M) and\n"
             "latency in N-1 shift rounds; names slow links and nodes\n"
             "(--backend nccl: GPU to GPU, one rank per GPU)"},
    {.name = "junit", .arg = CB_ARG_ONE, .code = OPT_JUNIT, .modes = CB_IN_RUN,
     .section = CB_SEC_ACCEPT, .metavar = "FILE",
     .help = "verdicts as JUnit XML (with --accept or --matrix)"},
    {.name = "exclude-out", .arg = CB_ARG_ONE, .code = OPT_EXCLUDE_OUT, .modes = CB_IN_RUN,
     .section = CB_SEC_ACCEPT, .metavar = "FILE",
     .help = "with --accept or --matrix: the hosts a FAIL (or a\n"
             "hang) was laid to, one a line, a tab, then why\n"
             "(sbatch --exclude=$(cut -f1 FILE | paste -sd, -))"},
    {.name = "baseline", .arg = CB_ARG_ONE, .code = OPT_BASELINE, .modes = CB_IN_RUN,
     .section = CB_SEC_ACCEPT, .metavar = "FILE",
     .help = "with --accept: judge each check, and the [matrix]'s\n"
             "nodes and links, against a fleet baseline too\n"
             "(robust z < -5 fails; see topologies/ACCEPTANCE.md)"},
    {.name = "repeat", .arg = CB_ARG_ONE, .code = OPT_REPEAT, .modes = CB_IN_RUN,
     .section = CB_SEC_ACCEPT, .metavar = "N",
     .help = "measure a check the fleet finds slow again, up to N\n"
             "times, before it fails (default 1)"},
    /* Tuning (mpirun; GPU: cuBLAS step, NCCL all-reduce on a strea */
    {.name = "tune", .arg = CB_ARG_NONE, .code = OPT_TUNE, .modes = CB_IN_RUN,
     .section = CB_SEC_TUNE,
     .help = "find the all-reduce settings and gradient bucket size\n"
             "that lose least of a training step to communication;\n"
             "on GPU where nccl is usable, else host (--backend\n"
             "nccl or mpi chooses)"},
    {.name = "workload", .arg = CB_ARG_ONE, .code = OPT_WORKLOAD, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "NAME",
     .help = "tiny gpt2-124m gpt-1.3b llama-7b (default gpt2-124m;\n"
             "transformer layers only; float on host)"},
    {.name = "workload-config", .arg = CB_ARG_ONE, .code = OPT_WORKLOAD_CONFIG, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "LIST",
     .help = "override the shape: hidden=,layers=,heads=,seq=,\n"
             "batch=,dtype= (e.g. seq=128,batch=2)"},
    {.name = "exhaustive", .arg = CB_ARG_NONE, .code = OPT_EXHAUSTIVE, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE,
     .help = "measure the whole grid instead of coordinate descent"},
    {.name = "shard", .arg = CB_ARG_ONE, .code = OPT_SHARD, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "MODE",
     .help = "with --parallel: none (DDP, default), grad (ZeRO-2's\n"
             "reduce-scatter) or full (FSDP/ZeRO-3: layers gathered)"},
    {.name = "no-search", .arg = CB_ARG_NONE, .code = OPT_NO_SEARCH, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE,
     .help = "only measure the launch settings (rho, T_*)"},
    {.name = "tune-algorithms", .arg = CB_ARG_ONE, .code = OPT_TUNE_ALGORITHMS,
     .modes = CB_IN_TUNE, .section = CB_SEC_TUNE, .metavar = "L",
     .help = "host: coll/tuned allreduce algorithms, 0 = Open MPI's\n"
             "own decision (default 0,1,2,3,4,5,6); GPU: NCCL_ALGO\n"
             "names and default (default: all NCCL runs here)"},
    {.name = "tune-segments", .arg = CB_ARG_ONE, .code = OPT_TUNE_SEGMENTS, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "L",
     .help = "host: segment sizes for algorithm 5 (default\n"
             "16K,64K,256K,1M)"},
    {.name = "tune-protocols", .arg = CB_ARG_ONE, .code = OPT_TUNE_PROTOCOLS, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "L",
     .help = "GPU: NCCL_PROTO names and default (default all)"},
    {.name = "tune-ctas", .arg = CB_ARG_ONE, .code = OPT_TUNE_CTAS, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "L",
     .help = "GPU: CTA counts to try (ncclConfig_t; default none)"},
    {.name = "tune-buckets", .arg = CB_ARG_ONE, .code = OPT_TUNE_BUCKETS, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "L",
     .help = "bucket sizes, capped at the gradient bytes (default\n"
             "1M,2M,...,256M)"},
    {.name = "tune-reps", .arg = CB_ARG_ONE, .code = OPT_TUNE_REPS, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "N",
     .help = "steps per configuration and measurement (default 10)"},
    {.name = "env-out", .arg = CB_ARG_ONE, .code = OPT_ENV_OUT, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "FILE",
     .help = "the tuned settings as a shell file to source"},
    {.name = "plugin-out", .arg = CB_ARG_ONE, .code = OPT_PLUGIN_OUT, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "FILE",
     .help = "GPU: per-size rules for collbench's NCCL tuner plugin\n"
             "(or NCCL's example), from a sweep of each collective\n"
             "over algorithm x protocol (sizes from -b/-e/-f);\n"
             "with --parallel, a rule per communicator's tuned pair"},
    {.name = "trials", .arg = CB_ARG_ONE, .code = OPT_TRIALS, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "FILE",
     .help = "JSON Lines, one line per measured configuration"},
    {.name = "resume", .arg = CB_ARG_NONE, .code = OPT_RESUME, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE,
     .help = "continue the search recorded in --trials FILE"},
    {.name = "max-overhead", .arg = CB_ARG_ONE, .code = OPT_MAX_OVERHEAD, .modes = CB_IN_TUNE,
     .section = CB_SEC_TUNE, .metavar = "P",
     .help = "target for the step's communication overhead,\n"
             "(T_step - T_compute) / T_step: 20% or 0.2\n"
             "(default 20%); the summary says PASS or FAIL"},
    /* Reports (no mpirun needed): */
    {.name = "report", .arg = CB_ARG_FILES, .code = OPT_REPORT, .modes = CB_IN_REPORT,
     .section = CB_SEC_REPORTS, .metavar = "FILE...",
     .help = "charts (busbw, latency, the model's predictions;\n"
             "PNG and SVG) and an index.html from --json, --matrix\n"
             "and --tune --trials files; several files are drawn\n"
             "on the same charts to compare them"},
    {.name = "import-inspector", .arg = CB_ARG_FILES, .code = OPT_IMPORT_INSPECTOR,
     .modes = CB_IN_INSPECTOR, .section = CB_SEC_REPORTS, .metavar = "FILE...",
     .help = "what a job called, from NCCL Inspector's files (or\n"
             "their folder): calls by op, ranks and size, with\n"
             "NCCL's times; --out CALLS writes them for --calls"},
    {.name = "out", .arg = CB_ARG_ONE, .code = OPT_OUT, .modes = CB_IN_REPORT,
     .section = CB_SEC_REPORTS, .metavar = "DIR",
     .help = "where --report writes (created if missing)"},
    {.name = "baseline", .arg = CB_ARG_ONE, .code = OPT_BASELINE, .modes = CB_IN_REPORT,
     .section = CB_SEC_REPORTS, .metavar = "FILE",
     .help = "with --report: each run's series against the fleet\n"
             "band per size, outliers marked and listed first"},
    {.name = "topology", .arg = CB_ARG_ONE, .code = OPT_TOPOLOGY, .modes = CB_IN_REPORT,
     .section = CB_SEC_REPORTS, .metavar = "FILE",
     .help = "with --report: link tiers the inputs lack, for the\n"
             "capacity and step charts"},
    {.name = "import-nccl-tests", .arg = CB_ARG_ONE, .code = OPT_IMPORT_NCCL_TESTS,
     .modes = CB_IN_IMPORT, .section = CB_SEC_REPORTS, .metavar = "FILE",
     .help = "nccl-tests' output (its table or its -J JSON) as\n"
             "collbench's records, written with --json FILE\n"
             "and/or --csv FILE; --op NAME when the file does not\n"
             "say which collective ran"},
    /* Fleet baselines (no mpirun; topologies/ACCEPTANCE.md): */
    {.name = "baseline-out", .arg = CB_ARG_ONE, .code = OPT_BASELINE_OUT, .modes = CB_IN_BASELINE,
     .section = CB_SEC_FLEET, .metavar = "B.json FILE...",
     .help = "a baseline from --json runs: per series, size, rank\n"
             "and node count, pair and node: n, median, MAD,\n"
             "quantiles and the runs it came from"},
    {.name = "compare", .arg = CB_ARG_NONE, .code = OPT_COMPARE, .modes = CB_IN_COMPARE,
     .section = CB_SEC_FLEET, .metavar = "OLD NEW",
     .help = "series and sizes slower beyond their noise between\n"
             "two --json runs or baselines; exit 1 when any"},
    {.name = "min-slowdown", .arg = CB_ARG_ONE, .code = OPT_MIN_SLOWDOWN, .modes = CB_IN_COMPARE,
     .section = CB_SEC_FLEET, .metavar = "X",
     .help = "with --compare: slower means the 95% CI of the\n"
             "slowdown lies above X (default 1.1)"},
    {.name = "launch-spread", .arg = CB_ARG_ONE, .code = OPT_LAUNCH_SPREAD,
     .modes = CB_IN_COMPARE, .section = CB_SEC_FLEET, .metavar = "P",
     .help = "with --compare: the spread between launches (1 sigma,\n"
             "e.g. 3%) a side of one launch adds to its interval\n"
             "(default: this development machine's, per size class;\n"
             "scripts/compare-falsealarms.sh measures yours)"},
    /* Performance model (no mpirun; bench/model/PLANNING.md): */
    {.name = "fit", .arg = CB_ARG_FILES, .code = OPT_FIT, .modes = CB_IN_MODEL,
     .section = CB_SEC_MODEL, .metavar = "FILE...",
     .help = "fit latency (alpha) and bandwidth (beta) per op and\n"
             "tier (intra-node, inter-node) from --json files"},
    {.name = "validate", .arg = CB_ARG_FILES, .code = OPT_VALIDATE, .modes = CB_IN_MODEL,
     .with = "--fit", .section = CB_SEC_MODEL, .metavar = "FILE...",
     .help = "predict these files' measurements from the fit and\n"
             "print the errors (median and max)"},
    {.name = "predict", .arg = CB_ARG_NONE, .code = OPT_PREDICT, .modes = CB_IN_MODEL,
     .section = CB_SEC_MODEL,
     .help = "time and busbw of ring, tree and hierarchical\n"
             "algorithms on larger systems, from --fit, --topology\n"
             "or both (a fitted tier replaces the topology's)\n"
             "and, for a GPU topology, NCCL's own pick and time\n"
             "(its cost model; --fit nccl records calibrate it)"},
    {.name = "topology", .arg = CB_ARG_ONE, .code = OPT_TOPOLOGY, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_MODEL, .metavar = "FILE",
     .help = "a topology file (topologies/README.md); with --validate,\n"
             "NCCL's model is checked against nccl records too"},
    {.name = "gpus", .arg = CB_ARG_ONE, .code = OPT_GPUS, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_MODEL, .metavar = "LIST",
     .help = "cluster sizes (default 8,16,...,16384)"},
    {.name = "gpus-per-node", .arg = CB_ARG_ONE, .code = OPT_GPUS_PER_NODE, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_MODEL, .metavar = "N",
     .help = "ranks per node (default: the topology's, else the fitted runs')"},
    {.name = "size", .arg = CB_ARG_ONE, .code = OPT_SIZE, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_MODEL, .metavar = "LIST",
     .help = "message sizes (default 64M; or -b/-e: powers of 2)"},
    {.name = "op", .arg = CB_ARG_ONE, .code = OPT_OP, .modes = CB_IN_MODEL,
     .section = CB_SEC_MODEL, .metavar = "LIST",
     .help = "ops to fit and predict (default all collectives)"},
    {.name = "dtype", .short_name = 'd', .arg = CB_ARG_ONE, .code = 'd', .modes = CB_IN_MODEL,
     .section = CB_SEC_MODEL, .metavar = "T",
     .help = "with -o, --redop OP: the data NCCL's pick is for\n"
             "(default float sum; NVLS reduces only some pairs)"},
    {.name = "compute-time", .arg = CB_ARG_ONE, .code = OPT_COMPUTE_TIME, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_MODEL, .metavar = "SEC",
     .help = "with --grad-bytes SIZE: predict a training step's\n"
             "exposed communication / compute (rho), the\n"
             "overhead (exposed / step) and, per bucket size,\n"
             "the most GPUs that keep it within --max-overhead"},
    {.name = "trials", .arg = CB_ARG_ONE, .code = OPT_TRIALS, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_MODEL, .metavar = "FILE",
     .help = "the step (T_compute, gradient bytes) from a\n"
             "--tune --trials file instead, and its measured point"},
    {.name = "bucket", .arg = CB_ARG_ONE, .code = OPT_BUCKET, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_MODEL, .metavar = "LIST",
     .help = "gradient bucket sizes (default 1M,4M,25M,100M,400M)"},
    {.name = "overlap", .arg = CB_ARG_ONE, .code = OPT_OVERLAP, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_MODEL, .metavar = "F",
     .help = "compute's speed while an allreduce runs, 0 to 1\n"
             "(default 1: hidden for free; 0: compute waits);\n"
             "'measured': from --trials' overlap efficiency"},
    {.name = "json", .short_name = 'J', .arg = CB_ARG_ONE, .code = 'J', .modes = CB_IN_MODEL,
     .section = CB_SEC_MODEL, .metavar = "FILE",
     .help = "the fit, validation and predictions as JSON"},
    /* every mode's */
    {.name = "help", .short_name = 'h', .arg = CB_ARG_NONE, .code = 'h', .modes = CB_IN_RUN,
     .section = CB_SEC_GENERAL,
     .help = "this text"},
    {.name = "version", .short_name = 'V', .arg = CB_ARG_NONE, .code = 'V', .modes = CB_IN_RUN,
     .section = CB_SEC_GENERAL,
     .help = "version and build configuration"},
    /* no --help entry: old spellings, and second meanings the entries above name */
    {.name = "mode", .arg = CB_ARG_ONE, .code = OPT_TIMING, .modes = CB_IN_RUN,
     .renamed_to = "timing", .section = CB_SEC_NONE},
    {.name = "model", .arg = CB_ARG_ONE, .code = OPT_WORKLOAD, .modes = CB_IN_TUNE,
     .renamed_to = "workload", .section = CB_SEC_NONE},
    {.name = "model-config", .arg = CB_ARG_ONE, .code = OPT_WORKLOAD_CONFIG, .modes = CB_IN_TUNE,
     .renamed_to = "workload-config", .section = CB_SEC_NONE},
    {.name = "op", .arg = CB_ARG_ONE, .code = OPT_OP, .modes = CB_IN_IMPORT,
     .section = CB_SEC_NONE},
    {.name = "out", .arg = CB_ARG_ONE, .code = OPT_OUT, .modes = CB_IN_BASELINE,
     .section = CB_SEC_NONE},
    {.name = "out", .arg = CB_ARG_ONE, .code = OPT_OUT, .modes = CB_IN_INSPECTOR,
     .section = CB_SEC_NONE},
    {.name = "baseline", .arg = CB_ARG_OPTIONAL, .code = OPT_BASELINE, .modes = CB_IN_BASELINE,
     .section = CB_SEC_NONE},
    {.name = "redop", .short_name = 'o', .arg = CB_ARG_ONE, .code = 'o', .modes = CB_IN_MODEL,
     .section = CB_SEC_NONE},
    {.name = "min-bytes", .short_name = 'b', .arg = CB_ARG_ONE, .code = 'b', .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_NONE},
    {.name = "max-bytes", .short_name = 'e', .arg = CB_ARG_ONE, .code = 'e', .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_NONE},
    {.name = "grad-bytes", .arg = CB_ARG_ONE, .code = OPT_GRAD_BYTES, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_NONE},
    {.name = "max-overhead", .arg = CB_ARG_ONE, .code = OPT_MAX_OVERHEAD, .modes = CB_IN_MODEL,
     .with = "--predict", .section = CB_SEC_NONE},
    // clang-format on
};
const int cb_noptions = sizeof cb_options / sizeof cb_options[0];

static const struct cb_option *find(const char *a, unsigned modes, const char **inline_value) {
  *inline_value = NULL;
  if (a[0] == '-' && a[1] == '-') {
    const char *eq = strchr(a, '=');
    size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    for (int k = 0; k < cb_noptions; k++)
      if ((cb_options[k].modes & modes) && strlen(cb_options[k].name) == len &&
          strncmp(a + 2, cb_options[k].name, len) == 0) {
        *inline_value = eq ? eq + 1 : NULL;
        return &cb_options[k];
      }
    return NULL;
  }
  if (a[0] == '-' && a[1] && !a[2])
    for (int k = 0; k < cb_noptions; k++)
      if ((cb_options[k].modes & modes) && cb_options[k].short_name == a[1])
        return &cb_options[k];
  return NULL;
}

enum cb_next cb_option_next(int argc, char **argv, int *i, unsigned modes,
                            const struct cb_option **row, const char **value) {
  const char *a = argv[*i];
  *row = NULL, *value = NULL;
  if (a[0] != '-' || strcmp(a, "-") == 0)
    return CB_NEXT_ARG;
  const struct cb_option *o = find(a, modes, value);
  if (!o || (*value && o->arg == CB_ARG_NONE))
    return CB_NEXT_OTHER;
  *row = o;
  if (o->arg == CB_ARG_ONE && !*value) {
    if (*i + 1 >= argc)
      return CB_NEXT_MISSING;
    *value = argv[++*i];
  }
  return CB_NEXT_OPTION;
}

const char *cb_option_goes_with(const char *option, unsigned modes) {
  const char *inline_value;
  for (int k = 0; k < cb_noptions; k++)
    if (!(cb_options[k].modes & modes) && cb_options[k].with) {
      const struct cb_option *o = find(option, cb_options[k].modes, &inline_value);
      if (o == &cb_options[k])
        return o->with;
    }
  return NULL;
}

const char *cb_option_new_name(const char *old) {
  for (int k = 0; k < cb_noptions; k++)
    if (cb_options[k].renamed_to && strcmp(old, cb_options[k].name) == 0)
      return cb_options[k].renamed_to;
  return NULL;
}

/* An entry as nccl-tests and OSU print theirs: the option and its value
 * in a column of 27, the help beside it (under it when the option is
 * wider), continuation lines indented to the column. */
static void entry(FILE *out, const struct cb_option *o) {
  char head[64];
  int n = o->short_name ? snprintf(head, sizeof head, "  -%c, --%s", o->short_name, o->name)
                        : snprintf(head, sizeof head, "      --%s", o->name);
  if (o->metavar)
    snprintf(head + n, sizeof head - (size_t)n, "%s%s",
             o->metavar[0] == '[' || o->metavar[0] == '=' ? "" : " ", o->metavar);
  const char *h = o->help;
  if (strlen(head) <= 25)
    fprintf(out, "%-27s", head);
  else
    fprintf(out, "%s\n%27s", head, "");
  for (;;) {
    size_t len = strcspn(h, "\n");
    fprintf(out, "%.*s\n", (int)len, h);
    if (!h[len])
      break;
    h += len + 1;
    fprintf(out, "%27s", "");
  }
}

void cb_option_help(FILE *out, const struct cb_option *o) {
  if (o->help)
    entry(out, o);
}

const struct cb_option *cb_option_of_word(const char *word) {
  if (word[0] != '-' || !word[1])
    return NULL;
  for (int k = 0; k < cb_noptions; k++) {
    const struct cb_option *o = &cb_options[k];
    if (word[1] != '-') {
      if (o->short_name && word[1] == o->short_name && !word[2])
        return o;
      continue;
    }
    size_t n = strlen(o->name);
    if (strncmp(word + 2, o->name, n) == 0 && (word[2 + n] == '\0' || word[2 + n] == '='))
      return o;
  }
  return NULL;
}

void cb_options_help(FILE *out, enum cb_section section) {
  fputs(titles[section], out);
  for (int k = 0; k < cb_noptions; k++)
    if (cb_options[k].section == section && cb_options[k].help)
      entry(out, &cb_options[k]);
}
