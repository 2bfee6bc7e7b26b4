/* What NCCL ran, from collbench's profiler plugin (nccl_ran.h says more). */
#define _GNU_SOURCE /* RTLD_NOLOAD */
#include "nccl_ran.h"

#include "nccl_env.h"

#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define PLUGIN_NAME "libnccl-profiler-collbench.so"

void cb_nccl_ran_setup(void) {
  const char *set = getenv("NCCL_PROFILER_PLUGIN");
  if (set && *set)
    return;
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash)
    return;
  *slash = '\0';
  static const char *const beside[] = {"/build/" PLUGIN_NAME, "/../lib/" PLUGIN_NAME};
  char path[4200];
  for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
    snprintf(path, sizeof path, "%s%s", exe, beside[i]);
    if (access(path, R_OK) == 0) {
      setenv("NCCL_PROFILER_PLUGIN", path, 0);
      return;
    }
  }
}

/* `symbol` of the copy of collbench's profiler NCCL loaded; NULL when NCCL loaded none or
 * another profiler. */
static void *plugin_symbol(const char *symbol) {
  const char *path = getenv("NCCL_PROFILER_PLUGIN");
  if (!path || !strstr(path, PLUGIN_NAME))
    return NULL;
  void *lib = dlopen(path, RTLD_NOW | RTLD_NOLOAD); /* NCCL's copy, or none */
  if (!lib)
    return NULL;
  void *sym = dlsym(lib, symbol);
  dlclose(lib); /* NCCL still holds it */
  return sym;
}

cb_ran_take_fn cb_nccl_ran_find(void) {
  cb_ran_take_fn take;
  *(void **)&take = plugin_symbol(CB_RAN_TAKE_SYMBOL);
  return take;
}

int cb_nccl_ran_version(void) {
  int (*version)(void);
  *(void **)&version = plugin_symbol(CB_RAN_VERSION_SYMBOL);
  return version ? version() : 0;
}

static int by_calls(const void *a, const void *b) {
  long x = ((const struct cb_ran *)a)->calls, y = ((const struct cb_ran *)b)->calls;
  return (x < y) - (x > y);
}

void cb_nccl_ran_format(struct cb_ran *r, int n, long more, char *buf, size_t len) {
  buf[0] = '\0';
  qsort(r, (size_t)n, sizeof *r, by_calls);
  size_t at = 0;
  for (int i = 0; i < n && at < len; i++) {
    int w = snprintf(buf + at, len - at, "%s%s/%s/%d", i ? ", " : "", r[i].algo, r[i].proto,
                     r[i].channels);
    if (w > 0)
      at += (size_t)w;
    if (n > 1 && at < len && (w = snprintf(buf + at, len - at, " x%ld", r[i].calls)) > 0)
      at += (size_t)w;
  }
  if (more > 0 && at < len)
    snprintf(buf + at, len - at, ", +%ld calls", more);
}

/* Whether the name at p (up to '/') is `name`, any case, '_' ignored:
 * the profiler's NVLS_TREE is NCCL_ALGO's NVLSTree. */
static int same_algo(const char *p, const char *name) {
  for (;; p++) {
    if (*p == '_')
      continue;
    if (*p == '/' || *p == '\0')
      return *name == '\0';
    if (tolower((unsigned char)*p) != tolower((unsigned char)*name++))
      return 0;
  }
}

int cb_nccl_ran_differs(const char *ran, const char *asked, const char *func) {
  if (!ran || !*ran || !asked || !*asked || !func)
    return 0;
  unsigned char on[CB_NCCL_NALGO_NAMES];
  struct cb_error err = {0};
  if (cb_nccl_parse_env("NCCL_ALGO", asked, func, cb_nccl_algo_names, CB_NCCL_NALGO_NAMES, on,
                        &err))
    return 0; /* NCCL refuses it: nothing ran under it */
  int forced = -1, left = 0;
  for (int i = 0; i < CB_NCCL_NALGO_NAMES; i++)
    if (on[i])
      left++, forced = i;
  if (left != 1)
    return 0;
  for (const char *p = ran; *p;) { /* "Algo/Proto/N[ xC]" items, ", " apart */
    if (*p != '+' && !same_algo(p, cb_nccl_algo_names[forced]))
      return 1;
    const char *next = strstr(p, ", ");
    if (!next)
      break;
    p = next + 2;
  }
  return 0;
}
