/* fp8 encodings against the formats' definitions (OCP 8-bit floating
 * point: e4m3 bias 7 without infinities, max 448; e5m2 bias 15, max
 * 57344): the bytes of known values, exact integers up to the dtype's
 * exact_limit, rounding to nearest even, saturation, and the poison. */
#include <math.h>
#include <stdint.h>

#include "base/dtype.h"
#include "base/pattern.h"
#include "tap.h"

int main(void) {
  /* known bytes: 1.0, 2.0, -1.0, 448 / 57344, 0.5 */
  is_long(cb_float_to_e4m3(1.0f), 0x38, "e4m3 1.0 is 0x38 (exponent 7, bias 7)");
  is_long(cb_float_to_e4m3(2.0f), 0x40, "e4m3 2.0 is 0x40");
  is_long(cb_float_to_e4m3(-1.0f), 0xb8, "e4m3 -1.0 is 0xb8 (the poison)");
  is_long(cb_float_to_e4m3(448.0f), 0x7e, "e4m3 448 is 0x7e, the largest finite");
  is_long(cb_float_to_e4m3(1000.0f), 0x7e, "e4m3 saturates (0x7f is NaN)");
  is_long(cb_float_to_e5m2(1.0f), 0x3c, "e5m2 1.0 is 0x3c (exponent 15, bias 15)");
  is_long(cb_float_to_e5m2(-1.0f), 0xbc, "e5m2 -1.0 is 0xbc");
  is_long(cb_float_to_e5m2(57344.0f), 0x7b, "e5m2 57344 is 0x7b, the largest finite");
  is_long(cb_float_to_e5m2(0.5f), 0x38, "e5m2 0.5 is 0x38");
  is_long(cb_float_to_e4m3(0.0f), 0, "zero is 0");

  /* every integer up to exact_limit round-trips; the next one does not */
  const struct {
    int dt;
    uint8_t (*to)(float);
    float (*from)(uint8_t);
  } fmt[] = {{CB_FP8_E4M3, cb_float_to_e4m3, cb_e4m3_to_float},
             {CB_FP8_E5M2, cb_float_to_e5m2, cb_e5m2_to_float}};
  for (int i = 0; i < 2; i++) {
    int64_t limit = cb_dtypes[fmt[i].dt].exact_limit;
    int exact = 1;
    for (int64_t v = -limit; v <= limit; v++)
      exact &= fmt[i].from(fmt[i].to((float)v)) == (float)v;
    ok(exact, "%s: every integer in [-%lld, %lld] is exact", cb_dtypes[fmt[i].dt].name,
       (long long)limit, (long long)limit);
    ok(fmt[i].from(fmt[i].to((float)(limit + 1))) != (float)(limit + 1),
       "%s: %lld is not (exact_limit is tight)", cb_dtypes[fmt[i].dt].name, (long long)limit + 1);
  }
  /* ties to even: e4m3 17 lies between 16 and 18 -> 16 (even mantissa) */
  is_double(cb_e4m3_to_float(cb_float_to_e4m3(17.0f)), 16.0, 0, "e4m3 17 rounds to even (16)");
  is_double(cb_e4m3_to_float(cb_float_to_e4m3(19.0f)), 20.0, 0, "e4m3 19 rounds to even (20)");
  /* the pattern's poison is -1 in the dtype, never a pattern value */
  uint8_t poison = 0;
  cb_pattern_poison(CB_FP8_E5M2, &poison, 1);
  is_long(poison, 0xbc, "e5m2 poison is -1 (0xbc)");
  is_long(cb_dtype_lookup("fp8_e4m3"), CB_FP8_E4M3, "fp8_e4m3 is an alias of e4m3");
  ok(cb_dtype_is_fp8(CB_FP8_E5M2) && !cb_dtype_is_fp8(CB_BFLOAT16), "which dtypes are fp8");
  done_testing();
  return exit_status();
}
