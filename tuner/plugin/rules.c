/* The rules file of collbench's NCCL tuner plugin (RULES.md beside this file) (rules.h says
 * more). */
#include "rules.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Indices are NCCL's NCCL_ALGO_* and NCCL_PROTO_* numbers (NCCL's
 * src/include/plugin/nccl_tuner.h; nccl_abi.h); the names are those NCCL's
 * example plugin reads, which --plugin-out has always written (that example
 * is a safe reader of the file from NCCL 2.30 only: RULES.md). */
static const char *const colls[] = {"broadcast", "reduce", "allgather", "reducescatter",
                                    "allreduce"};
static const char *const algos[] = {"tree",      "ring", "collnet_direct", "collnet_chain", "nvls",
                                    "nvls_tree", "pat"};
static const char *const protos[] = {"ll", "ll128", "simple"};
#define COUNT(a) (int)(sizeof a / sizeof a[0])

const char *cbt_coll_name(int c) {
  return c >= 0 && c < COUNT(colls) ? colls[c] : "?";
}
const char *cbt_algo_name(int a) {
  return a >= 0 && a < COUNT(algos) ? algos[a] : "?";
}
const char *cbt_proto_name(int p) {
  return p >= 0 && p < COUNT(protos) ? protos[p] : "?";
}

static int lookup(const char *s, const char *const *names, int n) {
  for (int i = 0; i < n; i++)
    if (strcasecmp(s, names[i]) == 0)
      return i;
  return -1;
}

__attribute__((format(printf, 3, 4))) static int fail(char *why, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, len, fmt, ap);
  va_end(ap);
  return -1;
}

/* A value quoted in a message: at most 40 bytes, unprintable bytes as '?',
 * so a message stays one short line whatever the file holds. */
static const char *quote(const char *s, char *buf, size_t len) {
  size_t i = 0;
  for (; s[i] && i + 1 < len && i < 40; i++)
    buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
  buf[i] = 0;
  return buf;
}

/* Strict decimal: digits only, no overflow. */
static int parse_u64(const char *s, uint64_t *v) {
  if (!*s)
    return -1;
  uint64_t x = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9')
      return -1;
    unsigned d = (unsigned)(*s - '0');
    if (x > (UINT64_MAX - d) / 10)
      return -1;
    x = x * 10 + d;
  }
  *v = x;
  return 0;
}

/* -1, or a decimal in [lo, hi]. */
static int parse_int(const char *s, int lo, int hi, int *v) {
  if (strcmp(s, "-1") == 0) {
    *v = -1;
    return 0;
  }
  uint64_t x;
  if (parse_u64(s, &x) || x < (uint64_t)lo || x > (uint64_t)hi)
    return -1;
  *v = (int)x;
  return 0;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  size_t n = strlen(s);
  while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
    s[--n] = 0;
  return s;
}

enum {
  F_COLL,
  F_MIN,
  F_MAX,
  F_ALGO,
  F_PROTO,
  F_CHAN,
  F_NODES,
  F_RANKS,
  F_PIPE,
  F_REG,
  F_MARGIN,
  F_CHUNK
};
#define NFIELDS_MIN 8  /* the example plugin's required columns */
#define NFIELDS_MAX 12 /* ... numPipeOps, regBuff, margin, chunk */

static int parse_rule(char *line, struct cbt_rule *r, char *why, size_t len) {
  static const char *const names[] = {"collective", "min_bytes", "max_bytes", "algorithm",
                                      "protocol",   "channels",  "nNodes",    "nRanks",
                                      "numPipeOps", "regBuff",   "margin",    "chunk"};
  char *f[NFIELDS_MAX], q[48];
  int n = 0;
  for (char *s = line;; n++) {
    char *comma = strchr(s, ',');
    if (n == NFIELDS_MAX)
      return fail(why, len, "more than %d fields", NFIELDS_MAX);
    if (comma)
      *comma = 0;
    f[n] = trim(s);
    if (!comma) {
      n++;
      break;
    }
    s = comma + 1;
  }
  if (n < NFIELDS_MIN)
    return fail(why, len, "%d fields, want %d to %d (%s,...)", n, NFIELDS_MIN, NFIELDS_MAX,
                "collective,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks");
  *r = (struct cbt_rule){.pipe_ops = -1, .reg_buff = -1, .margin_pct = NAN, .chunk = -1};
  int bad = -1;
  if ((r->coll = lookup(f[F_COLL], colls, COUNT(colls))) < 0)
    bad = F_COLL;
  else if (parse_u64(f[F_MIN], &r->min_bytes))
    bad = F_MIN;
  else if (parse_u64(f[F_MAX], &r->max_bytes))
    bad = F_MAX;
  else if ((r->algo = lookup(f[F_ALGO], algos, COUNT(algos))) < 0)
    bad = F_ALGO;
  else if ((r->proto = lookup(f[F_PROTO], protos, COUNT(protos))) < 0)
    bad = F_PROTO;
  else if (parse_int(f[F_CHAN], 1, CBT_MAX_CHANNELS, &r->channels))
    bad = F_CHAN;
  else if (parse_int(f[F_NODES], 1, 1 << 24, &r->nnodes))
    bad = F_NODES;
  else if (parse_int(f[F_RANKS], 1, 1 << 24, &r->nranks))
    bad = F_RANKS;
  else if (n > F_PIPE && parse_int(f[F_PIPE], 1, 1 << 24, &r->pipe_ops))
    bad = F_PIPE;
  else if (n > F_REG && parse_int(f[F_REG], 0, 1, &r->reg_buff))
    bad = F_REG;
  else if (n > F_MARGIN && strcmp(f[F_MARGIN], "none") != 0) {
    char *end;
    errno = 0;
    r->margin_pct = strtod(f[F_MARGIN], &end);
    if (!*f[F_MARGIN] || *end || errno || !isfinite(r->margin_pct))
      bad = F_MARGIN;
  }
  if (bad < 0 && n > F_CHUNK && parse_int(f[F_CHUNK], 1, CBT_MAX_CHUNK, &r->chunk))
    bad = F_CHUNK;
  if (bad >= 0)
    return fail(why, len, "bad %s '%s'%s", names[bad], quote(f[bad], q, sizeof q),
                bad == F_COLL     ? " (broadcast, reduce, allgather, reducescatter, allreduce)"
                : bad == F_ALGO   ? " (tree, ring, collnet_direct, collnet_chain, nvls, "
                                    "nvls_tree, pat)"
                : bad == F_PROTO  ? " (ll, ll128, simple)"
                : bad == F_CHAN   ? " (-1 or 1 to 64)"
                : bad == F_REG    ? " (-1, 0 or 1)"
                : bad == F_MARGIN ? " (a percentage or none)"
                : bad == F_CHUNK  ? " (-1 or 1 to 1073741824 bytes)"
                : bad >= F_NODES  ? " (-1 or a positive count)"
                                  : " (a byte count)");
  if (r->min_bytes > r->max_bytes)
    return fail(why, len, "min_bytes %llu above max_bytes %llu", (unsigned long long)r->min_bytes,
                (unsigned long long)r->max_bytes);
  if (r->nnodes > 0 && r->nranks > 0 && r->nnodes > r->nranks)
    return fail(why, len, "nNodes %d above nRanks %d", r->nnodes, r->nranks);
  return 0;
}

/* One line of at most CBT_RULES_MAX_LINE bytes into buf (newline dropped).
 * Returns 1 for a line, 0 at the end, -1 for a line too long or holding a
 * NUL byte (reason in why). *total counts the bytes read. */
static int read_line(FILE *f, char *buf, long *total, char *why, size_t len) {
  size_t n = 0;
  int c;
  while ((c = getc(f)) != EOF) {
    if (++*total > CBT_RULES_MAX_BYTES)
      return fail(why, len, "larger than %ld bytes", (long)CBT_RULES_MAX_BYTES);
    if (c == '\n')
      break;
    if (c == 0)
      return fail(why, len, "a NUL byte");
    if (n == CBT_RULES_MAX_LINE)
      return fail(why, len, "longer than %d bytes", CBT_RULES_MAX_LINE);
    buf[n++] = (char)c;
  }
  buf[n] = 0;
  if (c == EOF && ferror(f)) /* a directory, an I/O error */
    return fail(why, len, "cannot read: %s", strerror(errno));
  return c == EOF && n == 0 ? 0 : 1;
}

int cbt_rules_load(const char *path, struct cbt_rules *out, char *why, size_t whylen) {
  *out = (struct cbt_rules){0};
  /* not blocking, and a regular file only: a FIFO (or a device) named here
   * would stall ncclCommInitRank, and the plugin never fails nor stops a job */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return fail(why, whylen, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int dir = S_ISDIR(st.st_mode);
    close(fd);
    return fail(why, whylen, "%s: not a regular file (%s): refused", path,
                dir ? "a directory" : "a pipe, socket or device");
  }
  int flags = fcntl(fd, F_GETFL);
  FILE *f = flags >= 0 && fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == 0 ? fdopen(fd, "r") : NULL;
  if (!f) {
    int e = errno;
    close(fd);
    return fail(why, whylen, "%s: cannot read: %s", path, strerror(e));
  }
  char buf[CBT_RULES_MAX_LINE + 1], msg[256];
  long total = 0;
  int lineno = 0, rc = 0, cap = 0;
  for (;;) {
    int got = read_line(f, buf, &total, msg, sizeof msg);
    lineno++;
    if (got < 0) {
      rc = fail(why, whylen, "%s line %d: %s", path, lineno, msg);
      break;
    }
    if (lineno == 1) {
      char *h = trim(buf);
      if (!got || strcmp(h, CBT_RULES_HEADER) != 0) {
        char q[48];
        rc = fail(why, whylen,
                  "%s line 1: '%s' is not the header '" CBT_RULES_HEADER
                  "' (written by collbench --tune --plugin-out)",
                  path, got ? quote(h, q, sizeof q) : "(empty file)");
        break;
      }
      continue;
    }
    if (!got)
      break;
    char *s = trim(buf);
    if (!*s || *s == '#')
      continue;
    if (out->n == CBT_RULES_MAX) {
      rc = fail(why, whylen, "%s line %d: more than %d rules", path, lineno, CBT_RULES_MAX);
      break;
    }
    if (out->n == cap) {
      cap = cap ? 2 * cap : 16;
      struct cbt_rule *grown = realloc(out->rule, (size_t)cap * sizeof *grown);
      if (!grown) {
        rc = fail(why, whylen, "%s: out of memory", path);
        break;
      }
      out->rule = grown;
    }
    if (parse_rule(s, &out->rule[out->n], msg, sizeof msg)) {
      rc = fail(why, whylen, "%s line %d: %s", path, lineno, msg);
      break;
    }
    out->rule[out->n++].line = lineno;
  }
  fclose(f);
  if (rc)
    cbt_rules_free(out);
  return rc;
}

void cbt_rules_free(struct cbt_rules *r) {
  free(r->rule);
  *r = (struct cbt_rules){0};
}

static int comm_ok(const struct cbt_rule *r, size_t nranks, size_t nnodes) {
  return (r->nranks < 0 || (size_t)r->nranks == nranks) &&
         (r->nnodes < 0 || (size_t)r->nnodes == nnodes);
}

const struct cbt_rule *cbt_rules_match(const struct cbt_rules *r, int coll, uint64_t nbytes,
                                       size_t nranks, size_t nnodes, int pipe_ops, int reg_buff) {
  for (int i = 0; i < r->n; i++) {
    const struct cbt_rule *x = &r->rule[i];
    if (x->coll == coll && nbytes >= x->min_bytes && nbytes <= x->max_bytes &&
        comm_ok(x, nranks, nnodes) && (x->pipe_ops < 0 || x->pipe_ops == pipe_ops) &&
        (x->reg_buff < 0 || x->reg_buff == reg_buff))
      return x;
  }
  return NULL;
}

int cbt_rules_for_comm(const struct cbt_rules *r, size_t nranks, size_t nnodes) {
  int k = 0;
  for (int i = 0; i < r->n; i++)
    k += comm_ok(&r->rule[i], nranks, nnodes);
  return k;
}
