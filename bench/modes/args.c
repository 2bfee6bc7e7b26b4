/* What the modes' parsers share: argv scanning for the option that
 * chooses a mode, option values, comma lists. */
#include "args.h"

#include <stdio.h>
#include <string.h>

#include "base/suggest.h"
#include "base/units.h"
#include "option_table.h"

/* Whether argv holds `name` or `name`=VALUE. */
int cb_arg_given(int argc, char **argv, const char *name) {
  size_t n = strlen(name);
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], name, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
      return 1;
  return 0;
}

int cb_option_given(int argc, char **argv, int code) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] != '-')
      continue;
    size_t n = strcspn(a + 2, "=");
    for (int k = 0; k < cb_noptions; k++)
      if (cb_options[k].code == code && strlen(cb_options[k].name) == n &&
          strncmp(a + 2, cb_options[k].name, n) == 0)
        return 1;
  }
  return 0;
}

/* Splits a comma list and maps each name through lookup; an item "all"
 * stands for every id below `all`, so a bad item beside it is the one
 * named. Duplicates are dropped. */
int cb_cli_parse_list(const char *arg, const char *what, int (*lookup)(const char *),
                      const char *(*name_of)(int), int all, int *ids, int *n, int max,
                      struct cb_error *err) {
  char copy[512];
  if (snprintf(copy, sizeof copy, "%s", arg) >= (int)sizeof copy)
    return cb_fail(err, CB_USAGE, "%s: list '%s' is too long", what, arg);
  if (cb_list_check(arg, what, err))
    return err->status;
  *n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int every = strcmp(tok, "all") == 0;
    int first = every ? 0 : lookup(tok), last = every ? all - 1 : first;
    char hint[96];
    if (first < 0)
      return cb_fail(
          err, CB_USAGE, "%s: unknown value '%s'%s (see --help or --list)", what, tok,
          cb_suggest_text(name_of ? cb_suggest(tok, name_of, all) : NULL, hint, sizeof hint));
    for (int id = first; id <= last; id++) {
      int seen = 0;
      for (int i = 0; i < *n; i++)
        seen |= ids[i] == id;
      if (!seen && *n < max)
        ids[(*n)++] = id;
    }
  }
  if (*n == 0)
    return cb_fail(err, CB_USAGE, "%s: empty list '%s'", what, arg);
  return CB_OK;
}
