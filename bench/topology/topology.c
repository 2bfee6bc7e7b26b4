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

#include "base/suggest.h"
#include "base/units.h"

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
  int system_seen;
  const struct cb_topo_part *part; /* the sections that are not the system's */
};

int cb_topo_bad(const struct cb_topo_at *at, const char *key, const char *fmt, const char *value) {
  char why[640]; /* a part's list of keys and options fits */
  snprintf(why, sizeof why, fmt, value);
  cb_fail(at->err, CB_USAGE, "%s:%d: [%s] %s: %s", at->file, at->line, at->section, key, why);
  return 0; /* inih: stop, this line is wrong */
}

static struct cb_topo_at at_of(const struct parse_state *ps) {
  return (struct cb_topo_at){ps->file, ps->section, ps->line, ps->err};
}

static int bad(struct parse_state *ps, const char *key, const char *fmt, const char *value) {
  struct cb_topo_at at = at_of(ps);
  return cb_topo_bad(&at, key, fmt, value);
}

/* What cb_topo_quantity's -2 means, as bad()'s format (a tier's bandwidth:
 * `tier`, no link is under 1 MB/s). */
const char *cb_topo_range_text(int bandwidth, int tier) {
  return !bandwidth ? "'%s' is out of range (1 ns to 3600 s)"
         : tier     ? "'%s' is out of range (1 MB/s to 1000 TB/s)"
                    : "'%s' is out of range (1 B/s to 1000 TB/s)";
}

static void copy_text(char *dst, size_t len, const char *src) {
  snprintf(dst, len, "%s", src);
}

/* Decimal only: strtod also reads hexadecimal ("0x10" is 16), which no
 * datasheet figure is written in, so a level of 0x10 GB/s is a typo. */
static int hexadecimal(const char *text) {
  text += strspn(text, " \t");
  text += *text == '+' || *text == '-';
  return text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

const char *cb_topo_number(const char *text, double *v) {
  char *end;
  errno = 0;
  if (hexadecimal(text))
    return NULL;
  *v = strtod(text, &end);
  if (end == text || errno || !isfinite(*v) || *v <= 0)
    return NULL;
  while (*end == ' ' || *end == '\t')
    end++;
  return end;
}

/* "460 GB/s", "400 Gb/s", "4.2 us": a number, then a unit of the family
 * `bandwidth` says. */
int cb_topo_quantity(const char *text, int bandwidth, double *value) {
  double v;
  const char *end = cb_topo_number(text, &v);
  if (!end)
    return -1;
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
      *value = v * units[i].scale;
      /* bounds far past any machine (NVL72's NVLink domain is 130 TB/s; a
       * step is seconds; nothing is timed under 1 ns): a figure beyond them
       * is a typo, and 1e308 or 1e-300 would overflow the model's sums and
       * break its tables (a tier's bandwidth has a floor of its own) */
      double lo = bandwidth ? 1 : CB_TOPO_MIN_SECONDS;
      double hi = bandwidth ? CB_TOPO_MAX_BPS : CB_TOPO_MAX_SECONDS;
      return *value >= lo && *value <= hi ? 0 : -2;
    }
  return -1;
}

/* A whole value that is a number; its range is the caller's to check. */
int cb_topo_real(const char *value, double *out) {
  char *end;
  if (hexadecimal(value))
    return -1;
  *out = strtod(value, &end);
  return end == value || *end ? -1 : 0;
}

int cb_topo_int(const char *value, int min, int max, int *out) {
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
    if (cb_topo_int(value, 0, 5, &g->nvlink))
      return bad(ps, key, "'%s' is not an NVLink generation (0: none, 1 to 5)", value);
  } else if (strcmp(key, "nvlink_peers") == 0) {
    if (cb_topo_int(value, 1, 1 << 20, &g->nvlink_peers))
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
    if (cb_topo_int(value, 1, 64, &g->nvlink_links))
      return bad(ps, key, "'%s' is not a count of NVLinks per GPU (1 to 64)", value);
  } else if (strcmp(key, "nvswitch") == 0) {
    if ((g->nvswitch = one_of(value, switches)) < 0)
      return bad(ps, key, "'%s': expected no, yes or nvls (NVSwitch with NVLink SHARP)", value);
  } else if (strcmp(key, "pcie_gen") == 0) {
    if (cb_topo_int(value, 3, 6, &g->pcie_gen))
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
    if (cb_topo_int(value, 1, 1 << 24, &t->nodes))
      return bad(ps, key, "'%s' is not a node count (1 or more)", value);
  } else if (strcmp(key, "gpus_per_node") == 0) {
    if (cb_topo_int(value, 0, 1024, &t->gpus_per_node))
      return bad(ps, key, "'%s' is not a GPU count (0 to 1024)", value);
  } else if (strcmp(key, "ranks_per_node") == 0) {
    if (cb_topo_int(value, 1, 4096, &t->ranks_per_node))
      return bad(ps, key, "'%s' is not a rank count (1 to 4096)", value);
  } else if (strcmp(key, "scale") == 0) {
    if (cb_topo_int(value, 1, CB_TOPO_MAX_SCALE, &t->scale))
      return bad(ps, key,
                 "'%s' is not a GPU count the planner reaches (1 to " CB_TOPO_MAX_SCALE_TEXT ")",
                 value);
  } else
    return gpu_key(ps, key, value);
  return 1;
}

static int tier_key(struct parse_state *ps, const char *key, const char *value) {
  struct cb_tier *tier = &ps->t->tiers[ps->t->ntiers - 1];
  double q;
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
    int got = cb_topo_quantity(value, 1, &q);
    if (got == -2 || (got == 0 && q < CB_TOPO_MIN_BPS))
      return bad(ps, key, cb_topo_range_text(1, 1), value);
    if (got)
      return bad(ps, key, "'%s': expected a bandwidth such as 450 GB/s or 400 Gb/s", value);
    tier->bandwidth_Bps = q;
  } else if (strcmp(key, "latency") == 0) {
    int got = cb_topo_quantity(value, 0, &q);
    if (got == -2)
      return bad(ps, key, cb_topo_range_text(0, 0), value);
    if (got)
      return bad(ps, key, "'%s': expected a time such as 2 us", value);
    tier->latency_s = q;
  } else if (strcmp(key, "nics_per_node") == 0) {
    /* an NVLink domain is one node to NCCL: GB200 NVL72 has a NIC per GPU, 72 */
    if (cb_topo_int(value, 1, 1024, &tier->nics_per_node))
      return bad(ps, key, "'%s' is not a NIC count (1 to 1024)", value);
  } else
    return bad(ps, key, "unknown key '%s' (kind, scope, bandwidth, latency, nics_per_node)", key);
  return 1;
}

int cb_topo_section_name(const struct cb_topo_at *at, const char *name) {
  if (!*name || strlen(name) >= CB_TOPO_NAME_MAX ||
      strspn(name, "abcdefghijklmnopqrstuvwxyz"
                   "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                   "0123456789-_.") != strlen(name))
    return cb_topo_bad(at, "section", "'%s': the name must be letters, digits, '-', '_' or '.'",
                       name);
  return 1;
}

/* A new section: [system], [tier NAME], or one of the part's. */
static int begin_section(struct parse_state *ps, const char *section) {
  struct cb_topology *t = ps->t;
  struct cb_topo_at at = at_of(ps);
  ps->nseen = 0;
  if (strcmp(section, "system") == 0) {
    if (ps->system_seen)
      return bad(ps, "section", "[%s] is given twice; write its keys in one section", section);
    ps->system_seen = 1;
    return 1;
  }
  if (strncmp(section, "tier ", 5) != 0) {
    int taken = ps->part ? ps->part->begin(ps->part->user, &at, section) : -1;
    if (taken >= 0)
      return taken;
    char fmt[160];
    snprintf(fmt, sizeof fmt, "'%%s': expected [system]%s%s",
             ps->part ? ", [tier NAME], " : " or [tier NAME]", ps->part ? ps->part->sections : "");
    return bad(ps, "section", fmt, section);
  }
  const char *name = section + 5;
  if (!cb_topo_section_name(&at, name))
    return 0;
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
  int own = strcmp(section, "system") == 0 || strncmp(section, "tier ", 5) == 0;
  struct cb_topo_at at = at_of(ps);
  if (!own && *section && ps->part && ps->part->key_name)
    key = ps->part->key_name(ps->part->user, &at, key);
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
  if (strncmp(section, "tier ", 5) == 0)
    return tier_key(ps, key, value);
  if (!*section || !ps->part) { /* a key above every section */
    cb_fail(ps->err, CB_USAGE,
            "%s:%d: key '%s' comes before the first section; put it under [system], "
            "[tier NAME] or [check NAME]",
            ps->file, ps->line, key);
    return 0;
  }
  return ps->part->key(ps->part->user, &at, key, value);
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

int cb_topology_find_tier(const struct cb_topology *t, const char *name) {
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
  return ps->part ? ps->part->finish(ps->part->user, t, ps->err) : CB_OK;
}

int cb_topology_parse(const char *text, const char *name, struct cb_topology *t,
                      const struct cb_topo_part *part, struct cb_error *err) {
  memset(t, 0, sizeof *t);
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
  struct parse_state ps = {.t = t, .err = err, .file = name, .text = text, .part = part};
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

int cb_topology_load(const char *path, struct cb_topology *t, const struct cb_topo_part *part,
                     struct cb_error *err) {
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
  const char *nul = memchr(text, '\0', len);
  if (nul) { /* the parser would stop there: a key cut short, the rest unread */
    int line = 1;
    for (const char *p = text; p < nul; p++)
      line += *p == '\n';
    free(text);
    return cb_fail(err, CB_USAGE, "%s:%d: a NUL byte: not a text file", path, line);
  }
  text[len] = '\0';
  int rc = cb_topology_parse(text, path, t, part, err);
  free(text);
  return rc;
}

const struct cb_tier *cb_topology_tier(const struct cb_topology *t, int scope) {
  for (int i = 0; i < t->ntiers; i++)
    if (t->tiers[i].scope == scope)
      return &t->tiers[i];
  return NULL;
}
