/* Command-line numbers: sizes with binary suffixes, bounded integers and
 * decimals (with %), and the human form of sizes used in messages. */
#include <stdint.h>
#include <string.h>

#include "base/units.h"
#include "tap.h"

static void size_ok(const char *s, uint64_t want) {
  struct cb_error err = {0};
  uint64_t got = 0;
  int rc = cb_parse_size(s, "--min-bytes", &got, &err);
  ok(rc == CB_OK && err.status == CB_OK && got == want, "size '%s' = %llu (rc %d, got %llu)", s,
     (unsigned long long)want, rc, (unsigned long long)got);
}

/* A rejected size is a usage error naming the option and the bad text, and
 * leaves the output alone. */
static void size_bad(const char *s) {
  struct cb_error err = {0};
  uint64_t got = 12345;
  int rc = cb_parse_size(s, "--max-bytes", &got, &err);
  char quoted[128];
  snprintf(quoted, sizeof quoted, "'%s'", s);
  ok(rc == CB_USAGE && err.status == CB_USAGE && strstr(err.msg, quoted) &&
         strstr(err.msg, "--max-bytes") && got == 12345,
     "size '%s' rejected: rc %d, \"%s\"", s, rc, err.msg);
}

static void test_sizes(void) {
  size_ok("8", 8);
  size_ok("64K", 64 << 10);
  size_ok("1M", 1 << 20);
  size_ok("2G", UINT64_C(2) << 30);
  size_ok("1KiB", 1024);
  size_ok("4kB", 4000); /* SI: KB, MB, GB, TB are powers of ten (issue 40) */
  size_ok("1GB", 1000000000);
  size_ok("2MB", 2000000);
  size_ok("1GiB", UINT64_C(1) << 30);
  size_ok("1MiB", 1 << 20);
  size_ok("3T", UINT64_C(3) << 40);
  size_ok("8G", UINT64_C(8) << 30);
  size_ok("4194304G", UINT64_C(1) << 52);

  const char *bad[] = {
      "",  "abc", "12Q", "0",  "-5",  "1.5M", "99999999999999999999", "5000000000G", "1i",
      "K", "8 ",  "1MM", "0K", "1e3", "+8"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    size_bad(bad[i]);

  /* The cap is 2^62 bytes, so later products with rank counts cannot wrap. */
  size_ok("4294967296G", UINT64_C(1) << 62);
  size_bad("4294967297G");

  /* The first error is the root cause: a later one must not overwrite it. */
  struct cb_error err = {0};
  uint64_t v;
  cb_parse_size("abc", "--first", &v, &err);
  int rc = cb_parse_size("xyz", "--second", &v, &err);
  ok(rc == CB_USAGE && strstr(err.msg, "--first") && !strstr(err.msg, "xyz"),
     "first error kept: \"%s\"", err.msg);
}

static void test_longs(void) {
  struct cb_error err = {0};
  long v = 0;
  ok(cb_parse_long("10", "--iters", 1, 100, &v, &err) == CB_OK && v == 10, "long 10 in [1,100]");
  ok(cb_parse_long("1", "--iters", 1, 100, &v, &err) == CB_OK && v == 1, "long: min inclusive");
  ok(cb_parse_long("100", "--iters", 1, 100, &v, &err) == CB_OK && v == 100, "long: max inclusive");
  ok(cb_parse_long("0", "--warmup", 0, 5, &v, &err) == CB_OK && v == 0, "long: 0 when min is 0");

  const struct {
    const char *s;
    long min, max;
  } bad[] = {
      {"0", 1, 100},     {"101", 1, 100}, {"-5", 1, 100},
      {"", 1, 100},      {"abc", 1, 100}, {"10x", 1, 100},
      {"1K", 1, 100000}, {"1.5", 1, 100}, {"99999999999999999999", 1, 100},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct cb_error e = {0};
    v = 777;
    int rc = cb_parse_long(bad[i].s, "--iters", bad[i].min, bad[i].max, &v, &e);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i].s);
    ok(rc == CB_USAGE && strstr(e.msg, quoted) && strstr(e.msg, "--iters") && v == 777,
       "long '%s' in [%ld,%ld] rejected: \"%s\"", bad[i].s, bad[i].min, bad[i].max, e.msg);
  }
}

static void test_doubles(void) {
  struct cb_error err = {0};
  double v = 0;
  ok(cb_parse_double("1%", "--precision", 1e-4, 0.5, &v, &err) == CB_OK, "double '1%%' parses");
  is_double(v, 0.01, 1e-15, "'1%%' == 0.01");
  ok(cb_parse_double("0.05", "--precision", 1e-4, 0.5, &v, &err) == CB_OK && v == 0.05,
     "double 0.05");
  ok(cb_parse_double("2.5%", "--precision", 1e-4, 0.5, &v, &err) == CB_OK && v == 2.5 / 100.0,
     "double 2.5%%");
  ok(cb_parse_double("0.5", "--precision", 1e-4, 0.5, &v, &err) == CB_OK && v == 0.5,
     "double: max inclusive");
  ok(cb_parse_double("1e2", "--timeout", 0, 1e6, &v, &err) == CB_OK && v == 100,
     "double: exponent form");

  const char *bad[] = {"0", "0.6", "60%", "",      "abc",   "1%%",
                       "%", "nan", "inf", "1e999", "0.01x", "-1%"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct cb_error e = {0};
    v = 7;
    int rc = cb_parse_double(bad[i], "--precision", 1e-4, 0.5, &v, &e);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
    ok(rc == CB_USAGE && strstr(e.msg, quoted) && strstr(e.msg, "--precision") && v == 7,
       "double '%s' rejected: \"%s\"", bad[i], e.msg);
  }
}

static void test_format(void) {
  char buf[32];
  is_str(cb_format_size(1048576, buf, sizeof buf), "1 MiB", "format 1048576");
  is_str(cb_format_size(1536, buf, sizeof buf), "1536 B", "format 1536 (not a whole KiB)");
  is_str(cb_format_size(8, buf, sizeof buf), "8 B", "format 8");
  is_str(cb_format_size(0, buf, sizeof buf), "0 B", "format 0");
  is_str(cb_format_size(64 << 10, buf, sizeof buf), "64 KiB", "format 64K");
  is_str(cb_format_size(UINT64_C(3) << 30, buf, sizeof buf), "3 GiB", "format 3G");
  is_str(cb_format_size(UINT64_C(1) << 50, buf, sizeof buf), "1024 TiB", "format stops at TiB");
  is_str(cb_format_size((UINT64_C(1) << 20) + 1024, buf, sizeof buf), "1025 KiB", "format 1M+1K");
  /* round trip through the parser */
  uint64_t back = 0;
  struct cb_error err = {0};
  cb_format_size(UINT64_C(5) << 20, buf, sizeof buf);
  buf[strcspn(buf, " ")] = '\0'; /* "5 MiB" -> "5" + suffix below */
  strcat(buf, "MiB");
  ok(cb_parse_size(buf, "x", &back, &err) == CB_OK && back == UINT64_C(5) << 20,
     "format/parse round trip via '%s'", buf);
  char small[4];
  cb_format_size(1048576, small, sizeof small);
  is_str(small, "1 M", "format truncates to the buffer");
}

/* Comma lists: each item parsed like a single value, bounded in count. */
static void test_lists(void) {
  struct cb_error err = {0};
  uint64_t sizes[3];
  long counts[2];
  int n = -1;
  ok(cb_parse_size_list("1M,4K,8", "--size", 0, sizes, 3, &n, &err) == CB_OK && n == 3 &&
         sizes[0] == 1 << 20 && sizes[1] == 4096 && sizes[2] == 8,
     "size list 1M,4K,8 (%s)", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_parse_size_list("1M,2G", "--tune-buckets", 1 << 30, sizes, 3, &n, &err) == CB_USAGE &&
         strstr(err.msg, "'2G'") && strstr(err.msg, "--tune-buckets"),
     "an item over the largest is refused, named: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_parse_size_list("1,2,3,4", "--size", 0, sizes, 3, &n, &err) == CB_USAGE &&
         strstr(err.msg, "at most 3"),
     "a list over its bound is refused: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_parse_size_list(",", "--size", 0, sizes, 3, &n, &err) == CB_USAGE &&
         strstr(err.msg, "empty"),
     "an empty list is refused: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_parse_size_list("1M,x", "--size", 0, sizes, 3, &n, &err) == CB_USAGE &&
         strstr(err.msg, "'x'"),
     "a bad item is named: %s", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_parse_long_list("8,16", "--gpus", 1, 100, counts, 2, &n, &err) == CB_OK && n == 2 &&
         counts[0] == 8 && counts[1] == 16,
     "long list 8,16 (%s)", err.msg);
  memset(&err, 0, sizeof err);
  ok(cb_parse_long_list("8,0", "--gpus", 1, 100, counts, 2, &n, &err) == CB_USAGE &&
         strstr(err.msg, "--gpus"),
     "a long item under its minimum is refused: %s", err.msg);
}

/* issue 56: decimal durations only, at most 365 days */
static void test_durations(void) {
  struct cb_error err = {0};
  double v = 0;
  ok(cb_parse_duration("1.5h", "--duration", &v, &err) == CB_OK && v == 5400, "1.5h is 5400 s");
  ok(cb_parse_duration("365d", "--duration", &v, &err) == CB_OK && v == 365 * 86400.0,
     "365d is a year, taken");
  const char *bad[] = {"366d", "0x1", "0x1p3s", "1e3", "1e3s", "1.2.3s", ".5h", "5 s"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct cb_error e = {0};
    int rc = cb_parse_duration(bad[i], "--duration", &v, &e);
    ok(rc == CB_USAGE && strstr(e.msg, bad[i]), "--duration '%s' refused naming it: %s", bad[i],
       e.msg);
  }
  ok(cb_parse_double("0x10", "--timeout", 0, 1e6, &v, &err) == CB_USAGE,
     "a hexadecimal number is refused (0x10)");
}

int main(void) {
  test_sizes();
  test_durations();
  test_longs();
  test_doubles();
  test_format();
  test_lists();
  done_testing();
  return exit_status();
}
