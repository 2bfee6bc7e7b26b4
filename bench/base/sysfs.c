/* /sys and /proc under a movable root (sysfs.h). */
#include "sysfs.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[512];
static int root_read, moved;

const char *cb_sysfs_root(void) {
  if (root_read)
    return root;
  root_read = 1;
  const char *r = getenv("COLLBENCH_SYSFS_ROOT");
  if (!r || !r[0] || strcmp(r, "/") == 0)
    return root;
  moved = 1;
  char host[256] = "";
  gethostname(host, sizeof host - 1);
  size_t at = 0;
  for (const char *p = r; *p && at < sizeof root - 1; p++) {
    if (p[0] == '%' && p[1] == 'h') {
      at += (size_t)snprintf(root + at, sizeof root - at, "%s", host);
      p++;
    } else {
      root[at++] = *p;
    }
  }
  root[at < sizeof root ? at : sizeof root - 1] = '\0';
  at = strlen(root);
  while (at > 1 && root[at - 1] == '/') /* "/tmp/x/" + "/sys" */
    root[--at] = '\0';
  return root;
}

int cb_sysfs_moved(void) {
  cb_sysfs_root();
  return moved;
}

static const char *vpath(char *buf, size_t len, const char *fmt, va_list ap) {
  size_t at = (size_t)snprintf(buf, len, "%s", cb_sysfs_root());
  if (at < len)
    vsnprintf(buf + at, len - at, fmt, ap);
  return buf;
}

/* path[] = root + the caller's format and arguments (after `fmt`). */
#define ROOTED(path, fmt)                                                                          \
  do {                                                                                             \
    va_list ap;                                                                                    \
    va_start(ap, fmt);                                                                             \
    vpath(path, sizeof path, fmt, ap);                                                             \
    va_end(ap);                                                                                    \
  } while (0)

const char *cb_sysfs_path(char *buf, size_t len, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vpath(buf, len, fmt, ap);
  va_end(ap);
  return buf;
}

/* Opens a regular file without blocking (a FIFO planted in a tree would
 * otherwise stall the run); -1 otherwise. */
static int open_regular(const char *path) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    close(fd);
    return -1;
  }
  return fd;
}

static ssize_t read_bounded(const char *path, void *buf, size_t len) {
  int fd = open_regular(path);
  if (fd < 0)
    return -1;
  size_t got = 0;
  while (got < len) {
    ssize_t n = read(fd, (char *)buf + got, len - got);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  close(fd);
  return (ssize_t)got;
}

int cb_sysfs_line(char *buf, size_t len, const char *fmt, ...) {
  char path[1024];
  ROOTED(path, fmt);
  ssize_t n = read_bounded(path, buf, len - 1);
  if (n < 0) {
    buf[0] = '\0';
    return 0;
  }
  buf[n] = '\0';
  buf[strcspn(buf, "\n")] = '\0';
  return 1;
}

/* The number in `path` in `base` (16: after its 0x); see cb_sysfs_u64. */
static int read_number(const char *path, int base, uint64_t *v) {
  char line[64];
  ssize_t n = read_bounded(path, line, sizeof line - 1);
  if (n <= 0)
    return 0;
  line[n] = '\0';
  const char *p = line;
  if (base == 16 && (strncmp(p, "0x", 2) == 0 || strncmp(p, "0X", 2) == 0))
    p += 2;
  if (!(base == 16 ? isxdigit((unsigned char)*p) : isdigit((unsigned char)*p)))
    return -1;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(p, &end, base);
  while (*end == '\n' || *end == ' ' || *end == '\t')
    end++;
  if (errno || *end != '\0')
    return -1;
  *v = x;
  return 1;
}

int cb_sysfs_u64(uint64_t *v, const char *fmt, ...) {
  char path[1024];
  ROOTED(path, fmt);
  return read_number(path, 10, v);
}

int cb_sysfs_hex(uint64_t *v, const char *fmt, ...) {
  char path[1024];
  ROOTED(path, fmt);
  return read_number(path, 16, v);
}

ssize_t cb_sysfs_bytes(void *buf, size_t len, const char *fmt, ...) {
  char path[1024];
  ROOTED(path, fmt);
  return read_bounded(path, buf, len);
}

int cb_sysfs_link(char *buf, size_t len, const char *fmt, ...) {
  char path[1024];
  ROOTED(path, fmt);
  ssize_t n = readlink(path, buf, len - 1);
  if (n <= 0) {
    buf[0] = '\0';
    return 0;
  }
  buf[n] = '\0';
  return 1;
}

int cb_sysfs_exists(const char *fmt, ...) {
  char path[1024];
  struct stat st;
  ROOTED(path, fmt);
  return lstat(path, &st) == 0;
}
