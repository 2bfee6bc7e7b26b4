#include "replace.h"

#include <unistd.h>

static void temp_name(char *buf, size_t len, const char *path) {
  snprintf(buf, len, "%s.tmp.%ld", path, (long)getpid());
}

int cb_replace_probe(const char *path, const char *option, struct cb_error *err) {
  char tmp[4096];
  temp_name(tmp, sizeof tmp, path);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return cb_fail(err, CB_USAGE, "%s: cannot write next to '%s'", option, path);
  fclose(f);
  remove(tmp);
  return CB_OK;
}

int cb_replace_write(const char *path, const char *option, int (*write)(void *state, FILE *f),
                     void *state, struct cb_error *err) {
  char tmp[4096];
  temp_name(tmp, sizeof tmp, path);
  FILE *f = fopen(tmp, "w");
  if (!f)
    return cb_fail(err, CB_RUNTIME, "%s: cannot write '%s'", option, tmp);
  int bad = write(state, f);
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    remove(tmp);
    return cb_fail(err, CB_RUNTIME, "%s: cannot write '%s'", option, path);
  }
  return CB_OK;
}
