/* --junit FILE: acceptance verdicts as JUnit XML, the format CI systems
 * (Jenkins, GitLab, GitHub actions) show as test results: one test case per
 * verdict, FAIL as a failure, WARN passing with its message in system-out.
 * Written at the end through a temporary file and a rename, like --prom. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/text.h"
#include "replace.h"
#include "sink.h"

struct junit_case {
  char *name, *message;
  int status; /* enum cb_verdict_status, or CASE_ERROR */
};

/* A run that reached no verdict: a configuration (exit 2) or runtime
 * (exit 3) error, as JUnit's <error>. */
#define CASE_ERROR (-1)

/* Set once this process wrote the verdicts: an error after that (a
 * failed close of another output) must not replace them. */
static int verdicts_written;

struct junit {
  char *path;
  struct junit_case *cases;
  int n, cap;
};

static void xml_escape(FILE *f, const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s >= 0x80) {
      /* the file says UTF-8: a byte that is not part of a well-formed
       * sequence becomes U+FFFD, so report readers do not refuse the file */
      int n = cb_utf8_len((const unsigned char *)s);
      if (n) {
        fwrite(s, 1, (size_t)n, f);
        s += n - 1;
      } else {
        fputs("\xef\xbf\xbd", f);
      }
    } else
      switch (*s) {
      case '&': fputs("&amp;", f); break;
      case '<': fputs("&lt;", f); break;
      case '>': fputs("&gt;", f); break;
      case '"': fputs("&quot;", f); break;
      case '\'': fputs("&apos;", f); break;
      default:
        /* XML 1.0 has no way to carry other control characters */
        if ((unsigned char)*s >= 0x20 || *s == '\n' || *s == '\t')
          fputc(*s, f);
      }
}

static int junit_verdict(void *state, const struct cb_verdict *v, struct cb_error *err) {
  struct junit *j = state;
  if (j->n == j->cap) {
    int cap = j->cap ? 2 * j->cap : 16;
    struct junit_case *more = realloc(j->cases, (size_t)cap * sizeof *more);
    if (!more)
      return cb_fail(err, CB_RUNTIME, "--junit: out of memory");
    j->cases = more;
    j->cap = cap;
  }
  char message[1536], measured[32] = "none";
  if (!isnan(v->measured))
    snprintf(measured, sizeof measured, "%.4g %s", v->measured, v->unit);
  char levels[64] = "";
  if (!isnan(v->fail))
    snprintf(levels, sizeof levels, ", fail level %.4g %s", v->fail, v->unit);
  else if (!isnan(v->warn))
    snprintf(levels, sizeof levels, ", warn level %.4g %s", v->warn, v->unit);
  int at = snprintf(message, sizeof message, "%s: measured %s%s; %s", cb_verdict_names[v->status],
                    measured, levels, v->what);
  if (v->expected && at > 0 && (size_t)at < sizeof message)
    at += snprintf(message + at, sizeof message - at, "; expected %.4g %s (%s, %s)",
                   v->expected->value, v->unit, v->expected->source, v->expected->pick);
  char cost[320];
  if (v->cost && at > 0 && (size_t)at < sizeof message)
    at += snprintf(message + at, sizeof message - at, "; cost: %s",
                   cb_cost_text(v->cost, cost, sizeof cost));
  for (int i = 0; v->causes && i < v->causes->n && at > 0 && (size_t)at < sizeof message; i++)
    at += snprintf(message + at, sizeof message - at, "%s %s %s: %s",
                   i ? ";" : "; likely cause:", v->causes->c[i].host, v->causes->c[i].device,
                   v->causes->c[i].text);
  if (v->causes && v->causes->n == 0 && at > 0 && (size_t)at < sizeof message)
    snprintf(message + at, sizeof message - at, "; no cause found in the evidence gathered");
  struct junit_case *c = &j->cases[j->n];
  c->name = strdup(v->name);
  c->message = strdup(message);
  c->status = v->status;
  if (!c->name || !c->message) {
    free(c->name);
    free(c->message);
    return cb_fail(err, CB_RUNTIME, "--junit: out of memory");
  }
  j->n++;
  return CB_OK;
}

static int write_xml(void *state, FILE *f) {
  const struct junit *j = state;
  int failures = 0, errors = 0;
  for (int i = 0; i < j->n; i++) {
    failures += j->cases[i].status == CB_FAIL;
    errors += j->cases[i].status == CB_INCONCLUSIVE || j->cases[i].status == CASE_ERROR;
  }
  fprintf(f,
          "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
          "<testsuites tests=\"%d\" failures=\"%d\" errors=\"%d\">\n"
          "  <testsuite name=\"collbench acceptance\" tests=\"%d\" failures=\"%d\" "
          "errors=\"%d\">\n",
          j->n, failures, errors, j->n, failures, errors);
  for (int i = 0; i < j->n; i++) {
    const struct junit_case *c = &j->cases[i];
    fputs("    <testcase classname=\"collbench.acceptance\" name=\"", f);
    xml_escape(f, c->name);
    fputs("\">\n", f);
    if (c->status == CB_FAIL) {
      fputs("      <failure message=\"", f);
      xml_escape(f, c->message);
      fputs("\"/>\n", f);
    } else if (c->status == CB_INCONCLUSIVE || c->status == CASE_ERROR) {
      /* JUnit's error: no result was reached, which is neither a pass nor
       * a measured failure */
      fprintf(f, "      <error type=\"%s\" message=\"",
              c->status == CASE_ERROR ? c->name : "inconclusive");
      xml_escape(f, c->message);
      fputs("\"/>\n", f);
    }
    fputs("      <system-out>", f);
    xml_escape(f, c->message);
    fputs("</system-out>\n    </testcase>\n", f);
  }
  fputs("  </testsuite>\n</testsuites>\n", f);
  return ferror(f);
}

static int junit_finish(void *state, const struct cb_summary *sum, struct cb_error *err) {
  struct junit *j = state;
  (void)sum;
  int rc = cb_replace_write(j->path, "--junit", write_xml, j, err);
  verdicts_written |= rc == CB_OK;
  return rc;
}

int cb_junit_write_error(const char *path, const struct cb_error *error) {
  if (verdicts_written)
    return CB_OK;
  int usage = error->status == CB_USAGE;
  char name[32], message[sizeof error->msg + 64];
  snprintf(name, sizeof name, "%s", usage ? "configuration" : "runtime");
  snprintf(message, sizeof message, "%s error (exit %d): %s", name, error->status, error->msg);
  struct junit_case c = {name, message, CASE_ERROR};
  struct junit j = {(char *)path, &c, 1, 1};
  struct cb_error ignored = {0}; /* the run's own error is the one reported */
  return cb_replace_write(path, "--junit", write_xml, &j, &ignored);
}

static int junit_close(void *state, struct cb_error *err) {
  (void)err;
  struct junit *j = state;
  for (int i = 0; i < j->n; i++) {
    free(j->cases[i].name);
    free(j->cases[i].message);
  }
  free(j->cases);
  free(j->path);
  free(j);
  return CB_OK;
}

int cb_sink_junit(const char *path, struct cb_sink *sink, struct cb_error *err) {
  if (cb_output_check(path, "--junit", CB_OUT_REPLACE, err))
    return err->status;
  struct junit *j = calloc(1, sizeof *j);
  if (!j || !(j->path = strdup(path))) {
    free(j);
    return cb_fail(err, CB_RUNTIME, "out of memory");
  }
  *sink = (struct cb_sink){
      .state = j, .verdict = junit_verdict, .finish = junit_finish, .close = junit_close};
  return CB_OK;
}
