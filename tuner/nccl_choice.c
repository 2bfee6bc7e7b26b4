/* NCCL_ALGO and NCCL_PROTO as NCCL reads them, and the values --env-out writes for them
 * (nccl_choice.h says more). */
#include "nccl_choice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plugin.h"

#define LL128 2 /* 1 + its index in cb_nccl_proto_env */

int cb_nccl_launch_index(const char *var, const char *value, const char *const *names, int n,
                         int *index, struct cb_error *err) {
  unsigned char on[16];
  *index = 0;
  if (n > 16 || cb_nccl_parse_env(var, value, "allreduce", names, n, on, err))
    return n > 16 ? cb_fail(err, CB_USAGE, "%s: too many names", var) : err->status;
  int count = 0;
  for (int i = 0; i < n; i++)
    if (on[i])
      count++, *index = i + 1;
  if (count == 0)
    return cb_fail(err, CB_USAGE, "%s='%s' leaves all-reduce nothing to run", var, value);
  if (count > 1)
    *index = 0;
  return CB_OK;
}

const char *cb_nccl_measure_value(const char *launch, int launch_index, int index,
                                  const char *const *names) {
  if (index > 0)
    return names[index - 1];
  return launch && launch_index == 0 ? launch : NULL;
}

static void note(struct cb_nccl_env_out *out, const char *text) {
  if (out->nnotes < CB_NCCL_NOTES)
    snprintf(out->notes[out->nnotes++], sizeof out->notes[0], "%s", text);
}

/* One variable: the tuned all-reduce's choice, or the launch value that
 * was in effect for NCCL's choice, or nothing. */
static void one(struct cb_nccl_env_out *out, const char *var, int per_coll, int tuned,
                const char *launch, int launch_index, const char *const *names) {
  char *v = out->values[out->nvars];
  size_t len = sizeof out->values[0];
  char text[512];
  if (tuned > 0 && per_coll)
    snprintf(v, len, "%s%sallreduce:%s", launch ? launch : "", launch ? ";" : "", names[tuned - 1]);
  else if (tuned > 0)
    snprintf(v, len, "%s", names[tuned - 1]);
  else if (launch && launch_index == 0)
    snprintf(v, len, "%s", launch);
  else {
    if (launch) {
      snprintf(text, sizeof text,
               "%s: NCCL's own choice was fastest for all-reduce: unset %s (the launch value "
               "'%s' forced one)",
               var, var, launch);
      note(out, text);
    }
    return;
  }
  out->vars[out->nvars] = (struct cb_env_var){var, v};
  out->nvars++;
}

void cb_nccl_env_vars(const struct cb_nccl_env_in *in, struct cb_nccl_env_out *out) {
  memset(out, 0, sizeof *out);
  int per_coll = in->version >= CB_NCCL_PER_COLL_VERSION, proto = in->protocol;
  if (proto == LL128 && !in->ll128_proven) {
    /* NCCL's docs: forcing LL128 where NCCL does not enable it itself can
     * corrupt data silently, and forcing skips NCCL's own path checks
     * (space.c only knows the compute capability) */
    note(out, "NCCL_PROTO: LL128 measured fastest, but its all-reduce results were not "
              "checked on this run (--plugin-out checks them): not written, because forcing "
              "LL128 where NCCL does not enable it itself can corrupt data");
    proto = 0;
  }
  one(out, "NCCL_ALGO", per_coll, in->algorithm, in->launch_algo, in->launch_algo_index,
      cb_nccl_algo_env);
  one(out, "NCCL_PROTO", per_coll, proto, in->launch_proto, in->launch_proto_index,
      cb_nccl_proto_env);
  int forced = in->algorithm > 0 || proto > 0;
  if (forced && per_coll)
    note(out, "NCCL_ALGO/NCCL_PROTO name all-reduce only ('allreduce:NAME', NCCL >= 2.24; "
              "other collectives keep NCCL's choice). NCCL before 2.24 reads the whole value "
              "as one unknown name (every algorithm off, Ring for all; every protocol off, "
              "every collective fails): there write the bare name, e.g. NCCL_ALGO='Ring'");
  else if (forced) {
    char text[512];
    snprintf(text, sizeof text,
             "NCCL %d.%d reads bare names only, which apply to every collective (one that "
             "cannot run the name falls back to Ring before 2.24); from NCCL 2.24 such a "
             "collective fails instead: write 'allreduce:NAME' there",
             in->version / 10000, in->version / 100 % 100);
    note(out, text);
  }
}

const char *cb_nccl_cta_env_set(void) {
  static const char *const vars[] = {"NCCL_MIN_CTAS", "NCCL_MAX_CTAS", "NCCL_MIN_NCHANNELS",
                                     "NCCL_MAX_NCHANNELS"};
  for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
    const char *v = getenv(vars[i]);
    if (v && *v) /* NCCL ignores an empty value (misc/param.cc) */
      return vars[i];
  }
  return NULL;
}

int cb_nccl_pair_refused(int code, const char *last) {
  enum { INTERNAL_ERROR = 3, INVALID_USAGE = 5 }; /* nccl.h, ncclResult_t */
  return (code == INTERNAL_ERROR || code == INVALID_USAGE) && last &&
         strstr(last, "no algorithm/protocol available") != NULL;
}

int cb_nccl_fail(struct cb_error *err, const char *where, const char *call, int code,
                 const char *code_text, const char *last) {
  char text[512] = "";
  size_t n = 0;
  for (const char *p = last; p && *p && n + 1 < sizeof text; p++)
    text[n++] = (unsigned char)*p < 0x20 ? ' ' : *p;
  while (n > 0 && text[n - 1] == ' ')
    n--;
  text[n] = 0;
  return cb_fail(err, CB_RUNTIME, "%s: --tune nccl: %s failed: %s (%d)%s%s", where, call,
                 code_text ? code_text : "?", code, n ? ": " : "", text);
}
