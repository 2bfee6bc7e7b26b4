#!/bin/bash
# Issue 28 item 1 under mpirun -np 2 (tests/bad_input_table.t runs one
# rank without mpirun): each mode (a plain run, --matrix, --accept with a
# [matrix]) x a condition that used to be checked only after the outputs
# were opened exits 2 and leaves keep.jsonl and keep.csv byte-identical.
. tests/lib.sh
printf '{"type":"run","keep":"me"}\n' >"$TMP/ref.jsonl"
printf 'op,bytes\n' >"$TMP/ref.csv"
printf '[system]\nname = x\n[matrix]\nsize = 2G\n' >"$TMP/big.conf"
rows=(
  "nothing to measure.*fp8|-d e4m3 -e 1K"
  "nothing to measure.*below one element|-b 1 -e 4 -d double"
  "--matrix: messages of at most 1 GiB|--matrix=2G"
  "--matrix: messages of at most 1 GiB|--accept $TMP/big.conf"
)
plan ${#rows[@]}
for r in "${rows[@]}"; do
  regex=${r%%|*} args=${r#*|}
  cp "$TMP/ref.jsonl" "$TMP/keep.jsonl"
  cp "$TMP/ref.csv" "$TMP/keep.csv"
  # shellcheck disable=SC2086 # the row's arguments are words
  mpi 2 $args -n 2 --json "$TMP/keep.jsonl" --csv "$TMP/keep.csv"
  [ "$STATUS" -eq 2 ] && grep -Eq -- "$regex" "$TMP/err" &&
    cmp -s "$TMP/keep.jsonl" "$TMP/ref.jsonl" && cmp -s "$TMP/keep.csv" "$TMP/ref.csv"
  ok $? "2 ranks, $args: exit 2 (status $STATUS), earlier outputs kept"
  [ "$STATUS" -eq 2 ] || head -n 3 "$TMP/err" | diag
done
finish
