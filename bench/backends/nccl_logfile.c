/* This process's NCCL log file: made once, read for the path NCCL used and for its warnings
 * (nccl_logfile.h says more). */
#include "nccl_logfile.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "runtime/watchdog.h"

static struct {
  int opened, ours, switchable, kept, gen;
  pid_t pid; /* a forked child's exit must not remove the parent's log */
  char dir[256], path[320];
} lf;

static void set_file(int gen) {
  lf.gen = gen;
  snprintf(lf.path, sizeof lf.path, "%s/nccl.%d.log", lf.dir, gen);
  setenv("NCCL_DEBUG_FILE", lf.path, 1);
}

int cb_nccl_log_open(void) {
  if (lf.opened)
    return lf.ours;
  lf.opened = 1;
  if (getenv("NCCL_DEBUG") || getenv("NCCL_DEBUG_FILE"))
    return 0;
  const char *tmp = getenv("TMPDIR");
  snprintf(lf.dir, sizeof lf.dir, "%s/collbench-nccl.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(lf.dir)) {
    lf.dir[0] = '\0';
    return 0;
  }
  lf.switchable = getenv("NCCL_DEBUG_SUBSYS") == NULL;
  set_file(0);
  setenv("NCCL_DEBUG", "INFO", 1);
  if (lf.switchable)
    setenv("NCCL_DEBUG_SUBSYS", CB_NCCL_SUBSYS, 1);
  lf.pid = getpid();
  lf.ours = 1;
  atexit(cb_nccl_log_close);
  cb_watchdog_at_exit(cb_nccl_log_close); /* its _exit(3) skips atexit */
  return 1;
}

const char *cb_nccl_log_path(void) {
  return lf.ours ? lf.path : "";
}

int cb_nccl_log_switchable(void) {
  return lf.ours && lf.switchable;
}

int cb_nccl_log_switch(int tuning) {
  if (!cb_nccl_log_switchable())
    return 0;
  char old[sizeof lf.path];
  memcpy(old, lf.path, sizeof old);
  set_file(lf.gen + 1);
  setenv("NCCL_DEBUG_SUBSYS", tuning ? CB_NCCL_SUBSYS_TUNING : CB_NCCL_SUBSYS, 1);
  unlink(old); /* NCCL may still append to it until it reopens: nothing reads that */
  return 1;
}

static long file_size(FILE *f) {
  return fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
}

void cb_nccl_log_cursor_end(struct cb_nccl_log_cursor *cur) {
  cur->gen = lf.gen;
  cur->pos = 0;
  FILE *f = lf.ours ? fopen(lf.path, "r") : NULL;
  if (f) {
    long size = file_size(f);
    cur->pos = size > 0 ? size : 0;
    fclose(f);
  }
}

char *cb_nccl_log_read(struct cb_nccl_log_cursor *cur, long limit, int *skipped) {
  *skipped = 0;
  if (!lf.ours)
    return NULL;
  if (cur->gen != lf.gen) { /* a new file since: all of it is new */
    cur->gen = lf.gen;
    cur->pos = 0;
  }
  FILE *f = fopen(lf.path, "r");
  if (!f)
    return NULL;
  char *text = NULL;
  long size = file_size(f);
  if (size > cur->pos + limit) {
    *skipped = 1;
    cur->pos = size;
  } else if (size > cur->pos && fseek(f, cur->pos, SEEK_SET) == 0 &&
             (text = malloc((size_t)(size - cur->pos) + 1))) {
    size_t n = fread(text, 1, (size_t)(size - cur->pos), f);
    while (n > 0 && text[n - 1] != '\n') /* a line NCCL is still writing */
      n--;
    text[n] = '\0';
    cur->pos += (long)n;
    if (n == 0) {
      free(text);
      text = NULL;
    }
  }
  fclose(f);
  return text;
}

const char *cb_nccl_log_keep(void) {
  lf.kept = lf.ours;
  return cb_nccl_log_path();
}

void cb_nccl_log_close(void) {
  if (!lf.ours || lf.kept || getpid() != lf.pid)
    return;
  DIR *d = opendir(lf.dir);
  if (d) {
    for (struct dirent *e; (e = readdir(d));) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
        continue;
      char path[sizeof lf.dir + 260];
      snprintf(path, sizeof path, "%s/%s", lf.dir, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(lf.dir);
  lf.ours = 0;
}

/* Whether [p, p+n) is already one of out's '; '-separated items. */
static int listed(const char *out, const char *p, size_t n) {
  for (const char *q = out; *q;) {
    const char *end = strstr(q, "; ");
    size_t m = end ? (size_t)(end - q) : strlen(q);
    if (m == n && memcmp(q, p, n) == 0)
      return 1;
    if (!end)
      break;
    q = end + 2;
  }
  return 0;
}

/* Appends one item, dropping the oldest ones until it fits. */
static void add_item(char *out, size_t len, const char *p, size_t n) {
  if (len == 0 || n == 0 || listed(out, p, n))
    return;
  if (n > len - 1)
    n = len - 1;
  size_t used = strlen(out);
  while (used && used + 2 + n > len - 1) {
    char *next = strstr(out, "; ");
    if (!next) {
      out[0] = '\0';
      used = 0;
      break;
    }
    memmove(out, next + 2, strlen(next + 2) + 1);
    used = strlen(out);
  }
  if (used)
    memcpy(out + used, "; ", 2), used += 2;
  memcpy(out + used, p, n);
  out[used + n] = '\0';
}

static int log_line(const char *line, const char *end) {
  static const char *const marks[] = {" NCCL INFO ", " NCCL WARN ", " NCCL TRACE ", " NCCL CALL "};
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
    size_t m = strlen(marks[i]);
    for (const char *p = line; p + m <= end; p++)
      if (memcmp(p, marks[i], m) == 0)
        return 1;
  }
  return 0;
}

/* Appends [p, p+m) to msg (of n bytes), trailing blanks trimmed. */
static size_t add_text(char *msg, size_t cap, size_t n, const char *p, size_t m) {
  if (m > cap - 1 - n)
    m = cap - 1 - n;
  memcpy(msg + n, p, m);
  n += m;
  while (n && (msg[n - 1] == ' ' || msg[n - 1] == '\r'))
    n--;
  return n;
}

void cb_nccl_log_warnings(const char *text, char *out, size_t len) {
  char msg[1024];
  size_t n = 0;
  int in_warn = 0;
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    if (!end)
      end = line + strlen(line);
    const char *w = NULL;
    for (const char *p = line; p + 11 <= end && !w; p++)
      if (memcmp(p, " NCCL WARN ", 11) == 0)
        w = p + 11;
    if (w) {
      if (in_warn)
        add_item(out, len, msg, n);
      n = add_text(msg, sizeof msg, 0, w, (size_t)(end - w));
      in_warn = 1;
    } else if (in_warn && (end == line || log_line(line, end))) {
      add_item(out, len, msg, n);
      in_warn = 0;
    } else if (in_warn && n < sizeof msg - 2) { /* a message of several lines goes on */
      msg[n++] = ' ';
      n = add_text(msg, sizeof msg, n, line, (size_t)(end - line));
    }
    line = *end ? end + 1 : end;
  }
  if (in_warn)
    add_item(out, len, msg, n);
}

void cb_nccl_failure_text(char *buf, size_t len, const char *call, const char *what, int rc,
                          const char *rc_text, const char *last, const char *warnings) {
  /* NCCL's last error may hold newlines (a WARN of several lines): one line here */
  char one[1024] = "";
  size_t n = 0;
  for (const char *p = last ? last : ""; *p && n < sizeof one - 1; p++)
    one[n++] = *p == '\n' ? ' ' : *p;
  while (n && one[n - 1] == ' ')
    n--;
  one[n] = '\0';
  size_t used = (size_t)snprintf(buf, len, "%s failed%s: %s (%d)%s%s", call, what ? what : "",
                                 rc_text ? rc_text : "?", rc, n ? ": " : "", one);
  int first = 1;
  for (const char *q = warnings ? warnings : ""; *q && used < len;) {
    const char *end = strstr(q, "; ");
    size_t m = end ? (size_t)(end - q) : strlen(q);
    if (!(m == n && memcmp(q, one, n) == 0)) {
      used += (size_t)snprintf(buf + used, len - used, "%s%.*s", first ? "; NCCL warned: " : "; ",
                               (int)m, q);
      first = 0;
    }
    if (!end)
      break;
    q = end + 2;
  }
}
