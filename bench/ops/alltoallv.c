/* alltoallv: rank r sends rank j its own count of elements (--skew's
 * matrix), in rank order from one stream; r's output holds, in rank order,
 * what each rank j sent it, which is j's stream from where r's part
 * starts. The row's size is what the busiest rank sends; algbw divides
 * the busiest rank's larger side, send or receive, as nccl-tests'
 * AlltoAllvGetBw does, and busbw takes alltoall's (n-1)/n. */
#include "op.h"
#include "skew.h"

static void shape(uint64_t bytes, size_t type_size, int nranks, const struct cb_skew *skew,
                  struct cb_shape *s) {
  size_t send, recv;
  if (cb_skew_extremes(skew, nranks, bytes / type_size, &send, &recv))
    send = recv = 0; /* out of memory: no row */
  s->count = send;
  s->send_elems = send;
  s->recv_elems = recv;
  s->inplace_elems = 0;
  s->bytes = (uint64_t)send * type_size;
  s->algbw_bytes = (uint64_t)(send > recv ? send : recv) * type_size;
}

static void fill(const struct cb_op_ctx *c, void *input) {
  cb_io_fill(c->access, c->pattern, input, c->rank, 0, c->layout->send_total);
}

static size_t check(const struct cb_op_ctx *c, const void *output) {
  const struct cb_skew_layout *l = c->layout;
  size_t wrong = 0, esize = cb_pattern_esize(c->pattern);
  for (int j = 0; j < c->nranks; j++)
    if (l->recv_counts[j])
      wrong +=
          cb_io_count_wrong(c->access, c->pattern, (const char *)output + l->recv_displs[j] * esize,
                            j, l->src_offsets[j], l->recv_counts[j]);
  return wrong;
}

const struct cb_op cb_op_alltoallv = {
    .name = "alltoallv",
    .id = CB_OP_ALLTOALLV,
    .min_ranks = 1,
    .skewed = 1,
    .shape = shape,
    .busbw_factor = cb_busbw_gather,
    .time_divisor = cb_divisor_one,
    .fill = fill,
    .check = check,
};
