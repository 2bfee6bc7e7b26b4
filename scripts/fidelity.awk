# gpu-check's fidelity rule: collbench's allreduce time against the plain
# ncclAllReduce loop's (scripts/nccl-allreduce-loop.c), like with like:
# both by CUDA events, both the mean of `calls` back-to-back calls after 20
# warm-up calls (collbench -n calls -w 20, its time_us_gpu), same size, out
# of place. Tolerance, per size:
#   >= 1 MiB: 2% (bandwidth-bound: both tools launch the same kernels, so
#             what is left is run-to-run spread);
#   <  1 MiB: 5% (launch-bound: a few microseconds, where the host's launch
#             jitter is a larger share);
# and never tighter than the events' resolution (about 0.5 us per elapsed
# time, CUDA Runtime API, cudaEventElapsedTime) spread over the calls timed.
# usage: awk -v bytes=B -v cb=US -v ref=US -v calls=N -f scripts/fidelity.awk
#   -> "PASS|FAIL difference% tolerance%"
BEGIN {
  if (bytes <= 0 || cb <= 0 || ref <= 0 || calls <= 0) {
    print "FAIL no-figure 0"
    exit 0
  }
  tol = bytes >= 1048576 ? 2 : 5
  floor = 100 * 0.5 / (calls * ref) # the resolution, in % of the per-call time
  if (floor > tol)
    tol = floor
  d = (cb - ref) / ref * 100
  printf "%s %+.2f %.2f\n", (d <= tol && d >= -tol) ? "PASS" : "FAIL", d, tol
}
