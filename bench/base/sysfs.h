/* The kernel's /sys and /proc, read through one root that the environment
 * variable COLLBENCH_SYSFS_ROOT can move (as hwloc's HWLOC_FSROOT does: the
 * root holds sys/ and proc/), so tests read trees copied from real machines
 * with faults planted in them. "%h" in the root stands for the host name,
 * so one variable gives every node of a simulated cluster a tree of its own.
 * Every read is bounded and never blocks (O_NONBLOCK, regular files only):
 * gathering evidence must not fail or stall a run. */
#ifndef CB_BASE_SYSFS_H
#define CB_BASE_SYSFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The root ("" for the real one); read once. */
const char *cb_sysfs_root(void);
/* 1 when COLLBENCH_SYSFS_ROOT moved it. */
int cb_sysfs_moved(void);

/* root + the formatted absolute path ("/sys/class/infiniband/%s"). */
const char *cb_sysfs_path(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The file's first line without its newline; 0 when it cannot be read. */
int cb_sysfs_line(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A decimal count from the file's first line: digits only, then the end
 * of the line (no sign, no 0x or octal, within 64 bits). 1 read, 0 absent
 * or unreadable, -1 there but not a decimal count. */
int cb_sysfs_u64(uint64_t *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a 0x-prefixed hexadecimal value (PCI vendor, class). */
int cb_sysfs_hex(uint64_t *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Up to len bytes of a (binary) file, e.g. PCI config space; -1 unreadable. */
ssize_t cb_sysfs_bytes(void *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A symbolic link's target, as stored; 0 when it is not a link. */
int cb_sysfs_link(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* 1 when the path exists (a file, folder or link). */
int cb_sysfs_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
