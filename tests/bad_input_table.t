#!/bin/bash
# Bad input, table-driven (tests/bad_input.tsv): each argument vector exits
# with its status, says one thing (at most a message and the --help hint)
# matching its pattern, and leaves the earlier outputs keep.jsonl and
# keep.csv byte-identical. A row flagged 'todo 16.N' waits for issue 16
# item N (or 'todo new': found by this table, not yet in an issue): its TAP
# line is a TODO, reported but not failing.
# The rows are independent and judge no timing, so they run side by side,
# one per core (each in its own directory: a row's $TMP), and are reported
# in the table's order.
. tests/lib.sh

table=tests/bad_input.tsv
plan "$(grep -cv '^#' "$table")"

# the files the rows name, shared read-only through links in each row's directory
SHARED=$TMP/shared ROWS=$TMP/rows
mkdir -p "$SHARED" "$ROWS"
: >"$SHARED/empty.conf"
: >"$SHARED/empty.jsonl"
printf '[system]\nname = x\nthis is not ini\n' >"$SHARED/bad.conf"
head -c 1100000 /dev/zero | tr '\0' '#' >"$SHARED/huge.conf"
printf 'not json\n{"no":"type"}\n\x01\x02\n' >"$SHARED/garbage.jsonl"
printf '{"type":"run","keep":"me"}\n{"type":"result","op":"allreduce"}\n' >"$SHARED/keep.ref.jsonl"
printf 'op,bytes\nallreduce,8\n' >"$SHARED/keep.ref.csv"
# fleet baselines: another format version, another op set, a topology naming them
printf '{"format": "collbench-baseline", "version": 2, "runs": [], "entries": []}\n' >"$SHARED/v2.json"
dist='{"n": 9, "median": 1, "mad": 0, "p5": 1, "p10": 1, "p90": 1, "p95": 1, "min": 1, "max": 1, "ci95": 0}'
printf '{"format": "collbench-baseline", "version": 1, "runs": [{}], "entries": [{"kind": "result", "op": "broadcast", "backend": "nccl", "mem": "device", "transport": "auto", "dtype": "half", "redop": "sum", "inplace": false, "nranks": 8, "nnodes": 1, "bytes": 8, "time_us": %s, "runs": [0]}]}\n' "$dist" >"$SHARED/otherops.json"
check='[check a]\nop = allreduce\nbackend = mpi\nsize = 1K\nmetric = time\nfail = 1 s\n'
printf "[system]\nname = x\n$check[baseline]\nfile = nothere.json\n" >"$SHARED/blmissing.conf"
printf '[system]\nname = x\n[matrix]\n' >"$SHARED/matrix.conf" # rows name it as $SHARED/matrix.conf
printf "[system]\nname = x\n$check[baseline]\nk = 3\n" >"$SHARED/blnofile.conf"
printf "[system]\nname = x\n$check[baseline]\nfile = x.json\nk = 0\n" >"$SHARED/blbadk.conf"
# issue 58: a model level the model cannot answer (no tiers), and one of 50x
printf '[system]\nname = x\n[check a]\nop = allreduce\nbackend = mpi\nsize = 1K\nmetric = busbw\nfail = 80%% model\n' >"$SHARED/model.conf"
printf '[system]\nname = x\n[check a]\nop = allreduce\nbackend = mpi\nsize = 1K\nmetric = time\nfail = 5000%% model\n' >"$SHARED/model5000.conf"

# row N WANT REGEX ARGS: runs one vector in $ROWS/N (its $TMP); what is
# wrong with it, if anything, goes to $ROWS/N.why, its stderr to $ROWS/N/err
row() {
  local n=$1 TMP=$ROWS/$1 want=$2 regex=$3 args=$4 status why=
  mkdir "$TMP"
  for f in empty.conf empty.jsonl bad.conf huge.conf garbage.jsonl v2.json otherops.json \
    blmissing.conf blnofile.conf blbadk.conf model.conf model5000.conf; do ln -s "$SHARED/$f" "$TMP/$f"; done
  cp "$SHARED/keep.ref.jsonl" "$TMP/keep.jsonl"
  cp "$SHARED/keep.ref.csv" "$TMP/keep.csv"
  eval "set -- $args"
  regex=${regex//\$TMP/$TMP}
  # a wrongly accepted vector runs a small benchmark: bounded, never a hang
  timeout 30 ./collbench "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  status=$?
  [ "$status" -eq "$want" ] || why="exit $status, not $want"
  grep -Eq -- "$regex" "$TMP/err" || why="${why:+$why; }no /$regex/ in stderr"
  # one message; a reader's notes on the lines it skipped come before it
  [ "$(grep -Evc "^Try 'collbench --help'|\(line skipped\)$" "$TMP/err")" -le 1 ] ||
    why="${why:+$why; }more than one message"
  cmp -s "$TMP/keep.jsonl" "$SHARED/keep.ref.jsonl" && cmp -s "$TMP/keep.csv" "$SHARED/keep.ref.csv" ||
    why="${why:+$why; }an earlier output changed"
  printf '%s' "$why" >"$ROWS/$n.why"
}

# a 'nogpu' row (device or pinned memory, the nccl backend) is bad input only
# on a machine without a GPU; where one is, it would run, so it is skipped
GPU=
gpu_usable && GPU=1
jobs_max=$(nproc)
n=0 flags=() argv=()
while IFS=$'\t' read -r flag want regex args; do
  case $flag in '#'* | '') continue ;; esac
  n=$((n + 1)) flags[n]=$flag argv[n]=$args
  [ "$flag" = nogpu ] && [ -n "$GPU" ] && continue
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  row "$n" "$want" "$regex" "$args" &
done <"$table"
wait

for i in $(seq "$n"); do
  TESTS_RUN=$((TESTS_RUN + 1))
  if [ "${flags[i]}" = nogpu ] && [ -n "$GPU" ]; then
    echo "ok $TESTS_RUN # SKIP a GPU is here, so this is not bad input: ${argv[i]}"
    continue
  fi
  todo=
  [ "${flags[i]}" = - ] || [ "${flags[i]}" = nogpu ] || todo=" # TODO issue ${flags[i]#todo }"
  why=$(cat "$ROWS/$i.why" 2>/dev/null || echo "the row did not finish")
  if [ -z "$why" ]; then
    echo "ok $TESTS_RUN - ${argv[i]}$todo"
  else
    echo "not ok $TESTS_RUN - ${argv[i]}: $why$todo"
    head -n 3 "$ROWS/$i/err" | diag
    [ -n "$todo" ] || TESTS_FAILED=$((TESTS_FAILED + 1))
  fi
done
finish
