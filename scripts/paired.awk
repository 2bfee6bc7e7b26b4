# Paired comparison of two tools' times over interleaved repeats, per cell:
# scripts/compare-nccl-tests.sh and gpu-check.sh's anchor part judge with it.
# Input, one line per repeat and cell (cells in any order, repeats of a cell
# paired by line):   NP OP BYTES REF_US CB_US
# (REF_US "nan" where the reference printed no row: the cell says so.)
# Per cell: the medians, the median of the paired ratios CB/REF and its
# distribution-free 95% interval (order statistics of the binomial(n, 1/2):
# [x(k), x(n+1-k)], k the largest with P(B < k) <= 2.5%; 6 pairs at least),
# and a verdict against the goal band around 1: 2% from 1 MiB
# (bandwidth-bound: both launch NCCL's same kernels), 5% below
# (launch-bound) unless -v tol_big=.. -v tol_small=.. say otherwise:
#   PASS          the whole interval inside the band
#   FAIL          the whole interval outside it (a real offset)
#   INCONCLUSIVE  the interval crosses an edge: the launches' spread is
#                 wider than the goal, so neither can be claimed
# Output: NP OP BYTES n median_ref median_cb ratio lo hi coverage% verdict
# and, at the end, "verdicts PASS=a FAIL=b INCONCLUSIVE=c NOREF=d".
# A one-sided goal instead of the band (scripts/compare-osu.sh's wall
# times): -v max_ratio=R judges the ratio against "at most R"; -v max_diff=D
# the paired differences CB - REF (their median and interval in the ratio
# columns) against "at most D": PASS when the interval's top is at or
# below the goal, FAIL when its bottom is above, else INCONCLUSIVE.
function sort_(a, n,   i, j, t) {
  for (i = 2; i <= n; i++) {
    t = a[i]
    for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
}
function median(a, n) { sort_(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
# P(B <= j) for B ~ binomial(n, 1/2)
function cdf(n, j,   i, c, s) {
  c = 1; s = 0
  for (i = 0; i <= j; i++) { s += c; c = c * (n - i) / (i + 1) }
  return s / 2 ^ n
}
BEGIN {
  if (tol_big == "") tol_big = 0.02
  if (tol_small == "") tol_small = 0.05
}
NF >= 5 {
  key = $1 " " $2 " " $3
  if (!(key in n)) order[++ncells] = key
  if ($4 == "nan" || $4 + 0 <= 0 || $5 + 0 <= 0) { noref[key]++; n[key] += 0; next }
  i = ++n[key]
  ref[key, i] = $4; cb[key, i] = $5
}
END {
  for (c = 1; c <= ncells; c++) {
    key = order[c]; m = n[key]
    split(key, f, " ")
    if (m == 0) {
      printf "%s 0 - - - - - - NOREF\n", key
      count["NOREF"]++
      continue
    }
    for (i = 1; i <= m; i++) {
      r[i] = ref[key, i]; b[i] = cb[key, i]
      q[i] = max_diff != "" ? cb[key, i] - ref[key, i] : cb[key, i] / ref[key, i]
    }
    mr = median(r, m); mb = median(b, m); mq = median(q, m)
    k = 0
    for (j = 1; j <= m; j++) if (cdf(m, j - 1) <= 0.025) k = j
    tol = f[3] >= 1048576 ? tol_big : tol_small
    if (k == 0) {
      lo = q[1]; hi = q[m]; cover = "-"; verdict = "INCONCLUSIVE"
    } else {
      lo = q[k]; hi = q[m + 1 - k]
      cover = sprintf("%.1f", 100 * (1 - 2 * cdf(m, k - 1)))
      goal = max_diff != "" ? max_diff : max_ratio
      if (goal != "") verdict = hi <= goal + 0 ? "PASS" : lo > goal + 0 ? "FAIL" : "INCONCLUSIVE"
      else if (lo >= 1 - tol && hi <= 1 + tol) verdict = "PASS"
      else if (lo > 1 + tol || hi < 1 - tol) verdict = "FAIL"
      else verdict = "INCONCLUSIVE"
    }
    printf "%s %d %.3f %.3f %.4f %.4f %.4f %s %s\n", key, m, mr, mb, mq, lo, hi, cover, verdict
    count[verdict]++
  }
  printf "verdicts PASS=%d FAIL=%d INCONCLUSIVE=%d NOREF=%d\n", count["PASS"], count["FAIL"],
    count["INCONCLUSIVE"], count["NOREF"]
}
