/* Element types and reduction operations, as tables (dtype.h says more). */
#include "dtype.h"

#include <math.h>
#include <string.h>

static void store_int8(void *b, size_t i, int64_t v) {
  ((int8_t *)b)[i] = (int8_t)(uint8_t)v;
}
static void store_int32(void *b, size_t i, int64_t v) {
  ((int32_t *)b)[i] = (int32_t)(uint32_t)v;
}
static void store_int64(void *b, size_t i, int64_t v) {
  ((int64_t *)b)[i] = v;
}
static void store_float(void *b, size_t i, int64_t v) {
  ((float *)b)[i] = (float)v;
}
static void store_double(void *b, size_t i, int64_t v) {
  ((double *)b)[i] = (double)v;
}
static void store_half(void *b, size_t i, int64_t v) {
  ((uint16_t *)b)[i] = cb_float_to_half((float)v);
}
static void store_bf16(void *b, size_t i, int64_t v) {
  ((uint16_t *)b)[i] = cb_float_to_bf16((float)v);
}
static void store_e4m3(void *b, size_t i, int64_t v) {
  ((uint8_t *)b)[i] = cb_float_to_e4m3((float)v);
}
static void store_e5m2(void *b, size_t i, int64_t v) {
  ((uint8_t *)b)[i] = cb_float_to_e5m2((float)v);
}

const struct cb_dtype cb_dtypes[CB_NDTYPES] = {
    [CB_INT8] = {"int8", 1, INT8_MAX, store_int8},
    [CB_INT32] = {"int32", 4, INT32_MAX, store_int32},
    [CB_INT64] = {"int64", 8, INT64_MAX, store_int64},
    [CB_FLOAT] = {"float", 4, 1 << 24, store_float},
    [CB_DOUBLE] = {"double", 8, (int64_t)1 << 53, store_double},
    [CB_HALF] = {"half", 2, 1 << 11, store_half},
    [CB_BFLOAT16] = {"bfloat16", 2, 1 << 8, store_bf16},
    /* every integer up to 2^(mantissa bits + 1) is exact */
    [CB_FP8_E4M3] = {"e4m3", 1, 1 << 4, store_e4m3},
    [CB_FP8_E5M2] = {"e5m2", 1, 1 << 3, store_e5m2},
};

int cb_dtype_is_fp8(int dtype) {
  return dtype == CB_FP8_E4M3 || dtype == CB_FP8_E5M2;
}

const char *const cb_redop_names[CB_NREDOPS] = {"sum", "prod", "min", "max"};

int cb_dtype_lookup(const char *name) {
  for (int i = 0; i < CB_NDTYPES; i++)
    if (strcmp(name, cb_dtypes[i].name) == 0)
      return i;
  /* nccl-tests' spellings, so users' muscle memory works */
  static const struct {
    const char *alias;
    int id;
  } aliases[] = {
      {"char", CB_INT8},         {"int", CB_INT32},         {"float32", CB_FLOAT},
      {"float64", CB_DOUBLE},    {"float16", CB_HALF},      {"bf16", CB_BFLOAT16},
      {"fp8_e4m3", CB_FP8_E4M3}, {"fp8_e5m2", CB_FP8_E5M2},
  };
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (strcmp(name, aliases[i].alias) == 0)
      return aliases[i].id;
  return -1;
}

int cb_redop_lookup(const char *name) {
  for (int i = 0; i < CB_NREDOPS; i++)
    if (strcmp(name, cb_redop_names[i]) == 0)
      return i;
  return -1;
}

const char *cb_redop_name(int redop) {
  return redop >= 0 && redop < CB_NREDOPS ? cb_redop_names[redop] : "none";
}

static uint32_t float_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float bits_float(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

/* Round to nearest even; overflow goes to infinity, tiny values to zero
 * (patterns never produce subnormals). */
uint16_t cb_float_to_half(float f) {
  uint32_t u = float_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  int32_t exp = (int32_t)((u >> 23) & 0xff) - 127 + 15;
  uint32_t mant = u & 0x7fffff;
  if (((u >> 23) & 0xff) == 0xff)
    return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31)
    return sign | 0x7c00;
  if (exp <= 0)
    return sign;
  uint32_t half = (uint32_t)(exp << 10) | (mant >> 13);
  uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
    half++;
  return (uint16_t)(sign | half);
}

float cb_half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0 && mant == 0)
    return bits_float(sign);
  if (exp == 31)
    return bits_float(sign | 0x7f800000 | (mant << 13));
  if (exp == 0) { /* subnormal */
    float m = (float)mant / 1024.0f / 16384.0f;
    return sign ? -m : m;
  }
  return bits_float(sign | ((exp - 15 + 127) << 23) | (mant << 13));
}

uint16_t cb_float_to_bf16(float f) {
  uint32_t u = float_bits(f);
  if ((u & 0x7fffffff) > 0x7f800000)
    return (uint16_t)((u >> 16) | 0x40); /* keep NaN a NaN */
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

float cb_bf16_to_float(uint16_t b) {
  return bits_float((uint32_t)b << 16);
}

/* One fp8 format: mbits mantissa bits, exponent bias, the largest finite
 * byte without its sign. Normal numbers only: patterns never produce
 * subnormals, so tiny values go to zero. */
struct fp8 {
  int mbits, bias;
  uint8_t max;
};
static const struct fp8 e4m3 = {3, 7, 0x7e}, e5m2 = {2, 15, 0x7b};

static uint8_t to_fp8(const struct fp8 *t, float f) {
  uint8_t sign = f < 0 ? 0x80 : 0;
  float a = f < 0 ? -f : f;
  if (a != a)
    return 0x7f; /* NaN in both formats */
  if (a == 0)
    return sign;
  int e;
  float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  int exp = e - 1 + t->bias;
  if (exp <= 0)
    return sign;
  float frac = (2 * m - 1) * (float)(1 << t->mbits);
  uint32_t q = (uint32_t)frac;
  float rest = frac - (float)q;
  if (rest > 0.5f || (rest == 0.5f && (q & 1)))
    q++;
  if (q == (1u << t->mbits)) {
    q = 0;
    exp++;
  }
  uint32_t bits = ((uint32_t)exp << t->mbits) | q;
  return (uint8_t)(sign | (bits > t->max ? t->max : bits));
}

static float from_fp8(const struct fp8 *t, uint8_t b) {
  int exp = (b & 0x7f) >> t->mbits;
  uint32_t q = b & ((1u << t->mbits) - 1);
  float m = exp ? 1 + (float)q / (float)(1 << t->mbits) : (float)q / (float)(1 << t->mbits);
  float v = ldexpf(m, (exp ? exp : 1) - t->bias);
  return b & 0x80 ? -v : v;
}

uint8_t cb_float_to_e4m3(float f) {
  return to_fp8(&e4m3, f);
}
float cb_e4m3_to_float(uint8_t b) {
  return from_fp8(&e4m3, b);
}
uint8_t cb_float_to_e5m2(float f) {
  return to_fp8(&e5m2, f);
}
float cb_e5m2_to_float(uint8_t b) {
  return from_fp8(&e5m2, b);
}
