/* collbench's NCCL profiler plugin, loaded as NCCL loads it: dlopen of the
 * built .so, dlsym of ncclProfiler_v6 (NCCL 2.29, 2.30), _v5 (2.28), _v4
 * (2.27), _v3 (2.26) and _v2 (2.24, 2.25), init
 * asking for collective events only, then coll events described as NCCL's
 * ncclProfilerStartTaskEvents describes them (profiler_abi.h); what the
 * plugin hands collbench (ran.h) counted per (collective, algorithm,
 * protocol, channels). No GPU and no NCCL needed. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/nccl_ran.h"
#include "bench/backends/nccl_profiler/profiler_abi.h"
#include "bench/backends/nccl_profiler/ran.h"
#include "config.h"
#include "tap.h"

static const cbp_profiler_v5 *v5;
static const cbp_profiler_v4 *v4;
static cb_ran_take_fn take;

static void coll5(void *ctx, const char *func, const char *algo, const char *proto, int nch) {
  cbp_event_descr_v5 d;
  memset(&d, 0, sizeof d);
  d.type = CBP_PROFILE_COLL;
  d.coll.func = func, d.coll.algo = algo, d.coll.proto = proto;
  d.coll.nChannels = (uint8_t)nch, d.coll.count = 1024, d.coll.datatype = "ncclFloat32";
  void *h = (void *)1;
  v5->startEvent(ctx, &h, &d);
  v5->stopEvent(h);
}

static const struct cb_ran *find(const struct cb_ran *r, int n, const char *algo, int nch) {
  for (int i = 0; i < n; i++)
    if (!strcmp(r[i].algo, algo) && r[i].channels == nch)
      return &r[i];
  return NULL;
}

/* collbench's side: the row's label and the fallback mark (nccl_ran.h) */
static void test_format(void) {
  struct cb_ran r[3] = {{"AllReduce", "Tree", "LL", 2, 5}, {"AllReduce", "Ring", "Simple", 4, 20}};
  char buf[96];
  cb_nccl_ran_format(r, 1, 0, buf, sizeof buf);
  is_str(buf, "Tree/LL/2", "one combination: algorithm/protocol/channels");
  cb_nccl_ran_format(r, 2, 3, buf, sizeof buf);
  is_str(buf, "Ring/Simple/4 x20, Tree/LL/2 x5, +3 calls",
         "several: most calls first, each counted, the unlisted calls said");
  cb_nccl_ran_format(r, 0, 0, buf, sizeof buf);
  is_str(buf, "", "none: empty (no plugin, or nothing ran)");
  ok(!cb_nccl_ran_differs("NVLS/Simple/16", "nvls", "allreduce") &&
         cb_nccl_ran_differs("Ring/Simple/4", "NVLS", "allreduce"),
     "NVLS asked: NVLS ran is as asked (any case), Ring ran is a fallback");
  ok(cb_nccl_ran_differs("NVLS/Simple/16 x3, Ring/Simple/4 x1", "NVLS", "allreduce") &&
         !cb_nccl_ran_differs("Ring/LL/2 x3, Ring/Simple/4 x1, +2 calls", "ring", "allreduce"),
     "a fallback on some calls is marked; the unlisted calls are not judged");
  ok(!cb_nccl_ran_differs("Ring/Simple/4", NULL, "allreduce") &&
         !cb_nccl_ran_differs("", "Ring", "allreduce") &&
         !cb_nccl_ran_differs("Ring/Simple/4", "Tree,Ring", "allreduce") &&
         !cb_nccl_ran_differs("Ring/Simple/4", "^NVLS", "allreduce"),
     "nothing asked, nothing known, or a list or exclusion asked: no mark");
  /* issue 75 finding 5: --env-out's per-collective form, and the profiler's
   * spellings (init.cc ncclAlgoToString: NVLS_TREE, COLLNET_DIRECT) */
  ok(!cb_nccl_ran_differs("Ring/Simple/4", "allreduce:Ring", "allreduce") &&
         !cb_nccl_ran_differs("Tree/LL/2", "allreduce:Ring", "broadcast") &&
         cb_nccl_ran_differs("Tree/LL/2", "allreduce:Ring", "allreduce") &&
         cb_nccl_ran_differs("RING/SIMPLE/4", "^NVLS;allreduce:Tree", "allreduce"),
     "the per-collective form: judged on its own collective only, others unmarked");
  ok(!cb_nccl_ran_differs("NVLS_TREE/Simple/16", "NVLSTree", "allreduce") &&
         !cb_nccl_ran_differs("COLLNET_DIRECT/Simple/4", "CollnetDirect", "allreduce") &&
         cb_nccl_ran_differs("NVLS/Simple/16", "NVLSTree", "allreduce"),
     "the profiler's NVLS_TREE and COLLNET_DIRECT are NCCL_ALGO's NVLSTree and CollnetDirect");
  ok(!cb_nccl_ran_differs("Ring/Simple/4", "Fast", "allreduce") &&
         !cb_nccl_ran_differs("Ring/Simple/4", "NVLS", "alltoall"),
     "a value NCCL refuses, or an op NCCL_ALGO does not steer (alltoall): no mark");
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  test_format();
  const char *so = "build/libnccl-profiler-collbench.so";
  if (access(so, R_OK) != 0) {
#if CB_HAVE_NCCL
    ok(0, "%s missing, though configure found NCCL", so);
    done_testing();
    return exit_status();
#else
    diag("SKIP the plugin: %s not built (configure found no NCCL)", so);
    done_testing();
    return exit_status();
#endif
  }
  void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    ok(0, "dlopen %s: %s", so, dlerror());
    done_testing();
    return exit_status();
  }
  v5 = dlsym(lib, "ncclProfiler_v5");
  v4 = dlsym(lib, "ncclProfiler_v4");
  *(void **)&take = dlsym(lib, CB_RAN_TAKE_SYMBOL);
  ok(v5 && v4 && take, "dlsym finds ncclProfiler_v5, ncclProfiler_v4 and %s", CB_RAN_TAKE_SYMBOL);
  if (!(v5 && v4 && take)) {
    done_testing();
    return exit_status();
  }
  ok(!strcmp(v5->name, "collbench") && v5->init && v5->startEvent && v5->stopEvent &&
         v5->recordEventState && v5->finalize && !strcmp(v4->name, "collbench") && v4->init &&
         v4->startEvent && v4->finalize,
     "both name the profiler 'collbench' and fill every entry point");

  /* the copy NCCL loaded is the one collbench asks: RTLD_NOLOAD finds it */
  void *again = dlopen(so, RTLD_NOW | RTLD_NOLOAD);
  ok(again && dlsym(again, CB_RAN_TAKE_SYMBOL) == (void *)take,
     "dlopen(RTLD_NOLOAD) on the same path reaches the loaded copy's take");
  if (again)
    dlclose(again);

  void *ctx = NULL;
  int mask = -1;
  int rc = v5->init(&ctx, 0xc0ffee, &mask, "comm", 1, 2, 0, NULL);
  ok(rc == CBP_SUCCESS && ctx && mask == CBP_PROFILE_COLL,
     "v5 init: success, a context, and collective events only (mask %#x)", mask);

  struct cb_ran r[CB_RAN_MAX];
  long more = -1;
  ok(take(r, CB_RAN_MAX, &more) == 0 && more == 0, "nothing ran yet: nothing taken");
  for (int i = 0; i < 3; i++)
    coll5(ctx, "AllReduce", "Ring", "Simple", 4);
  coll5(ctx, "AllReduce", "Tree", "LL", 2);
  /* an event that is not a coll (a ProxyOp, had it been asked for) is not counted */
  cbp_event_descr_v5 proxy;
  memset(&proxy, 0, sizeof proxy);
  proxy.type = 1 << 3;
  void *h = (void *)1;
  v5->startEvent(ctx, &h, &proxy);
  ok(h == NULL, "a non-coll event gets no handle");
  int n = take(r, CB_RAN_MAX, &more);
  const struct cb_ran *ring = find(r, n, "Ring", 4), *tree = find(r, n, "Tree", 2);
  ok(n == 2 && ring && ring->calls == 3 && tree && tree->calls == 1 && more == 0 &&
         !strcmp(ring->func, "AllReduce") && !strcmp(ring->proto, "Simple") &&
         !strcmp(tree->proto, "LL"),
     "3 Ring/Simple on 4 channels and 1 Tree/LL on 2, apart (%d combinations)", n);
  ok(take(r, CB_RAN_MAX, &more) == 0, "taken once: the next take starts empty");

  /* more combinations than kept: counted in `more`, never lost silently */
  char algo[CB_RAN_MAX + 3][8];
  for (int i = 0; i < CB_RAN_MAX + 3; i++) {
    snprintf(algo[i], sizeof algo[i], "A%d", i);
    coll5(ctx, "AllGather", algo[i], "Simple", 1);
  }
  n = take(r, 4, &more);
  ok(n == 4 && more == CB_RAN_MAX + 3 - 4,
     "a take of 4 from %d combinations: 4 listed, the other %ld calls counted", CB_RAN_MAX + 3,
     more);
  v5->finalize(ctx);

  /* v4 (NCCL 2.27): its own init order, a uint8_t type */
  void *ctx4 = NULL;
  mask = 0;
  ok(v4->init(&ctx4, &mask, "comm", 0xbeef, 1, 2, 1, NULL) == CBP_SUCCESS && ctx4 &&
         mask == CBP_PROFILE_COLL,
     "v4 init: success and collective events only");
  cbp_event_descr_v4 d4;
  memset(&d4, 0, sizeof d4);
  d4.type = CBP_PROFILE_COLL;
  d4.coll.func = "Broadcast", d4.coll.algo = "Ring", d4.coll.proto = "LL128", d4.coll.nChannels = 8;
  v4->startEvent(ctx4, &h, &d4);
  v4->stopEvent(h);
  n = take(r, CB_RAN_MAX, &more);
  ok(n == 1 && !strcmp(r[0].func, "Broadcast") && !strcmp(r[0].proto, "LL128") &&
         r[0].channels == 8 && r[0].calls == 1,
     "v4: a Broadcast on Ring/LL128, 8 channels");
  /* NULL strings from an NCCL that leaves them unset: "?" rather than a crash */
  cbp_event_descr_v5 blank;
  memset(&blank, 0, sizeof blank);
  blank.type = CBP_PROFILE_COLL;
  v5->startEvent(ctx, &h, &blank);
  n = take(r, CB_RAN_MAX, &more);
  ok(n == 1 && !strcmp(r[0].algo, "?") && !strcmp(r[0].func, "?"), "unset names read as '?'");
  v4->finalize(ctx4);

  /* issue 75: NCCL 2.29/2.30 look for v6, 2.26 for v3, 2.24/2.25 for v2
   * (src/plugin/profiler.cc at each tag): each found and counted */
  const cbp_profiler_v5 *v6 = dlsym(lib, "ncclProfiler_v6");
  const cbp_profiler_v3 *v3 = dlsym(lib, "ncclProfiler_v3");
  const cbp_profiler_v2 *v2 = dlsym(lib, "ncclProfiler_v2");
  ok(v6 && v3 && v2 && !strcmp(v6->name, "collbench") && !strcmp(v3->name, "collbench") &&
         !strcmp(v2->name, "collbench"),
     "dlsym finds ncclProfiler_v6, _v3 and _v2, each named 'collbench'");
  if (v6 && v3 && v2) {
    void *c6 = NULL, *c3 = NULL, *c2 = NULL;
    int m6 = 0, m3 = 0, m2 = 0;
    ok(v6->init(&c6, 1, &m6, "comm", 1, 2, 0, NULL) == CBP_SUCCESS && c6 &&
           v3->init(&c3, &m3) == CBP_SUCCESS && c3 && v2->init(&c2, &m2) == CBP_SUCCESS && c2 &&
           m6 == CBP_PROFILE_COLL && m3 == CBP_PROFILE_COLL && m2 == CBP_PROFILE_COLL,
       "v6, v3 and v2 init: collective events only");
    cbp_event_descr_v5 e6;
    memset(&e6, 0, sizeof e6);
    e6.type = CBP_PROFILE_COLL;
    e6.coll.func = "AllReduce", e6.coll.algo = "NVLS_TREE", e6.coll.proto = "SIMPLE";
    e6.coll.nChannels = 16;
    v6->startEvent(c6, &h, &e6);
    cbp_event_descr_v3 e3;
    memset(&e3, 0, sizeof e3);
    e3.type = CBP_PROFILE_COLL;
    e3.coll.name = "comm", e3.coll.commHash = 7, e3.coll.func = "AllGather";
    e3.coll.algo = "RING", e3.coll.proto = "LL", e3.coll.nMaxChannels = 24;
    v3->startEvent(c3, &h, &e3);
    cbp_event_descr_v2 e2;
    memset(&e2, 0, sizeof e2);
    e2.type = CBP_PROFILE_COLL;
    e2.coll.name = "comm", e2.coll.trafficBytes = 4096, e2.coll.func = "ReduceScatter";
    e2.coll.algo = "PAT", e2.coll.proto = "SIMPLE", e2.coll.nMaxChannels = 32;
    v2->startEvent(c2, &h, &e2);
    n = take(r, CB_RAN_MAX, &more);
    const struct cb_ran *a = find(r, n, "NVLS_TREE", 16), *b = find(r, n, "RING", 24),
                        *c = find(r, n, "PAT", 32);
    ok(n == 3 && a && !strcmp(a->func, "AllReduce") && b && !strcmp(b->func, "AllGather") &&
           !strcmp(b->proto, "LL") && c && !strcmp(c->func, "ReduceScatter"),
       "each version's coll event read at its own layout (v3, v2: nMaxChannels as the channels)");
    v6->finalize(c6), v3->finalize(c3), v2->finalize(c2);
  }
  dlclose(lib);
  done_testing();
  return exit_status();
}
