#!/bin/sh
# The documentation: README is a front door (under 300 lines) linking every
# guide; every link in every guide resolves; every option a documented
# collbench command uses exists; and every command in README's examples
# runs here (with a time budget appended) or is refused as it should be.
. tests/lib.sh
plan 9
ROOT=$PWD

guides=$(git ls-files '*.md' | grep -v '^tests/fixtures/')
[ "$(wc -l <README.md)" -lt 300 ]
ok $? "README.md is under 300 lines ($(wc -l <README.md))"

missing=
for g in $guides; do
  [ "$g" = README.md ] || grep -q "]($g)" README.md || missing="$missing $g"
done
[ -z "$missing" ]
ok $? "README.md links every guide${missing:+ (not:$missing)}"

# A heading's anchor as GitHub makes it: lower case, punctuation dropped,
# spaces to hyphens.
anchors() {
  awk '/^```/ { code = !code; next } !code && /^#+ / {
    sub(/^#+ /, ""); s = tolower($0); gsub(/[^a-z0-9_ -]/, "", s); gsub(/ /, "-", s); print s }' "$1"
}
: >"$TMP/broken"
for g in $guides; do
  dir=$(dirname "$g")
  grep -o '](\([^)# ]*\)\(#[^) ]*\)\?)' "$g" | sed 's/^](//; s/)$//' | grep -v '^https\?:' |
    while read -r link; do
      file=${link%%#*}
      anchor=
      case $link in *'#'*) anchor=${link#*#} ;; esac
      target=$g
      [ -n "$file" ] && target=$dir/$file
      if [ ! -e "$target" ]; then
        echo "$g: $link (no file $target)" >>"$TMP/broken"
      elif [ -n "$anchor" ] && ! anchors "$target" | grep -qx -- "$anchor"; then
        echo "$g: $link (no heading #$anchor in $target)" >>"$TMP/broken"
      fi
    done
done
[ ! -s "$TMP/broken" ]
ok $? "every relative link in the guides resolves, anchors included"
[ -s "$TMP/broken" ] && diag "$TMP/broken"

# Options of documented collbench commands: in code blocks, the words
# after "collbench" that start with --, against --help.
./collbench --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$TMP/known"
for g in $guides; do
  awk '/^```/ { code = !code; next } code && /collbench/ && !/^#/' "$g" |
    sed 's/.*collbench//; s/ #.*//' | grep -o -- '--[a-z][a-z0-9-]*' | sed "s|^|$g |"
done | sort -u >"$TMP/used"
awk 'NR == FNR { known[$1] = 1; next } !($2 in known)' "$TMP/known" "$TMP/used" >"$TMP/unknown"
[ ! -s "$TMP/unknown" ] && [ "$(wc -l <"$TMP/used")" -gt 50 ]
ok $? "every option of a documented collbench command is in --help ($(wc -l <"$TMP/used") uses)"
[ -s "$TMP/unknown" ] && diag "$TMP/unknown"

# README's example commands, run in a scratch folder as written, with a
# time budget appended where they measure. A command not listed below fails.
W=$TMP/w
mkdir -p "$W" && ln -s "$ROOT/collbench" "$W/collbench" && ln -s "$ROOT/topologies" "$W/topologies"
awk '/^```sh/ { code = 1; next } /^```/ { code = 0 } code' README.md | sed 's/ *#.*//' >"$TMP/cmds"
: >"$TMP/unrun"
: >"$TMP/failed"
BUDGET="--max-time 0.05"
run_doc() { # EXPECTED-STATUSES COMMAND [APPENDED...]: runs it in $W
  want=$1 cmd=$2
  shift 2
  (cd "$W" && eval "$(echo "$cmd" | sed 's/^mpirun -np/mpirun --oversubscribe -np/') $*") \
    </dev/null >"$TMP/doc.out" 2>&1 # mpirun would read the list of commands
  st=$?
  case " $want " in *" $st "*) ;; *)
    echo "$cmd: exit $st, wanted $want" >>"$TMP/failed"
    tail -3 "$TMP/doc.out" >>"$TMP/failed"
    ;;
  esac
}
gpu=0
./collbench --list | grep -q '^  nccl *usable' && gpu=1
while read -r c; do
  case $c in
  *install-deps.sh*)
    # tests/install_deps.t checks the scripts; the sweep itself is below
    grep -q 'install-deps.sh' tests/install_deps.t || echo "$c" >>"$TMP/unrun" ;;
  'sh scripts/install-test-deps.sh' | 'make check')
    grep -qx "$c" .ci/run || grep -q "make check" .ci/run || echo "$c" >>"$TMP/unrun" ;;
  'mpirun -np N ./collbench --sweep') ;; # the placeholder of the next line's runs
  './collbench --help') run_doc 0 "$c" ;;
  *'--sweep --json sweep.jsonl'*)
    run_doc 0 "$c" -e 1K $BUDGET
    run_doc 0 "$(echo "$c" | sed 's/sweep\.jsonl/other-run.jsonl/; s/sweep\.csv/other-run.csv/')" \
      -e 1K $BUDGET ;;
  *'--backend nccl'*)
    # here without a GPU: refused, naming why; with one, too big for a test
    [ $gpu = 1 ] || run_doc 2 "$c" ;;
  *'--accept topologies/localhost.conf'*)
    run_doc "0 1" "$c" $BUDGET # 1: a check FAIL or INCONCLUSIVE on a loaded machine
    grep -q '<testsuite name="collbench acceptance"' "$W/accept.xml" ||
      echo "$c: no JUnit file" >>"$TMP/failed" ;;
  *'--baseline fleet.json'*)
    run_doc 0 './collbench --baseline sweep.jsonl --out fleet.json'
    [ $gpu = 1 ] || run_doc 2 "$c" ;; # the H100 preset needs NCCL on GPUs
  *'--matrix --json matrix.jsonl'*)
    run_doc "0 1" "$c" $BUDGET
    grep -q '"type":"pair"' "$W/matrix.jsonl" || echo "$c: no pair lines" >>"$TMP/failed" ;;
  *'--tune --model tiny'*)
    run_doc 0 "$c" --tune-algorithms 0 --tune-buckets 1M --tune-reps 2 --backend mpi
    [ -s "$W/tuned.env" ] || echo "$c: no env file" >>"$TMP/failed" ;;
  '. ./tuned.env') run_doc 0 "$c" ;;
  './collbench --fit '* | './collbench --predict '*) run_doc 0 "$c" ;;
  './collbench --report '*)
    if command -v gnuplot >/dev/null; then
      run_doc 0 "$c"
      [ -s "$W/report/index.html" ] || echo "$c: no index.html" >>"$TMP/failed"
    fi ;;
  *) echo "$c" >>"$TMP/unrun" ;;
  esac
done <"$TMP/cmds"
[ "$(wc -l <"$TMP/cmds")" -ge 10 ] && [ ! -s "$TMP/unrun" ]
ok $? "every command of README's examples is run here or by a named test ($(wc -l <"$TMP/cmds") commands)"
[ -s "$TMP/unrun" ] && diag "$TMP/unrun"
[ ! -s "$TMP/failed" ] && [ -s "$W/sweep.jsonl" ] && [ -s "$W/other-run.csv" ] && [ -s "$W/fleet.json" ]
ok $? "README's examples run with the status they should (their files written)"
[ -s "$TMP/failed" ] && diag "$TMP/failed"

# Each check above fails on a broken document: the same checks on copies.
B=$TMP/b
mkdir -p "$B/bench/x" && cp README.md "$B/" && echo '# Extra' >"$B/bench/x/EXTRA.md"
(cd "$B" && git init -q && git add . && git ls-files '*.md' | while read -r g; do
  [ "$g" = README.md ] || grep -q "]($g)" README.md || echo "$g"
done) | grep -qx 'bench/x/EXTRA.md'
ok $? "a guide README does not link is named (a broken copy)"
printf '# T\n\nsee [x](nowhere.md) and [y](#no-such-heading)\n' >"$B/T.md"
n=0
grep -o '](\([^)# ]*\)\(#[^) ]*\)\?)' "$B/T.md" | sed 's/^](//; s/)$//' | while read -r link; do
  file=${link%%#*}
  if [ -n "$file" ]; then [ -e "$B/$file" ] || echo bad; else anchors "$B/T.md" | grep -qx "${link#\#}" || echo bad; fi
done >"$TMP/bad"
[ "$(wc -l <"$TMP/bad")" -eq 2 ]
ok $? "a link to a missing file and one to a missing heading are both caught (a broken copy)"
printf '```sh\n./collbench --no-such-option\n```\n' >"$B/U.md"
awk '/^```/ { code = !code; next } code && /collbench/' "$B/U.md" | sed 's/.*collbench//' |
  grep -o -- '--[a-z][a-z0-9-]*' | grep -vxFf "$TMP/known" | grep -qx -- '--no-such-option'
ok $? "an option --help lacks is caught (a broken copy)"
finish
