/* The report's files are created without following links: a symbolic link
 * planted in --out (by another user, dangling or not) must not make
 * collbench create or overwrite the file it points to. Each file is written
 * to a fresh name made with O_EXCL (mkstemp: never follows a link) and
 * renamed over its own name at the end (rename replaces a link, not its
 * target); gnuplot writes into a private directory whose files are then
 * renamed the same way. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parts.h"

#define MAX_OPEN 8 /* the report holds at most a data file and a script open */

static struct {
  FILE *f;
  char tmp[4096], path[4096];
} open_files[MAX_OPEN];

FILE *cb_rep_fopen(const char *path) {
  int slot = 0;
  while (slot < MAX_OPEN && open_files[slot].f)
    slot++;
  char tmp[4096];
  const char *slash = strrchr(path, '/');
  int n = slot == MAX_OPEN ? -1
          : slash
              ? snprintf(tmp, sizeof tmp, "%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1)
              : snprintf(tmp, sizeof tmp, ".%s.XXXXXX", path);
  if (n < 0 || (size_t)n >= sizeof tmp || strlen(path) >= sizeof open_files[0].path) {
    errno = n < 0 ? EMFILE : ENAMETOOLONG;
    return NULL;
  }
  int fd = mkstemp(tmp);
  if (fd < 0)
    return NULL;
  mode_t mask = umask(0);
  umask(mask);
  FILE *f = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    int e = errno;
    close(fd);
    unlink(tmp);
    errno = e;
    return NULL;
  }
  open_files[slot].f = f;
  strcpy(open_files[slot].tmp, tmp);
  strcpy(open_files[slot].path, path);
  return f;
}

int cb_rep_fclose(FILE *f) {
  int slot = 0;
  while (slot < MAX_OPEN && open_files[slot].f != f)
    slot++;
  if (slot == MAX_OPEN)
    return fclose(f);
  open_files[slot].f = NULL;
  int rc = fclose(f);
  if (rc == 0 && rename(open_files[slot].tmp, open_files[slot].path) != 0)
    rc = EOF;
  if (rc != 0) {
    int e = errno;
    unlink(open_files[slot].tmp);
    errno = e;
  }
  return rc;
}

int cb_rep_check_out(const char *dir, struct cb_error *err) {
  struct stat st;
  if (stat(dir, &st) != 0)
    return cb_fail(err, CB_USAGE, "--out: cannot use '%s': %s", dir, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return cb_fail(err, CB_USAGE, "--out: '%s' is not a folder", dir);
  if (st.st_uid != geteuid())
    return cb_fail(err, CB_USAGE,
                   "--out: '%s' belongs to another user (uid %ld): its owner could plant links "
                   "there; give a folder of your own",
                   dir, (long)st.st_uid);
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    return cb_fail(err, CB_USAGE,
                   "--out: '%s' is writable by every user without the sticky bit: anyone could "
                   "plant links there; give a folder of your own",
                   dir);
  return CB_OK;
}


