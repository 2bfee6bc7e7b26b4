#!/bin/bash
# The generated file audit (issue 28): every file-taking option, as output
# and as input, in every mode that takes it, pointed at a directory, a
# missing directory, a full device and a full file system, symbolic links
# (dangling, to a directory, a loop, to a file), a read-only mount (a new
# name and an existing file), an endless input (/dev/zero; a FIFO fed zeros
# without end, inputs only: an output FIFO without a reader blocks its
# open, as a shell redirection does) and a few malformed names, in both
# spellings (--opt V, --opt=V) where the mode is quick. Each vector must end
# within its timeout (no hang), with a status from 0 to 3 (no crash, no
# signal); a refused one (exit 2) must leave the earlier outputs named
# beside the bad path (keep.jsonl, keep.csv) byte-identical (a run that
# went ahead, 0, 1 or 3, rewrites the outputs it names: a full device
# fails at its first write), and none may change the read-only file or a
# link's target read as input.
# Classes this machine cannot make (mounts, mknod: not root, or a
# container without the right) are visible TAP skips.
. tests/lib.sh

F=tests/fixtures
FIXJ=$F/model_np2.jsonl FIXT=$F/nccl_tests_allreduce.txt
A=$TMP/a R=$TMP/rows
mkdir -p "$A/adir" "$R"
printf '{"type":"run","keep":"me"}\n{"type":"result","op":"allreduce"}\n' >"$TMP/keep.ref.jsonl"
printf 'op,bytes\nallreduce,8\n' >"$TMP/keep.ref.csv"
cp "$TMP/keep.ref.jsonl" "$A/keep.target"
ln -s "$A/nowhere/x" "$A/dangling"
ln -s "$A/adir" "$A/linkdir"
ln -s "$A/loop" "$A/loop"
ln -s "$A/keep.target" "$A/linkfile"
mkfifo "$A/fifo"
# the mounts: a full tmpfs and a read-only one (root only; else skipped)
mounts=()
have_fullfs=0 have_ro=0 have_dev=0
mkdir "$A/fullfs" "$A/ro"
if mount -t tmpfs -o size=64k tmpfs "$A/fullfs" 2>/dev/null; then
  mounts+=("$A/fullfs")
  head -c 1M /dev/zero >"$A/fullfs/filler" 2>/dev/null
  have_fullfs=1
fi
if mount -t tmpfs -o size=64k tmpfs "$A/ro" 2>/dev/null; then
  mounts+=("$A/ro")
  cp "$TMP/keep.ref.jsonl" "$A/ro/existing"
  mount -o remount,ro "$A/ro" 2>/dev/null && have_ro=1
fi
# a full device of our own: the kernel's full (1, 7), made here, not /dev's
mknod "$A/fulldev" c 1 7 2>/dev/null && ! echo x 2>/dev/null >"$A/fulldev" && have_dev=1
# the FIFO's endless writer: a new one for each reader that opens it
(while :; do cat /dev/zero >"$A/fifo" 2>/dev/null; done) &
feeder=$!
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  kill "$feeder" 2>/dev/null
  timeout 2 head -c 1 "$A/fifo" >/dev/null 2>&1 # lets a blocked writer end
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$TMP"
}
trap cleanup EXIT

# name|path|available: outputs take all but linkfile (a FIFO output is refused
# before the run, issue 56); inputs all
locs=(
  "dir|$A/adir|1"
  "dir/|$A/adir/|1"
  "missing-dir|$A/missing/sub/x|1"
  "through-a-file|$A/keep.target/x|1"
  "full-device|$A/fulldev|$have_dev"
  "full-fs|$A/fullfs/x|$have_fullfs"
  "link-dangling|$A/dangling|1"
  "link-to-dir|$A/linkdir|1"
  "link-loop|$A/loop|1"
  "read-only-new|$A/ro/x|$have_ro"
  "read-only-existing|$A/ro/existing|$have_ro"
  "endless-dev-zero|/dev/zero|1"
  "name-too-long|$A/$(printf 'n%.0s' {1..300})|1"
  "empty-name||1"
  "endless-fifo|$A/fifo|1"
  "link-to-file|$A/linkfile|1"
)
# contexts: kind (out/in), speed (quick: no MPI; slow: starts MPI), the
# arguments with @ for the path and $V for the row's directory
contexts=(
  "out|quick|--import-nccl-tests $FIXT --json @ --csv \$V/keep.csv"
  "out|quick|--import-nccl-tests $FIXT --json \$V/keep.jsonl --csv @"
  "out|quick|--report $FIXJ --out @"
  "out|quick|--baseline-out @ $FIXJ"
  "out|quick|--fit $FIXJ --predict --op allreduce --gpus 2 --size 1M --json @"
  "out|slow|-b 8 -e 8 -n 1 -w 0 --json @ --csv \$V/keep.csv"
  "out|slow|-b 8 -e 8 -n 1 -w 0 --json \$V/keep.jsonl --csv @"
  "out|slow|-b 8 -e 8 -n 1 -w 0 --json \$V/keep.jsonl --prom @"
  "out|slow|--matrix --json \$V/keep.jsonl --csv \$V/keep.csv --junit @"
  "out|slow|--matrix --json \$V/keep.jsonl --csv \$V/keep.csv --exclude-out @"
  "out|slow|--tune --workload tiny --no-search --tune-reps 2 -T 5 --env-out @"
  "in|quick|--report @ --out \$V/r"
  "in|quick|--report $FIXJ --baseline @ --out \$V/r"
  "in|quick|--report $FIXJ --topology @ --out \$V/r"
  "in|quick|--fit @"
  "in|quick|--fit $FIXJ --validate @"
  "in|quick|--predict --topology @ --size 1M"
  "in|quick|--compare @ $FIXJ"
  "in|quick|--compare $FIXJ @"
  "in|quick|--baseline-out \$V/b.json @"
  "in|quick|--import-nccl-tests @ --json \$V/keep.jsonl --csv \$V/keep.csv"
  "in|quick|--accept @ --json \$V/keep.jsonl --csv \$V/keep.csv"
  "in|quick|--accept topologies/localhost.conf --baseline @ --json \$V/keep.jsonl"
  "in|slow|--tune --workload tiny --no-search --tune-reps 2 -T 5 --resume --trials @"
)

# the vectors: each context x location (both spellings where quick)
n=0 descs=() argvs=() skips=()
for c in "${contexts[@]}"; do
  IFS='|' read -r kind speed args <<<"$c"
  for l in "${locs[@]}"; do
    IFS='|' read -r name path avail <<<"$l"
    case $kind:$name in out:link-to-file) continue ;; esac
    # a tune that the path lets start would tune for minutes: its output
    # checks are what this audit is about, made before the first step
    case $kind:$speed:$name in out:slow:full-fs) [ "${args#--tune}" = "$args" ] || continue ;; esac
    [ "$c" = "in|slow|--tune --workload tiny --no-search --tune-reps 2 -T 5 --resume --trials @" ] &&
      [ "$name" = full-fs ] && continue
    forms=(" ")
    [ "$speed" = quick ] && forms=(" " "=")
    for sep in "${forms[@]}"; do
      opt=${args%% @*}
      rest=${args#* @}
      [ "$rest" = "$args" ] && rest=
      opt_name=${opt##* }
      head=${opt% *}
      [ "$head" = "$opt" ] && head=
      n=$((n + 1))
      if [ "$sep" = "=" ]; then
        argvs[n]="${head:+$head }$opt_name=$(printf %q "$path")${rest:+ $rest}"
      else
        argvs[n]="${head:+$head }$opt_name $(printf %q "$path")${rest:+ $rest}"
      fi
      descs[n]="$kind $name: ${argvs[n]//$TMP/\$TMP}"
      skips[n]=$([ "$avail" = 1 ] || echo "cannot make a $name here (needs root and mount/mknod)")
    done
  done
done
plan $((n + 1))

# vector N: runs in $R/N with fresh keep files; what went wrong goes to $R/N.why
vector() {
  local i=$1 V=$R/$1 why='' status
  mkdir "$V"
  cp "$TMP/keep.ref.jsonl" "$V/keep.jsonl"
  cp "$TMP/keep.ref.csv" "$V/keep.csv"
  eval "set -- ${argvs[i]}"
  timeout -k 2 20 ./collbench "$@" </dev/null >"$V/out" 2>"$V/err"
  status=$?
  echo "$status" >"$V.status"
  case $status in
  124 | 137) why="no end within 20 s (status $status)" ;;
  [0-3]) ;;
  *) why="status $status (a crash or a signal)" ;;
  esac
  [ "$status" -ne 2 ] ||
    { cmp -s "$V/keep.jsonl" "$TMP/keep.ref.jsonl" && cmp -s "$V/keep.csv" "$TMP/keep.ref.csv"; } ||
    why="${why:+$why; }refused, and an earlier output changed"
  printf '%s' "$why" >"$V.why"
}

export OMPI_MCA_rmaps_base_oversubscribe=1
jobs_max=$(nproc)
for i in $(seq "$n"); do
  [ -z "${skips[i]}" ] || continue
  while [ "$(jobs -rp | wc -l)" -ge $((jobs_max + 1)) ]; do wait -n; done # +1: the feeder
  vector "$i" &
done
while [ "$(jobs -rp | wc -l)" -gt 1 ]; do wait -n; done

shared_ok=1
cmp -s "$A/keep.target" "$TMP/keep.ref.jsonl" || shared_ok=0
[ "$have_ro" = 0 ] || cmp -s "$A/ro/existing" "$TMP/keep.ref.jsonl" || shared_ok=0
declare -A count
for i in $(seq "$n"); do
  TESTS_RUN=$((TESTS_RUN + 1))
  if [ -n "${skips[i]}" ]; then
    echo "ok $TESTS_RUN - ${descs[i]} # SKIP ${skips[i]}"
    count[skip]=$((${count[skip]:-0} + 1))
    continue
  fi
  s=$(cat "$R/$i.status" 2>/dev/null || echo none)
  count[$s]=$((${count[$s]:-0} + 1))
  why=$(cat "$R/$i.why" 2>/dev/null || echo "the vector did not finish")
  if [ -z "$why" ]; then
    echo "ok $TESTS_RUN - ${descs[i]} (exit $s)"
  else
    echo "not ok $TESTS_RUN - ${descs[i]}: $why"
    head -n 3 "$R/$i/err" | diag
    TESTS_FAILED=$((TESTS_FAILED + 1))
  fi
done
summary="# $n vectors:"
for k in $(printf '%s\n' "${!count[@]}" | sort); do summary="$summary exit $k: ${count[$k]};"; done
echo "${summary//exit skip/skipped}"
[ "$shared_ok" = 1 ]
ok $? "the link's target file and the read-only file are unchanged"
finish
