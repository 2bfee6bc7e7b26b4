/* A tiny header-only TAP producer for the unit tests (prove reads it).
 *
 *   plan(n) up front, or done_testing() at the end;
 *   ok(cond, fmt, ...), is_long(got, want, fmt, ...),
 *   is_double(got, want, tol, fmt, ...), is_str(got, want, fmt, ...);
 *   diag(fmt, ...) for a '#' comment; main returns exit_status().
 *
 * Test names are printf formats so loops can say which case failed. Every
 * check returns its verdict, so a test can stop early on failure. */
#ifndef CB_TAP_H
#define CB_TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define TAP_PRINTF(f, a) __attribute__((format(printf, f, a)))

static int tap_run, tap_failed, tap_planned = -1;

static inline void plan(int n) {
  tap_planned = n;
  printf("1..%d\n", n);
  fflush(stdout);
}

static inline void done_testing(void) {
  if (tap_planned < 0) {
    tap_planned = tap_run;
    printf("1..%d\n", tap_run);
    fflush(stdout);
  }
}

/* Diagnostics go to stderr, as Test::More does, so prove shows them. */
static inline TAP_PRINTF(1, 2) void diag(const char *fmt, ...) {
  va_list ap;
  fflush(stdout);
  fputs("# ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
}

static inline int tap_vresult(int pass, const char *fmt, va_list ap) {
  tap_run++;
  if (!pass)
    tap_failed++;
  printf("%sok %d - ", pass ? "" : "not ", tap_run);
  vprintf(fmt, ap);
  putchar('\n');
  fflush(stdout);
  return pass;
}

static inline TAP_PRINTF(2, 3) int ok(int cond, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int pass = tap_vresult(cond != 0, fmt, ap);
  va_end(ap);
  return pass;
}

static inline TAP_PRINTF(3, 4) int is_long(long got, long want, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int pass = tap_vresult(got == want, fmt, ap);
  va_end(ap);
  if (!pass)
    diag("     got: %ld\n#   expected: %ld", got, want);
  return pass;
}

/* Passes when |got - want| <= tol (and when both are the same infinity). */
static inline TAP_PRINTF(4, 5) int is_double(double got, double want, double tol, const char *fmt,
                                             ...) {
  va_list ap;
  va_start(ap, fmt);
  int pass = tap_vresult(got == want || fabs(got - want) <= tol, fmt, ap);
  va_end(ap);
  if (!pass)
    diag("     got: %.17g\n#   expected: %.17g (tolerance %g)", got, want, tol);
  return pass;
}

/* NULL equals only NULL. */
static inline TAP_PRINTF(3, 4) int is_str(const char *got, const char *want, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int same = (got && want) ? strcmp(got, want) == 0 : got == want;
  int pass = tap_vresult(same, fmt, ap);
  va_end(ap);
  if (!pass)
    diag("     got: %s%s%s\n#   expected: %s%s%s", got ? "'" : "", got ? got : "(null)",
         got ? "'" : "", want ? "'" : "", want ? want : "(null)", want ? "'" : "");
  return pass;
}

/* Non-zero when a test failed or the plan was not met; like Test::More,
 * the number of failures (at most 254), or 255 for a wrong count. */
static inline int exit_status(void) {
  if (tap_planned >= 0 && tap_run != tap_planned) {
    diag("planned %d tests but ran %d", tap_planned, tap_run);
    return tap_failed ? (tap_failed > 254 ? 254 : tap_failed) : 255;
  }
  if (tap_planned < 0) {
    diag("no plan: call plan(n) or done_testing()");
    return 255;
  }
  if (tap_failed)
    diag("failed %d of %d tests", tap_failed, tap_run);
  return tap_failed > 254 ? 254 : tap_failed;
}

#endif
