#!/bin/sh
# The GPU scripts without a GPU (issue 39): each is run against stand-ins.
#   compare-nccl-tests.sh  with stand-in nccl-tests binaries and collbench
#   paired.awk             on hand-made pairs with known order statistics
#   plugin-applied.sh      on hand-made NCCL logs and a rules file
#   nccl-allreduce-loop.c  built against stand-in CUDA and NCCL
#                          (tests/fixtures/standin) that count how it waits
#   gpu-check.sh           copied into a fake repository with a mknod'ed
#                          nvidia0 and stub mpirun, make, configure and MPS
. tests/lib.sh
plan 29
ROOT=$PWD
# stand-ins write their launches here; mpirun passes the environment on
export STANDIN_LAUNCHES="$TMP/launches"

# --- compare-nccl-tests.sh ---------------------------------------------------
# A stand-in nccl-tests binary: rows from -b to -e by -f (out-of-place time
# STANDIN_NT_US in field 6, #wrong STANDIN_NT_WRONG in field 9; the in-place
# half a different time, which must not be read). Built with MPI (default),
# rank 0 prints one "#  Rank" line per rank of the job; STANDIN_NOMPI=1 is a
# build without MPI: each process is rank 0 of a job of its own.
# all_gather_perf prints no 8-byte row (it rounds 8 B down to 0).
mkdir -p "$TMP/nt" "$TMP/cb"
cat >"$TMP/nt/all_reduce_perf" <<'EOF'
#!/bin/sh
name=$(basename "$0")
rank=${OMPI_COMM_WORLD_RANK:-0} size=${OMPI_COMM_WORLD_SIZE:-1}
[ "${STANDIN_NOMPI:-0}" = 1 ] && rank=0 size=1
[ "$rank" = 0 ] || exit 0
echo "$name $*" >>"$STANDIN_LAUNCHES"
b=8 e=8 f=2
while [ $# -gt 0 ]; do
  case $1 in -b) b=$2 && shift ;; -e) e=$2 && shift ;; -f) f=$2 && shift ;; esac
  shift
done
echo "# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809 (a stand-in)"
echo "# Collective test starting: $name"
echo "# Using devices"
r=0
while [ $r -lt "$size" ]; do
  printf '#  Rank %2d Group  0 Pid %6d on   standin device  0 [0000:1b:00] NVIDIA H100 80GB HBM3\n' $r $$
  r=$((r + 1))
done
echo "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
s=$b
while [ "$s" -le "$e" ]; do
  z=$s
  [ "$name" = all_gather_perf ] && [ "$s" -lt 16 ] && z=0
  printf '%12s %13s %9s %7s %7s %8s %7s %7s %7s %8s %7s %7s %7s\n' $z $((z / 4)) float sum -1 \
    "${STANDIN_NT_US:-10.00}" 0.00 0.00 "${STANDIN_NT_WRONG:-0}" 77.00 0.00 0.00 0
  s=$((s * f))
done
echo "# Out of bounds values : 0 OK"
EOF
cp "$TMP/nt/all_reduce_perf" "$TMP/nt/all_gather_perf"
# A stand-in collbench: rank 0 writes a result line per size to --json, out
# of place at STANDIN_CB_US, in place at a time that must not be read.
cat >"$TMP/cb/collbench" <<'EOF'
#!/bin/sh
[ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || exit 0
echo "collbench $*" >>"$STANDIN_LAUNCHES"
op= b= e= f=2 json=/dev/null
while [ $# -gt 0 ]; do
  case $1 in --op) op=$2 && shift ;; -b) b=$2 && shift ;; -e) e=$2 && shift ;;
  -f) f=$2 && shift ;; --json) json=$2 && shift ;; esac
  shift
done
: >"$json"
s=$b
while [ "$s" -le "$e" ]; do
  for ip in false true; do
    t=${STANDIN_CB_US:-10.10}
    [ $ip = true ] && t=55.00
    printf '{"type":"result","op":"%s","backend":"nccl","mem":"device","inplace":%s,"bytes":%s,"time_us":%s,"time_us_mean":%s,"time_us_gpu":9.90,"wrong":0}\n' \
      "$op" $ip "$s" "$t" "$t" >>"$json"
  done
  s=$((s * f))
done
EOF
chmod +x "$TMP/nt/all_reduce_perf" "$TMP/nt/all_gather_perf" "$TMP/cb/collbench"
# 2 ranks on a machine of 1 core too
export OMPI_MCA_rmaps_base_oversubscribe=1
compare() { # REPEATS VAR=VALUE...: compare-nccl-tests.sh with the stand-ins
  r=$1             # (output in $TMP/cmp.out, .err; exit status in $STATUS)
  shift
  : >"$STANDIN_LAUNCHES"
  env NCCL_TESTS="$TMP/nt" COLLBENCH="$TMP/cb/collbench" "$@" sh scripts/compare-nccl-tests.sh "$r" \
    >"$TMP/cmp.out" 2>"$TMP/cmp.err"
  STATUS=$?
}

compare 1 NPS=2 OPS=allreduce SIZES=8 STANDIN_NOMPI=1
[ $STATUS -eq 3 ] && grep -q 'ran as 1 distinct rank(s) in 2 line(s), not one job of 2' "$TMP/cmp.err" &&
  grep -q 'built without MPI=1' "$TMP/cmp.err" && ! grep -q '^collbench' "$TMP/launches"
ok $? "compare: nccl-tests built without MPI under -np 2 (rank 0 twice): exit 3, named, collbench not run (exit $STATUS)"
[ $STATUS -eq 3 ] || diag "$TMP/cmp.err"
compare 1 NPS=2 OPS=allreduce SIZES=8
[ $STATUS -eq 0 ] && grep -q '^2 allreduce 8 1 10.000 10.100 ' "$TMP/cmp.out"
ok $? "compare: one job of 2 ranks (rank 0 lists ranks 0 and 1) passes that check (exit $STATUS)"
[ $STATUS -eq 0 ] || diag "$TMP/cmp.err"

compare 6 NPS=1 OPS='allreduce allgather' SIZES='8 1024 1048576' ITERS=5 WARM=1
cp "$TMP/launches" "$TMP/launches.main"
[ $STATUS -eq 0 ] && grep -qx '1 allgather 8 0 - - - - - - NOREF' "$TMP/cmp.out" &&
  grep -q '^# np op bytes n | nccl-tests us' "$TMP/cmp.out"
ok $? "compare: all_gather_perf prints no 8-byte row: a NOREF cell, the table printed, exit $STATUS"
[ $STATUS -eq 0 ] || diag "$TMP/cmp.err"
# out-of-place time (field 6), not in place (77, 55); 6 pairs of 10.10 / 10.00
n=0
for c in 'allreduce 8' 'allreduce 1024' 'allreduce 1048576' 'allgather 1024' 'allgather 1048576'; do
  grep -qx "1 $c 6 10.000 10.100 1.0100 1.0100 1.0100 96.9 PASS" "$TMP/cmp.out" && n=$((n + 1))
done
[ $n -eq 5 ] && grep -qx 'verdicts PASS=5 FAIL=0 INCONCLUSIVE=0 NOREF=1' "$TMP/cmp.out"
ok $? "compare: the 5 other cells read the out-of-place times and PASS; the verdicts line counts them ($n of 5)"
[ $n -eq 5 ] || diag "$TMP/cmp.out"
# every launch: -b MIN -e MAX -f 2 once per tool, op and repeat, in turn
seq=$(awk '{ t = $1; for (i = 2; i < NF; i++) if ($i == "--op") t = "cb-" $(i + 1); printf "%s ", t }' \
  "$TMP/launches.main")
want=$(for r in 1 2 3 4 5 6; do printf 'all_reduce_perf cb-allreduce all_gather_perf cb-allgather '; done)
[ "$seq" = "$want" ] &&
  [ "$(grep -c -- '-b 8 -e 1048576 -f 2 ' "$TMP/launches.main")" -eq 24 ] &&
  [ "$(grep '_perf ' "$TMP/launches.main" | grep -c -- ' -a 3\( \|$\)')" -eq 12 ] &&
  [ "$(grep '_perf ' "$TMP/launches.main" | grep -c -- '-n 5 -w 1 ')" -eq 12 ]
ok $? "compare: one -b 8 -e 1048576 -f 2 launch per tool, op and repeat, interleaved; nccl-tests with -a 3"
[ "$seq" = "$want" ] || diag "$TMP/launches.main"

compare 1 NPS=1 OPS=allreduce SIZES='8 24'
[ $STATUS -eq 2 ] && grep -q 'size 24 is not 8 times a power of 2' "$TMP/cmp.err" && [ ! -s "$TMP/launches" ]
ok $? "compare: a size that is not the smallest times a power of 2: exit $STATUS, named, nothing launched"
compare 1 NPS=1 OPS=allreduce SIZES='8 16' STANDIN_NT_WRONG=2
[ $STATUS -eq 3 ] && grep -q 'wrong values reported' "$TMP/cmp.err"
ok $? "compare: nccl-tests reporting wrong values stops it (exit $STATUS)"

# --- paired.awk ----------------------------------------------------------------
# Cells given interleaved, one line per repeat: NP OP BYTES REF_US CB_US.
# 1 allreduce 1 MiB: ratios 1.001..1.010 paired with unequal references; the
# 10 pairs' 95% interval is [x(2), x(9)] = [1.002, 1.009] (coverage
# 1 - 2 P(B <= 1) = 1 - 22/1024); the median ratio 1.0055, not the ratio of
# the medians (100.95 / 100).
cat >"$TMP/pass" <<'EOF'
100 100.5
200 200.2
100 100.9
400 401.2
100 101.0
500 501.0
100 100.8
250 251.0
100 100.7
100 100.6
EOF
# 1 allgather 1 MiB: 11% to 19% slower; 2 allreduce 1 MiB: 0.995..1.04
printf '100 %s\n' 110 111 112 113 114 115 116 117 118 119 >"$TMP/fail"
printf '100 %s\n' 99.5 100 100.5 101 101.5 102.5 103 103.5 104 100.2 >"$TMP/cross"
{
  i=1
  while [ $i -le 10 ]; do
    sed -n "${i}p" "$TMP/pass" | sed 's/^/1 allreduce 1048576 /'
    sed -n "${i}p" "$TMP/fail" | sed 's/^/1 allgather 1048576 /'
    sed -n "${i}p" "$TMP/cross" | sed 's/^/2 allreduce 1048576 /'
    [ $i -le 5 ] && echo "2 allreduce 8 10 10"       # 5 pairs: too few
    [ $i -le 6 ] && echo "2 allreduce 16 10 10"      # 6: enough
    [ $i -le 6 ] && echo "4 allreduce 8 100 103"     # 3%: inside 5% below 1 MiB
    [ $i -le 6 ] && echo "4 allreduce 1048576 100 103" # outside 2% from 1 MiB
    [ $i -le 3 ] && echo "2 allgather 8 nan 10.1"    # no reference row
    i=$((i + 1))
  done
} >"$TMP/pairs"
awk -f scripts/paired.awk "$TMP/pairs" >"$TMP/paired" 2>&1
grep -qx '1 allreduce 1048576 10 100.000 100.950 1.0055 1.0020 1.0090 97.9 PASS' "$TMP/paired"
st=$?
ok $st "paired: 10 pairs inside 2%: PASS, interval the 2nd and 9th ratios, paired by line"
[ $st -eq 0 ] || diag "$TMP/paired"
grep -qx '1 allgather 1048576 10 100.000 114.500 1.1450 1.1100 1.1800 97.9 FAIL' "$TMP/paired"
ok $? "paired: an offset far outside the band: FAIL"
grep -qx '2 allreduce 1048576 10 100.000 101.250 1.0125 1.0000 1.0350 97.9 INCONCLUSIVE' "$TMP/paired"
ok $? "paired: a spread crossing the band's edge: INCONCLUSIVE"
grep -qx '2 allreduce 8 5 10.000 10.000 1.0000 1.0000 1.0000 - INCONCLUSIVE' "$TMP/paired" &&
  grep -qx '2 allreduce 16 6 10.000 10.000 1.0000 1.0000 1.0000 96.9 PASS' "$TMP/paired"
ok $? "paired: 5 equal pairs are too few (INCONCLUSIVE, no coverage); 6 are enough (PASS)"
grep -qx '4 allreduce 8 6 100.000 103.000 1.0300 1.0300 1.0300 96.9 PASS' "$TMP/paired" &&
  grep -qx '4 allreduce 1048576 6 100.000 103.000 1.0300 1.0300 1.0300 96.9 FAIL' "$TMP/paired"
ok $? "paired: 3% slower passes below 1 MiB (5%) and fails from 1 MiB (2%)"
grep -qx '2 allgather 8 0 - - - - - - NOREF' "$TMP/paired"
ok $? "paired: a reference of nan in every repeat: NOREF"
[ "$(tail -n 1 "$TMP/paired")" = 'verdicts PASS=3 FAIL=2 INCONCLUSIVE=2 NOREF=1' ] &&
  [ "$(wc -l <"$TMP/paired")" -eq 9 ]
ok $? "paired: the last line counts the verdicts ($(tail -n 1 "$TMP/paired"))"
# one-sided goals (compare-osu.sh's wall times): the pass file's ratios
# against "at most 1.005" cross it, against 1.01 pass, against 1.001 fail;
# its differences 0.2..1.2 (median 0.85, interval [0.5, 1.0]) against "at most 1 s"
for g in 1.005:INCONCLUSIVE 1.01:PASS 1.001:FAIL; do
  sed 's/^/2 wall 4 /' "$TMP/pass" | awk -v max_ratio="${g%:*}" -f scripts/paired.awk >"$TMP/one"
  grep -qx "2 wall 4 10 100.000 100.950 1.0055 1.0020 1.0090 97.9 ${g#*:}" "$TMP/one" || break
done
ok $? "paired -v max_ratio: PASS at or under the goal, FAIL over it, INCONCLUSIVE across ($g)"
sed 's/^/2 start 4 /' "$TMP/pass" | awk -v max_diff=1 -f scripts/paired.awk >"$TMP/one"
grep -qx '2 start 4 10 100.000 100.950 0.8500 0.5000 1.0000 97.9 PASS' "$TMP/one"
ok $? "paired -v max_diff: the median and interval of the differences against the goal ($(head -n 1 "$TMP/one"))"

# --- plugin-applied.sh ----------------------------------------------------------
cat >"$TMP/rules.csv" <<'EOF'
# collbench-tuner-rules 1
# lines 3 and 4 are the rules
allreduce,0,65535,tree,ll,4,1,2,-1,-1,12.5
allreduce,65536,18446744073709551615,ring,simple,-1,1,2,-1,-1,none
EOF
# NCCL's INFO lines as tuner/plugin/tuner.c's LOG writes them
P='h1:4242:4242 [0] NCCL INFO'
printf '%s TUNER/Plugin: Using collbench (v5)\n' "$P" >"$TMP/loaded.log"
{
  cat "$TMP/loaded.log"
  printf "%s TUNER/collbench: v5, comm 1f (2 ranks, 1 nodes): 2 rules from %s, 2 for this communicator's ranks and nodes\n" "$P" "$TMP/rules.csv"
  printf "%s TUNER/collbench: allreduce 1048576 bytes: ring/simple by the rule of line 4 [65536, 18446744073709551615] (cost 41.5 -> 0), channels NCCL's, measured margin over the runner-up not measured\n" "$P"
  printf '%s TUNER/collbench: allreduce 4096 bytes: tree/ll by the rule of line 3 [0, 65535] (cost 9.2 -> 0), channels 4, measured margin over the runner-up 12.5%%\n' "$P"
} >"$TMP/applied.log"
sed 's|tree/ll by the rule of line 3|ring/ll by the rule of line 3|' "$TMP/applied.log" >"$TMP/algo.log"
applied() { sh scripts/plugin-applied.sh "$@" >"$TMP/pa.out" 2>&1; echo $?; }
# the line the test writes is the one the plugin writes
grep -q '"%s %zu bytes: %s/%s by the rule of line %d \[%llu, %llu\] (cost' tuner/plugin/tuner.c &&
  grep -q '"TUNER/collbench: "' tuner/plugin/tuner.c &&
  [ "$(applied "$TMP/rules.csv" "$TMP/applied.log")" = 0 ] &&
  grep -q 'applied 2 decision(s) by the rules, each as its line says; first: allreduce 1048576 B: ring/simple (line 4)' "$TMP/pa.out"
ok $? "plugin-applied: decisions that match their rules' lines: exit 0, counted"
[ "$(applied "$TMP/rules.csv" "$TMP/algo.log")" = 1 ] && grep -q '1 decision(s) that do not match' "$TMP/pa.out" &&
  grep -q 'ring/ll by the rule of line 3' "$TMP/pa.out"
ok $? "plugin-applied: an algorithm other than its line's (ring for line 3's tree): exit 1, the line named"
[ "$(applied "$TMP/rules.csv" "$TMP/loaded.log")" = 1 ] && grep -q 'no rule applied' "$TMP/pa.out"
ok $? "plugin-applied: only 'Using collbench' (loaded, nothing applied): exit 1"
# (its own usage line: sh exits 2 on a missing script too)
[ "$(applied "$TMP/rules.csv" "$TMP/no-such.log")" = 2 ] && grep -q '^plugin-applied: usage' "$TMP/pa.out" &&
  [ "$(applied "$TMP/rules.csv")" = 2 ] && grep -q '^plugin-applied: usage' "$TMP/pa.out" &&
  [ "$(applied "$TMP/no-such.csv" "$TMP/applied.log")" = 2 ] && grep -q '^plugin-applied: usage' "$TMP/pa.out"
ok $? "plugin-applied: a file it cannot read, or one argument: exit 2 with its usage line"

# --- nccl-allreduce-loop.c against stand-in CUDA and NCCL ------------------------
S=$ROOT/tests/fixtures/standin
if ! command -v mpicc >/dev/null 2>&1 || ! command -v mpirun >/dev/null 2>&1; then
  for i in 1 2 3 4; do skip "no mpicc or mpirun: nccl-allreduce-loop.c not built"; done
else
  mkdir -p "$TMP/loop"
  cc -std=gnu11 -Wall -Wextra -Werror -fPIC -shared -I"$S" -o "$TMP/loop/libstandin.so" \
    "$S/standin.c" >"$TMP/loop/build.log" 2>&1 &&
    mpicc -std=gnu11 -Wall -Wextra -Werror -I"$S" -o "$TMP/loop/loop" scripts/nccl-allreduce-loop.c \
      -L"$TMP/loop" -Wl,-rpath,"$TMP/loop" -lstandin >>"$TMP/loop/build.log" 2>&1
  ok $? "loop: scripts/nccl-allreduce-loop.c builds warning-free against the stand-ins"
  [ -x "$TMP/loop/loop" ] || diag "$TMP/loop/build.log"
  STANDIN_LOG=$TMP/loop/counts mpirun -np 1 "$TMP/loop/loop" 5 8 1024 4096 >"$TMP/loop/out" 2>&1
  st=$?
  awk 'NF == 3 && $2 + 0 > 0 { print $1 }' "$TMP/loop/out" | tr '\n' ' ' >"$TMP/loop/sizes"
  [ $st -eq 0 ] && [ "$(cat "$TMP/loop/sizes")" = '8 1024 4096 ' ] && [ "$(wc -l <"$TMP/loop/out")" -eq 3 ]
  ok $? "loop: one 'BYTES TIME BUSBW' line per size given, in order (exit $st)"
  [ $st -eq 0 ] || diag "$TMP/loop/out"
  # counts: not_ready=N yields_between=N polls_unyielded=N other_yields=N
  #         blocking_waits=N device_flags=N allreduces=N
  get() { sed -n "s/.*\\<$1=\\([-0-9]*\\).*/\\1/p" "$TMP/loop/counts"; }
  [ "$(get not_ready)" -gt 0 ] && [ "$(get yields_between)" -eq "$(get not_ready)" ] &&
    [ "$(get polls_unyielded)" -eq 0 ] && [ "$(get blocking_waits)" -eq 0 ] &&
    [ "$(get allreduces)" -eq 75 ]
  st=$?
  ok $st "loop: it polled and yielded after each of $(get not_ready) not-ready answers, never a blocking wait"
  [ $st -eq 0 ] || diag "$TMP/loop/counts"
  # cudaDeviceScheduleYield is 0x02 (CUDA's driver_types.h; the stand-in's too)
  [ "$(get device_flags)" = 2 ] && grep -q '#define cudaDeviceScheduleYield 0x02' "$S/cuda_runtime.h"
  ok $? "loop: it asked for cudaDeviceScheduleYield (flags $(get device_flags))"
fi

# --- gpu-check.sh in a fake repository ------------------------------------------
G=$TMP/gc
mkdir -p "$G/repo/scripts" "$G/bin" "$G/dev" "$G/mps" "$G/nomps" "$G/cuda/lib64"
if [ "$(id -u)" -ne 0 ] || ! mknod "$G/dev/nvidia0" c 195 0 2>/dev/null; then
  for i in 1 2 3 4 5; do skip "gpu-check: mknod of a fake nvidia0 needs root"; done
  finish
fi
cp scripts/gpu-check.sh "$G/repo/scripts/"
: >"$G/cuda/lib64/libnccl.so" # NCCL found: no look for PyTorch's
mkfifo "$G/mps/control"       # an MPS daemon's pipe on the "default" folder
cat >"$G/repo/configure" <<EOF
#!/bin/sh
echo "configure \$*" >>"$G/configure.log"
echo 'HAVE_CUDA = 1' >config.mk
EOF
printf 'collbench: src.c\n\techo rebuilt >>%s/make.log\n\tprintf "#!/bin/sh\\n" >collbench && chmod +x collbench\n' \
  "$G" >"$G/repo/Makefile"
for t in mpirun nvidia-smi nvidia-cuda-mps-control pgrep; do
  printf '#!/bin/sh\necho "%s $*" >>%s/calls.log\n' "$t" "$G" >"$G/bin/$t"
done
# shellcheck disable=SC2016 # the stub expands it
echo 'exit "${STUB_MPIRUN_STATUS:-0}"' >>"$G/bin/mpirun"
echo 'exit 1' >>"$G/bin/pgrep" # finds no daemon: gpu-check then kills nothing
chmod +x "$G/repo/configure" "$G/bin/"*
echo 'int main(void) { return 0; }' >"$G/repo/src.c"
printf '#!/bin/sh\n' >"$G/repo/collbench" && chmod +x "$G/repo/collbench"
touch -d '2020-01-01' "$G/repo/configure" "$G/repo/collbench"
touch -d '2021-01-01' "$G/repo/config.mk"
touch -d '2022-01-01' "$G/repo/src.c"
gpucheck() { # OUT-NAME MPS-DEFAULT-PIPE PART: the copy, run with the stubs first in PATH
  env -u CUDA_MPS_PIPE_DIRECTORY -u CUDA_MPS_LOG_DIRECTORY PATH="$G/bin:$PATH" \
    GPU_CHECK_DEV="$G/dev" MPS_DEFAULT_PIPE="$2" CUDA_DIR="$G/cuda" NCCL_DIR= \
    GPU_CHECK_OUT="$G/$1" STUB_MPIRUN_STATUS=3 sh "$G/repo/scripts/gpu-check.sh" "$3" \
    >"$G/$1.txt" 2>&1
  STATUS=$?
}
# 1: src.c newer than ./collbench, config.mk newer than configure, an MPS
# daemon's pipe in the default folder
gpucheck out1 "$G/mps" watchdog
[ $STATUS -eq 0 ] && grep -q '^PASS build' "$G/out1.txt" && grep -q '^PASS watchdog' "$G/out1.txt"
ok $? "gpu-check: with a fake nvidia0 and stubs, the watchdog part runs (exit $STATUS)"
[ $STATUS -eq 0 ] || diag "$G/out1.txt"
[ "$(cat "$G/make.log" 2>/dev/null)" = rebuilt ] && [ ! -e "$G/configure.log" ]
ok $? "gpu-check: a part after basics rebuilds what is older than its source, without re-running configure"
! grep -q '^nvidia-cuda-mps-control' "$G/calls.log" &&
  grep -q "MPS: already running on the default pipe ($G/mps)" "$G/out1/report.txt"
ok $? "gpu-check: an MPS daemon on the default pipe is left alone (no second one started)"
# 2: configure newer than config.mk, no daemon on the default pipe; ./collbench
# is now newer than src.c
touch -d '2023-01-01' "$G/repo/configure"
: >"$G/calls.log"
gpucheck out2 "$G/nomps" watchdog
[ $STATUS -eq 0 ] && [ "$(cat "$G/make.log")" = rebuilt ] &&
  grep -q "^configure --with-cuda=$G/cuda --with-nccl=$G/cuda\$" "$G/configure.log"
ok $? "gpu-check: configure newer than config.mk runs again; nothing newer, nothing rebuilt (exit $STATUS)"
grep -qx 'nvidia-cuda-mps-control -d' "$G/calls.log" && grep -q "MPS: started" "$G/out2/report.txt"
ok $? "gpu-check: no daemon on the default pipe: it starts its own (the stub saw -d)"
finish
