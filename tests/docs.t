#!/bin/sh
# The documentation: README is a front door (under 300 lines) linking every
# guide; every link in every guide resolves; every option a documented
# collbench command uses exists; and every command in README's examples
# runs here (with a time budget appended) or is refused as it should be.
. tests/lib.sh
plan 14
ROOT=$PWD

# Each check is a function of a tree (a folder with README.md and its
# guides), so the same code judges the repository and, at the end, broken
# copies of it.
guides_of() { # DIR: the guides, as paths relative to DIR
  # (.gpu-deps holds carried third-party trees for a GPU machine, git-ignored)
  (cd "$1" && find . -name '*.md' -not -path './build/*' -not -path './.git/*' \
    -not -path './tests/fixtures/*' -not -path './.gpu-deps/*' | sed 's|^\./||' | sort)
}
long_readme() { # DIR: prints README's line count when it is 300 or more
  n=$(wc -l <"$1/README.md")
  [ "$n" -lt 300 ] || echo "$n"
}
unlinked_guides() { # DIR: the guides README.md does not link
  for g in $(guides_of "$1"); do
    [ "$g" = README.md ] || grep -q "]($g)" "$1/README.md" || echo "$g"
  done
}
# A heading's anchor as GitHub makes it: lower case, punctuation dropped,
# spaces to hyphens.
anchors() {
  awk '/^```/ { code = !code; next } !code && /^#+ / {
    sub(/^#+ /, ""); s = tolower($0); gsub(/[^a-z0-9_ -]/, "", s); gsub(/ /, "-", s); print s }' "$1"
}
broken_links() { # DIR: each relative link of a guide that does not resolve
  for g in $(guides_of "$1"); do
    dir=$(dirname "$g")
    grep -o '](\([^)# ]*\)\(#[^) ]*\)\?)' "$1/$g" | sed 's/^](//; s/)$//' | grep -v '^https\?:' |
      while read -r link; do
        file=${link%%#*}
        anchor=
        case $link in *'#'*) anchor=${link#*#} ;; esac
        target=$g
        [ -n "$file" ] && target=$dir/$file
        if [ ! -e "$1/$target" ]; then
          echo "$g: $link (no file $target)"
        elif [ -n "$anchor" ] && ! anchors "$1/$target" | grep -qx -- "$anchor"; then
          echo "$g: $link (no heading #$anchor in $target)"
        fi
      done
  done
}
# Options of documented collbench commands: in code blocks, the words
# after "collbench" that start with --.
used_options() { # DIR: "GUIDE --option" for each use
  for g in $(guides_of "$1"); do
    awk '/^```/ { code = !code; next } code && /collbench/ && !/^#/' "$1/$g" |
      sed 's/.*collbench//; s/ #.*//' | grep -o -- '--[a-z][a-z0-9-]*' | sed "s|^|$g |"
  done | sort -u
}
unknown_options() { # DIR: the uses of an option --help does not list
  used_options "$1" | awk 'NR == FNR { known[$1] = 1; next } !($2 in known)' "$TMP/known" -
}
./collbench --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >"$TMP/known"

long_readme . >"$TMP/long"
[ ! -s "$TMP/long" ]
ok $? "README.md is under 300 lines ($(wc -l <README.md))"

unlinked_guides . >"$TMP/unlinked"
[ ! -s "$TMP/unlinked" ] && [ "$(guides_of . | wc -l)" -gt 10 ]
ok $? "README.md links every guide ($(guides_of . | wc -l) guides)"
[ -s "$TMP/unlinked" ] && diag "$TMP/unlinked"

broken_links . >"$TMP/broken"
[ ! -s "$TMP/broken" ]
ok $? "every relative link in the guides resolves, anchors included"
[ -s "$TMP/broken" ] && diag "$TMP/broken"

unknown_options . >"$TMP/unknown"
[ ! -s "$TMP/unknown" ] && [ "$(used_options . | wc -l)" -gt 50 ]
ok $? "every option of a documented collbench command is in --help ($(used_options . | wc -l) uses)"
[ -s "$TMP/unknown" ] && diag "$TMP/unknown"

# README's example commands, run in order in a scratch folder as written,
# with a time budget appended where they measure, first as whoever runs the
# tests (root here and in CI) and then, when that is root, as another user
# (uid 65534, through setpriv). A command not listed below fails; so does
# one whose input file (a .jsonl, .json, .csv or .env it does not write) no
# earlier example made (issue 40).
awk '/^```sh/ { code = 1; next } /^```/ { code = 0 } code' README.md | sed 's/ *#.*//' >"$TMP/cmds"
BUDGET="--max-time 0.05"
W= AS= FAILED= UNRUN=
run_doc() { # EXPECTED-STATUSES COMMAND [APPENDED...]: runs it in $W, as $AS
  want=$1 cmd=$2
  shift 2
  for f in $(inputs_of "$cmd"); do # a pattern (acc*.jsonl) must match a file
    [ -n "$(cd "$W" && ls -d $f 2>/dev/null)" ] ||
      echo "$cmd: reads $f, which no earlier example wrote" >>"$FAILED"
  done
  (cd "$W" && $AS sh -c "$(echo "$cmd" | sed 's/mpirun -np/mpirun --oversubscribe -np/g') $*") \
    </dev/null >"$TMP/doc.out" 2>&1 # mpirun would read the list of commands
  st=$?
  case " $want " in *" $st "*) ;; *)
    echo "$cmd: exit $st, wanted $want" >>"$FAILED"
    tail -3 "$TMP/doc.out" >>"$FAILED"
    ;;
  esac
}
inputs_of() { # COMMAND: the files it reads (those after an output option are written)
  echo "$1" | awk '{ for (i = 1; i <= NF; i++)
    if ($i ~ /\.(jsonl|json|csv|env)$/ && $(i - 1) !~ /^--(json|csv|out|junit|trials|env-out|prom|baseline-out)$/)
      print $i }'
}
gpu=0
gpu_usable && gpu=1
examples() { # FOLDER AS: every example, in README's order
  W=$1 AS=$2 FAILED=$TMP/failed.$3 UNRUN=$TMP/unrun.$3
  : >"$FAILED"
  : >"$UNRUN"
  while read -r c; do
    case $c in
    *install-deps.sh*)
      # tests/install_deps.t checks the scripts; the sweep itself is below
      grep -q 'install-deps.sh' tests/install_deps.t || echo "$c" >>"$UNRUN" ;;
    'sh scripts/install-test-deps.sh' | 'make check')
      grep -qx "$c" .ci/run || grep -q "make check" .ci/run || echo "$c" >>"$UNRUN" ;;
    'mpirun -np N ./collbench --sweep') ;; # the placeholder of the next line's runs
    *'export OMPI_ALLOW_RUN_AS_ROOT=1'*) ;; # run with the quick start, below
    'mpirun -np 2 ./collbench --sweep') run_doc 0 "$c" -e 1K $BUDGET ;;
    './collbench --help') run_doc 0 "$c" ;;
    *' --sweep --json '*) run_doc 0 "$c" -e 1K $BUDGET ;;
    *'--backend nccl'*)
      # here without a GPU: refused, naming why; with one, too big for a test
      [ $gpu = 1 ] || run_doc 2 "$c" ;;
    'for i in '*'--accept topologies/localhost.conf --json acc$i.jsonl; done')
      # five acceptance runs for a fleet baseline: the budget inside the loop
      run_doc "0 1" "$(echo "$c" | sed "s/; done/ $BUDGET; done/")"
      [ -s "$W/acc5.jsonl" ] || echo "$c: no acc5.jsonl" >>"$FAILED" ;;
    *'--accept topologies/localhost.conf --duration '*)
      # the burn-in, 3 s here: its intervals and verdicts, not its length
      run_doc "0 1" "$(echo "$c" | sed 's/--duration [0-9a-z]*/--duration 3s/')" $BUDGET ;;
    *'--accept topologies/localhost.conf'*)
      run_doc "0 1" "$c" $BUDGET # 1: a check FAIL or INCONCLUSIVE on a loaded machine
      grep -q '<testsuite name="collbench acceptance"' "$W/accept.xml" ||
        echo "$c: no JUnit file" >>"$FAILED" ;;
    './collbench --baseline-out '*) run_doc 0 "$c" ;;
    'scripts/launches.sh '*) # a baseline of 5 launches: fewer judge nothing (issue 57)
      run_doc 0 "$c" -e 1K $BUDGET
      [ -s "$W/fleet.json" ] || echo "$c: no fleet.json" >>"$FAILED" ;;
    *'--accept topologies/h100-ndr.conf --dry-run') run_doc 0 "$c" ;; # no MPI, no GPU
    *'--accept topologies/h100-ndr.conf'*)
      [ $gpu = 1 ] || run_doc 2 "$c" ;; # the H100 preset needs NCCL on GPUs
    *'--matrix --json matrix.jsonl'*)
      run_doc "0 1" "$c" $BUDGET
      grep -q '"type":"pair"' "$W/matrix.jsonl" || echo "$c: no pair lines" >>"$FAILED" ;;
    *'--trials trials.jsonl --tune'*)
      run_doc 0 "$c" --tune-algorithms 0 --tune-buckets 1M --tune-reps 2 --backend mpi
      [ -s "$W/tuned.env" ] || echo "$c: no env file" >>"$FAILED" ;;
    '. ./tuned.env') run_doc 0 "$c" ;;
    './collbench --fit '* | './collbench --predict '*) run_doc 0 "$c" ;;
    './collbench --report '*)
      if command -v gnuplot >/dev/null; then
        run_doc 0 "$c"
        [ -s "$W/report/index.html" ] || echo "$c: no index.html" >>"$FAILED"
      fi ;;
    *) echo "$c" >>"$UNRUN" ;;
    esac
  done <"$TMP/cmds"
}
# The quick start as written: its lines after the build, in one shell,
# without the variables tests/lib.sh sets, so a root that copies the block
# is not refused by Open MPI (issue 40)
awk '/^## Quick start/ { q = 1 } q && /^```sh/ { code = 1; next } code && /^```/ { exit }
     code && !/install-deps/' README.md | sed 's/--sweep$/--sweep -e 1K --max-time 0.05/' >"$TMP/quick.sh"
quick_start() { # FOLDER AS
  (cd "$1" && env -u OMPI_ALLOW_RUN_AS_ROOT -u OMPI_ALLOW_RUN_AS_ROOT_CONFIRM $2 sh "$TMP/quick.sh") \
    </dev/null >"$TMP/quick.out" 2>&1
  QST=$?
  [ $QST -eq 0 ] && grep -q 'mpirun -np 2 ./collbench --sweep' "$TMP/quick.sh" &&
    grep -q '^# allreduce' "$TMP/quick.out"
}
scratch() { # FOLDER: a scratch folder holding the build's collbench and topologies
  mkdir -p "$1" && ln -s "$ROOT/collbench" "$1/collbench" && ln -s "$ROOT/topologies" "$1/topologies" &&
    ln -s "$ROOT/scripts" "$1/scripts"
}

scratch "$TMP/w"
examples "$TMP/w" "" me
[ "$(wc -l <"$TMP/cmds")" -ge 10 ] && [ ! -s "$TMP/unrun.me" ]
ok $? "every command of README's examples is run here or by a named test ($(wc -l <"$TMP/cmds") commands)"
[ -s "$TMP/unrun.me" ] && diag "$TMP/unrun.me"
[ ! -s "$TMP/failed.me" ] && [ -s "$TMP/w/sweep.jsonl" ] && [ -s "$TMP/w/other-run.jsonl" ] &&
  [ -s "$TMP/w/fleet.json" ]
ok $? "README's examples run in order as $(id -un), each with the status it should, inputs made before use"
[ -s "$TMP/failed.me" ] && diag "$TMP/failed.me"
scratch "$TMP/q"
quick_start "$TMP/q" ""
ok $? "README's quick start runs as written as $(id -un) (exit $QST)"
[ $QST -eq 0 ] || diag "$TMP/quick.out"

# Again as another user: uid 65534 through setpriv, in folders it owns,
# HOME its own folder (Open MPI and gnuplot look there)
U="setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$TMP/u"
if [ "$(id -u)" -ne 0 ]; then
  skip "already a user ($(id -un)): the runs above were as one"
  skip "already a user ($(id -un)): the quick start above ran as one"
elif ! command -v setpriv >/dev/null; then
  skip "no setpriv (util-linux) to run as another user"
  skip "no setpriv (util-linux) to run as another user"
elif ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$ROOT/collbench"; then
  skip "uid 65534 cannot reach $ROOT/collbench (a private checkout folder)"
  skip "uid 65534 cannot reach $ROOT/collbench (a private checkout folder)"
else
  chmod 711 "$TMP" # so the user reaches its folders below, and nothing else here
  scratch "$TMP/u" && chown -hR 65534:65534 "$TMP/u"
  examples "$TMP/u" "$U" user
  [ ! -s "$TMP/failed.user" ] && [ -s "$TMP/u/sweep.jsonl" ] && [ -s "$TMP/u/fleet.json" ] &&
    [ "$(stat -c %u "$TMP/u/sweep.jsonl")" = 65534 ]
  ok $? "README's examples run in order as uid 65534, each with the status it should"
  [ -s "$TMP/failed.user" ] && diag "$TMP/failed.user"
  mkdir "$TMP/uq" && scratch "$TMP/uq/q" && chown -hR 65534:65534 "$TMP/uq"
  quick_start "$TMP/uq/q" "setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=$TMP/uq"
  ok $? "README's quick start runs as written as uid 65534 (exit $QST)"
  [ $QST -eq 0 ] || diag "$TMP/quick.out"
fi

# Each check above fails on a broken document: the same functions on broken
# copies of the repository's guides, one fault each.
B=$TMP/b
mkdir -p "$B"
for g in $(guides_of .); do mkdir -p "$B/$(dirname "$g")" && cp "$g" "$B/$g"; done
# and what the guides link to that is not a guide (REPORTS.md's example charts)
broken_links "$B" | sed -n 's/.*(no file \(.*\))$/\1/p' | while read -r f; do
  [ -f "$f" ] && mkdir -p "$B/$(dirname "$f")" && cp "$f" "$B/$f"
done
[ -z "$(long_readme "$B")$(unlinked_guides "$B")$(broken_links "$B")$(unknown_options "$B")" ]
ok $? "the copy of the guides passes every check before it is broken"
cp -r "$B" "$B.long" && seq 300 >>"$B.long/README.md"
[ -n "$(long_readme "$B.long")" ]
ok $? "a README of 300 lines or more is caught (a broken copy)"
cp -r "$B" "$B.extra" && mkdir -p "$B.extra/bench/x" && echo '# Extra' >"$B.extra/bench/x/EXTRA.md"
[ "$(unlinked_guides "$B.extra")" = bench/x/EXTRA.md ]
ok $? "a guide README does not link is named (a broken copy)"
cp -r "$B" "$B.links" && printf '\nsee [x](nowhere.md) and [y](#no-such-heading)\n' >>"$B.links/tests/TESTING.md"
[ "$(broken_links "$B.links" | wc -l)" -eq 2 ]
ok $? "a link to a missing file and one to a missing heading are both caught (a broken copy)"
cp -r "$B" "$B.opt" && printf '\n```sh\n./collbench --no-such-option\n```\n' >>"$B.opt/tests/TESTING.md"
[ "$(unknown_options "$B.opt")" = "tests/TESTING.md --no-such-option" ]
ok $? "an option --help lacks is caught (a broken copy)"
finish
