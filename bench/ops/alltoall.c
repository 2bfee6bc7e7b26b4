/* alltoall: rank r sends its block j to rank j; block j of r's output is
 * block r of rank j's input. The row's size is one rank's whole buffer. */
#include "op.h"

static void shape(uint64_t bytes, size_t type_size, int nranks, const struct cb_skew *skew,
                  struct cb_shape *s) {
  (void)skew;
  s->count = bytes / ((uint64_t)type_size * (uint64_t)nranks);
  s->send_elems = s->recv_elems = s->inplace_elems = s->count * (size_t)nranks;
  s->bytes = s->algbw_bytes = (uint64_t)s->send_elems * type_size;
}

static void fill(const struct cb_op_ctx *c, void *input) {
  cb_io_fill(c->access, c->pattern, input, c->rank, 0, c->count * (size_t)c->nranks);
}

static size_t check(const struct cb_op_ctx *c, const void *output) {
  size_t wrong = 0, block = c->count * cb_pattern_esize(c->pattern);
  for (int j = 0; j < c->nranks; j++)
    wrong += cb_io_count_wrong(c->access, c->pattern, (const char *)output + (size_t)j * block, j,
                               (uint64_t)c->rank * c->count, c->count);
  return wrong;
}

const struct cb_op cb_op_alltoall = {
    .name = "alltoall",
    .id = CB_OP_ALLTOALL,
    .has_inplace = 1,
    .min_ranks = 1,
    .shape = shape,
    .busbw_factor = cb_busbw_gather,
    .time_divisor = cb_divisor_one,
    .fill = fill,
    .check = check,
    .inplace_result_offset = cb_offset_zero,
};
