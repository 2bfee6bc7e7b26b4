/* Parsing and printing of sizes, counts and durations given on the command line (units.h says
 * more). */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cb_parse_size(const char *s, const char *what, uint64_t *out, struct cb_error *err) {
  const char *p = s;
  while (isspace((unsigned char)*p))
    p++;
  if (!isdigit((unsigned char)*p))
    return cb_fail(err, CB_USAGE, "%s: '%s' is not a size (expected e.g. 8, 64K, 1M, 2G)", what, s);
  errno = 0;
  char *end;
  unsigned long long value = strtoull(p, &end, 10);
  if (errno == ERANGE)
    return cb_fail(err, CB_USAGE, "%s: '%s' is too large", what, s);
  unsigned shift = 0;
  switch (toupper((unsigned char)*end)) {
  case 'K':
    shift = 10;
    end++;
    break;
  case 'M':
    shift = 20;
    end++;
    break;
  case 'G':
    shift = 30;
    end++;
    break;
  case 'T':
    shift = 40;
    end++;
    break;
  default: break;
  }
  /* K, Ki, KiB binary as nccl-tests reads them; KB, MB, GB, TB the SI
   * powers of ten their names say (1GB once silently meant 1 GiB) */
  int decimal = 0;
  if (shift && *end == 'i')
    end++;
  else if (shift && (*end == 'B' || *end == 'b') && end[1] == '\0')
    decimal = 1;
  if (*end == 'B' || *end == 'b')
    end++;
  if (*end != '\0')
    return cb_fail(err, CB_USAGE, "%s: '%s' is not a size (expected e.g. 8, 64K, 1M, 2G)", what, s);
  if (value == 0)
    return cb_fail(err, CB_USAGE, "%s: size must be positive, got '%s'", what, s);
  /* 2^62 bytes keeps every later multiplication by a rank count sane. */
  if (value > (UINT64_C(1) << 62) >> shift)
    return cb_fail(err, CB_USAGE, "%s: '%s' is too large", what, s);
  *out = (uint64_t)value << shift;
  if (decimal) { /* value * 1000^(shift/10): no more than value << shift */
    *out = value;
    for (unsigned k = 0; k < shift / 10; k++)
      *out *= 1000;
  }
  return CB_OK;
}

int cb_parse_long(const char *s, const char *what, long min, long max, long *out,
                  struct cb_error *err) {
  errno = 0;
  char *end;
  long value = strtol(s, &end, 10);
  if (end == s || *end != '\0' || errno == ERANGE)
    return cb_fail(err, CB_USAGE, "%s: '%s' is not an integer", what, s);
  if (value < min || value > max)
    return cb_fail(err, CB_USAGE, "%s: '%s' is out of range [%ld, %ld]", what, s, min, max);
  *out = value;
  return CB_OK;
}

int cb_parse_double(const char *s, const char *what, double min, double max, double *out,
                    struct cb_error *err) {
  errno = 0;
  char *end;
  double value = strtod(s, &end);
  /* decimal only: strtod also takes hexadecimal (0x1p3), which no one means */
  if (end == s || errno == ERANGE || !isfinite(value) || strpbrk(s, "xX"))
    return cb_fail(err, CB_USAGE, "%s: '%s' is not a number", what, s);
  if (*end == '%') {
    value /= 100.0;
    end++;
  }
  if (*end != '\0')
    return cb_fail(err, CB_USAGE, "%s: '%s' is not a number", what, s);
  if (value < min || value > max)
    return cb_fail(err, CB_USAGE, "%s: '%s' is out of range [%g, %g]", what, s, min, max);
  *out = value;
  return CB_OK;
}

int cb_parse_seconds(const char *s, const char *what, double min, double max, double *out,
                     struct cb_error *err) {
  if (strchr(s, '%'))
    return cb_fail(err, CB_USAGE, "%s: '%s' is not a number of seconds", what, s);
  return cb_parse_double(s, what, min, max, out, err);
}

int cb_parse_duration(const char *s, const char *what, double *out, struct cb_error *err) {
  static const struct {
    char unit;
    double seconds;
  } units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  /* digits, at most one point, then the unit: strtod alone takes 0x1p3 and 1e3 */
  size_t digits = strspn(s, "0123456789");
  if (s[digits] == '.')
    digits += 1 + strspn(s + digits + 1, "0123456789");
  errno = 0;
  char *end;
  double v = strtod(s, &end);
  if (end == s || end != s + digits || errno == ERANGE || !isfinite(v) ||
      !isdigit((unsigned char)s[0]))
    return cb_fail(err, CB_USAGE, "%s: '%s' is not a duration (e.g. 90s, 30m, 4h, 2d)", what, s);
  double scale = 0;
  for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
    if (end[0] == units[i].unit && end[1] == '\0')
      scale = units[i].seconds;
  if (end[0] == '\0')
    scale = 1;
  if (scale == 0)
    return cb_fail(err, CB_USAGE, "%s: '%s': unknown unit '%s' (s, m, h or d)", what, s, end);
  v *= scale;
  if (v <= 0)
    return cb_fail(err, CB_USAGE, "%s: '%s' is not a positive duration", what, s);
  if (v > CB_MAX_DURATION)
    return cb_fail(err, CB_USAGE, "%s: '%s' is longer than a year (365 days)", what, s);
  *out = v;
  return CB_OK;
}

int cb_list_check(const char *s, const char *what, struct cb_error *err) {
  size_t n = strlen(s);
  if (n && (s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,")))
    return cb_fail(err, CB_USAGE, "%s: empty item in the list '%s'", what, s);
  return CB_OK;
}

const char *cb_format_size(uint64_t bytes, char *buf, size_t len) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  uint64_t v = bytes;
  while (u < 4 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    u++;
  }
  snprintf(buf, len, "%" PRIu64 " %s", v, units[u]);
  return buf;
}

/* Splits a comma list and hands each item to `item` with its index. */
static int each_item(const char *s, const char *what, int maxn, int *n,
                     int (*item)(const char *tok, int i, void *ctx, struct cb_error *err),
                     void *ctx, struct cb_error *err) {
  char copy[1024], *save = NULL;
  if (snprintf(copy, sizeof copy, "%s", s) >= (int)sizeof copy)
    return cb_fail(err, CB_USAGE, "%s: list '%s' is too long", what, s);
  if (cb_list_check(s, what, err))
    return err->status;
  *n = 0;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (*n == maxn)
      return cb_fail(err, CB_USAGE, "%s: at most %d values", what, maxn);
    if (item(tok, *n, ctx, err))
      return err->status;
    (*n)++;
  }
  return *n ? CB_OK : cb_fail(err, CB_USAGE, "%s: empty list '%s'", what, s);
}

struct size_list {
  const char *what;
  uint64_t largest, *out;
};

static int size_item(const char *tok, int i, void *ctx, struct cb_error *err) {
  struct size_list *l = ctx;
  char limit[32];
  if (cb_parse_size(tok, l->what, &l->out[i], err))
    return err->status;
  if (l->largest && l->out[i] > l->largest)
    return cb_fail(err, CB_USAGE, "%s: '%s' is above %s", l->what, tok,
                   cb_format_size(l->largest, limit, sizeof limit));
  return CB_OK;
}

int cb_parse_size_list(const char *s, const char *what, uint64_t largest, uint64_t *out, int maxn,
                       int *n, struct cb_error *err) {
  struct size_list l = {what, largest, out};
  return each_item(s, what, maxn, n, size_item, &l, err);
}

struct long_list {
  const char *what;
  long min, max, *out;
};

static int long_item(const char *tok, int i, void *ctx, struct cb_error *err) {
  struct long_list *l = ctx;
  return cb_parse_long(tok, l->what, l->min, l->max, &l->out[i], err);
}

int cb_parse_long_list(const char *s, const char *what, long min, long max, long *out, int maxn,
                       int *n, struct cb_error *err) {
  struct long_list l = {what, min, max, out};
  return each_item(s, what, maxn, n, long_item, &l, err);
}

double cb_line_rate_percent(double GBps, double gbps) {
  return gbps > 0 ? GBps * 8.0 / gbps * 100.0 : 0.0;
}

const char *cb_chance_text(double p, char *buf, size_t len) {
  if (p < 0.001)
    snprintf(buf, len, "under 0.1%%");
  else if (p > 0.999)
    snprintf(buf, len, "over 99.9%%");
  else
    snprintf(buf, len, "%.*f%%", p < 0.1 ? 1 : 0, 100 * p);
  return buf;
}
