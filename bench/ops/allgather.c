/* allgather: block r of every rank's output is rank r's input. The row's
 * size is the whole gathered buffer, as in nccl-tests. */
#include "op.h"

static void shape(uint64_t bytes, size_t type_size, int nranks, const struct cb_skew *skew,
                  struct cb_shape *s) {
  (void)skew;
  s->count = bytes / ((uint64_t)type_size * (uint64_t)nranks);
  s->send_elems = s->count;
  s->recv_elems = s->inplace_elems = s->count * (size_t)nranks;
  s->bytes = s->algbw_bytes = (uint64_t)s->recv_elems * type_size;
}

static void fill(const struct cb_op_ctx *c, void *input) {
  /* In place, the input sits at this rank's block of the output. */
  size_t offset = c->inplace ? (size_t)c->rank * c->count : 0;
  cb_io_fill(c->access, c->pattern, (char *)input + offset * cb_pattern_esize(c->pattern), c->rank,
             0, c->count);
}

static size_t check(const struct cb_op_ctx *c, const void *output) {
  size_t wrong = 0, block = c->count * cb_pattern_esize(c->pattern);
  for (int r = 0; r < c->nranks; r++)
    wrong += cb_io_count_wrong(c->access, c->pattern, (const char *)output + (size_t)r * block, r,
                               0, c->count);
  return wrong;
}

const struct cb_op cb_op_allgather = {
    .name = "allgather",
    .id = CB_OP_ALLGATHER,
    .has_inplace = 1,
    .min_ranks = 1,
    .shape = shape,
    .busbw_factor = cb_busbw_gather,
    .time_divisor = cb_divisor_one,
    .fill = fill,
    .check = check,
    .inplace_result_offset = cb_offset_zero,
};
