#include "cli.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "gpu.h"
#include "measure.h"
#include "model/model.h"
#include "overhead.h"
#include "runinfo.h"
#include "units.h"

enum {
  OPT_OP = 256,
  OPT_BACKEND,
  OPT_MEM,
  OPT_TRANSPORT,
  OPT_CSV,
  OPT_LIST,
  OPT_SWEEP,
  OPT_MODE,
  OPT_PRECISION,
  OPT_MAX_TIME,
  OPT_WINDOW,
  OPT_PROGRESS,
  OPT_NO_PROGRESS,
  OPT_WINDOW_BYTES,
  OPT_IB_DEV,
  OPT_GID_INDEX,
  OPT_GPU_LIST,
  OPT_GRAPH,
  OPT_SHARE_GPU,
  OPT_UCX_API,
  OPT_PROM,
  OPT_ACCEPT,
  OPT_JUNIT,
  OPT_MATRIX,
  OPT_PROBE,
  OPT_STAT,
  OPT_BASELINE,
  OPT_REPEAT,
  /* --tune and its options */
  OPT_TUNE,
  OPT_MODEL,
  OPT_MODEL_CONFIG,
  OPT_EXHAUSTIVE,
  OPT_NO_SEARCH,
  OPT_TUNE_ALGORITHMS,
  OPT_TUNE_SEGMENTS,
  OPT_TUNE_PROTOCOLS,
  OPT_TUNE_CTAS,
  OPT_PLUGIN_OUT,
  OPT_TUNE_BUCKETS,
  OPT_TUNE_REPS,
  OPT_ENV_OUT,
  OPT_TRIALS,
  OPT_RESUME,
  OPT_MAX_OVERHEAD,
  OPT_TUNE_END,
};

static const struct option long_options[] = {
    {"min-bytes", required_argument, 0, 'b'},
    {"max-bytes", required_argument, 0, 'e'},
    {"step-factor", required_argument, 0, 'f'},
    {"step-bytes", required_argument, 0, 'i'},
    {"iters", required_argument, 0, 'n'},
    {"warmup", required_argument, 0, 'w'},
    {"check", required_argument, 0, 'c'},
    {"dtype", required_argument, 0, 'd'},
    {"redop", required_argument, 0, 'o'},
    {"root", required_argument, 0, 'r'},
    {"timeout", required_argument, 0, 'T'},
    {"json", required_argument, 0, 'J'},
    {"csv", required_argument, 0, OPT_CSV},
    {"prom", required_argument, 0, OPT_PROM},
    {"accept", required_argument, 0, OPT_ACCEPT},
    {"junit", required_argument, 0, OPT_JUNIT},
    {"matrix", optional_argument, 0, OPT_MATRIX},
    {"probe", no_argument, 0, OPT_PROBE},
    {"baseline", required_argument, 0, OPT_BASELINE},
    {"repeat", required_argument, 0, OPT_REPEAT},
    {"op", required_argument, 0, OPT_OP},
    {"backend", required_argument, 0, OPT_BACKEND},
    {"mem", required_argument, 0, OPT_MEM},
    {"transport", required_argument, 0, OPT_TRANSPORT},
    {"mode", required_argument, 0, OPT_MODE},
    {"stat", required_argument, 0, OPT_STAT},
    {"precision", required_argument, 0, OPT_PRECISION},
    {"max-time", required_argument, 0, OPT_MAX_TIME},
    {"window", required_argument, 0, OPT_WINDOW},
    {"window-bytes", required_argument, 0, OPT_WINDOW_BYTES},
    {"ucx-api", required_argument, 0, OPT_UCX_API},
    {"ib-dev", required_argument, 0, OPT_IB_DEV},
    {"gid-index", required_argument, 0, OPT_GID_INDEX},
    {"gpu-list", required_argument, 0, OPT_GPU_LIST},
    {"graph", required_argument, 0, OPT_GRAPH},
    {"share-gpu", no_argument, 0, OPT_SHARE_GPU},
    {"sweep", no_argument, 0, OPT_SWEEP},
    {"progress", no_argument, 0, OPT_PROGRESS},
    {"no-progress", no_argument, 0, OPT_NO_PROGRESS},
    {"list", no_argument, 0, OPT_LIST},
    {"help", no_argument, 0, 'h'},
    {"version", no_argument, 0, 'V'},
    /* --tune and its options */
    {"tune", no_argument, 0, OPT_TUNE},
    {"model", required_argument, 0, OPT_MODEL},
    {"model-config", required_argument, 0, OPT_MODEL_CONFIG},
    {"exhaustive", no_argument, 0, OPT_EXHAUSTIVE},
    {"no-search", no_argument, 0, OPT_NO_SEARCH},
    {"tune-algorithms", required_argument, 0, OPT_TUNE_ALGORITHMS},
    {"tune-segments", required_argument, 0, OPT_TUNE_SEGMENTS},
    {"tune-protocols", required_argument, 0, OPT_TUNE_PROTOCOLS},
    {"tune-ctas", required_argument, 0, OPT_TUNE_CTAS},
    {"plugin-out", required_argument, 0, OPT_PLUGIN_OUT},
    {"tune-buckets", required_argument, 0, OPT_TUNE_BUCKETS},
    {"tune-reps", required_argument, 0, OPT_TUNE_REPS},
    {"env-out", required_argument, 0, OPT_ENV_OUT},
    {"trials", required_argument, 0, OPT_TRIALS},
    {"resume", no_argument, 0, OPT_RESUME},
    {"max-overhead", required_argument, 0, OPT_MAX_OVERHEAD},
    {0, 0, 0, 0},
};

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
        "      --precision P        relative CI half-width, e.g. 1% or 0.01 (default 1%)\n"
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
        "      --plugin-out FILE    GPU: per-size rules for NCCL's example tuner plugin,\n"
        "                           from a sweep of each collective over algorithm x\n"
        "                           protocol (sizes from -b/-e/-f)\n"
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
        "      --topology FILE      a topology file (topologies/README.md)\n"
        "      --gpus LIST          cluster sizes (default 8,16,...,16384)\n"
        "      --gpus-per-node N    ranks per node (default: the topology's, or 8)\n"
        "      --size LIST          message sizes (default 64M; or -b/-e: powers of 2)\n"
        "      --op LIST            ops to fit and predict (default all collectives)\n"
        "      --compute-time SEC   with --grad-bytes SIZE: predict a training step's\n"
        "                           exposed communication / compute (rho), the\n"
        "                           overhead (exposed / step) and, per bucket size,\n"
        "                           the most GPUs that keep it within --max-overhead\n"
        "      --trials FILE        the step (T_compute, gradient bytes) from a\n"
        "                           --tune --trials file instead, and its measured point\n"
        "      --bucket LIST        gradient bucket sizes (default 1M,4M,25M,100M,400M)\n"
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

/* Splits a comma list and maps each name through lookup; an item "all"
 * stands for every id below `all`, so a bad item beside it is the one
 * named. Duplicates are dropped. */
static int parse_list(const char *arg, const char *what, int (*lookup)(const char *), int all,
                      int *ids, int *n, int max, struct cb_error *err) {
  char copy[512];
  if (snprintf(copy, sizeof copy, "%s", arg) >= (int)sizeof copy)
    return cb_fail(err, CB_USAGE, "%s: list '%s' is too long", what, arg);
  if (cb_list_check(arg, what, err))
    return err->status;
  *n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int every = strcmp(tok, "all") == 0;
    int first = every ? 0 : lookup(tok), last = every ? all - 1 : first;
    if (first < 0)
      return cb_fail(err, CB_USAGE, "%s: unknown value '%s' (see --help or --list)", what, tok);
    for (int id = first; id <= last; id++) {
      int seen = 0;
      for (int i = 0; i < *n; i++)
        seen |= ids[i] == id;
      if (!seen && *n < max)
        ids[(*n)++] = id;
    }
  }
  if (*n == 0)
    return cb_fail(err, CB_USAGE, "%s: empty list '%s'", what, arg);
  return CB_OK;
}

static int parse_transports(const char *arg, struct cb_settings *s, struct cb_error *err) {
  static char storage[512];
  if (snprintf(storage, sizeof storage, "%s", arg) >= (int)sizeof storage)
    return cb_fail(err, CB_USAGE, "--transport: list '%s' is too long", arg);
  if (cb_list_check(arg, "--transport", err))
    return err->status;
  s->ntransports = 0;
  char *save = NULL;
  for (char *tok = strtok_r(storage, ",", &save); tok && s->ntransports < CB_MAX_LIST;
       tok = strtok_r(NULL, ",", &save))
    s->transports[s->ntransports++] = tok;
  if (s->ntransports == 0)
    return cb_fail(err, CB_USAGE, "--transport: empty list '%s'", arg);
  return CB_OK;
}

static int backend_has_transport(const struct cb_backend *b, const char *t) {
  for (const char *const *p = b->transports; *p; p++)
    if (strcmp(*p, t) == 0)
      return 1;
  return 0;
}

/* Cross-option rules, once every option is known. */
static int validate(struct cb_cli *cli, int factor_given, struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  char a[32], b[32];
  if (s->min_bytes > s->max_bytes)
    return cb_fail(err, CB_USAGE, "--min-bytes %s is larger than --max-bytes %s",
                   cb_format_size(s->min_bytes, a, sizeof a),
                   cb_format_size(s->max_bytes, b, sizeof b));
  if (factor_given && s->step_bytes)
    return cb_fail(err, CB_USAGE, "give either --step-factor or --step-bytes, not both");
  if (s->mode == CB_MODE_LATENCY && s->iters > CB_MAX_SAMPLES)
    return cb_fail(err, CB_USAGE, "--iters %ld: latency mode keeps every sample, at most %d",
                   s->iters, CB_MAX_SAMPLES);
  uint64_t sizes[CB_MAX_SIZES + 1];
  if (cb_settings_sizes(s, sizes, CB_MAX_SIZES + 1) > CB_MAX_SIZES)
    return cb_fail(err, CB_USAGE, "--step-bytes %s gives more than %d sizes",
                   cb_format_size(s->step_bytes, a, sizeof a), CB_MAX_SIZES);
  if (s->graph > 0)
    for (int i = 0; i < s->nbackends; i++)
      if (strcmp(cb_backends[s->backends[i]]->name, "nccl") != 0)
        return cb_fail(err, CB_USAGE,
                       "--graph %ld: only the nccl backend captures CUDA graphs, "
                       "not %s",
                       s->graph, cb_backends[s->backends[i]]->name);
  for (int i = 0; i < s->nbackends; i++) {
    const struct cb_backend *be = cb_backends[s->backends[i]];
    char why[160];
    if (!be->probe(why, sizeof why))
      return cb_fail(err, CB_USAGE, "--backend %s: %s", be->name, why);
    for (int t = 0; t < s->ntransports; t++)
      if (strcmp(s->transports[t], "all") != 0 && !backend_has_transport(be, s->transports[t]))
        return cb_fail(err, CB_USAGE,
                       "--transport %s: backend %s has no such path (choose "
                       "from those --list shows)",
                       s->transports[t], be->name);
    /* after the other items: "all" beside a typo is not the mistake */
    for (int t = 0; t < s->ntransports; t++)
      if (strcmp(s->transports[t], "all") == 0)
        return cb_fail(err, CB_USAGE,
                       "--transport all: transports are named one by one (those --list shows "
                       "for backend %s)",
                       be->name);
    /* MPI's path is fixed at MPI_Init, once per process. */
    if (be->pre_mpi_init && s->ntransports > 1)
      return cb_fail(err, CB_USAGE, "--transport %s: backend %s takes one transport per run",
                     s->transports[0], be->name);
  }
  /* after the backends: a backend's own reason (nccl: no GPU) says more */
  for (int m = 0; m < s->nmems; m++) {
    char why[160];
    if (!cb_gpu_mem_usable(s->mems[m], why, sizeof why))
      return cb_fail(err, CB_USAGE, "--mem %s: %s (see --list)", cb_mem_names[s->mems[m]], why);
  }
  /* a sweep leaves such pairs out itself (the engine says why) */
  for (int i = 0; i < s->nbackends && !cli->sweep; i++) {
    const struct cb_backend *be = cb_backends[s->backends[i]];
    char why[200];
    for (int m = 0; m < s->nmems && be->mem_usable; m++)
      if (!be->mem_usable(s->mems[m], why, sizeof why))
        return cb_fail(err, CB_USAGE, "--backend %s --mem %s: %s", be->name,
                       cb_mem_names[s->mems[m]], why);
  }
  return CB_OK;
}

/* The baseline --accept judges against: --baseline, else the file's
 * [baseline] file (relative to the topology file's folder). It must share
 * something with the checks, or it is the wrong baseline. */
static int cb_fleet_load(struct cb_cli *cli, struct cb_error *err) {
  struct cb_topology *t = &cli->topology;
  char path[2 * CB_TOPO_TEXT_MAX];
  const char *slash = strrchr(t->path, '/');
  if (cli->repeat >= 0)
    t->baseline.repeat = cli->repeat;
  if (cli->baseline_path)
    snprintf(path, sizeof path, "%s", cli->baseline_path);
  else if (!t->baseline.file[0] || t->baseline.file[0] == '/' || !slash)
    snprintf(path, sizeof path, "%s", t->baseline.file);
  else
    snprintf(path, sizeof path, "%.*s/%s", (int)(slash - t->path), t->path, t->baseline.file);
  if (!path[0])
    return cli->repeat >= 0 ? cb_fail(err, CB_USAGE,
                                      "--repeat %ld goes with a baseline (--baseline FILE, or "
                                      "[baseline] in %s)",
                                      cli->repeat, t->path)
                            : CB_OK;
  const char *opt = cli->baseline_path ? "--baseline" : "[baseline] file";
  if (cb_baseline_load(opt, path, &cli->baseline, err))
    return err->status;
  int shared = 0;
  for (int i = 0; i < cli->baseline.nentries; i++) {
    const struct cb_bl_entry *e = &cli->baseline.entries[i];
    shared |= e->kind != CB_BL_RESULT && t->matrix.set;
    for (int c = 0; c < t->nchecks && e->kind == CB_BL_RESULT; c++)
      shared |= !strcmp(e->op, cb_ops[t->checks[c].op]->name) &&
                !strcmp(e->backend, t->checks[c].backend_name) &&
                !strcmp(e->mem, cb_mem_names[t->checks[c].mem]) &&
                !strcmp(e->dtype, cb_dtypes[t->checks[c].dtype].name);
  }
  if (!shared) {
    char has[512];
    cb_baseline_summary(&cli->baseline, has, sizeof has);
    cb_baseline_free(&cli->baseline);
    return cb_fail(err, CB_USAGE,
                   "%s %s: nothing in it for the checks of %s (it holds %s): a baseline of "
                   "another op set?",
                   opt, path, t->path, has);
  }
  return CB_OK;
}

/* Loads the acceptance file now, before MPI starts, so a bad file costs
 * nothing; every check's transport must be settable in one process. */
static int accept_file(struct cb_cli *cli, struct cb_error *err) {
  struct cb_topology *t = &cli->topology;
  if (cb_topology_load(cli->accept_path, t, err))
    return err->status;
  if (!cli->matrix_bytes)
    cli->matrix_bytes = t->matrix.bytes;
  if (cb_fleet_load(cli, err))
    return err->status;
  for (int i = 0; i < t->nchecks; i++) {
    const struct cb_check *c = &t->checks[i];
    int b = cb_backend_lookup(c->backend_name);
    if (b < 0 || !cb_backends[b]->pre_mpi_init)
      continue;
    if (!backend_has_transport(cb_backends[b], c->transport))
      return cb_fail(err, CB_USAGE, "%s:%d: check '%s': backend %s has no transport '%s'", t->path,
                     c->line, c->name, c->backend_name, c->transport);
    for (int j = 0; j < i; j++)
      if (strcmp(t->checks[j].backend_name, c->backend_name) == 0 &&
          strcmp(t->checks[j].transport, c->transport) != 0)
        return cb_fail(err, CB_USAGE,
                       "%s:%d: check '%s': backend %s takes one transport per run (it reads "
                       "its environment once per process), and check '%s' asks for '%s'; put "
                       "the checks of each transport in a file of their own",
                       t->path, c->line, c->name, c->backend_name, t->checks[j].name,
                       t->checks[j].transport);
  }
  return CB_OK;
}

/* --tune and its options, in one place. */
static int parse_tune_option(int c, const char *arg, struct cb_tune_options *t,
                             struct cb_error *err) {
  uint64_t sizes[CB_SPACE_MAX];
  int n;
  switch (c) {
  case OPT_TUNE: t->enabled = 1; return CB_OK;
  case OPT_MODEL: return cb_model_preset(arg, &t->model, err);
  case OPT_MODEL_CONFIG: return CB_OK; /* applied after --model, whatever the order */
  case OPT_EXHAUSTIVE: t->exhaustive = 1; return CB_OK;
  case OPT_NO_SEARCH: t->no_search = 1; return CB_OK;
  case OPT_RESUME: t->resume = 1; return CB_OK;
  case OPT_ENV_OUT: t->env_out = arg; return CB_OK;
  case OPT_TRIALS: t->trials = arg; return CB_OK;
  case OPT_TUNE_REPS: return cb_parse_long(arg, "--tune-reps", 2, 10000, &t->reps, err);
  case OPT_MAX_OVERHEAD: return cb_overhead_parse(arg, "--max-overhead", &t->max_overhead, err);
  case OPT_TUNE_ALGORITHMS: {
    /* mpi's numbers or nccl's names: which applies is known at run time */
    struct cb_space mpi = {.kind = CB_SPACE_MPI}, nccl = {.kind = CB_SPACE_NCCL};
    struct cb_error mpi_err = {0};
    t->algorithms = arg;
    struct cb_error nccl_err = {0};
    if (cb_space_parse_algorithms(arg, &mpi, &mpi_err) == CB_OK ||
        cb_space_parse_algorithms(arg, &nccl, &nccl_err) == CB_OK)
      return CB_OK;
    /* a list that starts with a number meant coll/tuned's */
    return cb_fail(err, CB_USAGE, "%s", *arg >= '0' && *arg <= '9' ? mpi_err.msg : nccl_err.msg);
  }
  case OPT_TUNE_PROTOCOLS:
    t->protocols = arg;
    return cb_space_parse_protocols(arg, &(struct cb_space){.kind = CB_SPACE_NCCL}, err);
  case OPT_TUNE_CTAS:
    t->ctas = arg;
    return cb_space_parse_ctas(arg, &(struct cb_space){.kind = CB_SPACE_NCCL}, err);
  case OPT_PLUGIN_OUT: t->plugin_out = arg; return CB_OK;
  case OPT_TUNE_BUCKETS:
    return cb_space_parse_sizes(arg, "--tune-buckets", t->space.buckets, &t->space.nbuckets, err);
  case OPT_TUNE_SEGMENTS:
    t->segments_given = 1;
    if (cb_space_parse_sizes(arg, "--tune-segments", sizes, &n, err))
      return err->status;
    for (t->space.nsegments = 0; t->space.nsegments < n; t->space.nsegments++)
      t->space.segments[t->space.nsegments] = (long)sizes[t->space.nsegments];
    return CB_OK;
  default: return cb_fail(err, CB_USAGE, "unknown option (see --help)");
  }
}

static int validate_tune(const struct cb_tune_options *t, const char *tune_only,
                         const char *model_config, struct cb_tune_options *out,
                         struct cb_error *err) {
  if (!t->enabled && tune_only)
    return cb_fail(err, CB_USAGE, "%s goes with --tune", tune_only);
  if (t->resume && !t->trials)
    return cb_fail(err, CB_USAGE, "--resume needs --trials FILE (the search to continue)");
  if (t->exhaustive && t->no_search)
    return cb_fail(err, CB_USAGE, "give either --exhaustive or --no-search, not both");
  if (model_config && cb_model_config_parse(model_config, &out->model, err))
    return err->status;
  return CB_OK;
}

static int parse_option(int c, const char *arg, struct cb_cli *cli, int *factor_given,
                        int *mem_given, struct cb_error *err) {
  struct cb_settings *s = &cli->settings;
  long v;
  switch (c) {
  case 'b': return cb_parse_size(arg, "--min-bytes", &s->min_bytes, err);
  case 'e': return cb_parse_size(arg, "--max-bytes", &s->max_bytes, err);
  case 'i': return cb_parse_size(arg, "--step-bytes", &s->step_bytes, err);
  case 'f':
    *factor_given = 1;
    return cb_parse_long(arg, "--step-factor", 2, 1024, &s->step_factor, err);
  case 'n':
    if (strcmp(arg, "auto") == 0) {
      s->iters = 0;
      return CB_OK;
    }
    return cb_parse_long(arg, "--iters", 1, 1000000000L, &s->iters, err);
  case 'w':
    if (strcmp(arg, "auto") == 0) {
      s->warmup = -1;
      return CB_OK;
    }
    return cb_parse_long(arg, "--warmup", 0, 1000000, &s->warmup, err);
  case 'c': return cb_parse_long(arg, "--check", 0, 1000, &s->check, err);
  case 'r':
    if (cb_parse_long(arg, "--root", 0, 1 << 30, &v, err))
      return err->status;
    s->root = (int)v;
    return CB_OK;
  case OPT_WINDOW:
    if (cb_parse_long(arg, "--window", 1, 65536, &v, err))
      return err->status;
    s->window = (int)v;
    return CB_OK;
  case OPT_IB_DEV: s->ib_dev = arg; return CB_OK;
  case OPT_UCX_API:
    if (strcmp(arg, "tag") != 0 && strcmp(arg, "put") != 0)
      return cb_fail(err, CB_USAGE, "--ucx-api: unknown value '%s' (tag or put)", arg);
    s->ucx_put = strcmp(arg, "put") == 0;
    return CB_OK;
  case OPT_GID_INDEX:
    if (cb_parse_long(arg, "--gid-index", 0, 255, &v, err))
      return err->status;
    s->gid_index = (int)v;
    return CB_OK;
  case OPT_GPU_LIST: {
    long list[CB_MAX_LIST];
    if (cb_parse_long_list(arg, "--gpu-list", 0, 1023, list, CB_MAX_LIST, &s->ngpu_list, err))
      return err->status;
    for (int i = 0; i < s->ngpu_list; i++)
      s->gpu_list[i] = (int)list[i];
    return CB_OK;
  }
  case OPT_GRAPH: return cb_parse_long(arg, "--graph", 1, 100000, &s->graph, err);
  case OPT_SHARE_GPU: s->share_gpu = 1; return CB_OK;
  case OPT_WINDOW_BYTES: return cb_parse_size(arg, "--window-bytes", &s->window_bytes, err);
  case 'T': return cb_parse_seconds(arg, "--timeout", 0, 1e6, &s->timeout, err);
  case OPT_PRECISION: return cb_parse_double(arg, "--precision", 1e-4, 0.5, &s->precision, err);
  case OPT_MAX_TIME: return cb_parse_seconds(arg, "--max-time", 1e-3, 3600, &s->max_time, err);
  case 'd':
    return parse_list(arg, "--dtype", cb_dtype_lookup, CB_NDTYPES, s->dtypes, &s->ndtypes,
                      CB_NDTYPES, err);
  case 'o':
    return parse_list(arg, "--redop", cb_redop_lookup, CB_NREDOPS, s->redops, &s->nredops,
                      CB_NREDOPS, err);
  case OPT_OP:
    if (strcmp(arg, "copy") == 0) {
      cli->copy = 1;
      return CB_OK;
    }
    for (const char *c = strstr(arg, "copy"); c; c = strstr(c + 1, "copy"))
      if ((c == arg || c[-1] == ',') && (c[4] == ',' || c[4] == '\0'))
        return cb_fail(err, CB_USAGE, "--op %s: copy is a mode of its own, give it alone", arg);
    return parse_list(arg, "--op", cb_op_lookup, CB_NOPS, s->ops, &s->nops, CB_NOPS, err);
  case OPT_BACKEND:
    return parse_list(arg, "--backend", cb_backend_lookup, cb_nbackends, s->backends, &s->nbackends,
                      CB_MAX_LIST, err);
  case OPT_MEM:
    *mem_given = 1;
    return parse_list(arg, "--mem", cb_mem_lookup, CB_NMEMS, s->mems, &s->nmems, CB_NMEMS, err);
  case OPT_TRANSPORT: return parse_transports(arg, s, err);
  case OPT_MODE:
    if (strcmp(arg, "throughput") == 0)
      s->mode = CB_MODE_THROUGHPUT;
    else if (strcmp(arg, "latency") == 0)
      s->mode = CB_MODE_LATENCY;
    else
      return cb_fail(err, CB_USAGE, "--mode: unknown value '%s' (throughput or latency)", arg);
    return CB_OK;
  case OPT_STAT:
    if ((s->stat = cb_stat_find(arg)) < 0)
      return cb_fail(err, CB_USAGE, "--stat: unknown value '%s' (median, mean or min)", arg);
    return CB_OK;
  case 'J': cli->json_path = arg; return CB_OK;
  case OPT_CSV: cli->csv_path = arg; return CB_OK;
  case OPT_PROM: cli->prom_path = arg; return CB_OK;
  case OPT_JUNIT: cli->junit_path = arg; return CB_OK;
  case OPT_ACCEPT: cli->accept_path = arg; return CB_OK;
  case OPT_BASELINE: cli->baseline_path = arg; return CB_OK;
  case OPT_REPEAT: return cb_parse_long(arg, "--repeat", 0, 100, &cli->repeat, err);
  case OPT_MATRIX:
    cli->matrix = 1;
    return arg ? cb_parse_size(arg, "--matrix", &cli->matrix_bytes, err) : CB_OK;
  case OPT_SWEEP: cli->sweep = 1; return CB_OK;
  case OPT_PROBE: cli->probe = 1; return CB_OK;
  case OPT_PROGRESS: cli->progress = 1; return CB_OK;
  case OPT_NO_PROGRESS: cli->progress = 0; return CB_OK;
  case OPT_LIST: cli->list = 1; return CB_OK;
  case 'h': cli->help = 1; return CB_OK;
  case 'V': cli->version = 1; return CB_OK;
  default: return parse_tune_option(c, arg, &cli->tune, err);
  }
}

static const char *const model_value_options[];

/* An option of another mode's parser given without that mode: say which
 * mode it goes with rather than that it does not exist. */
static int unknown_option(const char *bad, struct cb_error *err) {
  char name[64];
  snprintf(name, sizeof name, "%.*s", (int)strcspn(bad, "="), bad);
  if (strcmp(name, "--validate") == 0)
    return cb_fail(err, CB_USAGE, "--validate goes with --fit");
  for (int i = 3; model_value_options[i]; i++)
    if (model_value_options[i][1] == '-' && strcmp(name, model_value_options[i]) == 0)
      return cb_fail(err, CB_USAGE, "%s goes with --predict", name);
  return cb_fail(err, CB_USAGE, "unknown option '%s' (see --help)", bad);
}

int cb_cli_parse(int argc, char **argv, struct cb_cli *cli, struct cb_error *err) {
  memset(cli, 0, sizeof *cli);
  cli->progress = -1;
  cli->repeat = -1;
  cb_settings_defaults(&cli->settings);
  cb_tune_options_defaults(&cli->tune);
  struct cb_settings *s = &cli->settings;
  int op_given = 0, backend_given = 0, factor_given = 0, mem_given = 0, max_time_given = 0;
  const char *tune_only = NULL, *model_config = NULL; /* the first --tune option seen */
  /* 0, not 1: glibc, musl and the BSDs then also drop the rest of an
   * option group ("-Zh") an earlier call stopped in, which they would
   * otherwise go on reading (a crash, with another argv). */
  optind = 0;
  opterr = 0; /* we report errors ourselves, once, with the bad value */
  for (;;) {
    int prev = optind ? optind : 1;
    int c = getopt_long(argc, argv, ":b:e:f:i:n:w:c:d:o:r:T:J:hV", long_options, NULL);
    if (c == -1)
      break;
    const char *bad = argv[prev < argc ? prev : argc - 1];
    if (c == '?')
      return unknown_option(bad, err);
    if (c == ':')
      return cb_fail(err, CB_USAGE, "option '%s' needs a value", bad);
    op_given |= c == OPT_OP;
    max_time_given |= c == OPT_MAX_TIME;
    backend_given |= c == OPT_BACKEND;
    if (c > OPT_TUNE && c < OPT_TUNE_END && !tune_only)
      tune_only = argv[prev];
    if (c == OPT_MODEL_CONFIG)
      model_config = optarg;
    if (parse_option(c, optarg, cli, &factor_given, &mem_given, err))
      return err->status;
  }
  if (optind < argc)
    return cb_fail(err, CB_USAGE, "unexpected argument '%s' (see --help)", argv[optind]);
  if (cli->probe || cli->copy) { /* modes that choose what to run themselves */
    const char *mode = cli->probe ? "--probe" : "--op copy";
    const char *other = cli->probe && cli->copy  ? "op copy"
                        : cli->sweep             ? "sweep"
                        : cli->probe && op_given ? "op"
                        : backend_given          ? "backend"
                        : mem_given              ? "mem"
                        : cli->accept_path       ? "accept"
                        : cli->matrix            ? "matrix"
                        : cli->tune.enabled      ? "tune"
                                                 : NULL;
    if (other)
      return cb_fail(err, CB_USAGE, "%s chooses what to run itself: --%s does not go with it", mode,
                     other);
    if (cli->junit_path)
      return cb_fail(err, CB_USAGE, "--junit %s: only --accept and --matrix give verdicts to write",
                     cli->junit_path);
    if (cli->probe && (cli->csv_path || cli->prom_path))
      return cb_fail(err, CB_USAGE, "--%s %s: --probe has no results to write; it goes with --json",
                     cli->csv_path ? "csv" : "prom",
                     cli->csv_path ? cli->csv_path : cli->prom_path);
  }
  /* --matrix --backend nccl: the GPU all-pairs matrix, device memory only */
  int gpu_matrix = cli->matrix && !cli->accept_path && backend_given && s->nbackends == 1 &&
                   cb_backends[s->backends[0]]->shift;
  if (gpu_matrix && mem_given && (s->nmems != 1 || s->mems[0] != CB_MEM_DEVICE))
    return cb_fail(err, CB_USAGE,
                   "--matrix --backend %s --mem %s: the %s matrix moves device memory "
                   "(--mem device, or no --mem)",
                   cb_backends[s->backends[0]]->name, cb_mem_names[s->mems[0]],
                   cb_backends[s->backends[0]]->name);
  if (cli->accept_path || cli->matrix) {
    const char *mode = cli->accept_path ? "--accept" : "--matrix";
    if (cli->matrix && backend_given && !gpu_matrix)
      return cb_fail(err, CB_USAGE,
                     "--matrix --backend %s%s: the matrix runs over MPI (no --backend) or over "
                     "NCCL (--backend nccl, one rank per GPU), one of them",
                     cb_backends[s->backends[0]]->name, s->nbackends > 1 ? ",..." : "");
    if (cli->sweep || op_given || (backend_given && !gpu_matrix) || (mem_given && !gpu_matrix))
      return cb_fail(err, CB_USAGE, "%s chooses what to measure itself: --%s does not go with it",
                     mode,
                     cli->sweep      ? "sweep"
                     : op_given      ? "op"
                     : backend_given ? "backend"
                                     : "mem");
    if (cli->tune.enabled)
      return cb_fail(err, CB_USAGE, "%s and --tune: choose one", mode);
    if (cli->accept_path && cli->matrix)
      return cb_fail(err, CB_USAGE,
                     "--accept and --matrix: choose one (a [matrix] section in the "
                     "file makes --accept run the matrix too)");
    if (cli->accept_path && accept_file(cli, err))
      return err->status;
    if (cli->matrix && (cli->baseline_path || cli->repeat >= 0))
      return cb_fail(err, CB_USAGE,
                     "--%s goes with --accept FILE (a [matrix] section there judges the pairs "
                     "against the baseline)",
                     cli->baseline_path ? "baseline" : "repeat");
  } else if (cli->junit_path)
    return cb_fail(err, CB_USAGE, "--junit %s: only --accept and --matrix give verdicts to write",
                   cli->junit_path);
  else if (cli->repeat >= 0)
    return cb_fail(err, CB_USAGE, "--repeat %ld goes with --accept FILE --baseline FILE",
                   cli->repeat);
  if (validate_tune(&cli->tune, tune_only, model_config, &cli->tune, err))
    return err->status;
  if (cli->tune.enabled && op_given)
    return cb_fail(err, CB_USAGE, "--op does not go with --tune: it tunes the all-reduce");
  if (cli->tune.enabled && backend_given) { /* which all-reduce --tune tunes */
    const char *name = cb_backends[s->backends[0]]->name;
    if (s->nbackends != 1 || (strcmp(name, "mpi") && strcmp(name, "nccl")))
      return cb_fail(err, CB_USAGE, "--tune --backend: mpi (host) or nccl (GPU), one of them");
    cli->tune.backend = name;
  }
  if (cli->sweep) {
    /* A sweep visits some 250 rows; 1 s each would take minutes wherever
     * the machine is too noisy to reach --precision early. */
    if (!max_time_given)
      s->max_time = CB_SWEEP_MAX_TIME;
    if (!op_given)
      for (s->nops = 0; s->nops < CB_NOPS; s->nops++)
        s->ops[s->nops] = s->nops;
    if (!backend_given) { /* every backend that works here; the engine notes the rest */
      s->nbackends = s->nskipped_backends = 0;
      for (int b = 0; b < cb_nbackends && s->nbackends < CB_MAX_LIST; b++) {
        char why[160];
        if (cb_backends[b]->probe(why, sizeof why))
          s->backends[s->nbackends++] = b;
        else
          s->skipped_backends[s->nskipped_backends++] = b;
      }
    }
    if (!mem_given) {
      s->nmems = 0;
      for (int m = 0; m < CB_NMEMS; m++) {
        char why[160];
        if (cb_gpu_mem_usable(m, why, sizeof why))
          s->mems[s->nmems++] = m;
      }
    }
  }
  if (!mem_given && !cli->sweep)
    for (int i = 0; i < s->nbackends; i++)
      if (strcmp(cb_backends[s->backends[i]]->name, "nccl") == 0) {
        /* NCCL moves device memory only: asking for it means asking for that */
        if (s->nbackends == 1)
          s->nmems = 0;
        s->mems[s->nmems++] = CB_MEM_DEVICE;
        break;
      }
  return validate(cli, factor_given, err);
}

int cb_cli_wants_import(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--import-nccl-tests") == 0 ||
        strncmp(argv[i], "--import-nccl-tests=", 20) == 0)
      return 1;
  return 0;
}

/* Its own small parser, like --report's: no measuring option applies. */
int cb_cli_parse_import(int argc, char **argv, struct cb_import_cli *im, struct cb_error *err) {
  static const struct {
    const char *name;
    size_t offset;
  } opts[] = {{"--import-nccl-tests", offsetof(struct cb_import_cli, input)},
              {"--json", offsetof(struct cb_import_cli, json_path)},
              {"-J", offsetof(struct cb_import_cli, json_path)},
              {"--csv", offsetof(struct cb_import_cli, csv_path)},
              {"--op", offsetof(struct cb_import_cli, op)}};
  memset(im, 0, sizeof *im);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *eq = strchr(a, '='), *v = NULL;
    size_t len = eq && a[1] == '-' ? (size_t)(eq - a) : strlen(a);
    size_t k = 0;
    while (k < sizeof opts / sizeof opts[0] &&
           !(strlen(opts[k].name) == len && strncmp(a, opts[k].name, len) == 0))
      k++;
    if (k == sizeof opts / sizeof opts[0])
      return cb_fail(err, CB_USAGE, "%s '%s' does not go with --import-nccl-tests",
                     a[0] == '-' ? "option" : "argument", a);
    if (eq && a[1] == '-')
      v = eq + 1;
    else if (i + 1 < argc)
      v = argv[++i];
    if (!v || !*v)
      return cb_fail(err, CB_USAGE, "option '%s' needs a value", opts[k].name);
    *(const char **)((char *)im + opts[k].offset) = v;
  }
  if (!im->json_path && !im->csv_path)
    return cb_fail(err, CB_USAGE,
                   "--import-nccl-tests %s: where to? give --json FILE and/or --csv FILE",
                   im->input);
  if (im->op) {
    const char *p = im->op;
    while (*p && ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
      p++;
    if (*p || p - im->op > 31)
      return cb_fail(err, CB_USAGE, "--op '%s': a short name of a-z, 0-9 and '_' (allreduce)",
                     im->op);
  }
  return CB_OK;
}

int cb_cli_wants_report(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--report") == 0 || strncmp(argv[i], "--report=", 9) == 0)
      return 1;
  return 0;
}

/* Its own small parser: --report takes any number of files, which
 * getopt_long cannot express, and no measuring option applies. */
int cb_cli_parse_report(int argc, char **argv, struct cb_report_cli *rep, struct cb_error *err) {
  memset(rep, 0, sizeof *rep);
  int only_files = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *file = NULL;
    if (only_files || a[0] != '-' || strcmp(a, "-") == 0)
      file = a;
    else if (strcmp(a, "--") == 0)
      only_files = 1;
    else if (strcmp(a, "--report") == 0)
      continue;
    else if (strncmp(a, "--report=", 9) == 0)
      file = a + 9;
    else if (strncmp(a, "--out=", 6) == 0)
      rep->out = a + 6;
    else if (strcmp(a, "--out") == 0) {
      if (i + 1 >= argc)
        return cb_fail(err, CB_USAGE, "option '--out' needs a value");
      rep->out = argv[++i];
    } else if (strncmp(a, "--baseline=", 11) == 0)
      rep->baseline = a + 11;
    else if (strcmp(a, "--baseline") == 0) {
      if (i + 1 >= argc)
        return cb_fail(err, CB_USAGE, "option '--baseline' needs a value");
      rep->baseline = argv[++i];
    } else if (strncmp(a, "--topology=", 11) == 0)
      rep->topology = a + 11;
    else if (strcmp(a, "--topology") == 0) {
      if (i + 1 >= argc)
        return cb_fail(err, CB_USAGE, "option '--topology' needs a value");
      rep->topology = argv[++i];
    } else
      return cb_fail(err, CB_USAGE, "option '%s' does not go with --report", a);
    if (file && rep->ninputs == CB_MAX_REPORT_INPUTS)
      return cb_fail(err, CB_USAGE, "--report: at most %d files", CB_MAX_REPORT_INPUTS);
    if (file)
      rep->inputs[rep->ninputs++] = file;
  }
  if (rep->ninputs == 0)
    return cb_fail(err, CB_USAGE, "--report needs at least one JSON Lines file");
  if (!rep->out || !*rep->out)
    return cb_fail(err, CB_USAGE, "--report needs --out DIR");
  return CB_OK;
}

int cb_cli_wants_model(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--fit") == 0 || strcmp(argv[i], "--predict") == 0)
      return 1;
  return 0;
}

/* The model's options that take a value; all but --json, --op go with --predict. */
static const char *const model_value_options[] = {
    "--json",       "-J",       "--op",     "--topology",     "--gpus",      "--gpus-per-node",
    "--size",       "-b",       "-e",       "--min-bytes",    "--max-bytes", "--compute-time",
    "--grad-bytes", "--bucket", "--trials", "--max-overhead", NULL};

/* One option with its value; predict_only remembers one that needs --predict. */
static int model_option(const char *opt, const char *v, struct cb_model_cli *m, uint64_t range[2],
                        const char **predict_only, struct cb_error *err) {
  for (int i = 3; model_value_options[i]; i++)
    if (strcmp(opt, model_value_options[i]) == 0)
      *predict_only = model_value_options[i];
  if (strcmp(opt, "--json") == 0 || strcmp(opt, "-J") == 0)
    m->json_path = v;
  else if (strcmp(opt, "--topology") == 0)
    m->topology = v;
  else if (strcmp(opt, "--gpus") == 0)
    return cb_parse_long_list(v, "--gpus", 1, 1L << 30, m->gpus, CB_MAX_MODEL_LIST, &m->ngpus, err);
  else if (strcmp(opt, "--gpus-per-node") == 0)
    return cb_parse_long(v, "--gpus-per-node", 1, 1 << 20, &m->gpus_per_node, err);
  else if (strcmp(opt, "--size") == 0)
    return cb_parse_size_list(v, "--size", 0, m->sizes, CB_MAX_MODEL_LIST, &m->nsizes, err);
  else if (strcmp(opt, "-b") == 0 || strcmp(opt, "--min-bytes") == 0)
    return cb_parse_size(v, "--min-bytes", &range[0], err);
  else if (strcmp(opt, "-e") == 0 || strcmp(opt, "--max-bytes") == 0)
    return cb_parse_size(v, "--max-bytes", &range[1], err);
  else if (strcmp(opt, "--op") == 0)
    return parse_list(v, "--op", cb_mop_find, CB_NMOPS, m->ops, &m->nops, 8, err);
  else if (strcmp(opt, "--compute-time") == 0)
    return cb_parse_seconds(v, "--compute-time", 1e-9, 1e6, &m->compute_s, err);
  else if (strcmp(opt, "--grad-bytes") == 0)
    return cb_parse_size(v, "--grad-bytes", &m->grad_bytes, err);
  else if (strcmp(opt, "--bucket") == 0)
    return cb_parse_size_list(v, "--bucket", 0, m->buckets, CB_MAX_MODEL_LIST, &m->nbuckets, err);
  else if (strcmp(opt, "--trials") == 0)
    m->trials = v;
  else if (strcmp(opt, "--max-overhead") == 0)
    return cb_overhead_parse(v, "--max-overhead", &m->max_overhead, err);
  return CB_OK;
}

/* Defaults and the rules between options, once everything is read. */
static int model_check(struct cb_model_cli *m, const uint64_t range[2], const char *predict_only,
                       int bucket_given, int fit_given, int validate_given, struct cb_error *err) {
  if (fit_given && !m->nfit)
    return cb_fail(err, CB_USAGE, "--fit needs at least one JSON Lines file");
  if (validate_given && !m->nvalidate)
    return cb_fail(err, CB_USAGE, "--validate needs at least one JSON Lines file");
  if (predict_only && !m->predict)
    return cb_fail(err, CB_USAGE, "%s goes with --predict", predict_only);
  if (m->nvalidate && !m->nfit)
    return cb_fail(err, CB_USAGE, "--validate needs --fit FILE... to predict from");
  if (m->predict && !m->nfit && !m->topology)
    return cb_fail(err, CB_USAGE, "--predict needs --fit FILE... or --topology FILE");
  if ((m->compute_s > 0) != (m->grad_bytes > 0))
    return cb_fail(err, CB_USAGE, "--compute-time and --grad-bytes go together");
  if (m->trials && m->compute_s > 0)
    return cb_fail(err, CB_USAGE,
                   "--trials %s gives the step; --compute-time and --grad-bytes give another: "
                   "one of the two",
                   m->trials);
  if (bucket_given && m->compute_s == 0 && !m->trials)
    return cb_fail(err, CB_USAGE, "--bucket needs --compute-time and --grad-bytes (or --trials)");
  if (!m->max_overhead)
    m->max_overhead = CB_OVERHEAD_DEFAULT_TARGET;
  if (m->nsizes && (range[0] || range[1]))
    return cb_fail(err, CB_USAGE, "--size and -b/-e exclude each other");
  if (range[0] || range[1]) {
    uint64_t lo = range[0] ? range[0] : 8, hi = range[1] ? range[1] : 64u << 20;
    if (lo > hi)
      return cb_fail(err, CB_USAGE, "--min-bytes %llu is above --max-bytes %llu",
                     (unsigned long long)lo, (unsigned long long)hi);
    for (uint64_t b = lo; b <= hi && m->nsizes < CB_MAX_MODEL_LIST; b *= 2)
      m->sizes[m->nsizes++] = b;
  }
  if (!m->nsizes)
    m->sizes[m->nsizes++] = 64u << 20;
  if (!m->ngpus) /* default 8, 16, ... 16384 */
    for (long g = 8; g <= 16384; g *= 2)
      m->gpus[m->ngpus++] = g;
  if (!bucket_given)
    for (int i = 0; i < 5; i++)
      m->buckets[m->nbuckets++] =
          (uint64_t[]){1u << 20, 4u << 20, 25u << 20, 100u << 20, 400u << 20}[i];
  for (int i = 0; m->compute_s > 0 && i < m->nbuckets; i++)
    if (m->grad_bytes / m->buckets[i] > 1u << 20) /* each bucket is one allreduce to model */
      return cb_fail(err, CB_USAGE, "--bucket %llu: over a million buckets of --grad-bytes %llu",
                     (unsigned long long)m->buckets[i], (unsigned long long)m->grad_bytes);
  if (!m->nops)
    for (; m->nops < CB_NMOPS; m->nops++)
      m->ops[m->nops] = m->nops;
  return CB_OK;
}

/* Its own parser, like --report's: --fit and --validate take any number of
 * files (everything up to the next option). */
int cb_cli_parse_model(int argc, char **argv, struct cb_model_cli *m, struct cb_error *err) {
  memset(m, 0, sizeof *m);
  uint64_t range[2] = {0, 0};
  const char *predict_only = NULL;
  int bucket_given = 0, fit_given = 0, validate_given = 0;
  int files = 0; /* where file names go: 1 --fit, 2 --validate */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || strcmp(a, "-") == 0) {
      if (!files)
        return cb_fail(err, CB_USAGE, "unexpected argument '%s' (files follow --fit or --validate)",
                       a);
      int *n = files == 1 ? &m->nfit : &m->nvalidate;
      if (*n == CB_MAX_REPORT_INPUTS)
        return cb_fail(err, CB_USAGE, "at most %d files per option", CB_MAX_REPORT_INPUTS);
      (files == 1 ? m->fit : m->validate)[(*n)++] = a;
      continue;
    }
    files = 0;
    if (strcmp(a, "--fit") == 0)
      files = fit_given = 1;
    else if (strcmp(a, "--validate") == 0)
      files = 2, validate_given = 1;
    else if (strcmp(a, "--predict") == 0)
      m->predict = 1;
    else {
      char opt[64];
      const char *eq = strchr(a, '='), *v;
      snprintf(opt, sizeof opt, "%.*s", eq && a[1] == '-' ? (int)(eq - a) : (int)strlen(a), a);
      int known = 0;
      for (int k = 0; model_value_options[k]; k++)
        known |= strcmp(opt, model_value_options[k]) == 0;
      if (!known)
        return cb_fail(err, CB_USAGE, "option '%s' does not go with --fit or --predict", a);
      if (eq && a[1] == '-')
        v = eq + 1;
      else if (i + 1 < argc)
        v = argv[++i];
      else
        return cb_fail(err, CB_USAGE, "option '%s' needs a value", a);
      bucket_given |= strcmp(opt, "--bucket") == 0;
      if (model_option(opt, v, m, range, &predict_only, err))
        return err->status;
    }
  }
  return model_check(m, range, predict_only, bucket_given, fit_given, validate_given, err);
}
