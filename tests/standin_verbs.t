#!/bin/sh
# The verbs backend without RDMA hardware (issue 75): its point-to-point runs
# on host memory through the stand-in libibverbs (tests/fixtures/standin,
# STANDIN.md there), each verb's data checked, and the run saying it was the
# stand-in.
. tests/lib.sh
plan 4
if [ ! -e build/standin-verbs/libibverbs.so.1 ]; then
  for i in 1 2 3 4; do skip "no stand-in: this build has no verbs backend"; done
  finish
fi
# Open MPI's own verbs components (openib, UCX) would load the stand-in too:
# MPI itself over shared memory only
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_osc=pt2pt OMPI_MCA_btl_openib_warn_no_device_params_found=0
SI="env LD_LIBRARY_PATH=$PWD/build/standin-verbs"
for t in write send read; do
  mpirun -np 2 $SI ./collbench --backend verbs --transport $t --op p2p_lat,p2p_bw,p2p_bibw -e 64K \
    --check 1 --max-time 0.005 --json "$TMP/$t.jsonl" >"$TMP/$t.out" 2>&1
  st=$?
  rows=$(grep -c '"type":"result"' "$TMP/$t.jsonl" 2>/dev/null)
  [ $st -eq 0 ] && [ "${rows:-0}" -gt 0 ] && grep -q '^# Out of bounds values : 0 OK' "$TMP/$t.out" &&
    grep -q "\"transport\":\"ib/$t\"" "$TMP/$t.jsonl"
  ok $? "--transport $t through the stand-in: exit $st, ${rows:-0} records, every one checked exact"
  [ $st -eq 0 ] || diag "$TMP/$t.out"
done
grep -q 'rank 0 verbs: standin_0:1 InfiniBand 200 Gb/s (4x HDR)' "$TMP/write.out" &&
  grep -q '^# not hardware: collbench.s stand-in libibverbs' "$TMP/write.out" &&
  grep '"type":"run"' "$TMP/write.jsonl" | grep -q '"standin":"collbench.s stand-in libibverbs'
ok $? "the port each rank uses is said, and the run says it went through the stand-in"
finish
