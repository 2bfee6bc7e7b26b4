/* Output files (issue 16): streamed lines never torn and nothing emptied
 * before the run starts (output/lines.c); paths checked without creating
 * or removing anything, and whole-file replacement that keeps links,
 * modes and devices (output/replace.c). RLIMIT_FSIZE plays disk full. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/lines.h"
#include "output/replace.h"
#include "tap.h"

static char dir[] = "/tmp/cb_lines_XXXXXX";

static const char *at(const char *name) {
  static char p[2][256];
  static int next;
  char *s = p[next++ % 2];
  snprintf(s, sizeof p[0], "%s/%s", dir, name);
  return s;
}

static void put(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static const char *get(const char *path) {
  static char buf[4096];
  buf[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f)
    return "(missing)";
  buf[fread(buf, 1, sizeof buf - 1, f)] = '\0';
  fclose(f);
  return buf;
}

static int nentries(void) {
  char cmd[300];
  snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
  FILE *p = popen(cmd, "r");
  int n = -1;
  if (p && fscanf(p, "%d", &n) != 1)
    n = -1;
  if (p)
    pclose(p);
  return n;
}

static void test_lines(void) {
  struct cb_lines l;
  struct cb_error err = {0};
  put(at("old.jsonl"), "keep\n");
  ok(cb_lines_open(&l, at("old.jsonl"), "--json", &err) == CB_OK, "open an existing file");
  is_str(get(at("old.jsonl")), "keep\n", "opening empties nothing");
  cb_lines_close(&l, &err);
  is_str(get(at("old.jsonl")), "keep\n", "closed before the run started: still whole");

  ok(cb_lines_open(&l, at("new.jsonl"), "--json", &err) == CB_OK, "open a new file");
  cb_lines_close(&l, &err);
  ok(access(at("new.jsonl"), F_OK) != 0, "a new file of a run that never started is removed");

  cb_lines_open(&l, at("old.jsonl"), "--json", &err);
  ok(cb_lines_start(&l, &err) == CB_OK && !strcmp(get(at("old.jsonl")), ""), "start empties it");
  ok(cb_lines_put(&l, "{\"a\":1}\n", 8, &err) == CB_OK, "a line written");
  /* the file may grow to 12 bytes: the next 8-byte line is cut after 4 */
  struct rlimit old, lim;
  getrlimit(RLIMIT_FSIZE, &old);
  lim = old;
  lim.rlim_cur = 12;
  signal(SIGXFSZ, SIG_IGN);
  setrlimit(RLIMIT_FSIZE, &lim);
  int rc = cb_lines_put(&l, "{\"b\":2}\n", 8, &err);
  setrlimit(RLIMIT_FSIZE, &old);
  char want[512];
  snprintf(want, sizeof want, "--json: cannot write '%s': %s", at("old.jsonl"), strerror(EFBIG));
  ok(rc == CB_RUNTIME && !strcmp(err.msg, want), "a failed write names path and reason (%s)",
     err.msg);
  is_str(get(at("old.jsonl")), "{\"a\":1}\n", "the torn line is cut away: last whole line kept");
  err = (struct cb_error){0};
  ok(cb_lines_put(&l, "{\"c\":3}\n", 8, &err) == CB_OK, "writing goes on where it was cut");
  is_str(get(at("old.jsonl")), "{\"a\":1}\n{\"c\":3}\n", "no hole, no torn line");
  ok(cb_lines_close(&l, &err) == CB_OK, "close checked");
}

static int write_text(void *state, FILE *f) {
  return fputs(state, f) < 0;
}

static void test_check(void) {
  struct cb_error err = {0};
  int before = nentries();
  ok(cb_output_check(dir, "--prom", CB_OUT_REPLACE, &err) == CB_USAGE &&
         strstr(err.msg, strerror(EISDIR)) && strstr(err.msg, dir),
     "a directory is refused, named (%s)", err.msg);
  err = (struct cb_error){0};
  /* under the test's own folder: any program may create /nonexistent */
  ok(cb_output_check(at("missing/x"), "--csv", CB_OUT_STREAM, &err) == CB_USAGE &&
         strstr(err.msg, strerror(ENOENT)),
     "a missing directory is refused (%s)", err.msg);
  err = (struct cb_error){0};
  ok(cb_output_check(at("x.prom"), "--prom", CB_OUT_REPLACE, &err) == CB_OK &&
         cb_output_check(at("old.jsonl"), "--json", CB_OUT_STREAM, &err) == CB_OK,
     "new and existing files in a writable directory pass");
  is_long(nentries(), before, "checking created and removed nothing");
}

static void test_replace(void) {
  struct cb_error err = {0};
  put(at("target"), "old\n");
  chmod(at("target"), 0640);
  symlink("target", at("link"));
  ok(cb_replace_write(at("link"), "--prom", write_text, "new\n", &err) == CB_OK,
     "replace through a link");
  struct stat st;
  ok(lstat(at("link"), &st) == 0 && S_ISLNK(st.st_mode), "the link stays a link");
  is_str(get(at("target")), "new\n", "its target has the new content");
  ok(stat(at("target"), &st) == 0 && (st.st_mode & 0777) == 0640, "the target keeps mode 0640");
  ok(cb_replace_write(at("target"), "--prom", write_text, "x", &err) == CB_OK &&
         !strcmp(get(at("target")), "x"),
     "a regular file is replaced");
  if (mkfifo(at("fifo"), 0600) == 0) {
    /* no reader: refused at once, never waited on (issue 56: a burn-in's
     * --prom blocked in open() for 14 minutes) */
    memset(&err, 0, sizeof err);
    int rc = cb_replace_write(at("fifo"), "--prom", write_text, "piped\n", &err);
    ok(rc == CB_RUNTIME && strstr(err.msg, "a pipe with no reader"),
       "a FIFO without a reader: refused at once (%s)", err.msg);
    /* a reader holding it open: written in place (the reader opens first,
     * then says it is there) */
    int ready[2];
    if (pipe(ready) != 0)
      abort();
    pid_t pid = fork();
    if (pid == 0) {
      /* read and write (Linux's FIFOs allow it): the open does not wait
       * for a writer, and reads wait for data instead of seeing EOF */
      int fd = open(at("fifo"), O_RDWR);
      if (fd < 0 || write(ready[1], "r", 1) != 1)
        _exit(1);
      char b[16] = "";
      ssize_t n = 0, got;
      while (n < 6 && (got = read(fd, b + n, sizeof b - 1 - (size_t)n)) > 0)
        n += got;
      _exit(n == 6 && !strcmp(b, "piped\n") ? 0 : 1);
    }
    char c;
    int status = 1;
    if (read(ready[0], &c, 1) == 1) {
      memset(&err, 0, sizeof err);
      rc = cb_replace_write(at("fifo"), "--prom", write_text, "piped\n", &err);
    }
    waitpid(pid, &status, 0);
    close(ready[0]), close(ready[1]);
    ok(rc == CB_OK && status == 0 && stat(at("fifo"), &st) == 0 && S_ISFIFO(st.st_mode),
       "a FIFO with a reader gets the text and stays a FIFO (%s)", err.msg);
  } else {
    ok(1, "# SKIP mkfifo failed here");
  }
}

/* A link planted by another user after the run's start check, in a sticky
 * shared folder: the end-of-run replace checks again and refuses it. */
static void test_planted_late(void) {
  if (geteuid() != 0) {
    ok(1, "# SKIP not root: a link owned by another user needs lchown");
    ok(1, "# SKIP not root");
    return;
  }
  struct cb_error err = {0};
  mkdir(at("shared"), 0777);
  chmod(at("shared"), 01777);
  put(at("victim"), "secret\n");
  ok(cb_output_check(at("shared/late.prom"), "--prom", CB_OUT_REPLACE, &err) == CB_OK,
     "the start check passes: nothing there yet");
  char victim[256];
  snprintf(victim, sizeof victim, "%s", at("victim"));
  int planted = symlink(victim, at("shared/late.prom")) == 0 &&
                lchown(at("shared/late.prom"), 65534, 65534) == 0;
  err = (struct cb_error){0};
  int rc = cb_replace_write(at("shared/late.prom"), "--prom", write_text, "new\n", &err);
  ok(planted && rc == CB_RUNTIME && !strcmp(get(at("victim")), "secret\n") &&
         strstr(err.msg, "owned by another user (uid 65534)"),
     "a link another user planted since: refused at the write, its target kept (%s)", err.msg);
}

int main(void) {
  plan(25);
  if (!mkdtemp(dir))
    return 1;
  test_lines();
  test_check();
  test_replace();
  test_planted_late();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    diag("could not remove %s", dir);
  return exit_status();
}
