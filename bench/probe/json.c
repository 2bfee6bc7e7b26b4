/* The probe as JSON, for the run line of --json files. */
#include "base/text.h"
#include "config.h"
#include "evidence.h"
#include "gpu_health.h"
#include "probe.h"

#if CB_HAVE_JANSSON
#include <jansson.h>

static json_t *gpu_json(const struct cb_probe_node *n, int g) {
  const struct cb_probe_gpu *d = &n->gpus[g];
  json_t *o =
      json_pack("{s:i, s:s, s:s, s:I, s:i, s:i}", "index", g, "name", d->name, "bus_id", d->bus_id,
                "memory_bytes", (json_int_t)d->mem_bytes, "sms", d->sms, "numa", d->numa);
  char cc[16];
  snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
  json_object_set_new(o, "compute_capability", cb_json_text(cc));
  if (d->nvlinks >= 0) {
    json_t *peers = json_array();
    for (int p = 0; p < d->npeers; p++)
      json_array_append_new(peers, cb_json_text(d->nvlink_peers[p]));
    json_object_set_new(o, "nvlink",
                        json_pack("{s:i, s:i, s:i, s:o}", "links", d->nvlinks, "active",
                                  d->nvlinks_active, "to_nvswitch", d->nvlinks_to_switch,
                                  "gpu_peers", peers));
  } else {
    json_object_set_new(o, "nvlink", json_null());
  }
  json_t *near = json_object();
  for (int i = 0; i < n->nnics; i++)
    if (n->gpu_nic[g][i][0])
      json_object_set_new(near, n->nics[i].name, cb_json_text(n->gpu_nic[g][i]));
  json_object_set_new(o, "nic_distance", near);
  return o;
}

static json_t *nic_json(const struct cb_probe_nic *c) {
  json_t *o = json_pack("{s:s, s:b, s:s, s:s, s:s, s:i}", "name", c->name, "rdma", c->rdma, "link",
                        c->link, "state", c->state, "pci", c->bus_id, "numa", c->numa);
  if (c->rdma) {
    json_object_set_new(o, "port", json_integer(c->port));
    json_object_set_new(o, "netdev", cb_json_text(c->netdev));
  }
  json_object_set_new(o, "gbps", c->gbps > 0 ? json_real(c->gbps) : json_null());
  json_object_set_new(o, "rate", cb_json_text(c->rate));
  json_object_set_new(o, "mtu", c->mtu > 0 ? json_integer(c->mtu) : json_null());
  return o;
}

static json_t *num_or_null(double v) {
  return v > 0 ? json_real(v) : json_null();
}

static json_t *int_or_null(long long v) {
  return v >= 0 ? json_integer(v) : json_null();
}

/* One GPU's NVML state; -1 (unknown) as null. */
static json_t *health_json(const struct cb_gpu_health *g) {
  json_t *reasons = json_array();
  long long bit;
  const char *name;
  for (int j = 0; g->reasons >= 0 && (name = cb_gpu_reason_name(j, &bit)); j++)
    if (g->reasons & bit)
      json_array_append_new(reasons, json_string(name));
  json_t *o = json_object();
  json_object_set_new(o, "bus_id", cb_json_text(g->bus_id));
  json_object_set_new(o, "sm_mhz", num_or_null(g->sm_mhz));
  json_object_set_new(o, "sm_max_mhz", num_or_null(g->sm_max_mhz));
  json_object_set_new(o, "clock_reasons",
                      g->reasons >= 0 ? reasons : (json_decref(reasons), json_null()));
  json_object_set_new(o, "slowdown",
                      json_boolean(g->reasons > 0 && (g->reasons & CB_GPU_SLOWDOWN)));
  json_object_set_new(o, "ecc", g->ecc < 0 ? json_null() : json_boolean(g->ecc));
  json_object_set_new(o, "ecc_uncorrected", int_or_null(g->ecc_uncorrected));
  json_object_set_new(o, "remap_pending",
                      g->remap_pending < 0 ? json_null() : json_boolean(g->remap_pending));
  json_object_set_new(o, "remap_failed",
                      g->remap_failed < 0 ? json_null() : json_boolean(g->remap_failed));
  json_object_set_new(o, "pcie_replay", int_or_null(g->pcie_replay));
  json_object_set_new(o, "nvlinks", int_or_null(g->nvlinks));
  json_object_set_new(o, "nvlinks_down", int_or_null(g->nvlinks_down));
  json_object_set_new(o, "temperature_c", int_or_null(g->temperature_c));
  json_object_set_new(o, "power_w", g->power_w >= 0 ? json_real(g->power_w) : json_null());
  return o;
}

static json_t *evidence_json(const struct cb_evidence *e) {
  json_t *pci = json_array(), *acs = json_array(), *gpus = json_array();
  for (int i = 0; i < e->ngpus; i++)
    json_array_append_new(gpus, health_json(&e->gpus[i]));
  for (int i = 0; i < e->ndevs; i++) {
    const struct cb_evid_dev *d = &e->devs[i];
    json_t *bridges = json_array();
    for (int b = 0; b < d->npath; b++)
      json_array_append_new(bridges, cb_json_text(d->path[b]));
    json_t *o =
        json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}", "kind",
                  d->kind == 'G' ? "gpu" : "nic", "name", cb_json_text(d->name), "bus_id",
                  cb_json_text(d->bus_id), "link_gts", num_or_null(d->gts), "max_link_gts",
                  num_or_null(d->max_gts), "link_width", num_or_null(d->width), "max_link_width",
                  num_or_null(d->max_width), "trained_down", cb_evid_downtrained(d), "iommu",
                  cb_json_text(d->iommu), "bridges", bridges);
    json_array_append_new(pci, o);
  }
  for (int i = 0; i < e->nacs; i++)
    json_array_append_new(acs, cb_json_text(e->acs[i]));
  return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "gpus", gpus, "nvml_why",
                   cb_json_text(e->nvml_why), "pci", pci, "gpudirect_rdma",
                   e->gdr < 0 ? json_null() : json_boolean(e->gdr), "gpudirect_rdma_why",
                   cb_json_text(e->gdr_why), "acs_redirect",
                   e->acs_known ? acs : (json_decref(acs), json_null()), "acs_why",
                   cb_json_text(e->acs_known ? "" : e->acs_why));
}

static json_t *or_null(const char *s) {
  return s[0] ? cb_json_text(s) : json_null();
}

static json_t *node_json(const struct cb_probe_node *n) {
  json_t *o = json_object();
  json_object_set_new(o, "hostname", cb_json_text(n->hostname));
  json_object_set_new(o, "cpu_model", cb_json_text(n->cpu_model));
  json_object_set_new(o, "packages", json_integer(n->packages));
  json_object_set_new(o, "cores", json_integer(n->cores));
  json_object_set_new(o, "threads", json_integer(n->pus));
  json_object_set_new(o, "numa_nodes", json_integer(n->numa_nodes));
  json_object_set_new(o, "placement", cb_json_text(n->placement));
  json_t *gpus = json_array(), *nics = json_array();
  for (int g = 0; g < n->ngpus; g++)
    json_array_append_new(gpus, gpu_json(n, g));
  for (int i = 0; i < n->nnics; i++)
    json_array_append_new(nics, nic_json(&n->nics[i]));
  json_object_set_new(o, "gpus", gpus);
  if (!n->ngpus)
    json_object_set_new(o, "gpus_why_none", cb_json_text(n->gpu_why));
  json_object_set_new(o, "nics", nics);
  json_object_set_new(o, "rdma_nics", json_integer(n->nrdma));
  if (!n->nrdma)
    json_object_set_new(o, "rdma_why_none", cb_json_text(n->rdma_why));
  json_object_set_new(o, "driver_version", or_null(n->driver));
  json_object_set_new(o, "cuda_driver", or_null(n->cuda_driver));
  json_object_set_new(o, "cuda_runtime", or_null(n->cuda_runtime));
  json_object_set_new(o, "nccl", or_null(n->nccl));
  json_object_set_new(o, "evidence", evidence_json(&n->evidence));
  json_t *counters = json_array();
  for (int i = 0; i < n->counters.n; i++) {
    const struct cb_counter *c = &n->counters.c[i];
    json_array_append_new(counters, json_pack("{s:o, s:i, s:o, s:I}", "dev", cb_json_text(c->dev),
                                              "port", c->port, "name", cb_json_text(c->name),
                                              "value", (json_int_t)c->value));
  }
  json_object_set_new(o, "counters", counters);
  if (n->counters.dropped) /* past CB_MAX_COUNTERS: not read, and said */
    json_object_set_new(o, "counters_not_read", json_integer(n->counters.dropped));
  return o;
}

json_t *cb_probe_json(const struct cb_probe *p) {
  json_t *nodes = json_array();
  for (int i = 0; i < p->nnodes; i++)
    json_array_append_new(nodes, node_json(&p->nodes[i]));
  return json_pack("{s:o}", "nodes", nodes);
}
#endif
