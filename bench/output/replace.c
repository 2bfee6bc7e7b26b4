/* Output paths checked before a run, and files replaced whole at its end (replace.h says more). */
#include "replace.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/interrupt.h"

const char *cb_output_strerror(int e) {
  /* what open(O_NONBLOCK) says of a pipe nobody reads */
  return e == ENXIO ? "a pipe with no reader (or a device that is not there)" : strerror(e);
}

static int cannot(int status, const char *option, const char *path, int e, struct cb_error *err) {
  if (!err->status)
    err->output = 1;
  return cb_fail(err, status, "%s: cannot write '%s': %s", option, path, cb_output_strerror(e));
}

int cb_output_open(const char *path, int flags, mode_t mode) {
  /* never blocks: a pipe without a reader fails at once (ENXIO) */
  int fd = open(path, flags | O_NONBLOCK, mode);
  int fl = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
  if (fd >= 0 && (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0)) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

/* A named pipe (mkfifo) in the file system, not one reached through a
 * process's descriptor (/proc/self/fd/N, bash's >(...)), whose link names
 * no file. */
static int named_fifo(const char *path) {
  char real[PATH_MAX];
  struct stat st;
  return realpath(path, real) && lstat(real, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* The file `path` names in the end: a symbolic link's final target (which
 * may not exist yet), else `path`. Returns 0 or an errno. */
static int resolve(const char *path, char *out, size_t len) {
  char cur[PATH_MAX], link[PATH_MAX];
  if (strlen(path) >= sizeof cur || strlen(path) >= len)
    return ENAMETOOLONG;
  struct stat final;
  if (stat(path, &final) == 0 && !S_ISREG(final.st_mode)) {
    strcpy(out, path); /* a device or pipe, even behind /dev/stdout's magic link */
    return 0;
  }
  strcpy(cur, path);
  for (int hops = 0; hops < 40; hops++) {
    struct stat st;
    int r = lstat(cur, &st);
    if (r != 0 && errno != ENOENT)
      return errno;
    if (r != 0 || !S_ISLNK(st.st_mode)) {
      if (strlen(cur) >= len)
        return ENAMETOOLONG;
      strcpy(out, cur);
      return 0;
    }
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0)
      return errno;
    link[n] = '\0';
    if (link[0] == '/') {
      strcpy(cur, link);
    } else { /* relative to the link's directory */
      char dir[PATH_MAX];
      strcpy(dir, cur);
      if (snprintf(out, len, "%s/%s", dirname(dir), link) >= (int)len)
        return ENAMETOOLONG;
      strcpy(cur, out);
    }
  }
  return ELOOP;
}

/* Whether a folder is shared the way /tmp is: anyone may add names. */
static int world_writable(const struct stat *d) {
  return (d->st_mode & S_IWOTH) != 0;
}

/* Links and folders another user could have planted or swapped, refused as
 * the kernel's protected_symlinks would refuse them, but for every output and
 * whatever that setting is (a replace resolves links itself, so the kernel
 * never sees them): each link on the way to the file, in a world-writable
 * sticky folder, must be ours or the folder owner's; and the file's own folder
 * must not be world-writable without the sticky bit (anyone could swap the
 * file). CB_OK, or `status` with a message naming the link or folder. */
static int trusted(const char *path, const char *option, int status, struct cb_error *err) {
  char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
  if (strlen(path) >= sizeof cur)
    return cannot(status, option, path, ENAMETOOLONG, err);
  strcpy(cur, path);
  for (int hops = 0; hops < 40; hops++) {
    struct stat st, d;
    strcpy(dir, cur);
    int has_dir = stat(dirname(dir), &d) == 0;
    int missing = lstat(cur, &st) != 0;
    if (missing || !S_ISLNK(st.st_mode)) {
      /* the file itself (or its name to be): a regular file's folder */
      int regular = missing || S_ISREG(st.st_mode);
      if (regular && has_dir && world_writable(&d) && !(d.st_mode & S_ISVTX))
        return cb_fail(err, status,
                       "%s: refusing to write '%s': its folder %s is writable by every user "
                       "and not sticky, so another user could replace the file (chmod +t or "
                       "o-w the folder, or write elsewhere)",
                       option, path, dir);
      return CB_OK;
    }
    if (has_dir && world_writable(&d) && (d.st_mode & S_ISVTX) && st.st_uid != geteuid() &&
        st.st_uid != d.st_uid)
      return cb_fail(err, status,
                     "%s: refusing to write '%s': %s is a symbolic link owned by another user "
                     "(uid %u) in the shared folder %s; following it would write wherever that "
                     "user chose",
                     option, path, cur, (unsigned)st.st_uid, dir);
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0)
      return CB_OK; /* gone meanwhile: the write will say */
    link[n] = '\0';
    if (link[0] == '/') {
      strcpy(cur, link);
    } else {
      strcpy(dir, cur);
      char next[PATH_MAX];
      if (snprintf(next, sizeof next, "%s/%s", dirname(dir), link) >= (int)sizeof next)
        return cannot(status, option, path, ENAMETOOLONG, err);
      strcpy(cur, next);
    }
  }
  return cannot(status, option, path, ELOOP, err);
}

int cb_output_trusted(const char *path, const char *option, struct cb_error *err) {
  return trusted(path, option, CB_USAGE, err);
}

/* The temporary file's template beside `target`. */
static int temp_template(const char *target, char *out, size_t len) {
  char d[PATH_MAX], b[PATH_MAX];
  strcpy(d, target), strcpy(b, target);
  int n = snprintf(out, len, "%s/.%.100s.XXXXXX", dirname(d), basename(b));
  return n < 0 || (size_t)n >= len ? ENAMETOOLONG : 0;
}

int cb_output_check(const char *path, const char *option, enum cb_output_kind kind,
                    struct cb_error *err) {
  char target[PATH_MAX], tmp[PATH_MAX];
  if (!*path)
    return cb_fail(err, CB_USAGE, "%s: an empty file name", option);
  if (trusted(path, option, CB_USAGE, err))
    return err->status;
  int e = resolve(path, target, sizeof target);
  if (e)
    return cannot(CB_USAGE, option, path, e, err);
  struct stat st;
  if (stat(target, &st) == 0) {
    if (S_ISDIR(st.st_mode))
      return cannot(CB_USAGE, option, path, EISDIR, err);
    if (S_ISSOCK(st.st_mode) || S_ISBLK(st.st_mode) || (S_ISFIFO(st.st_mode) && named_fifo(target)))
      return cb_fail(err, CB_USAGE,
                     "%s: refusing '%s': it is a %s, not a file (a pipe's reader may come and go, "
                     "and a write then waits for the next one); write to a file, a terminal, or "
                     "a pipe by /proc/self/fd/N",
                     option, path,
                     S_ISFIFO(st.st_mode)   ? "named pipe (FIFO)"
                     : S_ISSOCK(st.st_mode) ? "socket"
                                            : "block device");
    if (access(target, W_OK) != 0)
      return cannot(CB_USAGE, option, path, errno, err);
    if (kind == CB_OUT_STREAM || !S_ISREG(st.st_mode))
      return CB_OK; /* written in place: the directory does not matter */
  } else if (errno != ENOENT) {
    return cannot(CB_USAGE, option, path, errno, err);
  }
  /* a new file, or one replaced: its directory must take a new name */
  char d[PATH_MAX];
  strcpy(d, target);
  if (stat(dirname(d), &st) != 0)
    return cannot(CB_USAGE, option, path, errno, err);
  if (!S_ISDIR(st.st_mode))
    return cannot(CB_USAGE, option, path, ENOTDIR, err);
  strcpy(d, target);
  if (access(dirname(d), W_OK | X_OK) != 0)
    return cannot(CB_USAGE, option, path, errno, err);
  if (kind == CB_OUT_REPLACE && (e = temp_template(target, tmp, sizeof tmp)))
    return cannot(CB_USAGE, option, path, e, err);
  return CB_OK;
}

/* Devices and pipes: written as they are. */
static int write_direct(const char *path, const char *option, int (*write)(void *state, FILE *f),
                        void *state, struct cb_error *err) {
  int fd = cb_output_open(path, O_WRONLY | O_TRUNC | O_CLOEXEC, 0);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    return cannot(CB_RUNTIME, option, path, e, err);
  }
  errno = 0;
  int bad = write(state, f) || fflush(f) != 0 || ferror(f), e = errno;
  if (fclose(f) != 0 && !bad)
    bad = 1, e = errno;
  return bad ? cannot(CB_RUNTIME, option, path, e ? e : EIO, err) : CB_OK;
}

int cb_replace_write(const char *path, const char *option, int (*write)(void *state, FILE *f),
                     void *state, struct cb_error *err) {
  char target[PATH_MAX], tmp[PATH_MAX];
  /* again at the end: a link may have been planted since the run started */
  if (trusted(path, option, CB_RUNTIME, err))
    return err->status;
  int e = resolve(path, target, sizeof target);
  if (e)
    return cannot(CB_RUNTIME, option, path, e, err);
  struct stat st;
  int exists = stat(target, &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    return write_direct(target, option, write, state, err);
  if ((e = temp_template(target, tmp, sizeof tmp)))
    return cannot(CB_RUNTIME, option, path, e, err);
  int fd = mkstemp(tmp);
  if (fd < 0)
    return cannot(CB_RUNTIME, option, path, errno, err);
  cb_interrupt_temp(tmp);
  mode_t mask = umask(0);
  umask(mask);
  /* the replaced file's mode and owner, or what a new file would get */
  e = fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask) != 0 ? errno : 0;
  if (exists && geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) != 0)
    e = errno;
  FILE *f = e ? NULL : fdopen(fd, "w");
  if (!f) {
    e = e ? e : errno;
    close(fd);
  } else {
    errno = 0;
    if (write(state, f) || fflush(f) != 0 || ferror(f) || fsync(fd) != 0)
      e = errno ? errno : EIO;
    if (fclose(f) != 0 && !e)
      e = errno;
  }
  if (!e && rename(tmp, target) != 0)
    e = errno;
  if (e)
    unlink(tmp);
  cb_interrupt_temp(NULL);
  return e ? cannot(CB_RUNTIME, option, path, e, err) : CB_OK;
}
