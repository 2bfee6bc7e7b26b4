/* Element types and reduction operations, as tables. Pattern values are
 * small integers, so every dtype stores them exactly and checks are exact. */
#ifndef CB_DTYPE_H
#define CB_DTYPE_H

#include <stddef.h>
#include <stdint.h>

enum cb_dtype_id {
  CB_INT8,
  CB_INT32,
  CB_INT64,
  CB_FLOAT,
  CB_DOUBLE,
  CB_HALF,
  CB_BFLOAT16,
  CB_FP8_E4M3, /* OCP fp8: 4 exponent bits (no infinities), 3 mantissa */
  CB_FP8_E5M2, /* 5 exponent bits, 2 mantissa */
  CB_NDTYPES
};

struct cb_dtype {
  const char *name;
  size_t size;
  /* Largest integer L such that every integer in [0, L] is exact. */
  int64_t exact_limit;
  /* Writes value as element i; integers wrap modulo 2^bits like the
   * backends' arithmetic does. Checks compare stored bits exactly. */
  void (*store)(void *buf, size_t i, int64_t value);
};

enum cb_redop_id { CB_SUM, CB_PROD, CB_MIN, CB_MAX, CB_NREDOPS, CB_NOREDOP = -1 };

extern const struct cb_dtype cb_dtypes[CB_NDTYPES];
extern const char *const cb_redop_names[CB_NREDOPS];

int cb_dtype_lookup(const char *name); /* -1 when unknown */
int cb_redop_lookup(const char *name); /* -1 when unknown */
const char *cb_redop_name(int redop);  /* "none" for CB_NOREDOP */

/* Exact float <-> half/bfloat16 for the integers patterns use. */
uint16_t cb_float_to_half(float f);
float cb_half_to_float(uint16_t h);
uint16_t cb_float_to_bf16(float f);
float cb_bf16_to_float(uint16_t b);
/* The same for fp8 (round to nearest even, saturating at the largest
 * finite value: e4m3 448, e5m2 57344). */
uint8_t cb_float_to_e4m3(float f);
float cb_e4m3_to_float(uint8_t b);
uint8_t cb_float_to_e5m2(float f);
float cb_e5m2_to_float(uint8_t b);

/* fp8 runs on the nccl backend only: no MPI or host path reduces it. */
int cb_dtype_is_fp8(int dtype);
#define CB_FP8_NCCL_ONLY "fp8 (e4m3, e5m2) runs on the nccl backend only"

#endif
