/* The command line: defaults, a full option set, --sweep, and usage
 * errors that name the bad value. No MPI is started: parsing is pure. */
#include <string.h>

#include "backends/backend.h"
#include "modes/cli.h"
#include "modes/option_table.h"
#include "modes/run_plan.h"
#include "ops/op.h"
#include "presets.h"
#include "runtime/gpu.h"
#include "tap.h"

/* getopt_long may permute argv, so each case gets a fresh mutable copy. */
#define MAXARGS 32
struct args {
  int argc;
  char *argv[MAXARGS + 1];
};

/* The plan of the last case parsed (large: a topology and a baseline). */
static struct cb_run_plan built;

static int parse(struct cb_cli *cli, struct cb_error *err, const char *const *words) {
  struct args a = {.argc = 1, .argv = {"collbench"}};
  for (; *words && a.argc < MAXARGS; words++)
    a.argv[a.argc++] = (char *)*words;
  a.argv[a.argc] = NULL;
  memset(err, 0, sizeof *err);
  return cb_cli_parse(a.argc, a.argv, cli, err) || cb_run_plan_build(cli, &built, err) ? err->status
                                                                                       : CB_OK;
}
#define PARSE(cli, err, ...) parse(cli, err, (const char *const[]){__VA_ARGS__, NULL})

static void test_defaults(void) {
  struct cb_cli cli;
  struct cb_error err;
  const char *none[] = {NULL};
  ok(parse(&cli, &err, none) == CB_OK, "no options parse");
  const struct cb_settings *s = &cli.settings;
  ok(s->nops == 1 && s->ops[0] == CB_OP_ALLREDUCE, "default op allreduce");
  ok(s->nbackends == 1 && s->backends[0] == cb_backend_lookup("mpi"), "default backend mpi");
  ok(s->nmems == 1 && s->mems[0] == CB_MEM_HOST, "default memory host");
  ok(s->ntransports == 1 && strcmp(s->transports[0], "auto") == 0, "default transport auto");
  ok(s->ndtypes == 1 && s->dtypes[0] == CB_FLOAT, "default dtype float");
  ok(s->nredops == 1 && s->redops[0] == CB_SUM, "default redop sum");
  ok(s->min_bytes == 8 && s->max_bytes == 64u << 20, "default sizes 8..64M");
  ok(s->step_factor == 2 && s->step_bytes == 0, "default step: factor 2");
  is_long(s->iters, 0, "default iters auto (0)");
  is_double(s->precision, 0.05, 0, "default precision 5%%");
  ok(s->timing == CB_TIMING_THROUGHPUT && s->window == 64 && s->root == 0 && s->check == 1,
     "default mode, window, root, check");
  ok(!cli.json_path && !cli.csv_path && !cli.help && !cli.version && !cli.list && !cli.sweep,
     "no outputs or actions by default");
  uint64_t sizes[CB_MAX_SIZES];
  int n = cb_settings_sizes(s, sizes, CB_MAX_SIZES);
  ok(n == 24 && sizes[0] == 8 && sizes[23] == 64u << 20, "default sweep: 24 sizes 8..64M");
}

static void test_full(void) {
  struct cb_cli cli;
  struct cb_error err;
  int rc = PARSE(&cli, &err, "--op", "allreduce,p2p_lat", "-b", "1K", "-e", "1M", "-n", "10", "-d",
                 "double", "-o", "max", "--timing", "latency", "--window", "8");
  if (!is_long(rc, CB_OK, "full option set parses"))
    diag("%s", err.msg);
  const struct cb_settings *s = &cli.settings;
  ok(s->nops == 2 && s->ops[0] == CB_OP_ALLREDUCE && s->ops[1] == CB_OP_P2P_LAT,
     "--op allreduce,p2p_lat in order");
  ok(s->min_bytes == 1024 && s->max_bytes == 1 << 20, "-b 1K -e 1M");
  is_long(s->iters, 10, "-n 10");
  ok(s->ndtypes == 1 && s->dtypes[0] == CB_DOUBLE, "-d double");
  ok(s->nredops == 1 && s->redops[0] == CB_MAX, "-o max");
  is_long(s->timing, CB_TIMING_LATENCY, "--timing latency");
  is_long(cli.nrenamed, 0, "no old spelling given");
  is_long(s->window, 8, "--window 8");
  is_double(s->precision, 0.05, 0, "untouched options keep defaults");

  rc = PARSE(&cli, &err, "--json", "out.jsonl", "--csv=out.csv", "-n", "auto", "--precision", "2%",
             "-d", "all", "-o", "sum,min,sum", "-f", "4", "--root", "3", "-c", "0");
  ok(rc == CB_OK && strcmp(cli.json_path, "out.jsonl") == 0 &&
         strcmp(cli.csv_path, "out.csv") == 0 && s->iters == 0 && s->precision == 0.02 &&
         s->ndtypes == CB_NDTYPES && s->nredops == 2 && s->step_factor == 4 && s->root == 3 &&
         s->check == 0,
     "outputs, auto iters, 2%%, 'all', duplicate redop dropped, -f, --root, -c 0");
  rc = PARSE(&cli, &err, "-i", "1M", "-b", "1M", "-e", "4M");
  uint64_t sizes[8];
  ok(rc == CB_OK && cb_settings_sizes(s, sizes, 8) == 4 && sizes[3] == 4u << 20,
     "-i 1M steps by adding: 1M..4M is 4 sizes");
}

static void test_sweep(void) {
  struct cb_cli cli;
  struct cb_error err;
  int rc = PARSE(&cli, &err, "--sweep");
  ok(rc == CB_OK && cli.sweep, "--sweep parses");
  int all = cli.settings.nops == CB_NSWEPT_OPS;
  for (int i = 0; all && i < CB_NSWEPT_OPS; i++)
    all = cli.settings.ops[i] == i;
  ok(all, "--sweep selects the %d swept ops, alltoallv not (got %d)", CB_NSWEPT_OPS,
     cli.settings.nops);
  ok(cli.settings.nbackends == 0 && cli.settings.nmems == 0,
     "--sweep: argv leaves the backends and memory kinds to the plan");
  ok(built.settings.nbackends >= 1 && built.settings.nmems >= 1 &&
         built.settings.mems[0] == CB_MEM_HOST &&
         built.settings.nbackends + built.settings.nskipped_backends == cb_nbackends,
     "--sweep: the plan has the usable backends (the others skipped), host memory at least");
  rc = PARSE(&cli, &err, "--op", "all");
  ok(rc == CB_OK && cli.settings.nops == CB_NSWEPT_OPS, "--op all: the swept ops (got %d)",
     cli.settings.nops);
  rc = PARSE(&cli, &err, "--op", "all,alltoallv");
  ok(rc == CB_OK && cli.settings.nops == CB_NOPS &&
         cli.settings.ops[CB_NOPS - 1] == CB_OP_ALLTOALLV,
     "--op all,alltoallv: every op");
  rc = PARSE(&cli, &err, "--sweep", "--op", "broadcast");
  ok(rc == CB_OK && cli.settings.nops == 1 && cli.settings.ops[0] == CB_OP_BROADCAST,
     "--sweep keeps an explicit --op");
}

/* A usage error: status 2 and a message containing each of the needles. */
static void bad(const char *what, const char *const *words, const char *n1, const char *n2) {
  struct cb_cli cli;
  struct cb_error err;
  int rc = parse(&cli, &err, words);
  ok(rc == CB_USAGE && err.status == CB_USAGE && strstr(err.msg, n1) &&
         (!n2 || strstr(err.msg, n2)),
     "%s: rc %d, \"%s\"", what, rc, err.msg);
}
#define BAD(what, n1, n2, ...) bad(what, (const char *const[]){__VA_ARGS__, NULL}, n1, n2)

static void test_errors(void) {
  BAD("unknown option", "--bogus", NULL, "--bogus");
  BAD("unknown short option", "-Z", NULL, "-Z");
  BAD("misspelt op", "allreduc", "--op", "--op", "allreduc");
  BAD("one bad op in a list", "nope", "--op", "--op", "allreduce,nope");
  BAD("unknown backend", "nope", "--backend", "--backend", "nope");
  BAD("unknown dtype", "float128", "--dtype", "-d", "float128");
  BAD("unknown redop", "avg", "--redop", "-o", "avg");
  BAD("zero size", "'0'", "--min-bytes", "-b", "0");
  BAD("negative size", "'-5'", "--min-bytes", "-b", "-5");
  BAD("junk size", "'1MB2'", "--max-bytes", "-e", "1MB2");
  BAD("min above max", "--min-bytes 1 MiB", "--max-bytes 1 KiB", "-b", "1M", "-e", "1K");
  BAD("factor 1", "--step-factor", "'1'", "-f", "1");
  BAD("factor and step", "--step-factor", "--step-bytes", "-f", "2", "-i", "1K");
  BAD("too many sizes", "--step-bytes", "1024", "-b", "8", "-e", "2G", "-i", "1M");
  char why[160];
  if (cb_gpu_count(why, sizeof why) == 0) { /* the reason: no GPU, or a build without CUDA */
    BAD("device memory", "--mem device: ", why + strlen("no usable GPU ("), "--mem", "device");
    BAD("pinned memory", "--mem pinned: ", "(see --list)", "--mem", "host,pinned");
  } else {
    printf("ok %d # SKIP a GPU is present: device memory is usable\n", ++tap_run);
    printf("ok %d # SKIP a GPU is present: pinned memory is usable\n", ++tap_run);
  }
  BAD("unknown memory", "--mem", "'gpu'", "--mem", "gpu");
  BAD("two mpi transports", "--transport", "one transport", "--transport", "shm,tcp");
  BAD("unknown transport", "--transport", "ib", "--transport", "ib");
  BAD("zero precision", "--precision", "'0'", "--precision", "0");
  BAD("precision above 50%", "--precision", "'60%'", "--precision", "60%");
  BAD("zero iters", "--iters", "'0'", "-n", "0");
  BAD("iters not a number", "--iters", "'ten'", "-n", "ten");
  BAD("zero window", "--window", "'0'", "--window", "0");
  BAD("unknown timing", "--timing", "'fast'", "--timing", "fast");
  BAD("the old spelling's errors name the new", "--timing", "'fast'", "--mode", "fast");
  BAD("stray positional", "unexpected argument 'extra'", NULL, "-n", "5", "extra");
  BAD("missing value", "needs a value", "-b", "-b");
  BAD("missing long value", "needs a value", "--op", "--op");
  BAD("copy in an op list", "copy is a mode of its own", NULL, "--op", "allreduce,copy");
  BAD("copy with a backend", "--op copy", "--backend", "--op", "copy", "--backend", "mpi");
  BAD("probe with a sweep", "--probe", "--sweep", "--probe", "--sweep");
  BAD("probe with an op", "--probe", "--op", "--probe", "--op", "allreduce");
  BAD("probe with csv", "--csv x.csv", "--json", "--probe", "--csv", "x.csv");
}

/* --probe and --op copy: modes of their own. */
static void test_modes(void) {
  struct cb_cli cli;
  struct cb_error err;
  ok(parse(&cli, &err, (const char *const[]){"--op", "copy", "-e", "1M", NULL}) == CB_OK &&
         cli.copy && !cli.probe && cli.settings.max_bytes == 1 << 20,
     "--op copy -e 1M: the copy mode with 1 MiB copies");
  ok(parse(&cli, &err, (const char *const[]){"--probe", "--json", "p.jsonl", NULL}) == CB_OK &&
         cli.probe && !cli.copy && strcmp(cli.json_path, "p.jsonl") == 0,
     "--probe --json FILE");
  ok(parse(&cli, &err, (const char *const[]){"--op", "allreduce,p2p_lat", NULL}) == CB_OK &&
         !cli.copy && cli.settings.nops == 2,
     "an op list without copy stays a sweep");
}

/* The first error wins and a later parse starts clean. */
static void test_reparse(void) {
  struct cb_cli cli;
  struct cb_error err;
  int rc = PARSE(&cli, &err, "-d", "float128", "-b", "0");
  ok(rc == CB_USAGE && strstr(err.msg, "float128") && !strstr(err.msg, "min-bytes"),
     "parse stops at the first error");
  rc = PARSE(&cli, &err, "-b", "16");
  ok(rc == CB_OK && cli.settings.min_bytes == 16 && cli.settings.dtypes[0] == CB_FLOAT,
     "a second parse starts from defaults");
  /* An error inside an option group leaves getopt mid-argument ("h" of
   * "-Zh" unread); the next parse must not pick it up (or crash on it). */
  rc = PARSE(&cli, &err, "-Zh");
  ok(rc == CB_USAGE && strstr(err.msg, "'-Zh'"), "error inside a group names it");
  rc = PARSE(&cli, &err, "-n", "3");
  ok(rc == CB_OK && !cli.help && cli.settings.iters == 3, "the next parse starts clean");
  rc = PARSE(&cli, &err, "--bogus");
  ok(rc == CB_USAGE && strstr(err.msg, "'--bogus'"), "first argument named in its error");
}

/* issue 44: the old spellings still parse, and are remembered so that
 * rank 0 names the new ones; none is offered as a suggestion. */
static void test_renamed(void) {
  struct cb_cli cli;
  struct cb_error err;
  ok(PARSE(&cli, &err, "--mode", "latency", "--tune", "--model", "tiny", "--model-config",
           "seq=32") == CB_OK &&
         cli.settings.timing == CB_TIMING_LATENCY && cli.tune.model.seq == 32 &&
         cli.nrenamed == 3 && strcmp(cli.renamed[0], "mode") == 0 &&
         strcmp(cli.renamed[1], "model") == 0 &&
         strcmp(cb_option_new_name(cli.renamed[2]), "workload-config") == 0,
     "--mode, --model, --model-config: parsed as --timing, --workload, --workload-config, "
     "and remembered");
  ok(PARSE(&cli, &err, "--timng", "latency") == CB_USAGE && strstr(err.msg, "--timing"),
     "a misspelling is offered the new name (%s)", err.msg);
}

/* --tune's block: defaults, --workload-config applied after --workload whatever
 * the order, and the tune-only options refused without --tune. */
static void test_tune(void) {
  struct cb_cli cli;
  struct cb_error err;
  const char *none[] = {NULL};
  parse(&cli, &err, none);
  ok(!cli.tune.enabled && strcmp(cli.tune.model.name, "gpt2-124m") == 0 && cli.tune.reps == 10,
     "tune defaults: off, gpt2-124m, 10 steps");
  ok(PARSE(&cli, &err, "--workload-config", "seq=32", "--tune", "--workload", "tiny") == CB_OK &&
         cli.tune.enabled && cli.tune.model.hidden == 128 && cli.tune.model.seq == 32,
     "--workload-config applies on top of --workload, given before it");
  ok(PARSE(&cli, &err, "--tune", "--tune-algorithms", "4,5", "--tune-segments", "64K",
           "--tune-buckets", "1M,8M", "--exhaustive", "--trials", "t.jsonl", "--resume") == CB_OK &&
         cli.tune.algorithms && strcmp(cli.tune.algorithms, "4,5") == 0 &&
         cli.tune.space.nsegments == 1 && cli.tune.segments_given &&
         cli.tune.space.segments[0] == 65536 && cli.tune.space.nbuckets == 2 &&
         cli.tune.exhaustive && cli.tune.resume,
     "the search space and modes parse (algorithms kept for the library chosen at run time)");
  ok(PARSE(&cli, &err, "--tune", "--tune-algorithms", "ring,tree", "--tune-protocols", "simple",
           "--tune-ctas", "4,8", "--plugin-out", "rules.csv") == CB_OK &&
         strcmp(cli.tune.protocols, "simple") == 0 && strcmp(cli.tune.ctas, "4,8") == 0 &&
         strcmp(cli.tune.plugin_out, "rules.csv") == 0 && !cli.tune.backend,
     "the NCCL space options parse; the library is left to run time");
  ok(PARSE(&cli, &err, "--exhaustive") == CB_USAGE && strstr(err.msg, "--exhaustive") &&
         strstr(err.msg, "--tune"),
     "--exhaustive without --tune: %s", err.msg);
  ok(PARSE(&cli, &err, "--tune", "--no-search", "--exhaustive") == CB_USAGE,
     "--no-search with --exhaustive refused");
  ok(PARSE(&cli, &err, "--tune", "--tune-segments", "2G") == CB_USAGE && strstr(err.msg, "2G"),
     "a segment size above 1 GiB refused, named");
  ok(PARSE(&cli, &err, "--tune", "--tune-reps", "1") == CB_USAGE && strstr(err.msg, "1"),
     "--tune-reps 1 refused: a median needs repeats");
}

/* Every shipped preset passes --accept's validation before MPI starts (one
 * transport per backend and run, transports the backend has), not only the
 * parser: a preset a user cannot run is a broken promise. */
static void test_presets_accept(void) {
  char paths[MAX_PRESETS][512];
  int n = preset_paths(paths);
  if (!ok(n >= 0, "topologies/ readable (run from the repository root)"))
    return;
  for (int i = 0; i < n; i++) {
    struct cb_cli cli;
    struct cb_error err;
    ok(PARSE(&cli, &err, "--accept", paths[i]) == CB_OK, "--accept %s is accepted (%s)", paths[i],
       err.msg);
  }
}

/* The plan (run_plan.h): what argv said, with the files it names read and
 * the defaults only the files or the machine give; the rules of argv alone
 * are the parser's. */
static void test_plan(void) {
  struct cb_cli cli;
  struct cb_error err;
  int rc = PARSE(&cli, &err, "--accept", "topologies/h100-ndr.conf", "--json", "/tmp/a.jsonl",
                 "--junit", "/tmp/a.xml", "--no-progress");
  ok(rc == CB_OK && built.judged && built.spec.nchecks > 0 && built.rules.bytes == 8u << 20 &&
         built.out.json && strcmp(built.out.json, "/tmp/a.jsonl") == 0 && built.out.junit &&
         !built.out.csv && built.progress == 0 && !built.dry_run,
     "--accept: the file's checks and [matrix] size, the outputs, judged (%s)", err.msg);
  rc = PARSE(&cli, &err, "--matrix=64K");
  ok(rc == CB_OK && built.judged && built.spec.nchecks == 0 && built.rules.bytes == 64u << 10 &&
         built.rules.bw_fraction > 0 && built.rules.lat_factor > 1,
     "--matrix=64K: the plan's rules, the size given and the verdicts' defaults");
  rc = PARSE(&cli, &err, "--matrix");
  ok(rc == CB_OK && built.rules.bytes == 1u << 20, "--matrix: 1 MiB pairs by default (got %llu)",
     (unsigned long long)built.rules.bytes);
  rc = PARSE(&cli, &err, "-b", "1K", "-e", "4K", "--op", "broadcast");
  ok(rc == CB_OK && !built.judged && built.settings.min_bytes == 1024 &&
         built.settings.max_bytes == 4096 && built.settings.nops == 1 &&
         built.settings.ops[0] == CB_OP_BROADCAST && built.settings.nbackends == 1,
     "a run's settings are the plan's");
  const char *words[] = {"collbench", "--step-factor", "4", "--step-bytes", "1K", NULL};
  memset(&err, 0, sizeof err);
  ok(cb_cli_parse(5, (char **)words, &cli, &err) == CB_USAGE && strstr(err.msg, "--step-bytes"),
     "a rule of argv alone is the parser's: --step-factor with --step-bytes (%s)", err.msg);
}

int main(void) {
  test_defaults();
  test_presets_accept();
  test_full();
  test_sweep();
  test_errors();
  test_modes();
  test_reparse();
  test_tune();
  test_renamed();
  test_plan();
  done_testing();
  return exit_status();
}
