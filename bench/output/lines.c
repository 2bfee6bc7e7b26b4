/* Streamed outputs (--json, --csv, --trials): whole lines as they come (lines.h says more). */
#include "lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/interrupt.h"
#include "replace.h"

static int failed(const struct cb_lines *l, int status, int e, struct cb_error *err) {
  if (!err->status)
    err->output = 1;
  return cb_fail(err, status, "%s: cannot write '%s': %s", l->option, l->path,
                 cb_output_strerror(e));
}

int cb_lines_open(struct cb_lines *l, const char *path, const char *option, struct cb_error *err) {
  memset(l, 0, sizeof *l);
  l->option = option;
  if (!(l->path = strdup(path)))
    return cb_fail(err, CB_RUNTIME, "out of memory");
  /* O_EXCL first: only a file this run made may be removed again */
  l->fd = cb_output_open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  l->created = l->fd >= 0;
  if (l->fd < 0 && errno == EEXIST)
    l->fd = cb_output_open(path, O_WRONLY | O_CLOEXEC, 0);
  struct stat st;
  if (l->fd < 0 || fstat(l->fd, &st) != 0) {
    int e = errno, rc = failed(l, CB_USAGE, e, err);
    if (l->fd >= 0)
      close(l->fd);
    free(l->path);
    l->path = NULL;
    return rc;
  }
  /* after the open, so a link planted before it is seen; nothing is written
   * (truncation waits for cb_lines_start) */
  if (cb_output_trusted(path, option, err)) {
    close(l->fd);
    if (l->created)
      unlink(path);
    free(l->path);
    l->path = NULL;
    return err->status;
  }
  l->regular = S_ISREG(st.st_mode);
  /* one writer per file: a second run given the same --json or --csv would
   * interleave its lines and empty the first run's file, so it is refused
   * (the lock goes with the descriptor, at exit too) */
  if (l->regular && flock(l->fd, LOCK_EX | LOCK_NB) != 0) {
    int e = errno;
    close(l->fd);
    int rc = e == EWOULDBLOCK
                 ? cb_fail(err, CB_USAGE,
                           "%s: '%s' is being written by another run (it holds the file's "
                           "lock): give each run its own file",
                           option, path)
                 : failed(l, CB_USAGE, e, err);
    free(l->path);
    l->path = NULL;
    return rc;
  }
  return CB_OK;
}

int cb_lines_start(struct cb_lines *l, struct cb_error *err) {
  if (l->regular && ftruncate(l->fd, 0) != 0)
    return failed(l, CB_RUNTIME, errno, err);
  l->started = 1;
  l->good = 0;
  return CB_OK;
}

int cb_lines_append(struct cb_lines *l, struct cb_error *err) {
  off_t end = l->regular ? lseek(l->fd, 0, SEEK_END) : 0;
  if (end < 0)
    return failed(l, CB_RUNTIME, errno, err);
  /* a line cut by a kill (it should not be: one write() each) is dropped */
  int rfd = l->regular && end > 0 ? open(l->path, O_RDONLY | O_CLOEXEC) : -1;
  off_t keep = end;
  char c;
  while (rfd >= 0 && keep > 0 && pread(rfd, &c, 1, keep - 1) == 1 && c != '\n')
    keep--;
  if (rfd >= 0)
    close(rfd);
  if (keep != end && (ftruncate(l->fd, keep) != 0 || lseek(l->fd, keep, SEEK_SET) < 0))
    return failed(l, CB_RUNTIME, errno, err);
  l->started = 1;
  l->good = keep;
  return CB_OK;
}

int cb_lines_put(struct cb_lines *l, const char *text, size_t len, struct cb_error *err) {
  cb_interrupt_hold();
  size_t done = 0;
  int e = 0;
  while (done < len) {
    ssize_t w = write(l->fd, text + done, len - done);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0) {
      e = w < 0 ? errno : ENOSPC;
      break;
    }
    done += (size_t)w;
  }
  if (e && l->regular && done > 0) { /* no torn line: back to the last whole one */
    if (ftruncate(l->fd, l->good) == 0)
      lseek(l->fd, l->good, SEEK_SET);
  } else if (!e) {
    l->good += (off_t)len;
  }
  cb_interrupt_release();
  return e ? failed(l, CB_RUNTIME, e, err) : CB_OK;
}

int cb_lines_put_text(struct cb_lines *l, char *text, struct cb_error *err) {
  size_t len = text ? strlen(text) : 0;
  char *line = text ? realloc(text, len + 2) : NULL;
  if (!line) {
    free(text);
    return cb_fail(err, CB_RUNTIME, "%s: out of memory writing '%s'", l->option, l->path);
  }
  line[len] = '\n';
  int rc = cb_lines_put(l, line, len + 1, err);
  free(line);
  return rc;
}

int cb_lines_close(struct cb_lines *l, struct cb_error *err) {
  if (!l->path)
    return CB_OK;
  int rc = CB_OK;
  if (close(l->fd) != 0)
    rc = failed(l, CB_RUNTIME, errno, err);
  if (l->created && !l->started)
    unlink(l->path);
  free(l->path);
  l->path = NULL;
  return rc;
}
