/* The NICs of this node: RDMA devices through ibverbs (port state, link
 * layer, rate), /sys/class/infiniband when verbs is missing, and plain
 * network interfaces from /sys/class/net so a node without RDMA still
 * shows its links. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sysfs.h"
#include "config.h"
#include "node.h"

#include <stdio.h>

#if CB_HAVE_VERBS
#include <infiniband/verbs.h>

#include "../backends/verbs_logic.h"
#endif

/* The PCI address a sysfs device link points at ("0000:3b:00.0"), or "". */
void cb_probe_pci_of(const char *device_link, char *buf, size_t len) {
  char target[512];
  buf[0] = '\0';
  if (!cb_sysfs_link(target, sizeof target, "%s", device_link))
    return;
  const char *base = strrchr(target, '/') ? strrchr(target, '/') + 1 : target;
  unsigned d, b, s, f;
  if (sscanf(base, "%x:%x:%x.%x", &d, &b, &s, &f) == 4)
    snprintf(buf, len, "%04x:%02x:%02x.%x", d, b, s, f);
}

/* The network interface an RDMA device drives (RoCE, IPoIB), if any. */
static void netdev_of(const char *ibdev, char *buf, size_t len) {
  char path[1024];
  cb_sysfs_path(path, sizeof path, "/sys/class/infiniband/%s/device/net", ibdev);
  buf[0] = '\0';
  DIR *d = opendir(path);
  if (!d)
    return;
  for (struct dirent *e; (e = readdir(d));)
    if (e->d_name[0] != '.') {
      cb_probe_copy(buf, len, e->d_name);
      break;
    }
  closedir(d);
}

static struct cb_probe_nic *add_nic(struct cb_probe_node *n, const char *name) {
  if (n->nnics == CB_PROBE_MAX_NICS)
    return NULL;
  struct cb_probe_nic *c = &n->nics[n->nnics++];
  memset(c, 0, sizeof *c);
  cb_probe_copy(c->name, sizeof c->name, name);
  c->numa = -1;
  return c;
}

/* The most a port is taken to carry: 1.6 Tb/s (XDR 4x is 800 Gb/s) */
#define CB_MAX_LINK_GBPS 1600

/* "400 Gb/sec (4X NDR)": 400; 0 when not a rate in (0, CB_MAX_LINK_GBPS] */
static double link_gbps(const char *rate) {
  char *end;
  if (!isdigit((unsigned char)rate[0]))
    return 0;
  double v = strtod(rate, &end);
  return end - rate == (long)strspn(rate, "0123456789.") && *end == ' ' && isfinite(v) && v > 0 &&
                 v <= CB_MAX_LINK_GBPS
             ? v
             : 0;
}

static void rdma_common(struct cb_probe_nic *c, const char *ibdev, int port) {
  char path[256];
  uint64_t mtu;
  c->rdma = 1;
  c->port = port;
  snprintf(path, sizeof path, "/sys/class/infiniband/%s/device", ibdev);
  cb_probe_pci_of(path, c->bus_id, sizeof c->bus_id);
  netdev_of(ibdev, c->netdev, sizeof c->netdev);
  /* Linux takes 68 to 65535 (IPv4's least; a 16-bit length): else unknown */
  if (c->netdev[0] && cb_sysfs_u64(&mtu, "/sys/class/net/%s/mtu", c->netdev) == 1 && mtu >= 68 &&
      mtu <= 65535)
    c->mtu = (int)mtu;
}

#if CB_HAVE_VERBS
static const char *port_state(enum ibv_port_state s) {
  switch (s) {
  case IBV_PORT_ACTIVE: return "ACTIVE";
  case IBV_PORT_DOWN: return "DOWN";
  case IBV_PORT_INIT: return "INIT";
  case IBV_PORT_ARMED: return "ARMED";
  default: return "other";
  }
}

/* 0 when ibverbs gave no device list (rdma_why says why). */
static int verbs_nics(struct cb_probe_node *n) {
  int count = 0;
  errno = 0;
  struct ibv_device **list = ibv_get_device_list(&count);
  if (!list) {
    snprintf(n->rdma_why, sizeof n->rdma_why, "ibv_get_device_list: %s",
             strerror(errno ? errno : ENODEV));
    return 0;
  }
  if (count == 0)
    snprintf(n->rdma_why, sizeof n->rdma_why, "ibv_get_device_list: no devices");
  for (int i = 0; i < count; i++) {
    const char *name = ibv_get_device_name(list[i]);
    struct ibv_context *ctx = ibv_open_device(list[i]);
    struct ibv_device_attr attr;
    if (!ctx || ibv_query_device(ctx, &attr) != 0) {
      struct cb_probe_nic *c = add_nic(n, name);
      if (c) {
        rdma_common(c, name, 1);
        snprintf(c->state, sizeof c->state, "unreadable");
        snprintf(c->link, sizeof c->link, "?");
        n->nrdma++;
      }
      if (ctx)
        ibv_close_device(ctx);
      continue;
    }
    for (int port = 1; port <= attr.phys_port_cnt; port++) {
      struct ibv_port_attr pa;
      struct cb_probe_nic *c = add_nic(n, name);
      if (!c)
        break;
      n->nrdma++;
      rdma_common(c, name, port);
      if (ibv_query_port(ctx, (uint8_t)port, &pa) != 0) {
        snprintf(c->state, sizeof c->state, "unreadable");
        continue;
      }
      snprintf(c->state, sizeof c->state, "%s", port_state(pa.state));
      snprintf(c->link, sizeof c->link, "%s",
               pa.link_layer == IBV_LINK_LAYER_ETHERNET ? "RoCE" : "InfiniBand");
      c->gbps = cb_ib_port_gbps(pa.active_speed, pa.active_width);
      snprintf(c->rate, sizeof c->rate, "%dx %s", cb_ib_lanes(pa.active_width),
               cb_ib_speed_name(pa.active_speed));
    }
    ibv_close_device(ctx);
  }
  ibv_free_device_list(list);
  return 1;
}
#endif

/* Without ibverbs: what the kernel says about RDMA ports. */
static void sysfs_rdma_nics(struct cb_probe_node *n) {
  char dir[1024];
  DIR *d = opendir(cb_sysfs_path(dir, sizeof dir, "/sys/class/infiniband"));
  if (!d)
    return;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] == '.')
      continue;
    for (int port = 1; port <= 8; port++) {
      char state[64], layer[64], rate[64];
      if (!cb_sysfs_line(state, sizeof state, "/sys/class/infiniband/%s/ports/%d/state", e->d_name,
                         port))
        break;
      struct cb_probe_nic *c = add_nic(n, e->d_name);
      if (!c)
        break;
      n->nrdma++;
      rdma_common(c, e->d_name, port);
      const char *colon = strchr(state, ':'); /* "4: ACTIVE" */
      cb_probe_copy(c->state, sizeof c->state, colon ? colon + 1 + (colon[1] == ' ') : state);
      if (cb_sysfs_line(layer, sizeof layer, "/sys/class/infiniband/%s/ports/%d/link_layer",
                        e->d_name, port))
        snprintf(c->link, sizeof c->link, "%s",
                 strcmp(layer, "Ethernet") == 0 ? "RoCE" : "InfiniBand");
      if (cb_sysfs_line(rate, sizeof rate, "/sys/class/infiniband/%s/ports/%d/rate", e->d_name,
                        port)) { /* "400 Gb/sec (4X NDR)" */
        c->gbps = link_gbps(rate);
        const char *paren = strchr(rate, '(');
        if (c->gbps > 0)
          snprintf(c->rate, sizeof c->rate, "%.*s", paren ? (int)strcspn(paren + 1, ")") : 0,
                   paren ? paren + 1 : "");
        else
          snprintf(c->rate, sizeof c->rate, "unknown: '%.12s'", rate);
      }
    }
  }
  closedir(d);
}

/* Interfaces an RDMA device already stands for are not listed twice. */
static int is_rdma_netdev(const struct cb_probe_node *n, const char *ifname) {
  for (int i = 0; i < n->nnics; i++)
    if (n->nics[i].rdma && strcmp(n->nics[i].netdev, ifname) == 0)
      return 1;
  return 0;
}

static void net_interfaces(struct cb_probe_node *n) {
  struct dirent **names;
  char dir[1024];
  int count = scandir(cb_sysfs_path(dir, sizeof dir, "/sys/class/net"), &names, NULL, alphasort);
  for (int i = 0; i < count; i++) {
    const char *ifname = names[i]->d_name;
    char path[512], v[64];
    if (ifname[0] != '.' && strcmp(ifname, "lo") != 0 && !is_rdma_netdev(n, ifname)) {
      struct cb_probe_nic *c = add_nic(n, ifname);
      if (c) {
        snprintf(c->link, sizeof c->link, "Ethernet");
        cb_probe_copy(c->state, sizeof c->state,
                      cb_sysfs_line(v, sizeof v, "/sys/class/net/%s/operstate", ifname) ? v : "?");
        uint64_t mbps; /* -1 or EINVAL: unknown */
        if (cb_sysfs_u64(&mbps, "/sys/class/net/%s/speed", ifname) == 1 && mbps > 0 &&
            mbps <= 1000 * CB_MAX_LINK_GBPS) {
          c->gbps = (double)mbps / 1000.0;
          snprintf(c->rate, sizeof c->rate, "%llu Mb/s", (unsigned long long)mbps);
        }
        snprintf(path, sizeof path, "/sys/class/net/%s/device", ifname);
        cb_probe_pci_of(path, c->bus_id, sizeof c->bus_id);
      }
    }
    free(names[i]);
  }
  if (count >= 0)
    free(names);
}

void cb_probe_nics(struct cb_probe_node *n) {
  int listed = 0;
#if CB_HAVE_VERBS
  if (!cb_sysfs_moved()) /* a moved root's devices are not the verbs library's */
    listed = verbs_nics(n);
#else
  snprintf(n->rdma_why, sizeof n->rdma_why,
           "ibv_get_device_list: not built with libibverbs (install libibverbs-dev)");
#endif
  if (!listed)
    sysfs_rdma_nics(n);
  net_interfaces(n);
}
