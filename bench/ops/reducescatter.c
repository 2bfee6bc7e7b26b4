/* reducescatter: rank r ends with block r of the reduction of all ranks'
 * full vectors. The row's size is the full vector, as in nccl-tests. */
#include "op.h"

static void shape(uint64_t bytes, size_t type_size, int nranks, const struct cb_skew *skew,
                  struct cb_shape *s) {
  (void)skew;
  s->count = bytes / ((uint64_t)type_size * (uint64_t)nranks);
  s->send_elems = s->inplace_elems = s->count * (size_t)nranks;
  s->recv_elems = s->count;
  s->bytes = s->algbw_bytes = (uint64_t)s->send_elems * type_size;
}

static void fill(const struct cb_op_ctx *c, void *input) {
  cb_io_fill(c->access, c->pattern, input, c->rank, 0, c->count * (size_t)c->nranks);
}

static size_t check(const struct cb_op_ctx *c, const void *output) {
  return cb_io_count_wrong_reduced(c->access, c->pattern, output, (uint64_t)c->rank * c->count,
                                   c->count);
}

/* nccl-tests leaves the in-place result in the rank's own block. */
static size_t inplace_result_offset(size_t count, int rank) {
  return (size_t)rank * count;
}

const struct cb_op cb_op_reducescatter = {
    .name = "reducescatter",
    .id = CB_OP_REDUCESCATTER,
    .uses_redop = 1,
    .has_inplace = 1,
    .min_ranks = 1,
    .shape = shape,
    .busbw_factor = cb_busbw_gather,
    .time_divisor = cb_divisor_one,
    .fill = fill,
    .check = check,
    .inplace_result_offset = inplace_result_offset,
};
