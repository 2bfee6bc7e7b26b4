/* collbench's NCCL tuner plugin, loaded as NCCL loads it: dlopen of the
 * built .so, dlsym of the names NCCL looks for (ncclTunerPlugin_v6 first
 * from NCCL 2.30, then _v5, then _v4), then init / getCollInfo /
 * getChunkSize / finalize driven with hand-made cost
 * tables laid out as NCCL lays them out (tuner/plugin/nccl_abi.h). No GPU
 * and no NCCL needed. CB_TUNER_PLUGIN names another .so to test. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "tap.h"
#include "tuner/plugin.h"
#include "tuner/plugin/nccl_abi.h"
#include "tuner/plugin/rules.c" /* the plugin's reader, to say what a file holds */

enum { BCAST = 0, REDUCE = 1, ALLGATHER = 2, REDSCAT = 3, ALLREDUCE = 4 };
enum { TREE = 0, RING = 1, NVLS = 4, LL = 0, LL128 = 1, SIMPLE = 2 };
#define NA CB_NCCL_NUM_ALGORITHMS
#define NP CB_NCCL_NUM_PROTOCOLS

static const cb_nccl_tuner_v6 *v6;
static const cb_nccl_tuner_v5 *v5;
static const cb_nccl_tuner_v4 *v4;
static char tmpdir[] = "/tmp/cb_nccl_tuner.XXXXXX";

/* NCCL's logger, recorded: the last line of each level, and how many. */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char last_warn[1024], last_info[1024];
static int nwarn, ninfo, bad_flags;
static void logger(int level, unsigned long flags, const char *file, int line, const char *fmt,
                   ...) {
  (void)file, (void)line;
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&log_mu);
  char *dst = level == CB_NCCL_LOG_WARN ? last_warn : last_info;
  vsnprintf(dst, sizeof last_warn, fmt, ap);
  level == CB_NCCL_LOG_WARN ? nwarn++ : ninfo++;
  bad_flags += !(flags & CB_NCCL_SUBSYS_TUNING);
  pthread_mutex_unlock(&log_mu);
  va_end(ap);
}
static void log_reset(void) {
  last_warn[0] = last_info[0] = 0;
  nwarn = ninfo = 0;
}

/* A cost table as NCCL fills one: every pair possible (cost 10 + index)
 * except where `impossible` says -1. */
static void table_fill(float t[NA][NP]) {
  for (int a = 0; a < NA; a++)
    for (int p = 0; p < NP; p++)
      t[a][p] = 10.0f + (float)(a * NP + p);
}

/* What one call did: -1 untouched, else the (algo*NP + proto) made 0 with
 * nothing else changed; -2 anything else changed. */
static int call(void *ctx, int coll, size_t bytes, float t[NA][NP], int *nch) {
  float before[NA][NP];
  memcpy(before, t, sizeof before);
  *nch = 0;
  if (v5->getCollInfo(ctx, coll, bytes, 1, (float **)t, NA, NP, 0, nch) != CB_NCCL_SUCCESS)
    return -3;
  int changed = -1;
  for (int a = 0; a < NA; a++)
    for (int p = 0; p < NP; p++)
      if (memcmp(&before[a][p], &t[a][p], sizeof(float))) {
        if (changed != -1 || t[a][p] != 0.0f)
          return -2;
        changed = a * NP + p;
      }
  return changed;
}
static int chose(void *ctx, int coll, size_t bytes, int *nch) {
  float t[NA][NP];
  table_fill(t);
  return call(ctx, coll, bytes, t, nch);
}

static const char *write_file(const char *name, const char *text, size_t len) {
  static char path[4][256];
  static int k;
  char *p = path[k++ % 4];
  snprintf(p, sizeof path[0], "%s/%s", tmpdir, name);
  FILE *f = fopen(p, "w");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f))
    abort();
  return p;
}

static void *init5(const char *rules, size_t nranks, size_t nnodes) {
  if (rules)
    setenv("COLLBENCH_TUNER_RULES", rules, 1);
  else
    unsetenv("COLLBENCH_TUNER_RULES");
  void *ctx = NULL;
  cb_nccl_nvl_domain_info_v5 nvl = {1, (int)nranks, (int)nranks};
  cb_nccl_tuner_constants_v5 k;
  memset(&k, 0, sizeof k);
  if (v5->init(&ctx, 0xc0ffee, nranks, nnodes, logger, &nvl, &k) != CB_NCCL_SUCCESS)
    return (void *)-1;
  return ctx;
}

static const char rules_text[] =
    "# collbench-tuner-rules 1\n"
    "# a comment, then rules for 2 ranks on 1 node\n"
    "allreduce,0,65535,tree,ll,4,1,2,-1,-1,12.5\n"
    "allreduce,65536,1048575,ring,ll128,-1,1,2,-1,-1,none\n"
    "\n"
    "allreduce,1048576,18446744073709551615,ring,simple,16,1,2,-1,-1,-3.0\n"
    "  allgather , 4096 , 8191 , ring , ll , 2 , -1 , -1\n"
    "reducescatter,0,1000,nvls,simple,-1,1,2,-1,-1,7\n"
    "broadcast,0,100,tree,simple,8,2,4,-1,-1,1\n";

static void test_symbols(const char *so) {
  ok(v5 && v4, "dlsym finds ncclTunerPlugin_v5 and ncclTunerPlugin_v4");
  ok(v5 && v5->name && !strcmp(v5->name, "collbench") && v4->name &&
         !strcmp(v4->name, "collbench") && v5->init && v5->getCollInfo && v5->finalize &&
         v4->init && v4->getCollInfo && v4->destroy,
     "both name the tuner 'collbench' and fill every entry point");
  char cmd[512], line[256];
  snprintf(cmd, sizeof cmd, "nm -D --defined-only '%s' 2>&1", so);
  FILE *p = popen(cmd, "r");
  int n = 0, v6seen = 0, v5seen = 0, v4seen = 0, other = 0;
  while (p && fgets(line, sizeof line, p)) {
    char addr[64], type[8], name[128];
    if (sscanf(line, "%63s %7s %127s", addr, type, name) != 3)
      continue;
    n++;
    if (!strcmp(name, "ncclTunerPlugin_v6"))
      v6seen = 1;
    else if (!strcmp(name, "ncclTunerPlugin_v5"))
      v5seen = 1;
    else if (!strcmp(name, "ncclTunerPlugin_v4"))
      v4seen = 1;
    else
      other++, diag("also exported: %s", name);
  }
  int st = p ? pclose(p) : -1;
  ok(st == 0 && v6seen && v5seen && v4seen && other == 0,
     "nm -D: exactly ncclTunerPlugin_v6, _v5 and _v4 are exported (%d symbols)", n);
  ok(v6 && v6->name && !strcmp(v6->name, "collbench") && v6->init && v6->getCollInfo &&
         v6->finalize && v6->getChunkSize,
     "v6 names the tuner 'collbench' and fills every entry point, getChunkSize too");
  snprintf(cmd, sizeof cmd, "readelf -d '%s' 2>&1 | grep NEEDED", so);
  p = popen(cmd, "r");
  int mpi = 0, needed = 0;
  while (p && fgets(line, sizeof line, p))
    needed++, mpi += strstr(line, "mpi") || strstr(line, "nccl") || strstr(line, "cuda") ||
                     strstr(line, "inih") || strstr(line, "jansson");
  if (p)
    pclose(p);
  ok(needed > 0 && mpi == 0, "it needs libc only: no MPI, NCCL, CUDA or collbench library");
}

/* NCCL 2.30's getChunkSize (tuner v6): NCCL calls it per channel part
 * (nChannels 1, the part's bytes: src/enqueue.cc:717-737 at v2.30.7-1),
 * after getCollInfo saw the collective. The rule the collective took gives
 * its chunk size where NCCL runs the rule's own algorithm and protocol;
 * NCCL's own elsewhere, and never under the protocol's grain (NCCL would
 * round it down to 0; LL128's is 1920 bytes, device.h ncclProtoGrainSize). */
static void test_chunk(void) {
  static const char text[] = "# collbench-tuner-rules 1\n"
                             "allreduce,0,65535,tree,ll,4,1,2,-1,-1,none,8192\n"
                             "allreduce,65536,1048575,ring,ll128,-1,1,2,-1,-1,none,3840\n"
                             "allreduce,1048576,2097151,ring,ll128,-1,1,2,-1,-1,none,1800\n"
                             "allreduce,2097152,4194303,ring,simple,-1,1,2,3,-1,none,65536\n"
                             "allgather,0,100000,ring,simple,-1,1,2,-1,-1,none\n";
  const char *path = write_file("chunks", text, sizeof text - 1);
  setenv("COLLBENCH_TUNER_RULES", path, 1);
  void *ctx = NULL;
  cb_nccl_nvl_domain_info_v5 nvl = {1, 2, 2};
  cb_nccl_tuner_constants_v5 k;
  memset(&k, 0, sizeof k);
  ok(v6->init(&ctx, 0xc0ffee, 2, 1, logger, &nvl, &k) == CB_NCCL_SUCCESS && ctx,
     "chunk: v6 init takes the file with a chunk column");
  float t[NA][NP];
  int nch = 0;
  size_t chunk = 131072;
  log_reset();
  v6->getChunkSize(ctx, ALLREDUCE, 1024, TREE, LL, 1, &chunk);
  ok(chunk == 131072 && strstr(last_info, "no collective of it seen"),
     "chunk: a part before any collective was seen: NCCL's kept (%s)", last_info);
  table_fill(t);
  v6->getCollInfo(ctx, ALLREDUCE, 4096, 1, (float **)t, NA, NP, 0, &nch);
  log_reset();
  ok(v6->getChunkSize(ctx, ALLREDUCE, 1024, TREE, LL, 1, &chunk) == CB_NCCL_SUCCESS &&
         chunk == 8192 && strstr(last_info, "ran tree/ll on 1 channels: chunk 131072 -> 8192"),
     "chunk: a 1 KiB part of a 4 KiB all-reduce: the rule's 8192 where NCCL runs its tree/LL, "
     "said with what ran (%s)",
     last_info);
  chunk = 131072;
  log_reset();
  v6->getChunkSize(ctx, ALLREDUCE, 1024, RING, LL, 1, &chunk);
  ok(chunk == 131072 && strstr(last_info, "ran ring/ll on 1 channels") &&
         strstr(last_info, "another algorithm or protocol"),
     "chunk: NCCL ran ring, not the rule's tree: its own chunk kept (%s)", last_info);
  /* issue 75 finding 9: the collective's size decides, not the part's */
  table_fill(t);
  v6->getCollInfo(ctx, ALLREDUCE, 100000, 1, (float **)t, NA, NP, 0, &nch);
  chunk = 131072;
  log_reset();
  v6->getChunkSize(ctx, ALLREDUCE, 12500, RING, LL128, 1, &chunk);
  ok(chunk == 3840 && strstr(last_info, "by the rule of line 3"),
     "chunk: a 12500-byte part of a 100000-byte all-reduce follows the collective's rule (line 3, "
     "ring/LL128), not the 0-65535 one (%s)",
     last_info);
  table_fill(t);
  v6->getCollInfo(ctx, ALLREDUCE, 1500000, 1, (float **)t, NA, NP, 0, &nch);
  chunk = 131072;
  v6->getChunkSize(ctx, ALLREDUCE, 187500, RING, LL128, 1, &chunk);
  ok(chunk == 131072 && strstr(last_info, "under the protocol's grain"),
     "chunk: 1800 is under LL128's 1920-byte grain (0 grains to NCCL): NCCL's kept (%s)",
     last_info);
  table_fill(t);
  v6->getCollInfo(ctx, ALLREDUCE, 3000000, 3, (float **)t, NA, NP, 0, &nch);
  chunk = 131072;
  v6->getChunkSize(ctx, ALLREDUCE, 375000, RING, SIMPLE, 1, &chunk);
  ok(chunk == 65536 && strstr(last_info, "by the rule of line 5"),
     "chunk: a rule naming numPipeOps, taken by its collective in getCollInfo, gives its chunk "
     "(%s)",
     last_info);
  table_fill(t);
  v6->getCollInfo(ctx, ALLGATHER, 50000, 1, (float **)t, NA, NP, 0, &nch);
  chunk = 4096;
  v6->getChunkSize(ctx, ALLGATHER, 6250, RING, SIMPLE, 1, &chunk);
  ok(chunk == 4096, "chunk: a rule without a chunk column leaves NCCL's");
  v6->finalize(ctx);
  chunk = 777;
  ok(v6->getChunkSize(NULL, ALLREDUCE, 4096, TREE, LL, 4, &chunk) == CB_NCCL_SUCCESS &&
         chunk == 777,
     "chunk: a NULL context (init out of memory) leaves it and succeeds");
  unsetenv("COLLBENCH_TUNER_RULES");
}

static void test_rules(void) {
  const char *path = write_file("rules", rules_text, sizeof rules_text - 1);
  log_reset();
  void *a = init5(path, 2, 1);
  ok(a && a != (void *)-1 && nwarn == 0 && strstr(last_info, "6 rules") &&
         strstr(last_info, "5 for this communicator"),
     "init loads 6 rules, 5 for 2 ranks on 1 node (%s)", last_info);
  int nch;
  /* every allreduce rule at both of its ends */
  ok(chose(a, ALLREDUCE, 0, &nch) == TREE * NP + LL && nch == 4, "allreduce 0 B: tree/ll, 4 ch");
  ok(chose(a, ALLREDUCE, 65535, &nch) == TREE * NP + LL && nch == 4, "65535 B: tree/ll");
  ok(chose(a, ALLREDUCE, 65536, &nch) == RING * NP + LL128 && nch == 0,
     "65536 B: ring/ll128, channels -1 leaves NCCL's count (nChannels stays 0)");
  ok(strstr(last_info, "ring/ll128") && strstr(last_info, "line 4") &&
         strstr(last_info, "not measured"),
     "the decision is logged with its rule's line (%s)", last_info);
  ok(chose(a, ALLREDUCE, 1048575, &nch) == RING * NP + LL128, "1048575 B: ring/ll128");
  ok(chose(a, ALLREDUCE, 1048576, &nch) == RING * NP + SIMPLE && nch == 16,
     "1 MiB: ring/simple on 16 channels");
  ok(chose(a, ALLREDUCE, SIZE_MAX, &nch) == RING * NP + SIMPLE, "SIZE_MAX: ring/simple");
  ok(strstr(last_info, "-3.0%") != NULL, "a negative margin is logged as measured (%s)", last_info);
  ok(chose(a, ALLGATHER, 4096, &nch) == RING * NP + LL && nch == 2 &&
         chose(a, ALLGATHER, 8191, &nch) == RING * NP + LL,
     "allgather 4096 and 8191 B: ring/ll (spaces around fields, 8 columns)");
  ok(chose(a, ALLGATHER, 4095, &nch) == -1 && nch == 0 && chose(a, ALLGATHER, 8192, &nch) == -1,
     "allgather 4095 and 8192 B, outside every rule: the table is left alone");
  ok(strstr(last_info, "no rule") != NULL, "and logged as NCCL's choice (%s)", last_info);
  ok(chose(a, REDUCE, 100, &nch) == -1 && chose(a, 5 /* send/recv */, 100, &nch) == -1 &&
         chose(a, 10, 100, &nch) == -1,
     "reduce, send/recv, gather: no rule, table alone");
  ok(chose(a, BCAST, 50, &nch) == -1, "broadcast's rule is for 4 ranks on 2 nodes: not here");

  /* impossible choices: NCCL's -1 stays, nothing else moves */
  float t[NA][NP];
  table_fill(t);
  t[NVLS][SIMPLE] = CB_NCCL_ALGO_PROTO_IGNORE;
  ok(call(a, REDSCAT, 10, t, &nch) == -1 && t[NVLS][SIMPLE] == -1.0f && nch == 0,
     "reducescatter's nvls/simple where NCCL says -1: table and channels alone");
  ok(strstr(last_info, "not possible here") != NULL, "logged as not possible (%s)", last_info);
  table_fill(t);
  t[RING][LL128] = -1.0f;
  ok(call(a, ALLREDUCE, 100000, t, &nch) == -1, "ring/ll128 impossible at 100000 B: alone");
  table_fill(t);
  t[TREE][LL] = -0.5f;
  ok(call(a, ALLREDUCE, 10, t, &nch) == -1, "any negative cost counts as impossible");
  /* a table smaller than the rule's indices (an NCCL with fewer algorithms) */
  float small[2][NP] = {{1, 2, 3}, {4, 5, 6}};
  nch = 0;
  v5->getCollInfo(a, REDSCAT, 10, 1, (float **)small, 2, NP, 0, &nch);
  ok(small[0][0] == 1 && small[1][2] == 6 && nch == 0,
     "nvls rule with a 2-algorithm table: nothing written outside it");

  /* a second communicator at the same time: its own rules */
  void *b = init5(path, 4, 2);
  ok(b && b != a && strstr(last_info, "2 for this communicator"),
     "a second communicator (4 ranks, 2 nodes) has its own context");
  ok(chose(b, BCAST, 100, &nch) == TREE * NP + SIMPLE && nch == 8 &&
         chose(b, BCAST, 101, &nch) == -1 && chose(b, ALLREDUCE, 0, &nch) == -1,
     "it gets broadcast's rule (to 100 B), not the 2-rank allreduce rules");
  ok(chose(a, ALLREDUCE, 0, &nch) == TREE * NP + LL && chose(a, BCAST, 100, &nch) == -1,
     "the first communicator is unchanged by the second");
  v5->finalize(b);
  ok(chose(a, ALLREDUCE, 65536, &nch) == RING * NP + LL128, "and after the second's finalize");
  ok(v5->finalize(a) == CB_NCCL_SUCCESS, "finalize");

  /* the v4 entry points, as NCCL 2.24 to 2.27 call them */
  setenv("COLLBENCH_TUNER_RULES", path, 1);
  void *c = NULL;
  ok(v4->init(2, 1, logger, &c) == CB_NCCL_SUCCESS && c && strstr(last_info, "v4"),
     "v4 init(nRanks, nNodes, logger, &ctx) loads the same file");
  float t4[NA][NP];
  table_fill(t4);
  nch = 0;
  v4->getCollInfo(c, ALLREDUCE, 2 << 20, 1, (float **)t4, NA, NP, 0, &nch);
  ok(t4[RING][SIMPLE] == 0.0f && t4[TREE][LL] == 10.0f && nch == 16, "v4 getCollInfo: ring/simple");
  ok(v4->destroy(c) == CB_NCCL_SUCCESS, "v4 destroy");
}

/* Each refused file: init still succeeds, one WARN line names the problem,
 * and every table is left alone. */
static void refused(const char *name, const char *text, size_t len, const char *want) {
  const char *path = write_file(name, text, len);
  log_reset();
  void *ctx = init5(path, 2, 1);
  int nch;
  int alone = ctx != (void *)-1 && chose(ctx, ALLREDUCE, 0, &nch) == -1 &&
              chose(ctx, ALLREDUCE, 1 << 20, &nch) == -1;
  ok(ctx != (void *)-1 && alone && nwarn == 1 && strstr(last_warn, want) &&
         strstr(last_warn, "NCCL's own choices"),
     "%s: init succeeds, tables alone, one warning with '%s' (%s)", name, want, last_warn);
  if (ctx != (void *)-1)
    v5->finalize(ctx);
}

static void test_bad_files(void) {
  log_reset();
  void *ctx = init5(NULL, 2, 1);
  int nch;
  ok(ctx != (void *)-1 && nwarn == 0 && strstr(last_info, "COLLBENCH_TUNER_RULES not set") &&
         chose(ctx, ALLREDUCE, 0, &nch) == -1,
     "COLLBENCH_TUNER_RULES unset: no rules, an INFO line, tables alone");
  v5->finalize(ctx);
  log_reset();
  char missing[300], fifo[300];
  /* under the test's own folder: any program may create /nonexistent */
  snprintf(missing, sizeof missing, "%s/missing/rules", tmpdir);
  ctx = init5(missing, 2, 1);
  ok(ctx != (void *)-1 && nwarn == 1 && strstr(last_warn, "missing/rules: cannot open"),
     "a missing file: init succeeds, one warning naming it (%s)", last_warn);
  v5->finalize(ctx);
  log_reset();
  ctx = init5(tmpdir, 2, 1);
  ok(ctx != (void *)-1 && nwarn == 1 && strstr(last_warn, "not a regular file (a directory)"),
     "a directory: one warning saying it is no file to read (%s)", last_warn);
  v5->finalize(ctx);
  /* a FIFO with no writer: a blocking open would stall NCCL's init for good
   * (the alarm ends this test instead of hanging it) */
  snprintf(fifo, sizeof fifo, "%s/rules.fifo", tmpdir);
  if (mkfifo(fifo, 0600) == 0) {
    log_reset();
    alarm(20);
    ctx = init5(fifo, 2, 1);
    alarm(0);
    ok(ctx != (void *)-1 && nwarn == 1 && strstr(last_warn, "not a regular file (a pipe"),
       "a FIFO: refused at once, init succeeds (%s)", last_warn);
    v5->finalize(ctx);
  } else {
    ok(1, "# SKIP mkfifo failed here");
  }

#define BAD(name, text, want) refused(name, text, sizeof text - 1, want)
  BAD("empty", "", "(empty file)");
  BAD("example_csv", "allreduce,0,65535,tree,ll,4,1,2\n", "is not the header");
  BAD("version2", "# collbench-tuner-rules 2\nallreduce,0,1,tree,ll,4,1,2\n",
      "'# collbench-tuner-rules 2' is not the header");
  BAD("algo", "# collbench-tuner-rules 1\nallreduce,0,1,rign,ll,4,1,2\n",
      "line 2: bad algorithm 'rign'");
  BAD("proto", "# collbench-tuner-rules 1\n#\nallreduce,0,1,ring,LL129,4,1,2\n",
      "line 3: bad protocol 'LL129'");
  BAD("coll", "# collbench-tuner-rules 1\nalltoall,0,1,ring,ll,4,1,2\n", "bad collective");
  BAD("minmax", "# collbench-tuner-rules 1\nallreduce,10,9,ring,ll,4,1,2\n",
      "min_bytes 10 above max_bytes 9");
  BAD("overflow", "# collbench-tuner-rules 1\nallreduce,0,18446744073709551616,ring,ll,4,1,2\n",
      "bad max_bytes");
  BAD("negbytes", "# collbench-tuner-rules 1\nallreduce,-1,10,ring,ll,4,1,2\n", "bad min_bytes");
  BAD("channels", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,65,1,2\n", "bad channels '65'");
  BAD("nodes", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,4,3,2\n", "nNodes 3 above");
  BAD("regbuff", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,4,1,2,-1,2\n", "bad regBuff");
  BAD("margin", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,4,1,2,-1,-1,fast\n",
      "bad margin 'fast'");
  BAD("inf", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,4,1,2,-1,-1,inf\n", "bad margin");
  BAD("fields7", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,4,1\n", "7 fields");
  BAD("chunk", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,4,1,2,-1,-1,1,x\n",
      "bad chunk 'x'");
  BAD("chunk0", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,4,1,2,-1,-1,1,0\n",
      "bad chunk '0'");
  BAD("fields13", "# collbench-tuner-rules 1\nallreduce,0,1,ring,ll,4,1,2,-1,-1,1,512,x\n",
      "more than 12 fields");
  BAD("nul", "# collbench-tuner-rules 1\nallreduce,0,1\0,ring,ll,4,1,2\n", "line 2: a NUL byte");
  /* a good rule before the bad line is not kept: the file is refused whole */
  BAD("late", "# collbench-tuner-rules 1\nallreduce,0,1048576,tree,ll,4,1,2\nallreduce,x\n",
      "line 3");
  /* bounds: one line over 1024 bytes, a file over 1 MiB, too many rules */
  size_t big = (1 << 20) + 100;
  char *text = malloc(big + 1);
  strcpy(text, "# collbench-tuner-rules 1\n#");
  memset(text + 27, 'x', 1100);
  strcpy(text + 27 + 1100, "\n");
  refused("longline", text, strlen(text), "line 2: longer than 1024 bytes");
  size_t n = 0;
  n += (size_t)sprintf(text, "# collbench-tuner-rules 1\n");
  while (n + 42 < big) /* room for a 41-byte line and its NUL */
    n += (size_t)sprintf(text + n, "#%.80s\n", "padding padding padding padding padding");
  refused("huge", text, n, "larger than 1048576 bytes");
  n = (size_t)sprintf(text, "# collbench-tuner-rules 1\n");
  for (int i = 0; i <= 4096; i++)
    n += (size_t)sprintf(text + n, "allreduce,%d,%d,ring,ll,-1,1,2\n", i, i);
  refused("many", text, n, "more than 4096 rules");
  free(text);
  ok(bad_flags == 0, "every log line carries NCCL_TUNING (NCCL_DEBUG_SUBSYS=TUNING shows them)");
}

static void test_file_drives(const char *path, const char *shape);

/* The writer --tune --plugin-out uses (tuner/plugin.c), fed points as its
 * sweep would collect them; the plugin must load its file and choose what
 * it says, at every rule's ends. */
static void test_writer_round_trip(void) {
  struct cb_plugin_point pts[] = {
      {"allreduce", 1024, TREE, LL, 10, 0.1, 2, 1, 0},
      {"allreduce", 1024, RING, SIMPLE, 30, 0.1, 2, 1, 0},
      {"allreduce", 1 << 20, TREE, LL, 300, 1, 8, 1, 0},
      {"allreduce", 1 << 20, RING, LL128, 100, 1, 8, 1, 0},
      {"allreduce", 1 << 20, RING, SIMPLE, 150, 1, 8, 1, 0},
      {"allreduce", 64 << 20, RING, LL128, 900, 5, 0, 1, 0},
      {"allreduce", 64 << 20, RING, SIMPLE, 700, 5, 0, 1, 0},
      {"allgather", 4096, RING, LL, 10, 0.5, 4, 1, 0},
      {"allgather", 4096, RING, SIMPLE, 40, 0.5, 4, 1, 0},
      {"broadcast", 8, RING, SIMPLE, 5, 0.5, 1, 1, 0},
  };
  struct cb_plugin_rule r[16];
  int nr = cb_plugin_rules(pts, sizeof pts / sizeof pts[0], r, 16);
  char path[300];
  snprintf(path, sizeof path, "%s/written", tmpdir);
  FILE *f = fopen(path, "w");
  const char *comments[] = {"collbench --tune --plugin-out, a long first comment line that goes "
                            "on and on well past the example plugin's 255 bytes, so that the "
                            "writer must break it into pieces each of which starts with its own "
                            "hash sign, or NCCL's example plugin would read the rest as a rule"};
  struct cb_error err = {0};
  int rc = cb_plugin_write(f, comments, 1, r, nr, 1, 2, &err);
  fclose(f);
  if (!ok(nr == 5 && rc == CB_OK, "the writer writes %d rules", nr))
    return;
  /* the example plugin's view: lines of < 256 bytes, comments start with #,
   * rules have its 10 columns first (numPipeOps, regBuff -1) */
  f = fopen(path, "r");
  char line[2048];
  int lines = 0, long_lines = 0, rules = 0, example_ok = 0;
  while (fgets(line, sizeof line, f)) {
    lines++;
    long_lines += strlen(line) > 255;
    if (line[0] == '#')
      continue;
    rules++;
    int commas = 0;
    for (char *s = line; *s; s++)
      commas += *s == ',';
    char *c = line;
    for (int k = 0; k < 8; k++)
      c = strchr(c, ',') + 1;
    example_ok += commas == 10 && !strncmp(c, "-1,-1,", 6);
  }
  fclose(f);
  ok(lines > rules && long_lines == 0 && rules == 5 && example_ok == 5,
     "every line < 256 bytes; 5 rules of 11 columns, numPipeOps and regBuff -1");
  log_reset();
  void *ctx = init5(path, 2, 1);
  ok(ctx != (void *)-1 && nwarn == 0 && strstr(last_info, "5 rules"),
     "the plugin loads the written file (%s)", nwarn ? last_warn : last_info);
  int good = 0, nch;
  for (int i = 0; i < nr; i++) {
    int coll = !strcmp(r[i].coll, "allreduce")   ? ALLREDUCE
               : !strcmp(r[i].coll, "allgather") ? ALLGATHER
                                                 : BCAST;
    size_t ends[2] = {(size_t)r[i].min_bytes,
                      r[i].max_bytes > SIZE_MAX ? SIZE_MAX : (size_t)r[i].max_bytes};
    for (int e = 0; e < 2; e++) {
      int got = chose(ctx, coll, ends[e], &nch);
      int want_ch = r[i].channels > 0 ? r[i].channels : 0;
      if (got == r[i].algo * NP + r[i].proto && nch == want_ch)
        good++;
      else
        diag("%s %zu: got %d (ch %d), want %d (ch %d)", r[i].coll, ends[e], got, nch,
             r[i].algo * NP + r[i].proto, want_ch);
    }
  }
  is_long(good, 2 * nr, "each written rule drives the choice at both of its ends");
  ok(chose(ctx, REDUCE, 1024, &nch) == -1, "reduce, not measured, keeps NCCL's choice");
  ok(strstr(last_info, "no rule") != NULL, "and says so");
  v5->finalize(ctx);
  ctx = init5(path, 8, 1);
  ok(chose(ctx, ALLREDUCE, 1024, &nch) == -1 && strstr(last_info, "no rule"),
     "a communicator of another size (8 ranks) gets none of them");
  v5->finalize(ctx);
  test_file_drives(path, "2,1");
}

/* Any rules file (CB_TUNER_CHECK_FILE, for a communicator of
 * CB_TUNER_CHECK_SHAPE="nRanks,nNodes"; tests/tune.t points it at a GPU
 * run's --plugin-out file): the plugin loads it without a warning, and at
 * both ends of every rule for that communicator it makes the choice the
 * file's first matching rule names (the plugin's own reader, compiled in
 * here, says which). */
static void test_file_drives(const char *path, const char *shape) {
  size_t nranks = 0, nnodes = 0;
  if (sscanf(shape ? shape : "", "%zu,%zu", &nranks, &nnodes) != 2) {
    ok(0, "CB_TUNER_CHECK_SHAPE '%s' is not nRanks,nNodes", shape ? shape : "");
    return;
  }
  struct cbt_rules rules;
  char why[512] = "";
  if (!ok(cbt_rules_load(path, &rules, why, sizeof why) == 0, "%s reads%s%s", path,
          why[0] ? ": " : "", why))
    return;
  log_reset();
  void *ctx = init5(path, nranks, nnodes);
  ok(ctx != (void *)-1 && nwarn == 0, "the plugin loads %s (%s)", path,
     nwarn ? last_warn : last_info);
  int checked = 0, good = 0, nch;
  for (int i = 0; i < rules.n; i++) {
    const struct cbt_rule *r = &rules.rule[i];
    size_t ends[2] = {(size_t)r->min_bytes,
                      r->max_bytes > SIZE_MAX ? SIZE_MAX : (size_t)r->max_bytes};
    for (int e = 0; e < 2; e++) {
      const struct cbt_rule *m = cbt_rules_match(&rules, r->coll, ends[e], nranks, nnodes, 1, 0);
      if (!m)
        continue;
      checked++;
      int got = chose(ctx, m->coll, ends[e], &nch);
      good += got == m->algo * NP + m->proto && nch == (m->channels > 0 ? m->channels : 0);
    }
  }
  ok(checked > 0 && good == checked, "its rules drive the choice at their ends (%d of %d)", good,
     checked);
  v5->finalize(ctx);
  cbt_rules_free(&rules);
}

/* Communicators made from several threads at once, as a multi-GPU process
 * does: each context its own. */
static void *thread_main(void *arg) {
  const char *path = arg;
  long bad = 0;
  for (int i = 0; i < 50; i++) {
    void *ctx = NULL;
    cb_nccl_nvl_domain_info_v5 nvl = {1, 2, 2};
    cb_nccl_tuner_constants_v5 k;
    memset(&k, 0, sizeof k);
    (void)path; /* COLLBENCH_TUNER_RULES is set before the threads start */
    if (v5->init(&ctx, (uint64_t)i, 2, 1, logger, &nvl, &k) || !ctx) {
      bad++;
      continue;
    }
    int nch;
    bad += chose(ctx, ALLREDUCE, 65536, &nch) != RING * NP + LL128;
    bad += chose(ctx, ALLREDUCE, 1 << 20, &nch) != RING * NP + SIMPLE || nch != 16;
    v5->finalize(ctx);
  }
  return (void *)bad;
}

static void test_threads(void) {
  const char *path = write_file("threads", rules_text, sizeof rules_text - 1);
  setenv("COLLBENCH_TUNER_RULES", path, 1);
  pthread_t th[4];
  long bad = 0;
  for (int i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, thread_main, (void *)path);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(th[i], &r);
    bad += (long)r;
  }
  is_long(bad, 0, "4 threads x 50 communicators: every choice right");
}

int main(void) {
  /* line by line: a crash keeps what ran before it (tune.t's check on the
   * H100 once failed with an empty output) */
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *so = getenv("CB_TUNER_PLUGIN");
  if (!so)
    so = "build/libnccl-tuner-collbench.so";
  /* a bare name is looked up as NCCL looks up NCCL_TUNER_PLUGIN=collbench:
   * dlopen("libnccl-tuner-collbench.so"), through the loader's path */
  if (strchr(so, '/') && access(so, R_OK) != 0) {
#if CB_HAVE_NCCL /* configure found NCCL: make builds the plugin */
    printf("1..1\nnot ok 1 - %s missing, though configure found NCCL\n", so);
    return 1;
#else
    printf("1..0 # SKIP %s not built (configure found no NCCL)\n", so);
    return 0;
#endif
  }
  void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    printf("1..1\nnot ok 1 - dlopen %s: %s\n", so, dlerror());
    return 1;
  }
  v6 = dlsym(lib, CB_NCCL_TUNER_SYMBOL_V6);
  v5 = dlsym(lib, CB_NCCL_TUNER_SYMBOL_V5);
  v4 = dlsym(lib, CB_NCCL_TUNER_SYMBOL_V4);
  if (!mkdtemp(tmpdir))
    return 1;
  Dl_info where;
  if (v5 && dladdr(v5, &where) && where.dli_fname)
    so = where.dli_fname;      /* the file the loader found, for nm and readelf */
  printf("# loaded %s\n", so); /* a TAP comment: install.t checks which file */
  test_symbols(so);
  if (v6)
    test_chunk();
  if (v5 && v4) {
    test_rules();
    test_bad_files();
    test_writer_round_trip();
    test_threads();
    if (getenv("CB_TUNER_CHECK_FILE"))
      test_file_drives(getenv("CB_TUNER_CHECK_FILE"), getenv("CB_TUNER_CHECK_SHAPE"));
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0)
    diag("could not remove %s", tmpdir);
  dlclose(lib);
  done_testing();
  return exit_status();
}
