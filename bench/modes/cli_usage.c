/* --help's text and --list's inventory of what is usable here. */
#include "cli.h"
#include "core/gpu.h"
#include "core/runinfo.h"

void cb_cli_usage(FILE *out) {
  fputs("usage: mpirun -np N collbench [options]\n"
        "Measures collectives and point-to-point traffic; every rank checks its results.\n"
        "\n"
        "What to run (comma lists; 'all' for every one):\n"
        "      --sweep              every op on every usable backend and memory kind\n"
        "      --op LIST            allreduce allgather reducescatter broadcast alltoall\n"
        "                           p2p_lat p2p_bw p2p_bibw (default allreduce); copy\n"
        "                           alone: the GPU copy matrix of each node (copy\n"
        "                           engine and SM kernel, one and both ways, host to\n"
        "                           GPU and back; -e SIZE copies, default 64M)\n"
        "      --backend LIST       backends (default mpi; see --list)\n"
        "      --mem LIST           host pinned device (default host)\n"
        "      --transport LIST     path, e.g. shm or tcp for mpi; nvlink pcie shm net\n"
        "                           ib roce socket for nccl (default auto)\n"
        "  -d, --dtype LIST         int8 int32 int64 float double half bfloat16\n"
        "                           e4m3 e5m2 (fp8: nccl only) (default float)\n"
        "  -o, --redop LIST         sum prod min max (default sum)\n"
        "  -r, --root N             broadcast root (default 0)\n"
        "Sizes (bytes; K, M, G suffixes are binary):\n"
        "  -b, --min-bytes SIZE     smallest size (default 8)\n"
        "  -e, --max-bytes SIZE     largest size (default 64M)\n"
        "  -f, --step-factor N      multiply by N between sizes (default 2)\n"
        "  -i, --step-bytes SIZE    add SIZE between sizes instead\n"
        "Timing:\n"
        "      --mode MODE          throughput (batches timed whole, default) or latency\n"
        "                           (each iteration between barriers, slowest rank)\n"
        "      --stat STAT          what the time column, algbw and busbw show: median\n"
        "                           (default), mean (total time / iterations, as in\n"
        "                           nccl-tests, OSU, IMB) or min; --json and --csv\n"
        "                           carry all three\n"
        "  -n, --iters N|auto       timed iterations per size (default auto: until the\n"
        "                           median's 95% CI is within --precision, or --max-time)\n"
        "      --precision P        relative CI half-width, e.g. 5% or 0.05 (default 5%)\n"
        "      --max-time SEC       wall-clock budget per size (both variants, checks\n"
        "                           included) in auto mode (default 1; 0.15 with --sweep)\n"
        "  -w, --warmup N|auto      untimed iterations per size (default auto: at least\n"
        "                           one, more while they take under 2 ms)\n"
        "      --window N           messages per p2p_bw/p2p_bibw window (default 64)\n"
        "      --window-bytes SIZE  fewer messages when a window would carry more than\n"
        "                           SIZE (default 64M: the pipe is full long before)\n"
        "  -T, --timeout SEC        give up (exit 3) naming the stuck rank after SEC\n"
        "                           in one measurement; 0 disables (default 300)\n"
        "UCX backend:\n"
        "      --ucx-api tag|put    p2p_bw and p2p_bibw with tag sends (default) or RMA\n"
        "                           puts, flushed per window (p2p_lat is always tag)\n"
        "Verbs (RDMA) backend:\n"
        "      --ib-dev DEV[:PORT]  NIC and port, e.g. mlx5_0:1 (default: one per local\n"
        "                           rank among the active ports)\n"
        "      --gid-index N        RoCE GID index (default: RoCE v2 with IPv4, same rule\n"
        "                           on both sides; the one used is reported)\n"
        "GPUs and NCCL:\n"
        "      --gpu-list LIST      GPU ordinals indexed by local rank (default: the\n"
        "                           local rank's own ordinal)\n"
        "      --graph N            nccl: capture N ops in a CUDA graph and time graph\n"
        "                           launches (small-message latency)\n"
        "      --share-gpu          all ranks on one GPU, each its own NCCL_HOSTID: the\n"
        "                           figures are of NCCL's network transport (testing)\n"
        "Checking and output:\n"
        "  -c, --check N            checked iterations per size; 0 disables (default 1)\n"
        "  -J, --json FILE          JSON Lines: a run record, then one line per result\n"
        "      --csv FILE           the result lines as CSV\n"
        "      --prom FILE          Prometheus textfile (node_exporter), replaced\n"
        "                           atomically at the end of the run\n"
        "      --progress           progress (op, size, elapsed) on stderr even when it is\n"
        "                           not a terminal (under mpirun it is a pipe)\n"
        "      --no-progress        never show progress\n"
        "      --list               backends, memory kinds and transports usable here\n"
        "      --probe              each node: CPUs, NUMA, GPUs (NVLink), NICs (state,\n"
        "                           rate), GPU-NIC distance, driver, CUDA and NCCL\n"
        "                           versions; every --json run record carries it too\n"
        "Acceptance (see topologies/README.md):\n"
        "      --accept FILE        run a topology file's checks; one PASS/WARN/FAIL line\n"
        "                           per check with its margin; exit 1 when any fails\n"
        "      --matrix[=SIZE]      all-pairs bandwidth (SIZE messages, default 1M) and\n"
        "                           latency in N-1 shift rounds; names slow links and nodes\n"
        "                           (--backend nccl: GPU to GPU, one rank per GPU)\n"
        "      --junit FILE         verdicts as JUnit XML (with --accept or --matrix)\n"
        "      --baseline FILE      with --accept: judge each check, and the [matrix]'s\n"
        "                           nodes and links, against a fleet baseline too\n"
        "                           (robust z-score under -5 fails; README: Baselines)\n"
        "      --repeat N           measure a check the fleet finds slow again, up to N\n"
        "                           times, before it fails (default 1)\n"
        "Tuning (mpirun; GPU: cuBLAS step, NCCL all-reduce on a stream of its own;\n"
        "host: OpenBLAS step, MPI all-reduce on a thread per rank):\n"
        "      --tune               find the all-reduce settings and gradient bucket size\n"
        "                           that lose least of a training step to communication;\n"
        "                           on GPU where nccl is usable, else host (--backend\n"
        "                           nccl or mpi chooses)\n"
        "      --model NAME         tiny gpt2-124m gpt-1.3b llama-7b (default gpt2-124m;\n"
        "                           transformer layers only; float on host)\n"
        "      --model-config LIST  override the shape: hidden=,layers=,heads=,seq=,\n"
        "                           batch=,dtype= (e.g. seq=128,batch=2)\n"
        "      --exhaustive         measure the whole grid instead of coordinate descent\n"
        "      --no-search          only measure the launch settings (rho, T_*)\n"
        "      --tune-algorithms L  host: coll/tuned allreduce algorithms, 0 = Open MPI's\n"
        "                           own decision (default 0,1,2,3,4,5,6); GPU: NCCL_ALGO\n"
        "                           names and default (default: all NCCL runs here)\n"
        "      --tune-segments L    host: segment sizes for algorithm 5 (default\n"
        "                           16K,64K,256K,1M)\n"
        "      --tune-protocols L   GPU: NCCL_PROTO names and default (default all)\n"
        "      --tune-ctas L        GPU: CTA counts to try (ncclConfig_t; default none)\n"
        "      --tune-buckets L     bucket sizes, capped at the gradient bytes (default\n"
        "                           1M,2M,...,256M)\n"
        "      --tune-reps N        steps per configuration and measurement (default 10)\n"
        "      --env-out FILE       the tuned settings as a shell file to source\n"
        "      --plugin-out FILE    GPU: per-size rules for collbench's NCCL tuner plugin\n"
        "                           (or NCCL's example), from a sweep of each collective\n"
        "                           over algorithm x protocol (sizes from -b/-e/-f)\n"
        "      --trials FILE        JSON Lines, one line per measured configuration\n"
        "      --resume             continue the search recorded in --trials FILE\n"
        "      --max-overhead P     target for the step's communication overhead,\n"
        "                           (T_step - T_compute) / T_step: 20% or 0.2\n"
        "                           (default 20%); the summary says PASS or FAIL\n"
        "Reports (no mpirun needed):\n"
        "      --report FILE...     charts (busbw, latency, the model's predictions;\n"
        "                           PNG and SVG) and an index.html from --json, --matrix\n"
        "                           and --tune --trials files; several files are drawn\n"
        "                           on the same charts to compare them\n"
        "      --out DIR            where --report writes (created if missing)\n"
        "      --baseline FILE      with --report: each run's series against the fleet\n"
        "                           band per size, outliers marked and listed first\n"
        "      --topology FILE      with --report: link tiers the inputs lack, for the\n"
        "                           capacity and step charts\n"
        "      --import-nccl-tests FILE\n"
        "                           nccl-tests' output (its table or its -J JSON) as\n"
        "                           collbench's records, written with --json FILE\n"
        "                           and/or --csv FILE; --op NAME when the file does not\n"
        "                           say which collective ran\n"
        "Fleet baselines (no mpirun needed; README: Baselines):\n"
        "      --baseline FILE... --out B.json\n"
        "                           a baseline from --json runs: per series, size, rank\n"
        "                           and node count, pair and node: n, median, MAD,\n"
        "                           quantiles and the runs it came from\n"
        "      --compare OLD NEW    series and sizes slower beyond their noise between\n"
        "                           two --json runs or baselines; exit 1 when any\n"
        "      --min-slowdown X     with --compare: slower means the 95% CI of the\n"
        "                           slowdown lies above X (default 1.1)\n"
        "Performance model (no mpirun needed; README: Capacity planning):\n"
        "      --fit FILE...        fit latency (alpha) and bandwidth (beta) per op and\n"
        "                           tier (intra-node, inter-node) from --json files\n"
        "      --validate FILE...   predict these files' measurements from the fit and\n"
        "                           print the errors (median and max)\n"
        "      --predict            time and busbw of ring, tree and hierarchical\n"
        "                           algorithms on larger systems, from --fit, --topology\n"
        "                           or both (a fitted tier replaces the topology's)\n"
        "                           and, for a GPU topology, NCCL's own pick and time\n"
        "                           (its cost model; --fit nccl records calibrate it)\n"
        "      --topology FILE      a topology file (topologies/README.md)\n"
        "      --gpus LIST          cluster sizes (default 8,16,...,16384)\n"
        "      --gpus-per-node N    ranks per node (default: the topology's, else the fitted runs')\n"
        "      --size LIST          message sizes (default 64M; or -b/-e: powers of 2)\n"
        "      --op LIST            ops to fit and predict (default all collectives)\n"
        "      --compute-time SEC   with --grad-bytes SIZE: predict a training step's\n"
        "                           exposed communication / compute (rho), the\n"
        "                           overhead (exposed / step) and, per bucket size,\n"
        "                           the most GPUs that keep it within --max-overhead\n"
        "      --trials FILE        the step (T_compute, gradient bytes) from a\n"
        "                           --tune --trials file instead, and its measured point\n"
        "      --bucket LIST        gradient bucket sizes (default 1M,4M,25M,100M,400M)\n"
        "      --overlap F          compute's speed while an allreduce runs, 0 to 1\n"
        "                           (default 1: hidden for free; 0: compute waits);\n"
        "                           'measured': from --trials' overlap efficiency\n"
        "      --json FILE          the fit, validation and predictions as JSON\n"
        "  -h, --help               this text\n"
        "  -V, --version            version and build configuration\n"
        "\n"
        "Exit status: 0 ok, 1 wrong results or failed acceptance, 2 usage or\n"
        "configuration error, 3 runtime error (backend failure, timeout; gnuplot\n"
        "failing for --report).\n",
        out);
}

void cb_cli_list(FILE *out) {
  struct cb_backend_info infos[CB_MAX_LIST];
  int n;
  cb_backend_infos(infos, &n);
  fprintf(out, "backends:\n");
  for (int i = 0; i < n; i++) {
    fprintf(out, "  %-8s %s (%s); transports:", infos[i].name,
            infos[i].usable ? "usable" : "not usable",
            infos[i].usable ? infos[i].version : infos[i].why);
    for (const char *const *t = cb_backends[i]->transports; *t; t++)
      fprintf(out, " %s", *t);
    fputc('\n', out);
  }
  for (int i = 0; cb_unbuilt_backends[i].name; i++)
    fprintf(out, "  %-8s not built: %s\n", cb_unbuilt_backends[i].name, cb_unbuilt_backends[i].why);
  fprintf(out, "memory kinds:\n");
  for (int m = 0; m < CB_NMEMS; m++) {
    char why[160];
    int usable = cb_gpu_mem_usable(m, why, sizeof why);
    fprintf(out, "  %-8s %s\n", cb_mem_names[m], usable ? "usable" : why);
  }
  char why[160];
  if (cb_mem_built(CB_MEM_DEVICE) && !cb_gpu_mpi_cuda_aware(why, sizeof why))
    fprintf(out, "  device memory with the mpi backend: %s\n", why);
  for (int b = 0; b < cb_nbackends && cb_mem_built(CB_MEM_DEVICE); b++)
    if (cb_backends[b]->mem_usable && !cb_backends[b]->mem_usable(CB_MEM_DEVICE, why, sizeof why))
      fprintf(out, "  device memory with the %s backend: %s\n", cb_backends[b]->name, why);
  fprintf(out, "ops:");
  for (int o = 0; o < CB_NOPS; o++)
    fprintf(out, " %s", cb_ops[o]->name);
  fprintf(out, "\ndtypes:");
  for (int d = 0; d < CB_NDTYPES; d++)
    fprintf(out, " %s", cb_dtypes[d].name);
  fprintf(out, "\nredops:");
  for (int r = 0; r < CB_NREDOPS; r++)
    fprintf(out, " %s", cb_redop_names[r]);
  fputc('\n', out);
}
