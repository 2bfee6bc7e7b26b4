/* The all-pairs matrix's retest rule: how many paired retests confirm a
 * suspect (the family-wise false-alarm bound), and which pair is the
 * reference a suspect is compared with. */
#include <math.h>

#include "accept/matrix.h"
#include "tap.h"

static void test_retests(void) {
  /* the fewest K with N(N-1) 2^-K <= 1% */
  int want[][2] = {{2, 8}, {3, 10}, {4, 11}, {16, 15}, {1000, 27}};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    int n = want[i][0], k = cb_matrix_retests(n);
    is_long(k, want[i][1], "K for %d ranks", n);
    double pairs = (double)n * (n - 1);
    ok(pairs * ldexp(1, -k) <= 0.01 && pairs * ldexp(1, -(k - 1)) > 0.01,
       "%d ranks: %d retests bound false alarms by 1%%, %d would not", n, k, k - 1);
  }
}

static void test_reference(void) {
  int a, b;
  /* node 2's ingress is bad: 0->2, 1->2, 3->2 are suspects */
  int out1[4] = {1, 1, 0, 1}, in1[4] = {0, 0, 3, 0};
  int sus[3] = {0, 1, 3};
  for (int i = 0; i < 3; i++) {
    cb_matrix_reference(4, sus[i], 2, out1, in1, &a, &b);
    ok(a != 2 && b != 2 && a != sus[i] && b != sus[i] && a != b,
       "node fault: reference of %d->2 is %d->%d, clear of both ranks", sus[i], a, b);
  }
  /* node 1's egress is bad: 1->0, 1->2, 1->3 */
  int out2[4] = {0, 3, 0, 0}, in2[4] = {1, 0, 1, 1};
  cb_matrix_reference(4, 1, 3, out2, in2, &a, &b);
  ok(a != 1 && a != 3 && b != 1 && b != 3 && a != b, "egress fault: reference of 1->3 is %d->%d", a,
     b);
  /* 6 ranks, node 5's ingress bad and 0->4 suspect too: the reference of
   * 0->4 must not send to 5 */
  int out3[6] = {2, 1, 1, 1, 1, 0}, in3[6] = {0, 0, 0, 0, 1, 4};
  cb_matrix_reference(6, 0, 4, out3, in3, &a, &b);
  ok(b != 5 && a != 0 && a != 4 && b != 0 && b != 4 && a != b,
     "reference of 0->4 avoids the bad receiver 5: %d->%d", a, b);
  /* fewer than 4 ranks: the reverse direction */
  int z[3] = {0, 0, 0};
  cb_matrix_reference(2, 0, 1, z, z, &a, &b);
  ok(a == 1 && b == 0, "2 ranks: the reference of 0->1 is 1->0 (got %d->%d)", a, b);
  cb_matrix_reference(3, 2, 0, z, z, &a, &b);
  ok(a == 0 && b == 2, "3 ranks: the reference of 2->0 is 0->2 (got %d->%d)", a, b);
}

int main(void) {
  test_retests();
  test_reference();
  done_testing();
  return exit_status();
}
