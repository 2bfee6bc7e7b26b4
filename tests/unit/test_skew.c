/* --skew's matrices (ops/skew.c): parsing and its refusals, hand-counted
 * rows for uniform, zipf and a file, and each rank's layout agreeing with
 * every sender's row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ops/op.h"
#include "ops/skew.h"
#include "tap.h"

static char dir[] = "/tmp/cb-test-skew.XXXXXX";

static const char *write_file(const char *name, const char *text) {
  static char path[160];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static int row_is(const struct cb_skew *k, int n, size_t total, int i, const size_t *want) {
  size_t got[16];
  cb_skew_row(k, n, total, i, got);
  int same = 1;
  for (int j = 0; j < n; j++)
    same &= got[j] == want[j];
  if (!same) {
    char text[256] = "";
    for (int j = 0; j < n; j++)
      snprintf(text + strlen(text), sizeof text - strlen(text), " %zu", got[j]);
    diag("row %d got%s", i, text);
  }
  return same;
}

static void test_parse(void) {
  struct cb_skew k;
  struct cb_error err = {0};
  ok(cb_skew_parse("uniform", &k, &err) == CB_OK && k.kind == CB_SKEW_UNIFORM &&
         strcmp(k.label, "uniform") == 0,
     "uniform parses");
  ok(cb_skew_parse("zipf:1.2", &k, &err) == CB_OK && k.kind == CB_SKEW_ZIPF && k.exponent == 1.2 &&
         strcmp(k.label, "zipf:1.2") == 0,
     "zipf:1.2 parses, labelled as given");
  const char *bad_zipf[] = {"zipf:", "zipf:-1", "zipf:11", "zipf:x", "zipf:1.2x", "zipf:nan"};
  for (size_t i = 0; i < sizeof bad_zipf / sizeof *bad_zipf; i++) {
    struct cb_error e = {0};
    ok(cb_skew_parse(bad_zipf[i], &k, &e) == CB_USAGE && strstr(e.msg, bad_zipf[i]) &&
           strstr(e.msg, "0 to 10"),
       "%s refused, naming it: %s", bad_zipf[i], e.msg);
  }
  struct {
    const char *name, *text, *says;
  } bad[] = {
      {"ragged", "1 2 3\n4 5\n6 7 8\n", "row 2 has 2 values, row 1 has 3"},
      {"oblong", "1 2 3\n4 5 6\n", "2 rows of 3 values"},
      {"negative", "1 2\n-5 3\n", "row 2, column 1 holds '-5'"},
      {"word", "1 2\n3 lots\n", "row 2, column 2 holds 'lots'"},
      {"fraction", "1 2.5\n3 4\n", "row 1, column 2 holds '2.5'"},
      {"empty", "\n  \n", "holds no numbers"},
      {"huge", "1 99999999999999999999\n1 1\n", "holds '99999999999999999999'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct cb_error e = {0};
    const char *path = write_file(bad[i].name, bad[i].text);
    ok(cb_skew_parse(path, &k, &e) == CB_USAGE && strstr(e.msg, path) && strstr(e.msg, bad[i].says),
       "a %s matrix refused: %s", bad[i].name, e.msg);
  }
  struct cb_error e = {0};
  ok(cb_skew_parse("/nonexistent/traffic.txt", &k, &e) == CB_USAGE &&
         strstr(e.msg, "not uniform, zipf:E or a readable matrix file"),
     "a missing file refused: %s", e.msg);
  const char *path = write_file("ok.txt", "0 100 200\n\n300 0 0\r\n  50 50 0  \n");
  ok(cb_skew_parse(path, &k, &e) == CB_OK && k.kind == CB_SKEW_FILE && k.dim == 3 &&
         k.cells[1] == 100 && k.cells[3] == 300 && k.cells[7] == 50 &&
         strcmp(k.label, "file:ok.txt") == 0,
     "a file parses: blank lines, CR and spaces around, labelled by its name");
  cb_skew_free(&k);
}

static void test_rows(void) {
  struct cb_error err = {0};
  /* uniform, 3 ranks, 10 elements: 3 each, the spare one to the sender
   * itself (nearest), so each rank also receives 10 */
  size_t u0[] = {4, 3, 3}, u1[] = {3, 4, 3}, u2[] = {3, 3, 4};
  ok(row_is(NULL, 3, 10, 0, u0) && row_is(NULL, 3, 10, 1, u1) && row_is(NULL, 3, 10, 2, u2),
     "uniform 10 over 3 ranks: 4 3 3 / 3 4 3 / 3 3 4");
  size_t s, r;
  cb_skew_extremes(NULL, 3, 10, &s, &r);
  ok(s == 10 && r == 10, "uniform: busiest sends 10, receives 10 (got %zu, %zu)", s, r);

  /* zipf:1, 4 ranks: 1 : 1/2 : 1/3 : 1/4 = 12 : 6 : 4 : 3 of 25 */
  struct cb_skew z;
  cb_skew_parse("zipf:1", &z, &err);
  ok(cb_skew_bind(&z, 4, &err) == CB_OK, "zipf binds to 4 ranks");
  size_t z100[] = {48, 24, 16, 12};
  int alike = 1;
  for (int i = 0; i < 4; i++)
    alike &= row_is(&z, 4, 100, i, z100);
  ok(alike, "zipf:1 x 100: 48 24 16 12 from every sender");
  cb_skew_extremes(&z, 4, 100, &s, &r);
  ok(s == 100 && r == 192, "zipf:1: each sends 100, rank 0 receives 4 x 48 (got %zu, %zu)", s, r);
  /* 7 elements: 3.36 1.68 1.12 0.84 -> 3 1 1 0, then the spare two by
   * remainder (.84, .68) */
  size_t z7[] = {3, 2, 1, 1};
  ok(row_is(&z, 4, 7, 0, z7), "zipf:1 x 7: 3 2 1 1 (largest remainders)");
  cb_skew_free(&z);
  cb_skew_parse("zipf:0", &z, &err);
  cb_skew_bind(&z, 3, &err);
  ok(row_is(&z, 3, 10, 1, u1), "zipf:0 is uniform");
  cb_skew_free(&z);

  /* a file, 4x4, cut to 3 ranks: at the busiest row's sum its own bytes */
  const char *path = write_file("m.txt", "0 100 200 9\n300 0 0 9\n50 50 0 9\n9 9 9 9\n");
  struct cb_skew f;
  cb_skew_parse(path, &f, &err);
  ok(cb_skew_bind(&f, 3, &err) == CB_OK && f.max_row == 300, "a 4x4 file binds to 3 ranks");
  size_t f0[] = {0, 100, 200}, f1[] = {300, 0, 0}, f2[] = {50, 50, 0};
  ok(row_is(&f, 3, 300, 0, f0) && row_is(&f, 3, 300, 1, f1) && row_is(&f, 3, 300, 2, f2),
     "at 300 (busiest row) the file's own cells");
  size_t g0[] = {0, 200, 400}, g2[] = {100, 100, 0};
  ok(row_is(&f, 3, 600, 0, g0) && row_is(&f, 3, 600, 2, g2), "at 600 every cell doubled");
  size_t h2[] = {1, 0, 0};
  ok(row_is(&f, 3, 3, 2, h2), "at 3: row 2's one element to the nearest of two equal cells");
  cb_skew_extremes(&f, 3, 300, &s, &r);
  ok(s == 300 && r == 350, "file: busiest sends 300, rank 0 receives 350 (got %zu, %zu)", s, r);
  struct cb_error e = {0};
  ok(cb_skew_bind(&f, 5, &e) == CB_USAGE && strstr(e.msg, "4 rows for 5 ranks"),
     "5 ranks on a 4x4 file refused: %s", e.msg);
  cb_skew_free(&f);
  path = write_file("zero.txt", "0 0 5\n0 0 5\n0 0 0\n");
  cb_skew_parse(path, &f, &err);
  e = (struct cb_error){0};
  ok(cb_skew_bind(&f, 2, &e) == CB_USAGE && strstr(e.msg, "first 2 rows send nothing"),
     "a cut that sends nothing refused: %s", e.msg);
  ok(cb_skew_bind(&f, 3, &err) == CB_OK, "the same file on 3 ranks binds");
  cb_skew_free(&f);
}

/* Every rank's layout against every sender's row: what r receives from j
 * is j's row at r, found in j's stream after j's parts for ranks below r. */
static void test_layouts(const char *spec, int n, size_t total) {
  struct cb_skew k;
  struct cb_error err = {0};
  cb_skew_parse(spec, &k, &err);
  cb_skew_bind(&k, n, &err);
  size_t rows[8][8], sent = 0, received = 0;
  for (int i = 0; i < n; i++)
    cb_skew_row(&k, n, total, i, rows[i]);
  int good = 1;
  for (int r = 0; r < n; r++) {
    struct cb_skew_layout l;
    cb_skew_layout_alloc(&l, n);
    cb_skew_layout_fill(&k, n, r, total, &l);
    size_t at = 0, off;
    for (int j = 0; j < n; j++) {
      off = 0;
      for (int m = 0; m < r; m++)
        off += rows[j][m];
      good &= l.send_counts[j] == rows[r][j] && l.recv_counts[j] == rows[j][r] &&
              l.src_offsets[j] == off && l.recv_displs[j] == at;
      at += l.recv_counts[j];
    }
    good &= l.recv_total == at;
    sent += l.send_total, received += l.recv_total;
    cb_skew_layout_free(&l);
  }
  ok(good && sent == received, "%s, %d ranks, %zu elements: layouts match the rows", spec, n,
     total);
  cb_skew_free(&k);
}

int main(void) {
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_parse();
  test_rows();
  test_layouts("uniform", 5, 1001);
  test_layouts("zipf:1.2", 7, 4096);
  test_layouts("zipf:3", 8, 13);
  test_layouts(write_file("l.txt", "1 2 3 4\n0 0 9 1\n7 7 7 7\n2 0 0 0\n"), 4, 1000);
  const char *files[] = {"ragged", "oblong", "negative", "word",     "fraction", "empty",
                         "huge",   "ok.txt", "m.txt",    "zero.txt", "l.txt"};
  char path[200];
  for (size_t i = 0; i < sizeof files / sizeof *files; i++)
    snprintf(path, sizeof path, "%s/%s", dir, files[i]), unlink(path);
  rmdir(dir);
  done_testing();
  return exit_status();
}
