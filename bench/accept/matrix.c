/* All-pairs bandwidth and latency in N-1 shift rounds (mpiGraph's scheme):
 * in round d every rank sends to rank+d and receives from rank-d at once,
 * so N ranks cover all N(N-1) ordered pairs in N-1 rounds. Rank 0 receives
 * N figures per round and keeps O(N): per-rank counters and a bounded list
 * of suspect pairs, judged against each round's median. Suspects are then
 * re-tested alone, interleaved with a reference pair measured just before or
 * after (paired, so load on the machine slows both): a pair is confirmed slow
 * only if every one of K repeats is under bw_fraction of its reference (or
 * over lat_factor of its latency). For a healthy pair and a healthy reference
 * each repeat falls below with probability at most 1/2 (the two are
 * exchangeable and bw_fraction < 1), so a healthy pair is confirmed with
 * probability at most 2^-K; K is chosen so that N(N-1) 2^-K <= MATRIX_ALPHA
 * (Bonferroni over all pairs). A pair slow only in company was contention;
 * a pair confirmed slow is a bad link, and a rank most of whose pairs are
 * slow in one direction is a bad node.
 * With --backend nccl the same rounds move device memory by ncclSend/ncclRecv
 * (one rank per GPU, the backend's shift()), timed by the host clock around
 * each round's group until the stream is done; the ends are then named as a
 * GPU on a host, so a bad GPU, NVLink or NIC rail is told from its node. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "base/stats.h"
#include "base/timer.h"
#include "base/units.h"
#include "fleet_verdict.h"
#include "matrix.h"
#include "matrix_names.h"

#define MATRIX_WINDOW 8   /* messages in flight per pair: fills the pipe, bounds memory */
#define MATRIX_REPEATS 3  /* bandwidth: best of these (noise only ever slows a pair) */
#define MATRIX_ALPHA 0.01 /* bound on naming any healthy pair in a run (see above) */
#define MATRIX_MAX_RETESTS 40
#define MATRIX_PINGS 50 /* latency: median of these round trips */
#define MATRIX_WARMUP_PINGS 5
#define MATRIX_LAT_BYTES 8
#define TAG_BW 11
#define TAG_PING 12
#define TAG_PONG 13

struct suspect {
  int src, dst;
  double bw, lat;         /* in the round (GB/s, us); NAN where not suspect */
  double bw_ref, lat_ref; /* the round's median bandwidth and best latency */
  int slow_bw, slow_lat;  /* confirmed by every paired retest */
  int ref_src, ref_dst;   /* the reference pair of the retests */
  /* medians over the retests: the suspect's and the reference's */
  double rt_bw, rt_bw_ref, rt_lat, rt_lat_ref;
  int repeats; /* retests done (fewer than K once both figures cleared) */
};

struct matrix {
  const struct cb_cluster *cl;
  const struct cb_matrix_rules *rules;
  struct cb_sink *sinks;
  int nsinks;
  int window;
  char *sendbuf, *recvbuf;
  /* nccl: the backend moving the messages (NULL: MPI on host memory); its
   * first failure on this rank, after which the rank only keeps step with
   * the others' MPI calls until the round's agreement ends the matrix */
  const struct cb_backend *be;
  void *bctx;
  int dev_failed;
  struct cb_error dev_err;
  int *gpu; /* [N]: each rank's GPU, -1 for none */
  /* rank 0 only */
  struct suspect *suspects;
  int nsuspects, max_suspects, dropped;
  double *round_bw_median; /* [N-1] */
  double best_lat;
  int *slow_in, *slow_out; /* [N] confirmed slow pairs per rank and direction */
  /* [2N] the worst re-tested figures per rank: [r] incoming, [N + r] outgoing,
   * and the fail level each was judged against (its reference's) */
  double *worst_bw, *worst_lat, *worst_bw_fail, *worst_lat_fail;
  /* [2N] one round as gathered: [2r] bandwidth (r-d) -> r, [2r+1] latency r -> (r+d) */
  double *round;
  double *scratch; /* [N] for the round's median */
};

static const char *host_of(const struct cb_cluster *cl, int rank) {
  return cl->node_names[cl->node_of_rank[rank]];
}

/* "HOST" or "HOST:GPU3" for rank's end of a pair */
static const char *end_of(const struct matrix *m, int rank, char *buf, size_t len) {
  return cb_matrix_end(buf, len, host_of(m->cl, rank), m->gpu[rank]);
}

/* One device round (backend shift + sync) unless this rank failed already;
 * a failure is kept with the pair in its message. */
static void dev_shift(struct matrix *m, size_t bytes, int window, int from, int to) {
  if (m->dev_failed || (from < 0 && to < 0))
    return;
  struct cb_error *e = &m->dev_err;
  if (m->be->shift(m->bctx, m->sendbuf, m->recvbuf, bytes, window, from, to, e) ||
      m->be->sync(m->bctx, e)) {
    m->dev_failed = 1;
    char pre[96]; /* the pair, in front of the backend's own message (cut at the end) */
    snprintf(pre, sizeof pre, "--matrix: receiving %zu B from rank %d, sending to rank %d: ", bytes,
             from, to);
    size_t pl = strlen(pre), ml = strlen(e->msg);
    if (pl + ml >= sizeof e->msg)
      ml = sizeof e->msg - pl - 1;
    memmove(e->msg + pl, e->msg, ml);
    memcpy(e->msg, pre, pl);
    e->msg[pl + ml] = '\0';
  }
}

/* measure_bw on the backend: the round's whole group, host-timed. */
static double measure_bw_dev(struct matrix *m, int src, int dst, uint64_t bytes, int reps) {
  double best = INFINITY;
  for (int rep = 0; rep < reps; rep++) {
    MPI_Barrier(m->cl->comm);
    double t0 = cb_now();
    dev_shift(m, bytes, m->window, src, dst);
    double t = cb_now() - t0;
    if (t < best)
      best = t;
  }
  return src >= 0 && !m->dev_failed ? (double)m->window * (double)bytes / best * 1e-9 : NAN;
}

/* measure_lat on the backend: a round trip is two groups, the pings (from
 * src, to dst) and then the pongs (from dst, to src). */
static double measure_lat_dev(struct matrix *m, int src, int dst) {
  double rtt[MATRIX_PINGS];
  MPI_Barrier(m->cl->comm);
  for (int i = -MATRIX_WARMUP_PINGS; i < MATRIX_PINGS; i++) {
    double t0 = cb_now();
    dev_shift(m, MATRIX_LAT_BYTES, 1, src, dst);
    dev_shift(m, MATRIX_LAT_BYTES, 1, dst, src);
    if (i >= 0)
      rtt[i] = cb_now() - t0;
  }
  if (dst < 0 || m->dev_failed)
    return NAN;
  struct cb_stats st;
  cb_stats_compute(rtt, MATRIX_PINGS, &st);
  return st.median / 2 * 1e6;
}

/* Bandwidth src -> this rank while this rank sends to dst: time until the
 * whole window from src has arrived, best of MATRIX_REPEATS. src or dst
 * may be -1 (a retest, where one rank only sends and one only receives). */
/* MPICH defines MPI_STATUSES_IGNORE as (MPI_Status *)1, which gcc 12 takes
 * for an array of size 0 and warns about (-Wstringop-overflow) wherever it
 * can see the request count. */
static void wait_all(int n, MPI_Request *reqs) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
  MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
}

static double measure_bw(struct matrix *m, int src, int dst, uint64_t bytes, int reps) {
  if (m->be)
    return measure_bw_dev(m, src, dst, bytes, reps);
  const struct cb_cluster *cl = m->cl;
  MPI_Request reqs[2 * MATRIX_WINDOW];
  double best = INFINITY;
  for (int rep = 0; rep < reps; rep++) {
    int n = 0;
    MPI_Barrier(cl->comm);
    double t0 = cb_now();
    if (src >= 0)
      for (int w = 0; w < m->window; w++)
        MPI_Irecv(m->recvbuf + (size_t)w * bytes, (int)bytes, MPI_BYTE, src, TAG_BW, cl->comm,
                  &reqs[n++]);
    int nrecv = n;
    if (dst >= 0)
      for (int w = 0; w < m->window; w++)
        MPI_Isend(m->sendbuf, (int)bytes, MPI_BYTE, dst, TAG_BW, cl->comm, &reqs[n++]);
    wait_all(nrecv, reqs);
    double t = cb_now() - t0;
    wait_all(n - nrecv, reqs + nrecv);
    if (t < best)
      best = t;
  }
  return src >= 0 ? (double)m->window * (double)bytes / best * 1e-9 : NAN;
}

/* Latency this rank -> dst (half the round trip), answering src's pings
 * meanwhile; every rank pings first, so no rank waits on a silent peer. */
static double measure_lat(struct matrix *m, int src, int dst) {
  if (m->be)
    return measure_lat_dev(m, src, dst);
  const struct cb_cluster *cl = m->cl;
  char ping_in[MATRIX_LAT_BYTES], pong_in[MATRIX_LAT_BYTES], out[MATRIX_LAT_BYTES] = {0};
  double rtt[MATRIX_PINGS];
  MPI_Barrier(cl->comm);
  for (int i = -MATRIX_WARMUP_PINGS; i < MATRIX_PINGS; i++) {
    MPI_Request ping = MPI_REQUEST_NULL, pong = MPI_REQUEST_NULL, send[2];
    int nsend = 0;
    if (src >= 0)
      MPI_Irecv(ping_in, MATRIX_LAT_BYTES, MPI_BYTE, src, TAG_PING, cl->comm, &ping);
    if (dst >= 0)
      MPI_Irecv(pong_in, MATRIX_LAT_BYTES, MPI_BYTE, dst, TAG_PONG, cl->comm, &pong);
    double t0 = cb_now();
    if (dst >= 0)
      MPI_Isend(out, MATRIX_LAT_BYTES, MPI_BYTE, dst, TAG_PING, cl->comm, &send[nsend++]);
    if (src >= 0) {
      MPI_Wait(&ping, MPI_STATUS_IGNORE);
      MPI_Isend(out, MATRIX_LAT_BYTES, MPI_BYTE, src, TAG_PONG, cl->comm, &send[nsend++]);
    }
    if (dst >= 0) {
      MPI_Wait(&pong, MPI_STATUS_IGNORE);
      if (i >= 0)
        rtt[i] = cb_now() - t0;
    }
    wait_all(nsend, send);
  }
  if (dst < 0)
    return NAN;
  struct cb_stats st;
  cb_stats_compute(rtt, MATRIX_PINGS, &st);
  return st.median / 2 * 1e6;
}

static int emit_pair(struct matrix *m, int src, int dst, uint64_t bytes, double bw, double lat,
                     int round, struct cb_error *err) {
  struct cb_pair p = {.src = src,
                      .dst = dst,
                      .src_host = host_of(m->cl, src),
                      .dst_host = host_of(m->cl, dst),
                      .bytes = bytes,
                      .bw_GBps = bw,
                      .lat_us = lat,
                      .round = round,
                      .src_gpu = m->gpu[src],
                      .dst_gpu = m->gpu[dst]};
  for (int i = 0; i < m->nsinks; i++)
    if (m->sinks[i].pair && m->sinks[i].pair(m->sinks[i].state, &p, err))
      return err->status;
  return CB_OK;
}

static double median_of(double *v, int n) {
  struct cb_stats st;
  cb_stats_compute(v, (size_t)n, &st);
  return st.median;
}

/* A pair slow in both bandwidth and latency is one suspect: counted twice it
 * would make one bad link look like most of a node's pairs. */
static void add_suspect(struct matrix *m, int src, int dst, double bw, double lat, double bw_ref,
                        double lat_ref) {
  for (int i = 0; i < m->nsuspects; i++) {
    struct suspect *s = &m->suspects[i];
    if (s->src != src || s->dst != dst)
      continue;
    if (!isnan(bw))
      s->bw = bw, s->bw_ref = bw_ref;
    if (!isnan(lat))
      s->lat = lat, s->lat_ref = lat_ref;
    return;
  }
  if (m->nsuspects == m->max_suspects) {
    m->dropped++;
    return;
  }
  m->suspects[m->nsuspects++] = (struct suspect){
      .src = src, .dst = dst, .bw = bw, .lat = lat, .bw_ref = bw_ref, .lat_ref = lat_ref};
}

/* Rank 0: round d's N pairs of figures, as gathered into m->round. */
static int take_round(struct matrix *m, int d, uint64_t bytes, struct cb_error *err) {
  int n = m->cl->nranks;
  double lat_best = INFINITY;
  for (int r = 0; r < n; r++) {
    m->scratch[r] = m->round[2 * r];
    lat_best = fmin(lat_best, m->round[2 * r + 1]);
  }
  double bw_median = median_of(m->scratch, n);
  m->round_bw_median[d - 1] = bw_median;
  m->best_lat = fmin(m->best_lat, lat_best);
  for (int r = 0; r < n; r++) {
    int src, dst;
    cb_matrix_peers(r, d, n, &src, &dst);
    double bw_in = m->round[2 * r], lat_out = m->round[2 * r + 1];
    /* each pair appears once as a bandwidth and once as a latency figure */
    if (emit_pair(m, src, r, bytes, bw_in, NAN, d, err) ||
        emit_pair(m, r, dst, MATRIX_LAT_BYTES, NAN, lat_out, d, err))
      return err->status;
    if (bw_in < m->rules->bw_fraction * bw_median)
      add_suspect(m, src, r, bw_in, NAN, bw_median, NAN);
    if (lat_out > m->rules->lat_factor * lat_best)
      add_suspect(m, r, dst, NAN, lat_out, NAN, lat_best);
  }
  return CB_OK;
}

/* K: the fewest paired retests with npairs * 2^-K <= MATRIX_ALPHA. */
int cb_matrix_retests(int nranks) {
  double pairs = (double)nranks * (nranks - 1);
  int k = 1;
  while (k < MATRIX_MAX_RETESTS && pairs * ldexp(1.0, -k) > MATRIX_ALPHA)
    k++;
  return k;
}

/* Rank 0: a reference for the suspect src -> dst: a pair that shares no rank
 * with it, sent by the rank that sends in the fewest suspect pairs to the rank
 * that receives in the fewest (so not a bad node's direction); the reverse
 * direction when there are fewer than 4 ranks. O(N). */
void cb_matrix_reference(int n, int src, int dst, const int *sus_out, const int *sus_in,
                         int *ref_src, int *ref_dst) {
  int a = -1, b = -1;
  for (int j = 1; j < n; j++) {
    int r = (dst + j) % n;
    if (r != src && (a < 0 || sus_out[r] < sus_out[a]))
      a = r;
  }
  for (int j = 1; a >= 0 && j < n; j++) {
    int r = (a + j) % n;
    if (r != src && r != dst && (b < 0 || sus_in[r] < sus_in[b]))
      b = r;
  }
  if (b < 0)
    a = dst, b = src;
  *ref_src = a, *ref_dst = b;
}

/* Every rank: one pair alone, the others idle; rank 0 gets {bw, lat}. */
static void measure_alone(struct matrix *m, int src, int dst, uint64_t bytes, int want_bw,
                          double got[2]) {
  const struct cb_cluster *cl = m->cl;
  int me_src = cl->rank == src, me_dst = cl->rank == dst;
  double bw = want_bw ? measure_bw(m, me_dst ? src : -1, me_src ? dst : -1, bytes, 1) : 0;
  double lat = measure_lat(m, me_dst ? src : -1, me_src ? dst : -1);
  got[0] = me_dst ? bw : 0, got[1] = me_src ? lat : 0;
  MPI_Allreduce(MPI_IN_PLACE, got, 2, MPI_DOUBLE, MPI_SUM, cl->comm);
}

/* Every rank: re-measure the suspects one at a time, each interleaved with
 * its reference pair (the one measured first alternates, so drift in the
 * machine's load favours neither), up to K times; a figure stays slow only
 * while every ratio to the reference is past the rule, and the retests of a
 * pair stop as soon as no figure is. */
static int retest(struct matrix *m, uint64_t bytes, struct cb_error *err) {
  const struct cb_cluster *cl = m->cl;
  int n = m->nsuspects, nr = cl->nranks, k_max = cb_matrix_retests(nr);
  int *sus_out = NULL, *sus_in = NULL;
  if (cl->rank == 0) {
    sus_out = calloc((size_t)nr, sizeof(int));
    sus_in = calloc((size_t)nr, sizeof(int));
    if (!sus_out || !sus_in)
      n = -1;
    for (int i = 0; i < n; i++)
      sus_out[m->suspects[i].src]++, sus_in[m->suspects[i].dst]++;
  }
  MPI_Bcast(&n, 1, MPI_INT, 0, cl->comm);
  if (n < 0) {
    free(sus_out);
    free(sus_in);
    return cb_fail(err, CB_RUNTIME, "--matrix: out of memory on rank 0 for the retests");
  }
  double sb[MATRIX_MAX_RETESTS], rb[MATRIX_MAX_RETESTS], sl[MATRIX_MAX_RETESTS],
      rl[MATRIX_MAX_RETESTS];
  int rc = CB_OK;
  for (int i = 0; i < n; i++) {
    struct suspect *s = cl->rank == 0 ? &m->suspects[i] : NULL;
    int p[6]; /* src, dst, reference src, dst, bandwidth still slow, latency still slow */
    if (s) {
      cb_matrix_reference(nr, s->src, s->dst, sus_out, sus_in, &s->ref_src, &s->ref_dst);
      p[0] = s->src, p[1] = s->dst, p[2] = s->ref_src, p[3] = s->ref_dst;
      p[4] = !isnan(s->bw), p[5] = !isnan(s->lat);
    }
    MPI_Bcast(p, 6, MPI_INT, 0, cl->comm);
    int k = 0, nb = 0;
    for (; k < k_max && (p[4] || p[5]); k++) {
      double sus[2], ref[2];
      int want_bw = p[4];
      if (k % 2 == 0) {
        measure_alone(m, p[0], p[1], bytes, want_bw, sus);
        measure_alone(m, p[2], p[3], bytes, want_bw, ref);
      } else {
        measure_alone(m, p[2], p[3], bytes, want_bw, ref);
        measure_alone(m, p[0], p[1], bytes, want_bw, sus);
      }
      if (s) {
        if (want_bw) {
          sb[nb] = sus[0], rb[nb++] = ref[0];
          p[4] = sus[0] < m->rules->bw_fraction * ref[0];
        }
        sl[k] = sus[1], rl[k] = ref[1];
        p[5] = p[5] && sus[1] > m->rules->lat_factor * ref[1];
      }
      MPI_Bcast(p + 4, 2, MPI_INT, 0, cl->comm);
    }
    if (!s)
      continue;
    s->repeats = k;
    s->slow_bw = p[4], s->slow_lat = p[5];
    s->rt_bw = nb ? median_of(sb, nb) : NAN;
    s->rt_bw_ref = nb ? median_of(rb, nb) : NAN;
    s->rt_lat = median_of(sl, k);
    s->rt_lat_ref = median_of(rl, k);
    if (s->slow_bw || s->slow_lat)
      m->slow_out[s->src]++, m->slow_in[s->dst]++;
    int at[2] = {s->dst, nr + s->src}; /* its receiver's incoming, its sender's outgoing */
    for (int j = 0; j < 2; j++) {
      if (s->slow_bw && s->rt_bw < m->worst_bw[at[j]])
        m->worst_bw[at[j]] = s->rt_bw,
        m->worst_bw_fail[at[j]] = m->rules->bw_fraction * s->rt_bw_ref;
      if (s->slow_lat && s->rt_lat > m->worst_lat[at[j]])
        m->worst_lat[at[j]] = s->rt_lat,
        m->worst_lat_fail[at[j]] = m->rules->lat_factor * s->rt_lat_ref;
    }
    if (rc == CB_OK) /* on a sink's error the others still expect every retest */
      rc = emit_pair(m, s->src, s->dst, bytes, s->rt_bw, s->rt_lat, 0, err);
    char text[1024], e[4][CB_MATRIX_END_MAX];
    snprintf(text, sizeof text,
             "retest alone %s (rank %d) -> %s (rank %d), %d time%s interleaved with %s (rank %d) "
             "-> %s (rank %d): median %.3g GB/s, %.3g us against %.3g GB/s, %.3g us: %s",
             end_of(m, s->src, e[0], sizeof e[0]), s->src, end_of(m, s->dst, e[1], sizeof e[1]),
             s->dst, k, k == 1 ? "" : "s", end_of(m, s->ref_src, e[2], sizeof e[2]), s->ref_src,
             end_of(m, s->ref_dst, e[3], sizeof e[3]), s->ref_dst, s->rt_bw, s->rt_lat,
             s->rt_bw_ref, s->rt_lat_ref,
             s->slow_bw || s->slow_lat ? "slow in every retest"
                                       : "normal against its reference (contention or noise)");
    if (rc == CB_OK && cb_sinks_note(m->sinks, m->nsinks, text, err))
      rc = err->status;
  }
  free(sus_out);
  free(sus_in);
  return rc;
}

/* A rank is at fault in one direction when most of its pairs in that
 * direction (and at least two) stay slow alone; with two ranks a single
 * slow pair cannot tell link from node, so it is named as a link. */
static int node_at_fault(int slow, int nranks) {
  return slow >= 2 && 2 * slow > nranks - 1;
}

static int judge(struct matrix *m, double bw_ref, struct cb_accept_result *res,
                 struct cb_error *err) {
  const struct cb_cluster *cl = m->cl;
  int n = cl->nranks, faults = 0;
  char names[2][2 * CB_MATRIX_END_MAX + 8];
  for (int r = 0; r < n; r++)
    for (int dir = 0; dir < 2; dir++) {
      int slow = dir ? m->slow_out[r] : m->slow_in[r];
      if (!node_at_fault(slow, n))
        continue;
      struct cb_verdict v = {.name = names[0], .warn = NAN, .window = CB_MATRIX_WINDOW};
      cb_matrix_fault_name(names[0], sizeof names[0], host_of(cl, r), m->gpu[r]);
      int at = dir * n + r;
      if (!isinf(m->worst_bw[at])) { /* its worst pair, against that pair's reference */
        v.unit = "GB/s";
        v.measured = m->worst_bw[at];
        v.fail = m->worst_bw_fail[at];
      } else {
        v.unit = "us";
        v.measured = m->worst_lat[at];
        v.fail = m->worst_lat_fail[at];
      }
      cb_verdict_judge(&v, v.unit[0] == 'u', NULL);
      v.status = CB_FAIL; /* the rule is every paired retest, not the medians shown */
      snprintf(v.what, sizeof v.what,
               "rank %d: %d of %d %s pairs slow in their round and in all %d paired retests (under "
               "%.2g x a reference pair's bandwidth or over %.2g x its latency; <= %g%% false "
               "alarms per run)",
               r, slow, n - 1, dir ? "outgoing" : "incoming", cb_matrix_retests(n),
               m->rules->bw_fraction, m->rules->lat_factor, MATRIX_ALPHA * 100);
      if (cb_accept_emit(cl, m->sinks, m->nsinks, &v, res, err))
        return err->status;
      faults++;
    }
  for (int i = 0; i < m->nsuspects; i++) {
    const struct suspect *s = &m->suspects[i];
    if (!(s->slow_bw || s->slow_lat) || node_at_fault(m->slow_out[s->src], n) ||
        node_at_fault(m->slow_in[s->dst], n))
      continue;
    cb_matrix_link_name(names[1], sizeof names[1], host_of(cl, s->src), m->gpu[s->src],
                        host_of(cl, s->dst), m->gpu[s->dst]);
    struct cb_verdict v = {
        .name = names[1], .status = CB_FAIL, .warn = NAN, .window = CB_MATRIX_WINDOW};
    if (s->slow_bw) { /* median of the retests against its reference's */
      v.unit = "GB/s";
      v.measured = s->rt_bw;
      v.fail = m->rules->bw_fraction * s->rt_bw_ref;
      cb_verdict_judge(&v, 0, NULL);
    } else {
      v.unit = "us";
      v.measured = s->rt_lat;
      v.fail = m->rules->lat_factor * s->rt_lat_ref;
      cb_verdict_judge(&v, 1, NULL);
    }
    v.status = CB_FAIL; /* the rule is every paired retest, not the medians shown */
    snprintf(v.what, sizeof v.what,
             "rank %d -> rank %d, slow in its round and in all %d retests against rank %d -> "
             "rank %d",
             s->src, s->dst, s->repeats, s->ref_src, s->ref_dst);
    if (cb_accept_emit(cl, m->sinks, m->nsinks, &v, res, err))
      return err->status;
    faults++;
  }
  if (faults)
    return CB_OK;
  /* The all-clear is a verdict too, so JUnit and Prometheus see the matrix ran. */
  struct cb_verdict v = {
      .name = "matrix", .unit = "GB/s", .warn = NAN, .margin = NAN, .window = CB_MATRIX_WINDOW};
  v.measured = bw_ref;
  v.fail = m->rules->bw_fraction * bw_ref;
  v.status = CB_PASS;
  snprintf(v.what, sizeof v.what,
           "median pair bandwidth; %d ranks, %d pairs: none under %.2g x the median or over "
           "%.2g x the best latency (%.3g us)%s",
           n, n * (n - 1), m->rules->bw_fraction, m->rules->lat_factor, m->best_lat,
           m->nsuspects ? "; suspects were normal alone" : "");
  return cb_accept_emit(cl, m->sinks, m->nsinks, &v, res, err);
}

static void matrix_free(struct matrix *m) {
  if (m->be) {
    if (m->sendbuf)
      m->be->free(m->bctx, CB_MEM_DEVICE, m->sendbuf);
    if (m->recvbuf)
      m->be->free(m->bctx, CB_MEM_DEVICE, m->recvbuf);
    m->be->finalize(m->bctx);
  } else {
    free(m->sendbuf);
    free(m->recvbuf);
  }
  free(m->gpu);
  free(m->suspects);
  free(m->round_bw_median);
  free(m->slow_in);
  free(m->slow_out);
  free(m->worst_bw);
  free(m->worst_lat);
  free(m->worst_bw_fail);
  free(m->worst_lat_fail);
  free(m->round);
  free(m->scratch);
}

static int note_all(struct matrix *m, const char *text, struct cb_error *err) {
  return m->cl->rank == 0 ? cb_sinks_note(m->sinks, m->nsinks, text, err) : CB_OK;
}

/* Every rank: a step's outcome, this rank's device failure included, agreed
 * on; a rank that saw nothing wrong says where the failure was. */
static int agree(struct matrix *m, int rc, struct cb_error *err) {
  if (rc == CB_OK && m->dev_failed) {
    *err = m->dev_err;
    rc = err->status;
  }
  if (!cb_cluster_agree(m->cl, rc))
    return CB_OK;
  return rc ? rc : cb_fail(err, CB_RUNTIME, "--matrix failed on another rank");
}

/* The buffers: host memory for MPI, the backend's device memory for nccl
 * (their contents do not matter: nothing is checked). */
static int alloc_buffers(struct matrix *m, uint64_t bytes, struct cb_error *err) {
  if (!m->be) {
    m->sendbuf = cb_host_alloc(bytes);
    m->recvbuf = cb_host_alloc((size_t)m->window * bytes);
    if (m->sendbuf && m->recvbuf)
      memset(m->sendbuf, 0x5a, bytes);
    return m->sendbuf && m->recvbuf ? CB_OK
                                    : cb_fail(err, CB_RUNTIME, "--matrix: out of host memory");
  }
  void *send = NULL, *recv = NULL;
  int rc = m->be->alloc(m->bctx, CB_MEM_DEVICE, bytes, &send, err);
  if (rc == CB_OK)
    rc = m->be->alloc(m->bctx, CB_MEM_DEVICE, (size_t)m->window * bytes, &recv, err);
  m->sendbuf = send, m->recvbuf = recv;
  return rc;
}

int cb_matrix_validate(const struct cb_cluster *cl, const struct cb_matrix_rules *rules,
                       struct cb_error *err) {
  if (cl->nranks < 2)
    return cb_fail(err, CB_USAGE,
                   "the all-pairs matrix needs at least 2 ranks (this is 1): launch with "
                   "mpirun -np 2 or more, one rank per node to accept a cluster");
  if (rules->bytes > (1u << 30))
    return cb_fail(err, CB_USAGE, "--matrix: messages of at most 1 GiB");
  return CB_OK;
}

int cb_matrix_measure(const struct cb_cluster *cl, const struct cb_settings *s,
                      const struct cb_matrix_rules *rules, struct cb_sink *sinks, int nsinks,
                      struct cb_accept_result *res, struct cb_error *err) {
  int n = cl->nranks;
  if (cb_matrix_validate(cl, rules, err)) /* the callers checked before any output opened */
    return err->status;
  uint64_t bytes = rules->bytes;
  struct matrix m = {.cl = cl, .rules = rules, .sinks = sinks, .nsinks = nsinks};
  m.window =
      cb_settings_window(s, bytes) < MATRIX_WINDOW ? cb_settings_window(s, bytes) : MATRIX_WINDOW;
  /* --backend nccl: the backend that can run the rounds (the CLI let only
   * such a backend through); every other run: MPI on host memory */
  if (s->nbackends == 1 && cb_backends[s->backends[0]]->shift) {
    m.be = cb_backends[s->backends[0]];
    const char *transport = s->ntransports ? s->transports[0] : m.be->transports[0];
    if (m.be->init(cl, s, transport, &m.bctx, err)) /* collective: agreed inside */
      return err->status;
  }
  int rc = alloc_buffers(&m, bytes, err);
  if (agree(&m, rc, err)) {
    matrix_free(&m);
    return err->status;
  }
  m.gpu = malloc(sizeof(int) * (size_t)n);
  int failed = !m.gpu;
  if (cl->rank == 0) {
    m.max_suspects = 4 * n + 16; /* O(N): a cluster worse than this is reported as such */
    m.suspects = calloc((size_t)m.max_suspects, sizeof *m.suspects);
    m.round_bw_median = calloc((size_t)n, sizeof(double));
    m.slow_in = calloc((size_t)n, sizeof(int));
    m.slow_out = calloc((size_t)n, sizeof(int));
    m.best_lat = INFINITY;
    m.worst_bw = malloc(2 * sizeof(double) * (size_t)n);
    m.worst_lat = malloc(2 * sizeof(double) * (size_t)n);
    m.worst_bw_fail = malloc(2 * sizeof(double) * (size_t)n);
    m.worst_lat_fail = malloc(2 * sizeof(double) * (size_t)n);
    m.round = malloc(2 * sizeof(double) * (size_t)n);
    m.scratch = malloc(sizeof(double) * (size_t)n);
    failed |= !m.suspects || !m.round_bw_median || !m.slow_in || !m.slow_out || !m.worst_bw ||
              !m.worst_lat || !m.worst_bw_fail || !m.worst_lat_fail || !m.round || !m.scratch;
    for (int i = 0; i < 2 * n && !failed; i++)
      m.worst_bw[i] = INFINITY, m.worst_lat[i] = 0;
  }
  if (cb_cluster_agree(cl, failed)) {
    matrix_free(&m);
    return cb_fail(err, CB_RUNTIME, "--matrix: out of memory for %d ranks", n);
  }
  int my_gpu = m.be && m.be->device_index ? m.be->device_index(m.bctx) : -1;
  MPI_Allgather(&my_gpu, 1, MPI_INT, m.gpu, 1, MPI_INT, cl->comm);
  char text[320], size[32];
  snprintf(text, sizeof text,
           "matrix: %d ranks, %d round%s of every rank sending %d x %s to rank+d while receiving "
           "from rank-d%s",
           n, n - 1, n == 2 ? "" : "s", m.window, cb_format_size(bytes, size, sizeof size),
           m.be ? "; nccl: device memory, ncclSend/ncclRecv, one GPU per rank" : "");
  rc = note_all(&m, text, err);
  /* issue 41: every node's error counters over the rounds and retests */
  struct cb_counters *before = malloc((size_t)(cl->rank == 0 ? cl->nnodes : 1) * sizeof *before);
  if (cl->rank == 0 && !res->matrix_window)
    res->matrix_window = calloc(1, sizeof *res->matrix_window);
  if (cb_cluster_agree(cl, !before)) {
    free(before);
    matrix_free(&m);
    return cb_fail(err, CB_RUNTIME, "--matrix: out of memory for %d nodes' counters", cl->nnodes);
  }
  cb_counters_gather(cl, before);
  for (int d = 1; d < n && rc == CB_OK; d++) {
    int src, dst;
    cb_matrix_peers(cl->rank, d, n, &src, &dst);
    double mine[2] = {measure_bw(&m, src, dst, bytes, MATRIX_REPEATS), measure_lat(&m, src, dst)};
    MPI_Gather(mine, 2, MPI_DOUBLE, m.round, 2, MPI_DOUBLE, 0, cl->comm);
    if (cl->rank == 0)
      rc = take_round(&m, d, bytes, err);
    rc = agree(&m, rc, err);
  }
  double bw_ref = 0;
  if (rc == CB_OK && cl->rank == 0) {
    bw_ref = median_of(m.round_bw_median, n - 1);
    if (m.dropped) {
      snprintf(text, sizeof text, "matrix: %d more suspect pairs not re-tested (over %d)",
               m.dropped, m.max_suspects);
      rc = note_all(&m, text, err);
    }
  }
  MPI_Bcast(&bw_ref, 1, MPI_DOUBLE, 0, cl->comm);
  res->reference_Bps[CB_REF_PAIRBW] = bw_ref * 1e9;
  if (rc == CB_OK)
    rc = agree(&m, retest(&m, bytes, err), err);
  if (rc == CB_OK)
    rc = cb_accept_window(cl, before, res->matrix_window, err);
  free(before);
  if (rc == CB_OK && cl->rank == 0)
    rc = judge(&m, bw_ref, res, err);
  matrix_free(&m);
  return rc;
}

int cb_matrix_run(const struct cb_cluster *cl, const struct cb_settings *s,
                  const struct cb_matrix_rules *rules, const struct cb_run_info *ri,
                  struct cb_sink *sinks, int nsinks, struct cb_accept_result *res,
                  struct cb_error *err) {
  memset(res, 0, sizeof *res);
  res->probe = ri->probe; /* rank 0: the evidence causes are found in */
  if (cl->rank == 0 && cb_sinks_run(sinks, nsinks, ri, err))
    return err->status;
  int rc = cb_matrix_measure(cl, s, rules, sinks, nsinks, res, err);
  if (cb_cluster_agree(cl, rc))
    return rc ? rc : cb_fail(err, CB_RUNTIME, "--matrix failed on another rank");
  struct cb_summary sum = {0};
  return cb_accept_finish(cl, s, sinks, nsinks, &sum, res, err);
}
