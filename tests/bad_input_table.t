#!/bin/bash
# Bad input, table-driven (tests/bad_input.tsv): each argument vector exits
# with its status, says one thing (at most a message and the --help hint)
# matching its pattern, and leaves the earlier outputs keep.jsonl and
# keep.csv byte-identical. A row flagged 'todo 16.N' waits for issue 16
# item N (or 'todo new': found by this table, not yet in an issue): its TAP
# line is a TODO, reported but not failing.
. tests/lib.sh

table=tests/bad_input.tsv
plan "$(grep -cv '^#' "$table")"

# the files the rows name
: >"$TMP/empty.conf"
: >"$TMP/empty.jsonl"
printf '[system]\nname = x\nthis is not ini\n' >"$TMP/bad.conf"
# fleet baselines: another format version, another op set, a topology naming them
printf '{"format": "collbench-baseline", "version": 2, "runs": [], "entries": []}\n' >"$TMP/v2.json"
dist='{"n": 9, "median": 1, "mad": 0, "p5": 1, "p10": 1, "p90": 1, "p95": 1, "min": 1, "max": 1, "ci95": 0}'
printf '{"format": "collbench-baseline", "version": 1, "runs": [{}], "entries": [{"kind": "result", "op": "broadcast", "backend": "nccl", "mem": "device", "transport": "auto", "dtype": "half", "redop": "sum", "inplace": false, "nranks": 8, "nnodes": 1, "bytes": 8, "time_us": %s, "runs": [0]}]}\n' "$dist" >"$TMP/otherops.json"
check='[check a]\nop = allreduce\nbackend = mpi\nsize = 1K\nmetric = time\nfail = 1 s\n'
printf "[system]\nname = x\n$check[baseline]\nfile = nothere.json\n" >"$TMP/blmissing.conf"
printf "[system]\nname = x\n$check[baseline]\nk = 3\n" >"$TMP/blnofile.conf"
printf "[system]\nname = x\n$check[baseline]\nfile = x.json\nk = 0\n" >"$TMP/blbadk.conf"
head -c 1100000 /dev/zero | tr '\0' '#' >"$TMP/huge.conf"
printf 'not json\n{"no":"type"}\n\x01\x02\n' >"$TMP/garbage.jsonl"
printf '{"type":"run","keep":"me"}\n{"type":"result","op":"allreduce"}\n' >"$TMP/keep.ref.jsonl"
printf 'op,bytes\nallreduce,8\n' >"$TMP/keep.ref.csv"

while IFS=$'\t' read -r flag want regex args; do
  case $flag in '#'* | '') continue ;; esac
  cp "$TMP/keep.ref.jsonl" "$TMP/keep.jsonl"
  cp "$TMP/keep.ref.csv" "$TMP/keep.csv"
  rm -rf "$TMP/r"
  eval "set -- $args"
  regex=${regex//\$TMP/$TMP}
  # a wrongly accepted vector runs a small benchmark: bounded, never a hang
  timeout 30 ./collbench "$@" </dev/null >"$TMP/out" 2>"$TMP/err"
  status=$?
  why=
  [ "$status" -eq "$want" ] || why="exit $status, not $want"
  grep -Eq -- "$regex" "$TMP/err" || why="${why:+$why; }no /$regex/ in stderr"
  # one message; a reader's notes on the lines it skipped come before it
  [ "$(grep -Evc "^Try 'collbench --help'|\(line skipped\)$" "$TMP/err")" -le 1 ] ||
    why="${why:+$why; }more than one message"
  cmp -s "$TMP/keep.jsonl" "$TMP/keep.ref.jsonl" && cmp -s "$TMP/keep.csv" "$TMP/keep.ref.csv" ||
    why="${why:+$why; }an earlier output changed"
  TESTS_RUN=$((TESTS_RUN + 1))
  todo=
  [ "$flag" = - ] || todo=" # TODO issue ${flag#todo }"
  if [ -z "$why" ]; then
    echo "ok $TESTS_RUN - $args$todo"
  else
    echo "not ok $TESTS_RUN - $args: $why$todo"
    head -n 3 "$TMP/err" | diag
    [ -n "$todo" ] || TESTS_FAILED=$((TESTS_FAILED + 1))
  fi
done <"$table"
finish
