#!/bin/sh
# The house's rules (bench/LAYOUT.md): the include graph and the built
# library's calls point down the layers with no cycle and no file name
# twice (scripts/include-graph.sh), and the checker catches each kind of
# break; main dispatches through the modes' table only; each mode's --help.
. tests/lib.sh
plan 16

scripts/include-graph.sh >"$TMP/graph" 2>&1
ok $? "scripts/include-graph.sh: no cycle, no upward include, no file name twice"
[ $? -eq 0 ] || diag "$TMP/graph"
[ "$(scripts/include-graph.sh --edges | wc -l)" -gt 300 ]
ok $? "the graph holds the modules' edges (includes and calls: over 300)"

# A copy of the sources (no library: includes only) with one break each.
copy() {
  rm -rf "$TMP/tree" && mkdir -p "$TMP/tree/scripts" &&
    cp -r bench tuner kernels "$TMP/tree/" && cp scripts/include-graph.sh "$TMP/tree/scripts/"
}
copy && echo '#include "modes/cli.h"' >>"$TMP/tree/bench/base/units.c"
"$TMP/tree/scripts/include-graph.sh" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q 'upward include: bench/base/units (layer 0) -> bench/modes/cli' "$TMP/out"
ok $? "an include from base/ up to modes/ is named"
copy && echo '#include "engine/engine.h"' >>"$TMP/tree/bench/engine/measure.c"
"$TMP/tree/scripts/include-graph.sh" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q 'loop' "$TMP/out" && grep -q 'bench/engine/measure' "$TMP/out" &&
  grep -q 'bench/engine/engine' "$TMP/out"
ok $? "an include cycle (engine <-> measure) is named"
# A loop of folders inside the measuring core with no module cycle: the
# runtime's watchdog_peers (below the ops) reaching up into ops/op, which
# reaches runtime/pattern_io but never watchdog_peers.
copy && echo '#include "ops/op.h"' >>"$TMP/tree/bench/runtime/watchdog_peers.c"
"$TMP/tree/scripts/include-graph.sh" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q 'folders form a loop' "$TMP/out" && grep -q 'bench/runtime' "$TMP/out" &&
  grep -q 'bench/ops' "$TMP/out" && ! grep -q 'bench/runtime/watchdog_peers' "$TMP/out"
ok $? "a loop of layer 2's folders (runtime <-> ops) is named, though no module cycle"
[ $? -eq 0 ] || diag "$TMP/out"
copy && cp bench/base/stats.c "$TMP/tree/bench/engine/stats.c"
"$TMP/tree/scripts/include-graph.sh" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q 'file name used twice: bench/base/stats.c bench/engine/stats.c' "$TMP/out"
ok $? "a file name used twice is named"
copy && mkdir -p "$TMP/tree/bench/misc" && echo '#include "base/error.h"' >"$TMP/tree/bench/misc/odd.c"
"$TMP/tree/scripts/include-graph.sh" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q 'no layer: bench/misc/odd' "$TMP/out"
ok $? "a folder outside the layers is named"
# A cycle only the calls show: a leaf calling back into its hub, each
# declared in a header of no .c (what hid five cycles before).
copy && mkdir -p "$TMP/tree/build" && cd "$TMP/tree" &&
  printf 'void leaf(void);\nvoid hub(void) { leaf(); }\n' >bench/engine/hubx.c &&
  printf 'void hub(void);\nvoid leaf(void) { hub(); }\n' >bench/engine/leafx.c &&
  cc -c -o build/hubx.o bench/engine/hubx.c && cc -c -o build/leafx.o bench/engine/leafx.c &&
  ar rcs build/libcollbench.a build/hubx.o build/leafx.o && cd - >/dev/null &&
  "$TMP/tree/scripts/include-graph.sh" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q 'bench/engine/hubx' "$TMP/out" && grep -q 'bench/engine/leafx' "$TMP/out"
ok $? "a cycle of calls without includes is named (from the library's symbols)"
# main.o is outside the library, and its calls count too: a library file
# calling back into main (as one calling main.c's _exit did) is named.
copy && mkdir -p "$TMP/tree/build/bench" && cd "$TMP/tree" &&
  printf 'void hook(void);\nvoid leaf(void) { hook(); }\n' >bench/engine/leafy.c &&
  printf 'void leaf(void);\nvoid hook(void) {}\nint main(void) { leaf(); return 0; }\n' >"$TMP/m.c" &&
  cc -c -o build/leafy.o bench/engine/leafy.c && cc -c -o build/bench/main.o "$TMP/m.c" &&
  ar rcs build/libcollbench.a build/leafy.o && cd - >/dev/null &&
  "$TMP/tree/scripts/include-graph.sh" >"$TMP/out" 2>&1
[ $? -eq 1 ] && grep -q 'bench/engine/leafy (layer 2) -> bench/main (layer 4)' "$TMP/out"
ok $? "a library file calling into main.o is named (main.o's symbols read beside the library's)"
[ $? -eq 0 ] || diag "$TMP/out"
if [ -f build/libcollbench.a ]; then
  ! nm build/libcollbench.a 2>/dev/null | grep -q ' U _exit$'
  ok $? "no library file binds to _exit (bench/main.c's, for MPI's libraries): they call cb_exit_now"
else
  skip "the library is not built"
fi

# No function over 120 lines where the modes and acceptance are decided
# (issue 61): a definition opens at column 0 and closes with "}" there.
for f in bench/modes/*.c bench/accept/*.c; do
  awk -v f="$f" '/^[a-zA-Z].*[(]/ && !/;$/ { name = $0; start = NR; open = 1 }
    open && /^}/ { if (NR - start + 1 > 120) print f ":" start ": " NR - start + 1 " lines: " name; open = 0 }' "$f"
done >"$TMP/long"
[ ! -s "$TMP/long" ]
ok $? "no function over 120 lines in bench/modes/ and bench/accept/"
[ -s "$TMP/long" ] && diag "$TMP/long"

# main: the modes' table only.
! grep -nE 'argv\[|strcmp|strncmp|getopt|cb_cli_' bench/main.c >"$TMP/sniff"
ok $? "bench/main.c reads no argv itself (one lookup in the modes' table)"
[ -s "$TMP/sniff" ] && diag "$TMP/sniff"

# Each mode's --help: its synopsis and its own section, not another's.
./collbench --report --help >"$TMP/h" 2>&1 && head -1 "$TMP/h" | grep -q '^usage: collbench --report' &&
  grep -q '^Reports' "$TMP/h" && ! grep -q '^Tuning' "$TMP/h" && grep -q '^Exit status' "$TMP/h"
ok $? "--report --help: the report mode's options only"
./collbench accept --help >"$TMP/h" 2>&1 && grep -q '^Acceptance' "$TMP/h" && ! grep -q '^Reports' "$TMP/h"
ok $? "collbench accept --help: acceptance's options"
./collbench --help tune >"$TMP/h" 2>&1 && grep -q '^Tuning' "$TMP/h" && ! grep -q '^Acceptance' "$TMP/h"
ok $? "collbench --help tune: tuning's options"
# Every section of the full --help belongs to some mode's help.
./collbench --help | grep -E '^[A-Z][A-Za-z ()]*' | grep -v '^Measures\|^Exit' | cut -c1-12 | sort -u >"$TMP/full"
for m in sweep copy probe accept matrix tune report import baseline compare model; do
  ./collbench "$m" --help
done 2>&1 | grep -E '^[A-Z][A-Za-z ()]*' | grep -v '^Exit' | cut -c1-12 | sort -u >"$TMP/modes"
diff "$TMP/full" "$TMP/modes" >"$TMP/diff"
ok $? "every section of --help is in some mode's --help"
[ -s "$TMP/diff" ] && diag "$TMP/diff"
finish
