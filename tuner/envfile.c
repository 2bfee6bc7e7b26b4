/* The --env-out file: validated, single-quoted export lines (envfile.h says more). */
#include "envfile.h"

#include <string.h>

int cb_env_name_ok(const char *name) {
  if (!name || !*name || (*name >= '0' && *name <= '9'))
    return 0;
  for (const char *p = name; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
          *p == '_'))
      return 0;
  return 1;
}

int cb_env_value_ok(const char *value) {
  if (!value)
    return 0;
  for (const char *p = value; *p; p++)
    if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
          strchr("._,:/+-;^", *p)))
      return 0;
  return 1;
}

void cb_env_comment(FILE *f, const char *text) {
  fputs("# ", f);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++)
    fputc(*p < 0x20 || *p == 0x7f ? '?' : *p, f);
  fputc('\n', f);
}

int cb_env_write(FILE *out, const char *const *comments, int ncomments,
                 const struct cb_env_var *vars, int nvars, struct cb_error *err) {
  for (int i = 0; i < nvars; i++) {
    if (!cb_env_name_ok(vars[i].name))
      return cb_fail(err, CB_USAGE, "env file: '%s' is not a valid variable name", vars[i].name);
    if (!cb_env_value_ok(vars[i].value))
      return cb_fail(err, CB_USAGE, "env file: value '%s' of %s is not a plain value",
                     vars[i].value, vars[i].name);
  }
  for (int i = 0; i < ncomments; i++)
    cb_env_comment(out, comments[i]);
  for (int i = 0; i < nvars; i++)
    fprintf(out, "export %s='%s'\n", vars[i].name, vars[i].value);
  return CB_OK;
}
