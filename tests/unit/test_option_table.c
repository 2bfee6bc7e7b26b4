/* The one option table (bench/modes/option_table.c): its rows are
 * consistent, and the file modes' word-by-word matching, "goes with",
 * old spellings and --help entries read them as documented. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modes/option_table.h"
#include "tap.h"

static enum cb_next next_of(unsigned modes, int *i, const struct cb_option **row, const char **v,
                            int argc, char **argv) {
  return cb_option_next(argc, argv, i, modes, row, v);
}

int main(void) {
  /* every row: a name, a mode, help only in a section; no name twice in one parser */
  int bad = 0, twice = 0, helped = 0;
  for (int k = 0; k < cb_noptions; k++) {
    const struct cb_option *o = &cb_options[k];
    bad += !o->name || !o->name[0] || o->name[0] == '-' || !o->modes || !o->code ||
           (o->help && o->section == CB_SEC_NONE) || (!o->help && o->section != CB_SEC_NONE) ||
           (o->renamed_to && o->help);
    helped += o->help != NULL;
    for (int j = 0; j < k; j++)
      twice += (cb_options[j].modes & o->modes) &&
               (strcmp(cb_options[j].name, o->name) == 0 ||
                (o->short_name && cb_options[j].short_name == o->short_name));
  }
  ok(bad == 0, "every row has a name (no dashes), modes and a code; help exactly where listed");
  ok(twice == 0, "no name or letter twice among the rows one parser reads");
  ok(helped > 80, "--help lists over 80 entries (%d)", helped);
  int run = 0, shorts = 0;
  for (int k = 0; k < cb_noptions; k++)
    if (cb_options[k].modes & (CB_IN_RUN | CB_IN_TUNE))
      run++, shorts += cb_options[k].short_name ? 2 : 0;
  ok(run < 127 && shorts < 63,
     "getopt's tables in cli.c hold the measuring rows (%d of 127, %d of "
     "63 letters)",
     run, shorts);

  /* the words, as a file mode's parser sees them */
  char *argv[] = {"collbench",  "--report", "a.jsonl", "-",         "--out=d",
                  "--baseline", "b.json",   "--json",  "--topology"};
  int argc = 9, i;
  const struct cb_option *row;
  const char *v;
  i = 1;
  ok(next_of(CB_IN_REPORT, &i, &row, &v, argc, argv) == CB_NEXT_OPTION && row->code == OPT_REPORT &&
         !v && i == 1,
     "--report: its row, no value (files follow)");
  i = 2;
  ok(next_of(CB_IN_REPORT, &i, &row, &v, argc, argv) == CB_NEXT_ARG, "a.jsonl: a word");
  i = 3;
  ok(next_of(CB_IN_REPORT, &i, &row, &v, argc, argv) == CB_NEXT_ARG, "'-': a word, not an option");
  i = 4;
  ok(next_of(CB_IN_REPORT, &i, &row, &v, argc, argv) == CB_NEXT_OPTION && row->code == OPT_OUT &&
         strcmp(v, "d") == 0 && i == 4,
     "--out=d: the value after '='");
  i = 5;
  ok(next_of(CB_IN_REPORT, &i, &row, &v, argc, argv) == CB_NEXT_OPTION &&
         row->code == OPT_BASELINE && strcmp(v, "b.json") == 0 && i == 6,
     "--baseline b.json: the next word, and the index moves on");
  i = 7;
  ok(next_of(CB_IN_REPORT, &i, &row, &v, argc, argv) == CB_NEXT_OTHER,
     "--json: not the report's (the measuring modes' and the model's)");
  i = 8;
  ok(next_of(CB_IN_REPORT, &i, &row, &v, argc, argv) == CB_NEXT_MISSING &&
         row->code == OPT_TOPOLOGY,
     "--topology at the end: its value missing");
  char *argv2[] = {"collbench", "--predict=1", "-J", "out.json", "-Jx", "--compare"};
  i = 1;
  ok(next_of(CB_IN_MODEL, &i, &row, &v, 6, argv2) == CB_NEXT_OTHER,
     "--predict=1: an option without a value given one");
  i = 2;
  ok(next_of(CB_IN_MODEL, &i, &row, &v, 6, argv2) == CB_NEXT_OPTION && row->code == 'J' &&
         strcmp(v, "out.json") == 0,
     "-J out.json: the short name");
  i = 4;
  ok(next_of(CB_IN_MODEL, &i, &row, &v, 6, argv2) == CB_NEXT_OTHER,
     "-Jx: the file modes take a short name alone");
  i = 5;
  ok(next_of(CB_IN_COMPARE | CB_IN_MODEL, &i, &row, &v, 6, argv2) == CB_NEXT_OPTION &&
         row->code == OPT_COMPARE,
     "several parsers' rows at once (the modes are a set)");

  /* goes with, old spellings */
  const char *w = cb_option_goes_with("--gpus", CB_IN_RUN | CB_IN_TUNE);
  ok(w && strcmp(w, "--predict") == 0, "--gpus to a measuring mode: goes with --predict");
  w = cb_option_goes_with("--validate", CB_IN_RUN | CB_IN_TUNE);
  ok(w && strcmp(w, "--fit") == 0, "--validate: goes with --fit");
  ok(!cb_option_goes_with("--out", CB_IN_RUN | CB_IN_TUNE),
     "--out (the report's and the old baseline's): no hint");
  ok(!cb_option_goes_with("--gpus", CB_IN_MODEL), "--gpus to the model: its own, no hint");
  w = cb_option_new_name("mode");
  ok(w && strcmp(w, "timing") == 0, "--mode is now --timing");
  ok(!cb_option_new_name("timing") && !cb_option_new_name("json"), "new names have no new name");

  /* --help entries: the column of 27, a wide option on a line of its own */
  char *buf;
  size_t len;
  FILE *f = open_memstream(&buf, &len);
  cb_options_help(f, CB_SEC_SIZES);
  cb_options_help(f, CB_SEC_TUNE);
  fclose(f);
  ok(strstr(buf, "\n  -b, --min-bytes SIZE     smallest size (default 8)\n") != NULL,
     "an entry: short and long name, value, help at column 28");
  ok(strstr(buf, "\n      --workload-config LIST\n                           override the shape") !=
         NULL,
     "a name wider than the column: help on the next line");
  ok(strncmp(buf, "Sizes (bytes;", 13) == 0, "the section's title first");
  free(buf);
  done_testing();
  return exit_status();
}
