/* gnuplot for the report's charts: a chart stanza from a template in
 * reports/ (PNG and SVG), and gnuplot run on a script without a shell,
 * drawing into a private folder whose files are then moved out without
 * following links (create.c). Every chart file of report/ calls these. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "base/exit_now.h"
#include "base/interrupt.h"

#include "config.h"
#include "escape.h"
#include "parts.h"

#ifndef CB_GNUPLOT
#define CB_GNUPLOT "gnuplot"
#endif
#ifndef CB_REPORTS_DIR
#define CB_REPORTS_DIR "reports"
#endif

/* The source tree's templates while developing, the installed ones after
 * `make install` (the source tree may be gone by then). */
static int copy_template(FILE *out, const char *name, struct cb_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", CB_REPORTS_DIR, name);
  FILE *in = fopen(path, "r");
  if (!in) {
    snprintf(path, sizeof path, "%s/%s", CB_REPORTS_INSTALL_DIR, name);
    in = fopen(path, "r");
  }
  if (!in)
    return cb_fail(err, CB_USAGE, "--report: cannot read the chart template '%s': %s", path,
                   strerror(errno));
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0)
    fwrite(buf, 1, n, out);
  fclose(in);
  return CB_OK;
}

/* One chart as PNG and SVG: the same template under both terminals. */
int cb_rep_put_chart(FILE *f, const char *stem, const char *template_name, const char *title,
                     struct cb_error *err) {
  fprintf(f, "\n# %s\nchart_title = ", stem);
  cb_gp_put_string(f, title);
  /* gp_out: the private folder collbench runs gnuplot with (create.c);
   * the script still runs by hand, writing beside itself */
  fprintf(f, "\nif (!exists('gp_out')) gp_out = '.'\n");
  fprintf(f, "set terminal @png_term\nset output gp_out.'/%s.png'\n", stem);
  if (copy_template(f, template_name, err))
    return err->status;
  fprintf(f,
          "set output\nset terminal svg noenhanced " CB_REP_CHART_SIZE " background rgb 'white'\n"
          "set output gp_out.'/%s.svg'\n",
          stem);
  if (copy_template(f, template_name, err))
    return err->status;
  fputs("set output\n", f);
  return CB_OK;
}

void cb_rep_put_png_term(FILE *f) {
  fputs("# pngcairo draws smoother lines; plain png (libgd) where it is missing.\n"
        "png_term = (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0 ? 'pngcairo' : 'png')"
        " . ' noenhanced " CB_REP_CHART_SIZE "'\n",
        f);
}

/* One chart file out of the private folder. An empty chart is gnuplot's
 * sign that a write failed (on a full disk gnuplot still exits 0): a
 * runtime error, and the empty file is not moved. */
static int move_one(const char *from, const char *to, struct cb_error *err) {
  struct stat st;
  if (lstat(from, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
    return cb_fail(err, CB_RUNTIME,
                   "--report: gnuplot wrote an empty '%s' (a write failed: is the disk full?)", to);
  if (rename(from, to) != 0)
    return cb_fail(err, cb_write_status(errno), "--out: cannot write '%s': %s", to,
                   strerror(errno));
  return CB_OK;
}

/* Moves every file of the private folder `priv` into `dir` and removes it;
 * with `discard` (the report was interrupted) only removes them. */
static int move_out(const char *dir, const char *priv, int discard, struct cb_error *err) {
  DIR *d = opendir(priv);
  if (!d)
    return cb_fail(err, CB_RUNTIME, "--report: cannot read '%s': %s", priv, strerror(errno));
  char from[4096], to[4096];
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue; /* gnuplot writes no dot files; "." and ".." */
    if (snprintf(from, sizeof from, "%s/%s", priv, e->d_name) >= (int)sizeof from ||
        snprintf(to, sizeof to, "%s/%s", dir, e->d_name) >= (int)sizeof to)
      continue; /* cannot happen: priv is dir plus 16 */
    if (!discard)
      move_one(from, to, err); /* the first failure is kept */
    unlink(from);              /* left only when not moved */
  }
  closedir(d);
  rmdir(priv);
  return err->status;
}

int cb_rep_gnuplot_private(const char *dir, const char *script, struct cb_error *err) {
  char priv[4096], name[64];
  if (snprintf(priv, sizeof priv, "%s/.gnuplot.XXXXXX", dir) >= (int)sizeof priv)
    return cb_fail(err, CB_USAGE, "--out: '%s': name too long", dir);
  /* SIGINT/SIGTERM from here on end gnuplot and wait for the private folder
   * to be removed (else gnuplot ran on, reparented to init, and the folder
   * stayed in --out); the process leaves at the release */
  cb_interrupt_hold();
  int rc = CB_OK;
  if (!mkdtemp(priv)) /* mode 0700, ours: no one else can plant a link in it */
    rc = cb_fail(err, cb_write_status(errno), "--out: cannot write in '%s': %s", dir,
                 strerror(errno));
  if (rc == CB_OK) {
    snprintf(name, sizeof name, "%s", strrchr(priv, '/') + 1);
    rc = cb_rep_run_gnuplot_in(dir, name, script, err);
    struct cb_error move_err = {0};
    if (move_out(dir, priv, cb_interrupt_pending(), &move_err) && rc == CB_OK)
      rc = cb_fail(err, move_err.status, "%s", move_err.msg);
  }
  cb_interrupt_release();
  return rc;
}

int cb_rep_run_gnuplot(const char *dir, const char *script, struct cb_error *err) {
  return cb_rep_gnuplot_private(dir, script, err);
}

/* gnuplot SCRIPT in DIR, without a shell: no input string is ever parsed
 * by one, and relative output names keep DIR out of the script; its charts
 * go to DIR/OUTDIR (gp_out). */
int cb_rep_run_gnuplot_in(const char *dir, const char *outdir, const char *script,
                          struct cb_error *err) {
  char gp_out[128];
  snprintf(gp_out, sizeof gp_out, "gp_out='%s'", outdir); /* mkdtemp's letters: no quote */
  if (!CB_GNUPLOT[0]) /* configure found none (the lent GPU machine had none) */
    return cb_fail(err, CB_RUNTIME,
                   "--report: no gnuplot: configure found none; install gnuplot and run "
                   "./configure again");
  pid_t pid = fork();
  if (pid < 0)
    return cb_fail(err, CB_RUNTIME, "--report: fork: %s", strerror(errno));
  if (pid == 0) {
#ifdef __linux__
    prctl(PR_SET_PDEATHSIG, SIGTERM); /* collbench killed outright: gnuplot ends too */
#endif
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
      dup2(null, STDIN_FILENO);
    /* -d: not the user's ~/.gnuplot nor the system's gnuplotrc (root's report
     * with another user's HOME would run that user's commands); a script name
     * is never read as an option */
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s%s", script[0] == '-' ? "./" : "", script);
    char *const argv[] = {"gnuplot", "-d", "-e", gp_out, path, NULL};
    if (chdir(dir) == 0)
      execvp(CB_GNUPLOT, argv);
    fprintf(stderr, "collbench: cannot run %s in '%s': %s\n", CB_GNUPLOT, dir, strerror(errno));
    cb_exit_now(127);
  }
  cb_interrupt_child(pid);
  if (cb_interrupt_pending()) /* the signal came before the child was known */
    kill(pid, SIGTERM);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      cb_interrupt_child(0);
      return cb_fail(err, CB_RUNTIME, "--report: waitpid: %s", strerror(errno));
    }
  cb_interrupt_child(0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return cb_fail(err, CB_RUNTIME, "--report: gnuplot failed on %s/%s", dir, script);
  return CB_OK;
}
