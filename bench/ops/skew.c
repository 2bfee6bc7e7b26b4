/* --skew's matrices for alltoallv (skew.h says what each kind means). */
#include "skew.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/readbound.h"

#define MAX_DIM 65536 /* a file's rows: more ranks than any job here */

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* Reads the whole file, at most CB_MAX_DOC bytes (a matrix of some 5,000
 * ranks: an endless input stops there); NULL with err set. */
static char *slurp(const char *path, struct cb_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    cb_fail(err, CB_USAGE, "--skew '%s': not uniform, zipf:E or a readable matrix file: %s", path,
            strerror(errno));
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  int nomem = !buf;
  for (size_t got;
       buf && len <= (size_t)CB_MAX_DOC && (got = fread(buf + len, 1, cap - len - 1, f)) > 0;) {
    len += got;
    if (cap - len < 2) {
      char *bigger = realloc(buf, cap * 2);
      if (!bigger)
        free(buf), nomem = 1;
      buf = bigger, cap *= 2;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (nomem || bad || len > (size_t)CB_MAX_DOC) {
    free(buf);
    if (nomem)
      cb_fail(err, CB_RUNTIME, "--skew '%s': out of memory reading the matrix file", path);
    else if (bad)
      cb_fail(err, CB_USAGE, "--skew '%s': cannot read the matrix file", path);
    else
      cb_fail(err, CB_USAGE, "--skew '%s': the matrix file is over %ld MiB", path,
              CB_MAX_DOC >> 20);
    return NULL;
  }
  if (memchr(buf, '\0', len)) { /* the text would end there, the rest unread */
    free(buf);
    cb_fail(err, CB_USAGE, "--skew '%s': the matrix file holds a NUL byte: not text", path);
    return NULL;
  }
  buf[len] = '\0';
  return buf;
}

/* One cell: a whole number of bytes, at most 2^62 (room to scale). */
static int cell(const char *path, const char *tok, size_t len, int row, int col, uint64_t *v,
                struct cb_error *err) {
  char text[32];
  snprintf(text, sizeof text, "%.*s", (int)(len < 31 ? len : 31), tok);
  errno = 0;
  char *end;
  unsigned long long x = isdigit((unsigned char)tok[0]) ? strtoull(tok, &end, 10) : 0;
  if (!isdigit((unsigned char)tok[0]) || end != tok + len || errno || x > (1ULL << 62))
    return cb_fail(err, CB_USAGE,
                   "--skew '%s': row %d, column %d holds '%s', not a byte count (a whole number "
                   "from 0 to 2^62)",
                   path, row, col, text);
  *v = x;
  return CB_OK;
}

static int parse_file(const char *path, struct cb_skew *k, struct cb_error *err) {
  char *buf = slurp(path, err);
  if (!buf)
    return err->status;
  size_t ncells = 0, cap = 0;
  uint64_t *cells = NULL;
  int rows = 0, cols = 0, rc = CB_OK;
  for (char *line = buf, *next; line && !rc; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    int n = 0;
    for (char *p = line;;) {
      while (isspace((unsigned char)*p))
        p++;
      if (!*p)
        break;
      size_t len = strcspn(p, " \t\r\v\f");
      if (ncells == cap) {
        cap = cap ? 2 * cap : 256;
        uint64_t *more = realloc(cells, cap * sizeof *more);
        if (!more) {
          rc = cb_fail(err, CB_RUNTIME, "--skew '%s': out of memory", path);
          break;
        }
        cells = more;
      }
      if ((rc = cell(path, p, len, rows + 1, n + 1, &cells[ncells], err)))
        break;
      ncells++, n++, p += len;
    }
    if (rc || n == 0)
      continue; /* blank lines separate nothing */
    if (rows == 0)
      cols = n;
    else if (n != cols)
      rc = cb_fail(err, CB_USAGE, "--skew '%s': row %d has %d values, row 1 has %d", path, rows + 1,
                   n, cols);
    if (++rows > MAX_DIM)
      rc = cb_fail(err, CB_USAGE, "--skew '%s': more than %d rows", path, MAX_DIM);
  }
  free(buf);
  if (!rc && rows == 0)
    rc = cb_fail(err, CB_USAGE, "--skew '%s': the matrix file holds no numbers", path);
  if (!rc && rows != cols)
    rc = cb_fail(err, CB_USAGE,
                 "--skew '%s': the matrix is %d rows of %d values; it must be square (cell "
                 "[i][j]: bytes from rank i to rank j)",
                 path, rows, cols);
  if (rc) {
    free(cells);
    return rc;
  }
  k->kind = CB_SKEW_FILE;
  k->cells = cells;
  k->dim = rows;
  snprintf(k->label, sizeof k->label, "file:%.80s", base_name(path));
  return CB_OK;
}

int cb_skew_parse(const char *spec, struct cb_skew *k, struct cb_error *err) {
  memset(k, 0, sizeof *k);
  if (strcmp(spec, "uniform") == 0) {
    snprintf(k->label, sizeof k->label, "uniform");
    return CB_OK;
  }
  if (strncmp(spec, "zipf:", 5) == 0) {
    char *end;
    errno = 0;
    double e = strtod(spec + 5, &end);
    if (end == spec + 5 || *end || errno || !(e >= 0 && e <= 10))
      return cb_fail(err, CB_USAGE, "--skew %s: the zipf exponent must be a number from 0 to 10",
                     spec);
    k->kind = CB_SKEW_ZIPF;
    k->exponent = e;
    snprintf(k->label, sizeof k->label, "zipf:%g", e);
    return CB_OK;
  }
  return parse_file(spec, k, err);
}

int cb_skew_bind(struct cb_skew *k, int nranks, struct cb_error *err) {
  if (k->nranks == nranks)
    return CB_OK;
  if (k->kind == CB_SKEW_FILE) {
    if (k->dim < nranks)
      return cb_fail(err, CB_USAGE,
                     "--skew %s: the matrix has %d rows for %d ranks; it needs at least %d",
                     k->label + 5, k->dim, nranks, nranks);
    uint64_t max = 0;
    for (int i = 0; i < nranks; i++) {
      uint64_t sum = 0;
      for (int j = 0; j < nranks; j++)
        sum += k->cells[(size_t)i * (size_t)k->dim + (size_t)j];
      max = sum > max ? sum : max;
    }
    if (max == 0)
      return cb_fail(err, CB_USAGE, "--skew %s: its first %d rows send nothing", k->label + 5,
                     nranks);
    k->max_row = max;
  }
  if (k->kind == CB_SKEW_ZIPF) {
    double *share = malloc((size_t)nranks * sizeof *share), sum = 0;
    if (!share)
      return cb_fail(err, CB_RUNTIME, "--skew %s: out of memory for %d ranks", k->label, nranks);
    for (int j = 0; j < nranks; j++)
      sum += share[j] = pow(j + 1.0, -k->exponent);
    for (int j = 0; j < nranks; j++)
      share[j] /= sum;
    free(k->share);
    k->share = share;
  }
  k->nranks = nranks;
  return CB_OK;
}

void cb_skew_free(struct cb_skew *k) {
  free(k->cells);
  free(k->share);
  memset(k, 0, sizeof *k);
}

/* Row i before rounding: its cells' weights and its share of the busiest
 * row's total. Uniform and zipf rows are all alike. */
static double weight(const struct cb_skew *k, int nranks, int i, int j) {
  if (!k || k->kind == CB_SKEW_UNIFORM)
    return 1.0 / nranks;
  if (k->kind == CB_SKEW_ZIPF)
    return k->share[j];
  return (double)k->cells[(size_t)i * (size_t)k->dim + (size_t)j];
}

struct part {
  double frac; /* what rounding down left of the cell */
  int j, dist; /* the peer, and how far after i it sits (ties go to the nearest) */
};

static int by_remainder(const void *a, const void *b) {
  const struct part *x = a, *y = b;
  if (x->frac != y->frac)
    return x->frac < y->frac ? 1 : -1;
  return x->dist - y->dist;
}

/* Largest remainders: each row sends exactly its total, a file's row its
 * sum scaled as the busiest row's is to `total`; an element left over by
 * rounding down goes to the cells that lost most, ties to the nearest peer
 * after i, so a uniform row's spare elements spread over the receivers. */
int cb_skew_row(const struct cb_skew *k, int nranks, size_t total, int i, size_t *counts) {
  struct part *p = malloc((size_t)nranks * sizeof *p);
  if (!p)
    return -1;
  size_t row = total, given = 0;
  if (k && k->kind == CB_SKEW_FILE) {
    unsigned __int128 sum = 0;
    for (int j = 0; j < nranks; j++)
      sum += k->cells[(size_t)i * (size_t)k->dim + (size_t)j];
    row = (size_t)(sum * total / k->max_row);
    for (int j = 0; j < nranks; j++) { /* exact in integers */
      unsigned __int128 x =
          (unsigned __int128)k->cells[(size_t)i * (size_t)k->dim + (size_t)j] * row;
      counts[j] = sum ? (size_t)(x / sum) : 0;
      p[j].frac = sum ? (double)(x % sum) / (double)sum : 0;
    }
  } else
    for (int j = 0; j < nranks; j++) {
      double x = (double)row * weight(k, nranks, i, j);
      counts[j] = (size_t)floor(x);
      p[j].frac = x - floor(x);
    }
  for (int j = 0; j < nranks; j++) {
    given += counts[j];
    p[j].j = j;
    p[j].dist = (j - i + nranks) % nranks;
  }
  qsort(p, (size_t)nranks, sizeof *p, by_remainder);
  for (int r = 0; given < row && r < nranks; r++, given++)
    counts[p[r].j]++;
  free(p);
  return 0;
}

int cb_skew_layout_alloc(struct cb_skew_layout *l, int nranks) {
  memset(l, 0, sizeof *l);
  size_t **arrays[] = {&l->send_counts, &l->send_displs, &l->recv_counts, &l->recv_displs,
                       &l->src_offsets};
  for (size_t a = 0; a < sizeof arrays / sizeof *arrays; a++)
    if (!(*arrays[a] = calloc((size_t)nranks, sizeof(size_t)))) {
      cb_skew_layout_free(l);
      return -1;
    }
  return 0;
}

void cb_skew_layout_free(struct cb_skew_layout *l) {
  free(l->send_counts), free(l->send_displs), free(l->recv_counts), free(l->recv_displs);
  free(l->src_offsets);
  memset(l, 0, sizeof *l);
}

int cb_skew_layout_fill(const struct cb_skew *k, int nranks, int rank, size_t total,
                        struct cb_skew_layout *l) {
  if (cb_skew_row(k, nranks, total, rank, l->send_counts))
    return -1;
  l->send_total = l->recv_total = 0;
  for (int j = 0; j < nranks; j++) {
    l->send_displs[j] = l->send_total;
    l->send_total += l->send_counts[j];
    /* sender j's row, borrowed: where rank's part of j's stream starts */
    if (cb_skew_row(k, nranks, total, j, l->recv_displs))
      return -1;
    l->src_offsets[j] = 0;
    for (int m = 0; m < rank; m++)
      l->src_offsets[j] += l->recv_displs[m];
    l->recv_counts[j] = l->recv_displs[rank];
  }
  for (int j = 0; j < nranks; j++) {
    l->recv_displs[j] = l->recv_total;
    l->recv_total += l->recv_counts[j];
  }
  return 0;
}

int cb_skew_extremes(const struct cb_skew *k, int nranks, size_t total, size_t *max_send,
                     size_t *max_recv) {
  *max_send = *max_recv = 0;
  size_t *row = malloc((size_t)nranks * sizeof *row), *recv = calloc((size_t)nranks, sizeof *recv);
  int rc = row && recv ? 0 : -1;
  for (int i = 0; i < nranks && !rc; i++) {
    size_t send = 0;
    if ((rc = cb_skew_row(k, nranks, total, i, row)))
      break;
    for (int j = 0; j < nranks; j++)
      send += row[j], recv[j] += row[j];
    *max_send = send > *max_send ? send : *max_send;
  }
  for (int j = 0; j < nranks && !rc; j++)
    *max_recv = recv[j] > *max_recv ? recv[j] : *max_recv;
  free(row), free(recv);
  return rc;
}
