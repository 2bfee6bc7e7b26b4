/* The all-pairs matrix's schedule and names: in N-1 shift rounds every
 * ordered pair is measured exactly once, both ends agree on it, and a pair's
 * ends are named as hosts over MPI and as GPUs on hosts over nccl. */
#include <string.h>

#include "accept/matrix.h"
#include "accept/matrix_names.h"
#include "tap.h"

static void test_schedule(void) {
  for (int n = 2; n <= 9; n++) {
    int seen[9][9] = {{0}}, consistent = 1, self = 0;
    for (int d = 1; d < n; d++)
      for (int r = 0; r < n; r++) {
        int src, dst, back_src, back_dst;
        cb_matrix_peers(r, d, n, &src, &dst);
        self |= src == r || dst == r;
        seen[r][dst]++; /* r sends to dst in round d */
        cb_matrix_peers(dst, d, n, &back_src, &back_dst);
        consistent &= back_src == r; /* and dst receives from r in the same round */
        (void)back_dst;
      }
    int once = 1;
    for (int a = 0; a < n; a++)
      for (int b = 0; b < n; b++)
        once &= seen[a][b] == (a != b);
    ok(once && consistent && !self,
       "%d ranks: %d rounds measure each of %d ordered pairs once, both ends in the same round", n,
       n - 1, n * (n - 1));
  }
  int src, dst;
  cb_matrix_peers(0, 3, 8, &src, &dst);
  ok(src == 5 && dst == 3, "round 3 of 8: rank 0 receives from 5, sends to 3 (got %d, %d)", src,
     dst);
}

static void test_names(void) {
  char buf[2 * CB_MATRIX_END_MAX + 8];
  is_str(cb_matrix_end(buf, sizeof buf, "n1", -1), "n1", "an MPI end is its host");
  is_str(cb_matrix_end(buf, sizeof buf, "n1", 3), "n1:GPU3", "an nccl end is a GPU on its host");
  is_str(cb_matrix_fault_name(buf, sizeof buf, "n1", -1), "node n1", "MPI: the node at fault");
  is_str(cb_matrix_fault_name(buf, sizeof buf, "n1", 7), "gpu n1:GPU7",
         "nccl: the GPU at fault, not its whole node");
  is_str(cb_matrix_link_name(buf, sizeof buf, "n1", -1, "n2", -1), "link n1->n2", "MPI link");
  is_str(cb_matrix_link_name(buf, sizeof buf, "n1", 0, "n1", 5), "link n1:GPU0->n1:GPU5",
         "nccl link inside one host: an NVLink, told apart by GPU");
  is_str(cb_matrix_link_name(buf, sizeof buf, "n1", 2, "n4", 2), "link n1:GPU2->n4:GPU2",
         "nccl link between hosts: the rail of GPU 2");
  char small[8];
  cb_matrix_link_name(small, sizeof small, "longhostname", 1, "other", 2);
  ok(strlen(small) == sizeof small - 1, "a long name is cut to the buffer, never past it");
}

int main(void) {
  test_schedule();
  test_names();
  done_testing();
  return exit_status();
}
