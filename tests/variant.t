#!/bin/sh
# --variant: which buffer layout each size measures. Both by default (as
# nccl-tests); out-of-place alone is what OSU and IMB measure, so a
# side-by-side comparison (scripts/compare-osu.sh) times like with like.
. tests/lib.sh

plan 6

run() { # OPTIONS...: a short real run on 2 ranks
  mpi 2 -b 1K -e 16K -f 4 --max-time 0.05 --json "$TMP/r.jsonl" "$@"
}
places() { # the distinct .inplace values of the result lines, e.g. "false true"
  jq -r 'select(.type == "result") | .inplace' "$TMP/r.jsonl" | sort -u | tr '\n' ' '
}

run
[ $STATUS -eq 0 ] && [ "$(places)" = "false true " ] &&
  jq -s -e '.[] | select(.type == "run") | .settings.variant == "both"' "$TMP/r.jsonl" >/dev/null
ok $? "default: both layouts per size, settings.variant both (got '$(places)')"

run --variant out-of-place
[ $STATUS -eq 0 ] && [ "$(places)" = "false " ] &&
  jq -s -e '.[] | select(.type == "run") | .settings.variant == "out-of-place"' "$TMP/r.jsonl" >/dev/null
ok $? "--variant out-of-place: only out-of-place result lines (got '$(places)')"
check "... each of its 3 sizes measured and checked, none wrong" \
  jq -s -e '[.[] | select(.type == "result")] | length == 3 and all(.wrong == 0)' "$TMP/r.jsonl"

run --variant in-place --op allreduce,p2p_bw
[ $STATUS -eq 0 ] && [ "$(places)" = "true " ] &&
  grep -q '^# p2p_bw skipped for mpi, host memory, float: no in-place variant' "$TMP/out"
ok $? "--variant in-place: in-place lines only; p2p_bw, which has none, skipped saying so (got '$(places)')"

echo '{"keep": 1}' >"$TMP/keep.jsonl"
./collbench --variant out --json "$TMP/keep.jsonl" >"$TMP/out" 2>"$TMP/err"
st=$?
[ $st -eq 2 ] && grep -q -- "--variant: unknown value 'out' (out-of-place, in-place or both)" "$TMP/err" &&
  grep -q keep "$TMP/keep.jsonl"
ok $? "--variant out: exit 2 naming the value, nothing run, the earlier file kept (got $st)"
check "--help lists --variant" sh -c './collbench --help | grep -q -- "--variant V"'
