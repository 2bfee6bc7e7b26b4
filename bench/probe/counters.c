/* RDMA error counters, read and gathered (counters.h). */
#include "counters.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sysfs.h"
#include "node.h"

#define TAG_COUNTERS 32

/* The PortCounters that count errors (sysfs-class-infiniband); the rest
 * of counters/ counts traffic. */
static const char *const errors[] = {"symbol_error",
                                     "link_error_recovery",
                                     "link_downed",
                                     "port_rcv_errors",
                                     "port_rcv_remote_physical_errors",
                                     "port_rcv_switch_relay_errors",
                                     "port_xmit_discards",
                                     "port_xmit_constraint_errors",
                                     "port_rcv_constraint_errors",
                                     "local_link_integrity_errors",
                                     "excessive_buffer_overrun_errors",
                                     "VL15_dropped"};

static void add(struct cb_counters *out, const char *dev, int port, const char *dir,
                const char *name) {
  uint64_t v;
  if (out->n == CB_MAX_COUNTERS ||
      !cb_sysfs_u64(&v, "/sys/class/infiniband/%s/ports/%d/%s/%s", dev, port, dir, name))
    return;
  struct cb_counter *c = &out->c[out->n++];
  cb_probe_copy(c->dev, sizeof c->dev, dev);
  c->port = port;
  cb_probe_copy(c->name, sizeof c->name, name);
  c->value = v;
}

/* hw_counters that count traffic, not trouble (mlx5: rx_read_requests,
 * rx_write_requests, rx_atomic_requests, rx_dct_connect; lifespan is a
 * setting) */
static int counts_traffic(const char *name) {
  return strstr(name, "requests") || strstr(name, "dct_connect") || strcmp(name, "lifespan") == 0;
}

static void read_port(struct cb_counters *out, const char *dev, int port) {
  for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
    add(out, dev, port, "counters", errors[i]);
  char dir[1024];
  struct dirent **names;
  int n = scandir(
      cb_sysfs_path(dir, sizeof dir, "/sys/class/infiniband/%s/ports/%d/hw_counters", dev, port),
      &names, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    if (names[i]->d_name[0] != '.' && !counts_traffic(names[i]->d_name))
      add(out, dev, port, "hw_counters", names[i]->d_name);
    free(names[i]);
  }
  if (n >= 0)
    free(names);
}

void cb_counters_read(struct cb_counters *out) {
  memset(out, 0, sizeof *out);
  char dir[1024];
  struct dirent **devs;
  int n = scandir(cb_sysfs_path(dir, sizeof dir, "/sys/class/infiniband"), &devs, NULL, alphasort);
  for (int i = 0; i < n; i++) {
    for (int port = 1; devs[i]->d_name[0] != '.' && port <= 8; port++)
      if (cb_sysfs_exists("/sys/class/infiniband/%s/ports/%d", devs[i]->d_name, port))
        read_port(out, devs[i]->d_name, port);
    free(devs[i]);
  }
  if (n >= 0)
    free(devs);
}

int cb_counters_gather(const struct cb_cluster *cl, struct cb_counters *all) {
  struct cb_counters mine;
  if (cl->local_rank == 0)
    cb_counters_read(&mine);
  cb_cluster_gather_nodes(cl, &mine, all, sizeof mine, TAG_COUNTERS);
  return CB_OK;
}

int cb_counters_delta(const struct cb_counters *before, const struct cb_counters *after,
                      struct cb_counters *rose) {
  memset(rose, 0, sizeof *rose);
  for (int i = 0; i < after->n; i++) {
    const struct cb_counter *a = &after->c[i];
    for (int k = 0; k < before->n; k++) {
      const struct cb_counter *b = &before->c[k];
      if (b->port == a->port && strcmp(b->dev, a->dev) == 0 && strcmp(b->name, a->name) == 0) {
        if (a->value > b->value) {
          rose->c[rose->n] = *a;
          rose->c[rose->n++].value = a->value - b->value;
        }
        break;
      }
    }
  }
  return rose->n;
}
