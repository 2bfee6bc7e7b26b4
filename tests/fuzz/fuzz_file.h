/* The fuzz harnesses' input as a file: collbench's readers take a path
 * (and report errors naming it), so each input is written to an in-memory
 * file (memfd) and the reader opens it as /proc/self/fd/N, with its own
 * offset, exactly as it would open a file given on the command line. */
#ifndef CB_FUZZ_FILE_H
#define CB_FUZZ_FILE_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define FUZZ_MAX_FILES 4

/* The path of file `slot` (< FUZZ_MAX_FILES), now holding exactly
 * data[0..size). */
static inline const char *fuzz_file_n(int slot, const uint8_t *data, size_t size) {
  static int fds[FUZZ_MAX_FILES] = {-1, -1, -1, -1};
  static char paths[FUZZ_MAX_FILES][64];
  int *fd = &fds[slot];
  if (*fd < 0) {
    *fd = memfd_create("fuzz-input", 0);
    if (*fd < 0) {
      perror("memfd_create");
      abort();
    }
    snprintf(paths[slot], sizeof paths[slot], "/proc/self/fd/%d", *fd);
  }
  if (ftruncate(*fd, 0) != 0 || (size && pwrite(*fd, data, size, 0) != (ssize_t)size)) {
    perror("fuzz input file");
    abort();
  }
  return paths[slot];
}

static inline const char *fuzz_file(const uint8_t *data, size_t size) {
  return fuzz_file_n(0, data, size);
}

/* Splits the input into up to FUZZ_MAX_FILES files at each line "--"
 * (readers that take several files); returns how many. */
static inline int fuzz_files(const uint8_t *data, size_t size, const char **paths) {
  int n = 0;
  size_t start = 0;
  for (size_t i = 0; i + 4 <= size && n < FUZZ_MAX_FILES - 1; i++)
    if (data[i] == '\n' && data[i + 1] == '-' && data[i + 2] == '-' && data[i + 3] == '\n') {
      paths[n] = fuzz_file_n(n, data + start, i + 1 - start);
      n++;
      start = i + 4;
      i += 3;
    }
  paths[n] = fuzz_file_n(n, data + start, size - start);
  return n + 1;
}

/* Output the harness discards (HTML sections, tables): memory, no device. */
static inline FILE *fuzz_sink(char **buf, size_t *len) {
  FILE *f = open_memstream(buf, len);
  if (!f)
    abort();
  return f;
}

#endif
