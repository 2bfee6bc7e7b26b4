#include "dtype.h"

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

const struct cb_dtype cb_dtypes[CB_NDTYPES] = {
    [CB_INT8] = {"int8", 1, INT8_MAX, store_int8},
    [CB_INT32] = {"int32", 4, INT32_MAX, store_int32},
    [CB_INT64] = {"int64", 8, INT64_MAX, store_int64},
    [CB_FLOAT] = {"float", 4, 1 << 24, store_float},
    [CB_DOUBLE] = {"double", 8, (int64_t)1 << 53, store_double},
    [CB_HALF] = {"half", 2, 1 << 11, store_half},
    [CB_BFLOAT16] = {"bfloat16", 2, 1 << 8, store_bf16},
};

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
      {"char", CB_INT8},      {"int", CB_INT32},    {"float32", CB_FLOAT},
      {"float64", CB_DOUBLE}, {"float16", CB_HALF}, {"bf16", CB_BFLOAT16},
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
