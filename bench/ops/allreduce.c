/* allreduce: every rank ends with the reduction of all ranks' vectors. */
#include "base/dtype.h"
#include "op.h"

static void shape(uint64_t bytes, size_t type_size, int nranks, const struct cb_skew *skew,
                  struct cb_shape *s) {
  (void)skew;
  (void)nranks;
  s->count = bytes / type_size;
  s->send_elems = s->recv_elems = s->inplace_elems = s->count;
  s->bytes = s->algbw_bytes = s->count * type_size;
}

static double busbw_factor(int nranks) {
  return 2.0 * (nranks - 1) / nranks;
}

static void fill(const struct cb_op_ctx *c, void *input) {
  cb_io_fill(c->access, c->pattern, input, c->rank, 0, c->count);
}

static size_t check(const struct cb_op_ctx *c, const void *output) {
  return cb_io_count_wrong_reduced(c->access, c->pattern, output, 0, c->count);
}

const struct cb_op cb_op_allreduce = {
    .name = "allreduce",
    .id = CB_OP_ALLREDUCE,
    .uses_redop = 1,
    .has_inplace = 1,
    .min_ranks = 1,
    .shape = shape,
    .busbw_factor = busbw_factor,
    .time_divisor = cb_divisor_one,
    .fill = fill,
    .check = check,
    .inplace_result_offset = cb_offset_zero,
};
