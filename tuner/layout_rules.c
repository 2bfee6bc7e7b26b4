/* layout_rules.h. */
#include "layout_rules.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_choice.h"
#include "space.h"

#define LL128 2 /* space.h's 1-based protocol */

const char *const cb_layout_nccl_colls[CB_NEV_OPS] = {[CB_EV_ALLREDUCE] = "allreduce",
                                                      [CB_EV_ALLGATHER] = "allgather",
                                                      [CB_EV_REDUCE_SCATTER] = "reducescatter"};

static void note(struct cb_layout_notes *notes, const char *fmt, ...) {
  if (notes->n >= CB_LAYOUT_NOTES)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(notes->text[notes->n++], sizeof notes->text[0], fmt, ap);
  va_end(ap);
}

static int ll128(int code) {
  int a, p;
  cb_nccl_pair_of(code, &a, &p);
  return p == LL128;
}

/* Whether choice i is one the files may force. */
static int writable(const struct cb_layout_choice *c, struct cb_layout_notes *notes) {
  if (c->code <= 0 || c->code > CB_NCCL_NPAIRS)
    return 0;
  if (ll128(c->code)) {
    note(notes,
         "%s %s: %s not written: nothing in the step checks its results, and NCCL warns that "
         "LL128 forced where it does not enable it can corrupt data",
         c->comm, c->coll, cb_nccl_pair_name(c->code));
    return 0;
  }
  return 1;
}

void cb_layout_nccl_env(const struct cb_layout_choice *ch, int n, int version, char *algo,
                        size_t alen, char *proto, size_t plen, struct cb_layout_notes *notes) {
  size_t ua = 0, up = 0;
  algo[0] = proto[0] = '\0';
  for (int i = 0; i < n; i++) {
    int first = 1;
    for (int j = 0; j < i; j++)
      first &= strcmp(ch[j].coll, ch[i].coll) != 0;
    if (!first) /* a collective's choices, said once */
      continue;
    /* NCCL's own choice (0) on one communicator and a pair on another is
     * a difference too: the variable would force it on both */
    int want = ch[i].code, conflict = 0, unsafe = 0;
    char who[256] = "";
    size_t uw = 0;
    for (int j = i; j < n; j++)
      if (!strcmp(ch[j].coll, ch[i].coll)) {
        if (uw < sizeof who)
          uw += (size_t)snprintf(who + uw, sizeof who - uw, "%s%s %s", uw ? ", " : "", ch[j].comm,
                                 cb_nccl_pair_name(ch[j].code));
        conflict |= ch[j].code != want;
        unsafe |= ch[j].code > 0 && ll128(ch[j].code);
      }
    if (conflict) {
      note(notes,
           "%s not set: its communicators chose differently (%s), and NCCL_ALGO/NCCL_PROTO "
           "hold one pair a collective a process; --plugin-out's rules say it per "
           "communicator size",
           ch[i].coll, who);
      continue;
    }
    if (!want)
      continue;
    if (unsafe) {
      note(notes,
           "%s not set (%s): nothing in the step checks its results, and NCCL warns that LL128 "
           "forced where it does not enable it can corrupt data",
           ch[i].coll, who);
      continue;
    }
    if (version && version < CB_NCCL_PER_COLL_VERSION) {
      note(notes,
           "%s not set (%s): NCCL %d.%d reads NCCL_ALGO/NCCL_PROTO for every collective at once; "
           "the per-collective form needs NCCL 2.24 or later",
           ch[i].coll, who, version / 10000, version / 100 % 100);
      continue;
    }
    int a, p;
    cb_nccl_pair_of(want, &a, &p);
    if (ua < alen)
      ua += (size_t)snprintf(algo + ua, alen - ua, "%s%s:%s", ua ? ";" : "", ch[i].coll,
                             cb_nccl_algo_env[a - 1]);
    if (up < plen)
      up += (size_t)snprintf(proto + up, plen - up, "%s%s:%s", up ? ";" : "", ch[i].coll,
                             cb_nccl_proto_env[p - 1]);
  }
}

int cb_layout_plugin_rules(const struct cb_layout_choice *ch, int n, struct cb_plugin_rule *out,
                           int max, struct cb_layout_notes *notes) {
  int nr = 0;
  for (int i = 0; i < n; i++) {
    if (!cb_plugin_coll_ok(ch[i].coll) || !writable(&ch[i], notes))
      continue;
    int clash = -1;
    for (int j = 0; j < n && clash < 0; j++)
      if (j != i && ch[j].code != ch[i].code && /* NCCL's own (0) on j would be forced too */
          !strcmp(ch[j].coll, ch[i].coll) && ch[j].nnodes == ch[i].nnodes &&
          ch[j].nranks == ch[i].nranks && ch[j].min_bytes <= ch[i].max_bytes &&
          ch[i].min_bytes <= ch[j].max_bytes)
        clash = j;
    if (clash >= 0) {
      if (clash > i) /* said once, by the first of the two */
        note(notes,
             "%s %s (%s) and %s %s (%s): communicators of %d rank(s) on %d node(s) with calls "
             "of the same sizes, so no rule can tell them apart: neither written",
             ch[i].comm, ch[i].coll, cb_nccl_pair_name(ch[i].code), ch[clash].comm, ch[clash].coll,
             cb_nccl_pair_name(ch[clash].code), ch[i].nranks, ch[i].nnodes);
      continue;
    }
    if (nr >= max)
      break;
    int a, p;
    cb_nccl_pair_of(ch[i].code, &a, &p);
    out[nr++] = (struct cb_plugin_rule){.coll = ch[i].coll,
                                        .min_bytes = ch[i].min_bytes,
                                        .max_bytes = ch[i].max_bytes,
                                        .algo = a - 1,
                                        .proto = p - 1,
                                        .margin_pct = NAN,
                                        .nnodes = ch[i].nnodes,
                                        .nranks = ch[i].nranks};
  }
  return nr;
}

int cb_layout_nccl_view(const struct cb_cluster *cl, int share_gpu, const struct cb_layout *l,
                        int sc, struct cb_nccl_view *v) {
  int *members = malloc((size_t)cl->nranks * sizeof *members);
  if (!members)
    return -1;
  struct cb_nccl_view w = cb_tune_nccl_view(cl, share_gpu);
  int k = cb_layout_members(l, cl->nranks, cl->rank, sc, members);
  /* --share-gpu: NCCL_HOSTID makes every rank a node of its own */
  *v = cb_nccl_group_view(&w, share_gpu ? NULL : cl->node_of_rank, members, k);
  free(members);
  return 0;
}
