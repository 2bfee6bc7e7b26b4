/* Point-to-point between rank pairs (0,1), (2,3), ... all at once:
 * p2p_lat is a ping-pong (time = half a round trip), p2p_bw a window of
 * non-blocking sends one way then an acknowledgement, p2p_bibw the same
 * both ways at once (algbw counts both directions, as OSU does). */
#include "op.h"

static void shape_one_way(uint64_t bytes, size_t type_size, int nranks, const struct cb_skew *skew,
                          struct cb_shape *s) {
  (void)nranks, (void)skew;
  s->count = bytes / type_size;
  s->send_elems = s->recv_elems = s->count;
  s->inplace_elems = 0;
  s->bytes = s->algbw_bytes = s->count * type_size;
}

static void shape_both_ways(uint64_t bytes, size_t type_size, int nranks,
                            const struct cb_skew *skew, struct cb_shape *s) {
  shape_one_way(bytes, type_size, nranks, skew, s);
  s->algbw_bytes = 2 * s->bytes;
}

static double divisor_round_trip(int window) {
  (void)window;
  return 2.0;
}

static double divisor_window(int window) {
  return (double)window;
}

static void fill(const struct cb_op_ctx *c, void *input) {
  cb_io_fill(c->access, c->pattern, input, c->rank, 0, c->count);
}

/* Whoever received data checks it against the sender's pattern. */
static size_t check_received(const struct cb_op_ctx *c, const void *output) {
  if (c->peer < 0)
    return 0;
  return cb_io_count_wrong(c->access, c->pattern, output, c->peer, 0, c->count);
}

/* In p2p_bw only the odd rank of a pair receives data. */
static size_t check_receiver(const struct cb_op_ctx *c, const void *output) {
  return c->rank % 2 ? check_received(c, output) : 0;
}

#define P2P_OP(ident, op_name, op_id, shape_fn, divisor_fn, check_fn)                              \
  const struct cb_op ident = {                                                                     \
      .name = op_name,                                                                             \
      .id = op_id,                                                                                 \
      .min_ranks = 2,                                                                              \
      .shape = shape_fn,                                                                           \
      .busbw_factor = cb_busbw_one,                                                                \
      .time_divisor = divisor_fn,                                                                  \
      .fill = fill,                                                                                \
      .check = check_fn,                                                                           \
      .inplace_result_offset = NULL,                                                               \
  }

P2P_OP(cb_op_p2p_lat, "p2p_lat", CB_OP_P2P_LAT, shape_one_way, divisor_round_trip, check_received);
P2P_OP(cb_op_p2p_bw, "p2p_bw", CB_OP_P2P_BW, shape_one_way, divisor_window, check_receiver);
P2P_OP(cb_op_p2p_bibw, "p2p_bibw", CB_OP_P2P_BIBW, shape_both_ways, divisor_window, check_received);
