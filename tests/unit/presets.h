/* The shipped topology presets (topologies/NAME.conf, read from the repository
 * root), for the tests that go through each of them. */
#ifndef CB_TEST_PRESETS_H
#define CB_TEST_PRESETS_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#define MAX_PRESETS 64

/* Fills paths with "topologies/NAME.conf" in directory order; returns how
 * many, or -1 when topologies/ cannot be read. */
static int preset_paths(char paths[MAX_PRESETS][512]) {
  DIR *d = opendir("topologies");
  if (!d)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < MAX_PRESETS) {
    size_t len = strlen(e->d_name);
    if (len < 6 || strcmp(e->d_name + len - 5, ".conf") != 0)
      continue;
    snprintf(paths[n++], 512, "topologies/%s", e->d_name);
  }
  closedir(d);
  return n;
}

#endif
