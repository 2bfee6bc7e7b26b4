/* Topology files (topologies/NAME.conf) (topology.h says more). */
#include "topology.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backends/backend.h"
#include "base/dtype.h"
#include "base/robust.h"
#include "base/suggest.h"
#include "base/units.h"
#include "ops/op.h"
#include "results/overhead.h"

const char *const cb_metric_names[] = {"busbw", "algbw", "time"};
const char *const cb_reference_names[CB_NREFS] = {"", "membw", "pairbw", "model"};

/* Backends a file may name, built here or not: a preset for GPU clusters
 * must parse on a host without NCCL; --accept refuses unbuilt ones later. */
static const char *const known_backends[] = {"mpi", "nccl", "ucx", "verbs"};

struct parse_state {
  struct cb_topology *t;
  struct cb_error *err;
  const char *file;
  char section[CB_TOPO_NAME_MAX * 2];
  int line;
  const char *text; /* the whole file */
  size_t pos;
  /* the keys of the section being read, and where: a key given twice is
   * refused (inih would let the last win without a word) */
  struct {
    char key[32];
    int line;
  } seen[32];
  int nseen;
  int singles; /* bit per [system], [matrix], [baseline] seen */
};

static int bad(struct parse_state *ps, const char *key, const char *fmt, const char *value) {
  char why[256];
  snprintf(why, sizeof why, fmt, value);
  cb_fail(ps->err, CB_USAGE, "%s:%d: [%s] %s: %s", ps->file, ps->line, ps->section, key, why);
  return 0; /* inih: stop, this line is wrong */
}

/* What parse_quantity's -2 means, as bad()'s format (a tier's bandwidth:
 * `tier`, no link is under 1 MB/s). */
static const char *range_text(int bandwidth, int tier) {
  return !bandwidth ? "'%s' is out of range (1 ns to 3600 s)"
         : tier     ? "'%s' is out of range (1 MB/s to 1000 TB/s)"
                    : "'%s' is out of range (1 B/s to 1000 TB/s)";
}

static void copy_text(char *dst, size_t len, const char *src) {
  snprintf(dst, len, "%s", src);
}

/* "460 GB/s", "400 Gb/s", "4.2 us", "5% membw", "80% model": a number, then
 * a unit or a reference (a time's only reference is the model's time).
 * `bandwidth` says which family of units is expected. 0, -1 when it is
 * not one, -2 when it is out of range (range_text says it). */
static int parse_quantity(const char *text, int bandwidth, struct cb_threshold *th) {
  char *end;
  errno = 0;
  double v = strtod(text, &end);
  if (end == text || errno || !isfinite(v) || v <= 0)
    return -1;
  while (*end == ' ' || *end == '\t')
    end++;
  th->set = 1;
  th->reference = CB_REF_NONE;
  if (*end == '%') {
    end++;
    while (*end == ' ' || *end == '\t')
      end++;
    for (int r = CB_REF_MEMBW; r < CB_NREFS; r++)
      if ((bandwidth || r == CB_REF_MODEL) && strcmp(end, cb_reference_names[r]) == 0) {
        if (v > 1000) /* ten times the reference: a typo */
          return -1;
        th->value = v / 100;
        th->reference = r;
        return 0;
      }
    return -1;
  }
  static const struct {
    const char *unit;
    double scale;
    int bandwidth;
  } units[] = {
      {"GB/s", 1e9, 1},     {"MB/s", 1e6, 1},     {"TB/s", 1e12, 1},
      {"Gb/s", 1e9 / 8, 1}, {"Mb/s", 1e6 / 8, 1}, {"ns", 1e-9, 0},
      {"us", 1e-6, 0},      {"ms", 1e-3, 0},      {"s", 1, 0},
  };
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (units[i].bandwidth == bandwidth && strcmp(end, units[i].unit) == 0) {
      th->value = v * units[i].scale;
      /* bounds far past any machine (NVL72's NVLink domain is 130 TB/s; a
       * step is seconds; nothing is timed under 1 ns): a figure beyond them
       * is a typo, and 1e308 or 1e-300 would overflow the model's sums and
       * break its tables (a tier's bandwidth has a floor of its own) */
      double lo = bandwidth ? 1 : CB_TOPO_MIN_SECONDS;
      double hi = bandwidth ? CB_TOPO_MAX_BPS : CB_TOPO_MAX_SECONDS;
      return th->value >= lo && th->value <= hi ? 0 : -2;
    }
  return -1;
}

/* A whole value that is a number; its range is the caller's to check. */
static int parse_real(const char *value, double *out) {
  char *end;
  *out = strtod(value, &end);
  return end == value || *end ? -1 : 0;
}

static int parse_int(const char *value, int min, int max, int *out) {
  char *end;
  errno = 0;
  long v = strtol(value, &end, 10);
  if (end == value || *end || errno || v < min || v > max)
    return -1;
  *out = (int)v;
  return 0;
}

/* index of value in a NULL-ended list, or -1 */
static int one_of(const char *value, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (strcmp(value, names[i]) == 0)
      return i;
  return -1;
}

/* NCCL's path types (graph/topo.h PATH_*) by the names each key takes:
 * nic_path and gpu_path as nvidia-smi topo -m prints them (gpu_path's NODE,
 * host bridges of one CPU, is NCCL's PHB); p2p_level as NCCL_P2P_LEVEL
 * takes them, in either case (paths.cc ncclGetLevel). */
enum { KEY_NIC = 1, KEY_GPU = 2, KEY_LEVEL = 4 };
static const struct {
  const char *name;
  int type, keys;
} paths[] = {{"loc", 0, KEY_LEVEL},
             {"nvl", 1, KEY_LEVEL},
             {"nvb", 2, KEY_LEVEL},
             {"pix", 4, KEY_NIC | KEY_GPU | KEY_LEVEL},
             {"pxb", 5, KEY_NIC | KEY_GPU | KEY_LEVEL},
             {"p2c", 6, KEY_NIC},
             {"pxn", 7, KEY_NIC},
             {"phb", 8, KEY_NIC | KEY_GPU | KEY_LEVEL},
             {"node", 8, KEY_GPU},
             {"sys", 9, KEY_NIC | KEY_GPU | KEY_LEVEL}};

/* value's path type for a key (KEY_*); -1: not a name the key takes */
static int path_type(const char *value, int key) {
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
    if ((paths[i].keys & key) &&
        (key == KEY_LEVEL ? strcasecmp(value, paths[i].name) : strcmp(value, paths[i].name)) == 0)
      return paths[i].type;
  return -1;
}

const char *cb_topo_p2p_level_name(int level, char *buf, size_t len) {
  buf[0] = '\0';
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
    if ((paths[i].keys & KEY_LEVEL) && paths[i].type == level) {
      size_t n = 0; /* NCCL_P2P_LEVEL's own spelling: upper case */
      for (; paths[i].name[n] && n + 1 < len; n++)
        buf[n] = (char)toupper((unsigned char)paths[i].name[n]);
      buf[n] = '\0';
      break;
    }
  return buf;
}

/* [system] keys of NCCL's cost model (topologies/README.md) */
static int gpu_key(struct parse_state *ps, const char *key, const char *value) {
  static const char *const archs[] = {"volta", "ampere", "hopper", "blackwell", NULL};
  static const char *const switches[] = {"no", "yes", "nvls", NULL};
  static const char *const yesno[] = {"no", "yes", NULL};
  static const char *const cpus[] = {"intel", "amd", "arm", NULL};
  struct cb_topo_gpu *g = &ps->t->gpu;
  /* other generations' names, and the one NCCL tunes them as (tuning.cc's
   * compCapIndex: 10.x Blackwell, 9.x Hopper, 8.x Ampere, below Volta) */
  static const char *const aliases[][4] = {
      {"ada", "ampere", "compute capability 8.9 (L40S, RTX 4090; no NVLink)", "8.9"},
      {"lovelace", "ampere", "compute capability 8.9 (L40S, RTX 4090; no NVLink)", "8.9"},
      {"turing", "volta", "compute capability 7.5 (T4, RTX 2080)", "7.5"},
      {"pascal", "volta", "compute capability 6.x (P100)", "6.0"},
      {"grace-hopper", "hopper", "compute capability 9.0 (GH200)", "9.0"},
      {"grace-blackwell", "blackwell", "compute capability 10.0 (GB200)", "10.0"}};
  if (strcmp(key, "gpu_arch") == 0) {
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
      if (strcasecmp(value, aliases[i][0]) == 0) {
        cb_fail(ps->err, CB_USAGE,
                "%s:%d: [%s] %s: '%s': NCCL tunes %s as %s: write gpu_arch = %s, or "
                "compute_capability = %s",
                ps->file, ps->line, ps->section, key, value, aliases[i][2], aliases[i][1],
                aliases[i][1], aliases[i][3]);
        return 0; /* as bad(): inih stops here */
      }
    if ((g->arch = one_of(value, archs)) < 0)
      return bad(ps, key, "'%s': expected volta, ampere, hopper or blackwell", value);
  } else if (strcmp(key, "compute_capability") == 0) {
    /* NCCL reads some rules off it, not the generation: sm86's NVLink is
     * 12 GB/s a link, channels are not duplicated past 8.0 (topo.h,
     * search.cc at v2.28.9-1) */
    /* a list: a job over GPUs of several kinds, which NCCL tunes as the
     * oldest (minCompCap) and without LL128 (minCompCap == maxCompCap) */
    const char *v = value;
    g->cc = g->cc_max = -1;
    for (;;) {
      int major, minor, used = 0;
      if (sscanf(v, "%d.%d%n", &major, &minor, &used) != 2 || (v[used] && v[used] != ',') ||
          major < 6 || major > 12 || minor < 0 || minor > 9)
        return bad(ps, key,
                   "'%s' is not a compute capability (6.0 to 12.9, as 8.6) or a list of them "
                   "(8.0,9.0: GPUs of two kinds)",
                   value);
      int cc = 10 * major + minor;
      g->cc = g->cc < 0 || cc < g->cc ? cc : g->cc;
      g->cc_max = cc > g->cc_max ? cc : g->cc_max;
      if (!v[used])
        break;
      v += used + 1;
    }
  } else if (strcmp(key, "nvlink") == 0) {
    if (parse_int(value, 0, 5, &g->nvlink))
      return bad(ps, key, "'%s' is not an NVLink generation (0: none, 1 to 5)", value);
  } else if (strcmp(key, "nvlink_peers") == 0) {
    if (parse_int(value, 1, 1 << 20, &g->nvlink_peers))
      return bad(ps, key, "'%s' is not a count of NVLink peers per GPU (1: bridged pairs)", value);
  } else if (strcmp(key, "gpu_p2p") == 0) {
    if ((g->gpu_p2p = one_of(value, yesno)) < 0)
      return bad(ps, key, "'%s': expected yes or no (no: GeForce cards, or P2P off)", value);
  } else if (strcmp(key, "gdr") == 0) {
    if ((g->gdr = one_of(value, yesno)) < 0)
      return bad(ps, key,
                 "'%s': expected yes or no (no: the NICs cannot reach GPU memory, GPUDirect RDMA "
                 "off)",
                 value);
  } else if (strcmp(key, "nvlink_links") == 0) {
    if (parse_int(value, 1, 64, &g->nvlink_links))
      return bad(ps, key, "'%s' is not a count of NVLinks per GPU (1 to 64)", value);
  } else if (strcmp(key, "nvswitch") == 0) {
    if ((g->nvswitch = one_of(value, switches)) < 0)
      return bad(ps, key, "'%s': expected no, yes or nvls (NVSwitch with NVLink SHARP)", value);
  } else if (strcmp(key, "pcie_gen") == 0) {
    if (parse_int(value, 3, 6, &g->pcie_gen))
      return bad(ps, key, "'%s' is not a PCIe generation (3 to 6)", value);
  } else if (strcmp(key, "fabric_sharp") == 0) {
    if ((g->sharp = one_of(value, yesno)) < 0)
      return bad(ps, key, "'%s': expected yes or no", value);
  } else if (strcmp(key, "nic_path") == 0) {
    if ((g->nic_path = path_type(value, KEY_NIC)) < 0)
      return bad(ps, key, "'%s': expected pix, pxb, p2c, pxn, phb or sys (NCCL's path types)",
                 value);
  } else if (strcmp(key, "gpu_path") == 0) {
    if ((g->gpu_path = path_type(value, KEY_GPU)) < 0)
      return bad(ps, key,
                 "'%s': expected pix, pxb (PCIe switches), phb or node (through the CPU) or sys "
                 "(across CPUs), as nvidia-smi topo -m prints them",
                 value);
  } else if (strcmp(key, "p2p_level") == 0) {
    if ((g->p2p_level = path_type(value, KEY_LEVEL)) < 0)
      return bad(ps, key,
                 "'%s': expected loc, nvl, nvb, pix, pxb, phb or sys (NCCL_P2P_LEVEL's values)",
                 value);
  } else if (strcmp(key, "cpu") == 0) {
    if ((g->cpu_amd = one_of(value, cpus)) < 0)
      return bad(ps, key, "'%s': expected intel, amd or arm", value);
    g->cpu_amd = g->cpu_amd == 1;
  } else
    return bad(
        ps, key,
        "unknown key '%s' (name, source, nodes, gpus_per_node, ranks_per_node, scale, gpu_arch, "
        "compute_capability, nvlink, nvlink_links, nvlink_peers, nvswitch, pcie_gen, "
        "gpu_p2p, gpu_path, p2p_level, gdr, fabric_sharp, cpu, nic_path)",
        key);
  return 1;
}

static int system_key(struct parse_state *ps, const char *key, const char *value) {
  struct cb_topology *t = ps->t;
  if (strcmp(key, "name") == 0)
    copy_text(t->name, sizeof t->name, value);
  else if (strcmp(key, "source") == 0)
    copy_text(t->source, sizeof t->source, value);
  else if (strcmp(key, "nodes") == 0) {
    if (parse_int(value, 1, 1 << 24, &t->nodes))
      return bad(ps, key, "'%s' is not a node count (1 or more)", value);
  } else if (strcmp(key, "gpus_per_node") == 0) {
    if (parse_int(value, 0, 1024, &t->gpus_per_node))
      return bad(ps, key, "'%s' is not a GPU count (0 to 1024)", value);
  } else if (strcmp(key, "ranks_per_node") == 0) {
    if (parse_int(value, 1, 4096, &t->ranks_per_node))
      return bad(ps, key, "'%s' is not a rank count (1 to 4096)", value);
  } else if (strcmp(key, "scale") == 0) {
    if (parse_int(value, 1, CB_TOPO_MAX_SCALE, &t->scale))
      return bad(ps, key,
                 "'%s' is not a GPU count the planner reaches (1 to " CB_TOPO_MAX_SCALE_TEXT ")",
                 value);
  } else
    return gpu_key(ps, key, value);
  return 1;
}

static int tier_key(struct parse_state *ps, const char *key, const char *value) {
  struct cb_tier *tier = &ps->t->tiers[ps->t->ntiers - 1];
  struct cb_threshold q;
  if (strcmp(key, "kind") == 0)
    copy_text(tier->kind, sizeof tier->kind, value);
  else if (strcmp(key, "scope") == 0) {
    if (strcmp(value, "intra-node") == 0)
      tier->scope = CB_SCOPE_INTRA;
    else if (strcmp(value, "inter-node") == 0)
      tier->scope = CB_SCOPE_INTER;
    else
      return bad(ps, key, "'%s': expected intra-node or inter-node", value);
  } else if (strcmp(key, "bandwidth") == 0) {
    int got = parse_quantity(value, 1, &q);
    if (got == -2 || (got == 0 && q.reference == CB_REF_NONE && q.value < CB_TOPO_MIN_BPS))
      return bad(ps, key, range_text(1, 1), value);
    if (got || q.reference != CB_REF_NONE)
      return bad(ps, key, "'%s': expected a bandwidth such as 450 GB/s or 400 Gb/s", value);
    tier->bandwidth_Bps = q.value;
  } else if (strcmp(key, "latency") == 0) {
    int got = parse_quantity(value, 0, &q);
    if (got == -2)
      return bad(ps, key, range_text(0, 0), value);
    if (got || q.reference != CB_REF_NONE)
      return bad(ps, key, "'%s': expected a time such as 2 us", value);
    tier->latency_s = q.value;
  } else if (strcmp(key, "nics_per_node") == 0) {
    /* an NVLink domain is one node to NCCL: GB200 NVL72 has a NIC per GPU, 72 */
    if (parse_int(value, 1, 1024, &tier->nics_per_node))
      return bad(ps, key, "'%s' is not a NIC count (1 to 1024)", value);
  } else
    return bad(ps, key, "unknown key '%s' (kind, scope, bandwidth, latency, nics_per_node)", key);
  return 1;
}

static int check_key(struct parse_state *ps, const char *key, const char *value) {
  struct cb_check *c = &ps->t->checks[ps->t->nchecks - 1];
  if (strcmp(key, "op") == 0) {
    if ((c->op = cb_op_lookup(value)) < 0)
      return bad(ps, key, "unknown op '%s'", value);
  } else if (strcmp(key, "backend") == 0) {
    c->backend_name = NULL;
    for (size_t i = 0; i < sizeof known_backends / sizeof known_backends[0]; i++)
      if (strcmp(value, known_backends[i]) == 0)
        c->backend_name = known_backends[i];
    if (!c->backend_name)
      return bad(ps, key, "unknown backend '%s' (mpi, nccl, ucx, verbs)", value);
  } else if (strcmp(key, "mem") == 0) {
    if ((c->mem = cb_mem_lookup(value)) < 0)
      return bad(ps, key, "unknown memory kind '%s' (host, pinned, device)", value);
  } else if (strcmp(key, "dtype") == 0) {
    if ((c->dtype = cb_dtype_lookup(value)) < 0)
      return bad(ps, key, "unknown dtype '%s'", value);
  } else if (strcmp(key, "transport") == 0) {
    if (!*value || strlen(value) >= sizeof c->transport)
      return bad(ps, key, "'%s' is not a transport name", value);
    copy_text(c->transport, sizeof c->transport, value);
  } else if (strcmp(key, "size") == 0) {
    struct cb_error size_err = {0};
    if (cb_parse_size(value, "size", &c->bytes, &size_err))
      return bad(ps, key, "'%s' is not a size such as 8, 64K or 16G", value);
  } else if (strcmp(key, "metric") == 0) {
    c->metric = -1;
    for (int i = 0; i <= CB_METRIC_TIME; i++)
      if (strcmp(value, cb_metric_names[i]) == 0)
        c->metric = i;
    if (c->metric < 0)
      return bad(ps, key, "unknown metric '%s' (busbw, algbw, time)", value);
  } else if (strcmp(key, "variant") == 0) {
    if (strcmp(value, "in-place") == 0)
      c->inplace = 1;
    else if (strcmp(value, "out-of-place") == 0)
      c->inplace = 0;
    else
      return bad(ps, key, "'%s': expected out-of-place or in-place", value);
  } else if (strcmp(key, "warn") == 0 || strcmp(key, "fail") == 0) {
    /* The unit family follows the metric, so the metric must come first. */
    struct cb_threshold *th = key[0] == 'w' ? &c->warn : &c->fail;
    int bandwidth = c->metric != CB_METRIC_TIME, got = parse_quantity(value, bandwidth, th);
    th->line = ps->line;
    if (got == -2)
      return bad(ps, key, range_text(bandwidth, 0), value);
    if (got)
      return bad(ps, key,
                 bandwidth
                     ? "'%s': expected a bandwidth (460 GB/s, 400 Gb/s), a fraction of "
                       "the measured memory or pair bandwidth (5%% membw, 40%% pairbw) or of the "
                       "model's figure (80%% model); metric comes first"
                     : "'%s': expected a time such as 4.2 us, or a multiple of the model's (150%% "
                       "model)",
                 value);
  } else if (strcmp(key, "ceiling") == 0) {
    if (!*value || strlen(value) >= sizeof c->ceiling)
      return bad(ps, key, "'%s' is not a tier name", value);
    copy_text(c->ceiling, sizeof c->ceiling, value);
  } else if (strcmp(key, "ceiling_fraction") == 0) {
    if (parse_real(value, &c->ceiling_fraction) ||
        !(c->ceiling_fraction > 0 && c->ceiling_fraction <= 1))
      return bad(ps, key, "'%s' is not a fraction over 0, at most 1", value);
  } else
    return bad(ps, key,
               "unknown key '%s' (op, backend, mem, dtype, transport, size, metric, variant, "
               "warn, fail, ceiling, ceiling_fraction)",
               key);
  return 1;
}

static int matrix_key(struct parse_state *ps, const char *key, const char *value) {
  struct cb_matrix_rules *m = &ps->t->matrix;
  if (strcmp(key, "size") == 0) {
    struct cb_error size_err = {0};
    if (cb_parse_size(value, "size", &m->bytes, &size_err))
      return bad(ps, key, "'%s' is not a size such as 1M", value);
  } else if (strcmp(key, "bw_fraction") == 0) {
    if (parse_real(value, &m->bw_fraction) || !(m->bw_fraction > 0 && m->bw_fraction < 1))
      return bad(ps, key, "'%s': expected a fraction between 0 and 1, e.g. 0.9", value);
  } else if (strcmp(key, "lat_factor") == 0) {
    if (parse_real(value, &m->lat_factor) || !(m->lat_factor > 1 && m->lat_factor < 1000))
      return bad(ps, key, "'%s': expected a factor over 1, e.g. 2.1", value);
  } else
    return bad(ps, key, "unknown key '%s' (size, bw_fraction, lat_factor)", key);
  return 1;
}

static int step_key(struct parse_state *ps, const char *key, const char *value) {
  struct cb_step_check *c = &ps->t->steps[ps->t->nsteps - 1];
  struct cb_error e = {0};
  if (strcmp(key, "workload") == 0) {
    if (cb_model_preset(value, &c->model, &e))
      return bad(ps, key, "unknown workload '%s' (tiny, gpt2-124m, gpt-1.3b, llama-7b)", value);
    c->model_set = 1;
  } else if (strcmp(key, "workload_config") == 0) {
    if (!c->model_set)
      return bad(ps, key, "'%s': workload comes first", value);
    if (cb_model_config_parse(value, &c->model, &e))
      return bad(ps, key, "'%s': expected hidden=,layers=,heads=,seq=,batch=,dtype= values", value);
  } else if (strcmp(key, "bucket") == 0) {
    if (cb_parse_size(value, "bucket", &c->bucket_bytes, &e))
      return bad(ps, key, "'%s' is not a size such as 25M", value);
  } else if (strcmp(key, "ranks") == 0) {
    if (parse_int(value, 1, 1 << 24, &c->ranks))
      return bad(ps, key, "'%s' is not a rank count (1 or more)", value);
  } else if (strcmp(key, "reps") == 0) {
    if (parse_int(value, 2, 10000, &c->reps))
      return bad(ps, key, "'%s' is not a repetition count (2 to 10000)", value);
  } else if (strcmp(key, "limit") == 0) {
    if (cb_overhead_parse(value, "limit", &c->limit, &e))
      return bad(ps, key, "'%s': expected a share of the step such as 20%% or 0.2", value);
  } else if (strcmp(key, "compute_time") == 0) {
    struct cb_threshold q;
    int got = parse_quantity(value, 0, &q);
    if (got == -2)
      return bad(ps, key, range_text(0, 0), value);
    if (got || q.reference != CB_REF_NONE)
      return bad(ps, key, "'%s': expected the step's compute time on one GPU, such as 250 ms",
                 value);
    c->compute_s = q.value;
  } else
    return bad(ps, key,
               "unknown key '%s' (workload, workload_config, bucket, ranks, reps, limit, "
               "compute_time)",
               key);
  return 1;
}

static int baseline_key(struct parse_state *ps, const char *key, const char *value) {
  struct cb_baseline_rules *b = &ps->t->baseline;
  struct cb_error e = {0};
  if (strcmp(key, "file") == 0) {
    if (!*value || strlen(value) >= sizeof b->file)
      return bad(ps, key, "'%s': expected a file name", value);
    copy_text(b->file, sizeof b->file, value);
  } else if (strcmp(key, "k") == 0) {
    if (parse_real(value, &b->k) || !(b->k >= 1 && b->k <= 100))
      return bad(ps, key, "'%s': expected a z-score limit between 1 and 100, e.g. 5", value);
  } else if (strcmp(key, "min_runs") == 0) {
    if (cb_parse_long(value, "min_runs", 2, 1000000, &b->min_runs, &e))
      return bad(ps, key, "'%s': expected a count of 2 or more", value);
  } else if (strcmp(key, "repeat") == 0) {
    if (cb_parse_long(value, "repeat", 0, 100, &b->repeat, &e))
      return bad(ps, key, "'%s': expected 0 to 100 re-measures", value);
  } else
    return bad(ps, key, "unknown key '%s' (file, k, min_runs, repeat)", key);
  return 1;
}

/* A new [check NAME] or [step NAME] (kind) in its table of *n entries of
 * `size` bytes: the name not taken, room left; the entry zeroed, with its
 * name (which each kind's struct begins with). NULL after saying why. */
_Static_assert(offsetof(struct cb_check, name) == 0 && offsetof(struct cb_step_check, name) == 0,
               "new_named writes the name at the entry's start");
static void *new_named(struct parse_state *ps, const char *kind, const char *name, void *table,
                       size_t size, int *n, int max) {
  char fmt[64];
  for (int i = 0; i < *n; i++)
    if (strcmp((const char *)table + i * size, name) == 0) {
      snprintf(fmt, sizeof fmt, "%s '%%s' is defined twice", kind);
      bad(ps, "section", fmt, name);
      return NULL;
    }
  if (*n == max) {
    snprintf(fmt, sizeof fmt, "'%%s': too many %ss", kind);
    bad(ps, "section", fmt, name);
    return NULL;
  }
  char *e = (char *)table + (size_t)(*n)++ * size;
  memset(e, 0, size);
  copy_text(e, CB_TOPO_NAME_MAX, name);
  return e;
}

/* A new section: [system], [tier NAME], [check NAME], [step NAME], [matrix] or
 * [baseline]. */
static int begin_section(struct parse_state *ps, const char *section) {
  struct cb_topology *t = ps->t;
  const char *name = strchr(section, ' ');
  name = name ? name + 1 : "";
  ps->nseen = 0;
  static const char *const singles[] = {"system", "matrix", "baseline", NULL};
  int single = one_of(section, singles);
  if (single >= 0 && ps->singles & 1 << single)
    return bad(ps, "section", "[%s] is given twice; write its keys in one section", section);
  if (single >= 0) {
    ps->singles |= 1 << single;
    t->matrix.set |= strcmp(section, "matrix") == 0;
    t->baseline.set |= strcmp(section, "baseline") == 0;
    return 1;
  }
  if (strcmp(section, "step") == 0)
    name = "step";
  int is_tier = strncmp(section, "tier ", 5) == 0, is_check = strncmp(section, "check ", 6) == 0;
  int is_step = strcmp(section, "step") == 0 || strncmp(section, "step ", 5) == 0;
  if (!is_tier && !is_check && !is_step)
    return bad(ps, "section",
               "'%s': expected [system], [tier NAME], [check NAME], [step NAME], [matrix] "
               "or [baseline]",
               section);
  if (!*name || strlen(name) >= CB_TOPO_NAME_MAX ||
      strspn(name, "abcdefghijklmnopqrstuvwxyz"
                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789-_.") != strlen(name))
    return bad(ps, "section", "'%s': the name must be letters, digits, '-', '_' or '.'", name);
  if (is_step) {
    struct cb_step_check *c =
        new_named(ps, "step", name, t->steps, sizeof *t->steps, &t->nsteps, CB_TOPO_MAX_STEPS);
    if (!c)
      return 0;
    c->line = ps->line;
    c->bucket_bytes = 25u << 20; /* PyTorch DDP's bucket_cap_mb default */
    c->reps = 10;
  } else if (is_tier) {
    for (int i = 0; i < t->ntiers; i++)
      if (strcmp(t->tiers[i].name, name) == 0)
        return bad(ps, "section", "tier '%s' is defined twice", name);
    if (t->ntiers == CB_TOPO_MAX_TIERS)
      return bad(ps, "section", "'%s': too many tiers", name);
    struct cb_tier *tier = &t->tiers[t->ntiers++];
    memset(tier, 0, sizeof *tier);
    copy_text(tier->name, sizeof tier->name, name);
    tier->scope = -1;
    tier->nics_per_node = 1;
  } else {
    struct cb_check *c =
        new_named(ps, "check", name, t->checks, sizeof *t->checks, &t->nchecks, CB_TOPO_MAX_CHECKS);
    if (!c)
      return 0;
    c->line = ps->line;
    c->op = c->metric = -1;
    c->mem = cb_mem_lookup("host");
    c->dtype = cb_dtype_lookup("float");
    copy_text(c->transport, sizeof c->transport, "auto");
  }
  return 1;
}

static int on_key(void *user, const char *section, const char *key, const char *value) {
  struct parse_state *ps = user;
  /* inih and read_line must agree on the section, or a key would land in
   * one begin_section never made (checks[-1], found by the fuzzer) */
  if (strcmp(section, ps->section) != 0) {
    cb_fail(ps->err, CB_USAGE,
            "%s:%d: malformed section header [%s]: write each header alone on its line, '[' "
            "first (key '%s' would be read under [%s])",
            ps->file, ps->line, ps->section, key, section);
    return 0;
  }
  for (const unsigned char *c = (const unsigned char *)value; *c; c++)
    if ((*c < 0x20 && *c != '\t') || *c == 0x7f) {
      char why[64];
      snprintf(why, sizeof why, "holds the control byte 0x%02x: values are printable text", *c);
      return bad(ps, key, "%s", why);
    }
  /* [step]'s old keys (issue 44: "model" is the performance model's word):
   * read as the new ones, and said once (cb_topology.renamed) */
  static const char *const step_renames[][2] = {{"model", "workload"},
                                                {"model_config", "workload_config"}};
  for (size_t i = 0; strncmp(section, "step", 4) == 0 && i < 2; i++)
    if (strcmp(key, step_renames[i][0]) == 0) {
      if (!ps->t->renamed[0])
        snprintf(ps->t->renamed, sizeof ps->t->renamed,
                 "%s:%d: [%s] %s is now %s (the old name works for this release)", ps->file,
                 ps->line, section, key, step_renames[i][1]);
      key = step_renames[i][1];
    }
  for (int i = 0; i < ps->nseen; i++)
    if (strcmp(ps->seen[i].key, key) == 0) {
      char why[96];
      snprintf(why, sizeof why, "given twice in this section (first on line %d)", ps->seen[i].line);
      return bad(ps, key, "%s", why);
    }
  if (ps->nseen < (int)(sizeof ps->seen / sizeof ps->seen[0]) &&
      strlen(key) < sizeof ps->seen[0].key) {
    snprintf(ps->seen[ps->nseen].key, sizeof ps->seen[0].key, "%s", key);
    ps->seen[ps->nseen++].line = ps->line;
  }
  if (strcmp(section, "system") == 0)
    return system_key(ps, key, value);
  if (strcmp(section, "matrix") == 0)
    return matrix_key(ps, key, value);
  if (strcmp(section, "baseline") == 0)
    return baseline_key(ps, key, value);
  if (strncmp(section, "tier ", 5) == 0)
    return tier_key(ps, key, value);
  if (strcmp(section, "step") == 0 || strncmp(section, "step ", 5) == 0)
    return step_key(ps, key, value);
  if (strncmp(section, "check ", 6) != 0) { /* a key above every section */
    cb_fail(ps->err, CB_USAGE,
            "%s:%d: key '%s' comes before the first section; put it under [system], "
            "[tier NAME] or [check NAME]",
            ps->file, ps->line, key);
    return 0;
  }
  return check_key(ps, key, value);
}

/* inih reads through this reader, which counts lines (Debian's libinih
 * gives the handler no line numbers) and starts each section itself, so
 * a section is checked, and its line known, even when it has no keys. */
static char *read_line(char *buf, int size, void *stream) {
  struct parse_state *ps = stream;
  if (ps->err->status || !ps->text[ps->pos])
    return NULL; /* a section was refused: stop as at the end */
  const char *line = ps->text + ps->pos;
  size_t len = strcspn(line, "\n");
  len += line[len] == '\n';
  ps->pos += len;
  ps->line++;
  /* inih cuts a line at its buffer (INI_MAX_LINE, 200 in Debian's build)
   * and reads the rest as a line of its own: a long comment ending in
   * "latency = 400 us" set a key. Comments are not inih's business (blank
   * here, whatever their length); any other line must fit whole. */
  const char *first = line + strspn(line, " \t\r\v\f");
  if (*first == ';' || *first == '#') {
    snprintf(buf, (size_t)size, "\n");
    return buf;
  }
  if (len > (size_t)size - 1) {
    cb_fail(ps->err, CB_USAGE,
            "%s:%d: a line of %zu characters, over the %d a topology line may have (a comment may "
            "be longer): shorten it",
            ps->file, ps->line, len - (line[len - 1] == '\n'), size - 2);
    return NULL;
  }
  memcpy(buf, line, len);
  buf[len] = '\0';
  const char *p = buf + strspn(buf, " \t\r\v\f"); /* what inih strips */
  const char *close = strchr(p, ']');
  if (*p == '[' && close) {
    snprintf(ps->section, sizeof ps->section, "%.*s", (int)(close - p - 1), p + 1);
    if (!begin_section(ps, ps->section))
      return NULL;
  }
  return buf;
}

static int find_tier(const struct cb_topology *t, const char *name) {
  for (int i = 0; i < t->ntiers; i++)
    if (strcmp(t->tiers[i].name, name) == 0)
      return i;
  return -1;
}

static int validate(struct parse_state *ps) {
  struct cb_topology *t = ps->t;
  if (!t->name[0])
    return cb_fail(ps->err, CB_USAGE, "%s: [system] name is missing", ps->file);
  if (!t->ranks_per_node)
    t->ranks_per_node = t->gpus_per_node ? t->gpus_per_node : 1;
  /* issue 43: keys that contradict each other are refused, not modelled:
   * each generation has its NVLink (Pascal's 1 is tuned as Volta), NVLink
   * SHARP came with Hopper's NVSwitch */
  static const char *const arch_names[] = {"volta", "ampere", "hopper", "blackwell"};
  struct cb_topo_gpu *g = &t->gpu;
  if (g->cc > 0) { /* tuning.cc's compCapIndex: 10.x Blackwell, 9.x Hopper, 8.x Ampere */
    int arch = g->cc >= 100 ? 3 : g->cc >= 90 ? 2 : g->cc >= 80 ? 1 : 0;
    if (g->arch >= 0 && g->arch != arch)
      return cb_fail(ps->err, CB_USAGE,
                     "%s: [system] compute_capability = %d.%d contradicts gpu_arch = %s (NCCL "
                     "tunes %d.%d as %s)",
                     ps->file, g->cc / 10, g->cc % 10, arch_names[g->arch], g->cc / 10, g->cc % 10,
                     arch_names[arch]);
    g->arch = arch;
    if (g->cc == 89 && g->nvlink > 0)
      return cb_fail(ps->err, CB_USAGE,
                     "%s: [system] nvlink = %d contradicts compute_capability = 8.9 (Ada has no "
                     "NVLink)",
                     ps->file, g->nvlink);
  }
  if (g->arch >= 0 && g->nvlink > 0 &&
      !(g->nvlink == g->arch + 2 || (g->nvlink == 1 && g->arch == 0)))
    return cb_fail(ps->err, CB_USAGE,
                   "%s: [system] nvlink = %d contradicts gpu_arch = %s (whose NVLink is %d)",
                   ps->file, g->nvlink, arch_names[g->arch], g->arch + 2);
  /* NVLink without NVSwitch: bridged pairs (H100 NVL, A100 PCIe, A40) or a
   * mesh (HGX A100 4-GPU): NCCL's rings differ, so the file says which */
  if (g->nvlink > 0 && g->nvswitch == 0 && t->gpus_per_node > 2 && g->nvlink_peers < 0)
    return cb_fail(ps->err, CB_USAGE,
                   "%s: [system] nvlink = %d, nvswitch = no and %d GPUs a node: say how NVLink "
                   "joins them: nvlink_peers = the GPUs each reaches over NVLink, 1 to %d: 1 for "
                   "bridged pairs (H100 NVL), %d for a full mesh%s",
                   ps->file, g->nvlink, t->gpus_per_node, t->gpus_per_node - 1,
                   t->gpus_per_node - 1,
                   t->gpus_per_node - 1 > 4 ? ", 4 for DGX-1's hybrid cube mesh" : "");
  if (g->nvlink_peers > 0 && t->gpus_per_node > 0 && g->nvlink_peers > t->gpus_per_node - 1)
    return cb_fail(ps->err, CB_USAGE,
                   "%s: [system] nvlink_peers = %d: a GPU has %d other(s) on its node "
                   "(gpus_per_node = %d)",
                   ps->file, g->nvlink_peers, t->gpus_per_node - 1, t->gpus_per_node);
  if (g->nvlink_peers > 0 && g->nvswitch > 0 && g->nvlink_peers != t->gpus_per_node - 1)
    return cb_fail(ps->err, CB_USAGE,
                   "%s: [system] nvlink_peers = %d contradicts nvswitch = %s (every GPU reaches "
                   "the other %d)",
                   ps->file, g->nvlink_peers, g->nvswitch == 2 ? "nvls" : "yes",
                   t->gpus_per_node - 1);
  if (g->nvlink_peers > 0 && g->nvlink == 0)
    return cb_fail(ps->err, CB_USAGE, "%s: [system] nvlink_peers = %d contradicts nvlink = 0",
                   ps->file, g->nvlink_peers);
  if (g->nvswitch == 2 && g->arch >= 0 && g->arch < 2)
    return cb_fail(ps->err, CB_USAGE,
                   "%s: [system] nvswitch = nvls contradicts gpu_arch = %s (NVLink SHARP needs "
                   "Hopper's NVSwitch or later)",
                   ps->file, arch_names[g->arch]);
  for (int i = 0; i < t->ntiers; i++) {
    const struct cb_tier *tier = &t->tiers[i];
    const char *missing = tier->scope < 0            ? "scope"
                          : tier->bandwidth_Bps <= 0 ? "bandwidth"
                          : tier->latency_s <= 0     ? "latency"
                                                     : NULL;
    if (missing)
      return cb_fail(ps->err, CB_USAGE, "%s: [tier %s]: key '%s' is missing", ps->file, tier->name,
                     missing);
  }
  for (int i = 0; i < t->nchecks; i++) {
    struct cb_check *c = &t->checks[i];
    const char *missing = c->op < 0          ? "op"
                          : !c->backend_name ? "backend"
                          : !c->bytes        ? "size"
                          : c->metric < 0    ? "metric"
                          : !c->fail.set     ? "fail"
                                             : NULL;
    if (missing)
      return cb_fail(ps->err, CB_USAGE, "%s:%d: [check %s]: key '%s' is missing", ps->file, c->line,
                     c->name, missing);
    if (c->ceiling[0] && (c->ceiling_tier = find_tier(t, c->ceiling)) < 0)
      return cb_fail(ps->err, CB_USAGE,
                     "%s:%d: [check %s]: ceiling '%s' names no [tier] of the file", ps->file,
                     c->line, c->name, c->ceiling);
    if (c->ceiling[0] && c->metric == CB_METRIC_TIME)
      return cb_fail(ps->err, CB_USAGE,
                     "%s:%d: [check %s]: a ceiling is a bandwidth, and the metric is time",
                     ps->file, c->line, c->name);
    if (!c->ceiling[0] && c->ceiling_fraction > 0)
      return cb_fail(ps->err, CB_USAGE, "%s:%d: [check %s]: ceiling_fraction without a ceiling",
                     ps->file, c->line, c->name);
    if (!(c->ceiling_fraction > 0))
      c->ceiling_fraction = CB_CEILING_FRACTION;
    /* A warn level must be the stricter one, or it could never fire. */
    if (c->warn.set && c->warn.reference == c->fail.reference &&
        (c->metric == CB_METRIC_TIME ? c->warn.value > c->fail.value
                                     : c->warn.value < c->fail.value))
      return cb_fail(ps->err, CB_USAGE,
                     "%s:%d: [check %s]: warn is beyond fail (warn must be the stricter level)",
                     ps->file, c->line, c->name);
  }
  for (int i = 0; i < t->nsteps; i++) {
    const struct cb_step_check *c = &t->steps[i];
    const char *missing = !c->model_set ? "workload" : !(c->limit > 0) ? "limit" : NULL;
    if (missing)
      return cb_fail(ps->err, CB_USAGE, "%s:%d: [step %s]: key '%s' is missing", ps->file, c->line,
                     c->name, missing);
  }
  cb_matrix_rules_defaults(&t->matrix);
  if (t->baseline.set && !t->baseline.file[0])
    return cb_fail(ps->err, CB_USAGE, "%s: [baseline] needs file = BASELINE.json", ps->file);
  cb_baseline_rules_defaults(&t->baseline);
  if (cb_topology_uses(t, CB_REF_PAIRBW) && !t->matrix.set)
    return cb_fail(ps->err, CB_USAGE,
                   "%s: a threshold is relative to pairbw, the matrix's median pair bandwidth, "
                   "but there is no [matrix] section",
                   ps->file);
  return CB_OK;
}

int cb_topology_parse(const char *text, const char *name, struct cb_topology *t,
                      struct cb_error *err) {
  memset(t, 0, sizeof *t);
  t->baseline.repeat = -1; /* not given */
  /* every [system] GPU key unset until the file gives it */
  t->gpu = (struct cb_topo_gpu){.arch = -1,
                                .nvlink = -1,
                                .nvlink_links = -1,
                                .nvswitch = -1,
                                .pcie_gen = -1,
                                .sharp = -1,
                                .cpu_amd = -1,
                                .nic_path = -1,
                                .cc = -1,
                                .nvlink_peers = -1,
                                .gpu_p2p = -1,
                                .gdr = -1,
                                .gpu_path = -1,
                                .cc_max = -1,
                                .p2p_level = -1};
  copy_text(t->path, sizeof t->path, name);
  struct parse_state ps = {.t = t, .err = err, .file = name, .text = text};
  int rc = ini_parse_stream(read_line, &ps, on_key, &ps);
  if (err->status)
    return err->status;
  if (rc != 0) /* inih's own complaint: a line that is not INI */
    return cb_fail(err, CB_USAGE, "%s:%d: not a 'key = value' line or a [section]", name,
                   rc > 0 ? rc : ps.line);
  return validate(&ps);
}

#define TOPOLOGY_MAX_BYTES (1 << 20) /* a hand-written file; anything larger is a mistake */

#ifndef CB_TOPOLOGIES_DIR
#define CB_TOPOLOGIES_DIR "topologies"
#endif
#ifndef CB_TOPOLOGIES_INSTALL_DIR
#define CB_TOPOLOGIES_INSTALL_DIR "/usr/local/share/collbench/topologies"
#endif

/* Where presets live: the source tree's topologies/, then the installed ones. */
static const char *const preset_dirs[] = {CB_TOPOLOGIES_DIR, CB_TOPOLOGIES_INSTALL_DIR};

/* A bare name (no '/') that is not a file here is a preset: NAME or
 * NAME.conf in the source tree's topologies/, then the installed ones. */
static FILE *open_topology(const char *path) {
  FILE *f = fopen(path, "r");
  if (f || errno != ENOENT || strchr(path, '/'))
    return f;
  static const char *const exts[] = {"", ".conf"};
  char p[4096];
  for (size_t d = 0; d < sizeof preset_dirs / sizeof preset_dirs[0]; d++)
    for (size_t e = 0; e < sizeof exts / sizeof exts[0]; e++) {
      snprintf(p, sizeof p, "%s/%s%s", preset_dirs[d], path, exts[e]);
      if ((f = fopen(p, "r")))
        return f;
    }
  errno = ENOENT;
  return NULL;
}

/* The preset name nearest to a mistyped one ("h100ndr"), for the refusal. */
static const char *nearest_preset(const char *path, char *buf, size_t len) {
  char names[64][64];
  const char *list[65];
  int n = 0;
  for (size_t d = 0; d < sizeof preset_dirs / sizeof preset_dirs[0]; d++) {
    DIR *dir = opendir(preset_dirs[d]);
    for (struct dirent *e; dir && (e = readdir(dir)) && n < 64;) {
      size_t l = strlen(e->d_name);
      if (l > 5 && l < sizeof names[0] + 5 && strcmp(e->d_name + l - 5, ".conf") == 0) {
        snprintf(names[n], sizeof names[n], "%.*s", (int)(l - 5), e->d_name);
        list[n] = names[n];
        n++;
      }
    }
    if (dir)
      closedir(dir);
  }
  list[n] = NULL;
  char word[64];
  snprintf(word, sizeof word, "%.*s", (int)strcspn(path, "."), path); /* NAME of NAME.conf */
  return cb_suggest_text(cb_suggest_in(word, list), buf, (int)len);
}

int cb_topology_load(const char *path, struct cb_topology *t, struct cb_error *err) {
  FILE *f = open_topology(path);
  char hint[96];
  if (!f && errno == ENOENT && !strchr(path, '/'))
    return cb_fail(err, CB_USAGE,
                   "cannot read topology file '%s': no such file here, nor a preset of that "
                   "name in %s or %s%s",
                   path, CB_TOPOLOGIES_DIR, CB_TOPOLOGIES_INSTALL_DIR,
                   nearest_preset(path, hint, sizeof hint));
  if (!f)
    return cb_fail(err, CB_USAGE, "cannot read topology file '%s': %s", path, strerror(errno));
  char *text = malloc(TOPOLOGY_MAX_BYTES + 1);
  if (!text) {
    fclose(f);
    return cb_fail(err, CB_RUNTIME, "out of memory reading '%s'", path);
  }
  /* One byte over the limit is enough to know the file is too large. */
  size_t len = fread(text, 1, TOPOLOGY_MAX_BYTES + 1, f);
  int failed = ferror(f);
  fclose(f);
  if (failed || len > TOPOLOGY_MAX_BYTES) {
    free(text);
    return failed ? cb_fail(err, CB_USAGE, "cannot read topology file '%s'", path)
                  : cb_fail(err, CB_USAGE, "topology file '%s' is over 1 MiB", path);
  }
  text[len] = '\0';
  int rc = cb_topology_parse(text, path, t, err);
  free(text);
  return rc;
}

void cb_baseline_rules_defaults(struct cb_baseline_rules *b) {
  if (!(b->k > 0))
    b->k = CB_BASELINE_K;
  if (!b->min_runs)
    b->min_runs = CB_BASELINE_MIN_N;
  if (b->repeat < 0)
    b->repeat = CB_BASELINE_REPEAT;
}

void cb_matrix_rules_defaults(struct cb_matrix_rules *m) {
  if (!m->bytes)
    m->bytes = 1 << 20;
  if (!m->bw_fraction)
    m->bw_fraction = 0.9; /* mpiGraph/ClusterKit practice: 0.9-0.93 of the typical pair */
  if (!m->lat_factor)
    m->lat_factor = 2.1; /* ClusterKit: over 2.1x the best latency */
}

const struct cb_tier *cb_topology_tier(const struct cb_topology *t, int scope) {
  for (int i = 0; i < t->ntiers; i++)
    if (t->tiers[i].scope == scope)
      return &t->tiers[i];
  return NULL;
}

double cb_threshold_value(const struct cb_threshold *th, const double *reference_Bps) {
  return th->reference == CB_REF_NONE ? th->value : th->value * reference_Bps[th->reference];
}

int cb_topology_uses(const struct cb_topology *t, int reference) {
  for (int i = 0; i < t->nchecks; i++)
    if (t->checks[i].fail.reference == reference || t->checks[i].warn.reference == reference)
      return 1;
  return 0;
}
