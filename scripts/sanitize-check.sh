#!/bin/bash
# CI: the host tests under AddressSanitizer and UndefinedBehaviorSanitizer.
# Builds a copy of the tree (build/, config.mk and config.h are in-tree, so
# the normal build is left alone) with ./configure --enable-sanitizers
# --without-cuda (CUDA's runtime and ASan do not mix well: ASan reserves
# the address space the CUDA driver maps), runs the unit tests and a
# representative set of the shell tests, and fails on any test failure or
# any sanitizer report. Reports go to files (log_path), never to the tests'
# stderr, so tests comparing messages see collbench's own.
#
# Leaks: the unit tests run with leak detection; every process that starts
# MPI runs without it (ASAN_OPTIONS=detect_leaks=0), because Open MPI leaks
# by design at MPI_Finalize from plugins it has unloaded by then, which no
# suppressions file can name (their frames are "<unknown module>"). The
# readers' own leaks are covered by the fuzz harnesses (make fuzz-check).
#
# usage: [SANITIZE_KEEP=1] [SANITIZE_CC=gcc|clang] scripts/sanitize-check.sh [SHELL_TEST...]   (default: the set below)
set -uo pipefail
cd "$(dirname "$0")/.."
src=$PWD
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(tests/bad_input.t tests/bad_input_table.t tests/sweep_np1.t
  tests/sweep_np2.t tests/modes.t tests/accept.t tests/prom.t tests/report.t
  tests/report_matrix.t tests/report_input.t tests/model.t tests/tune.t)

work=$(mktemp -d "${TMPDIR:-/tmp}/collbench-sanitize.XXXXXX") || exit 3
# SANITIZE_KEEP=1 keeps the copy and the reports for a closer look
if [ -n "${SANITIZE_KEEP:-}" ]; then echo "sanitize-check: working in $work"; else trap 'rm -rf "$work"' EXIT; fi
tree=$work/tree logs=$work/logs
mkdir -p "$tree" "$logs"

# The tracked and new files, as a fresh checkout of this tree would have.
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$src" ls-files -z -co --exclude-standard | (cd "$src" && tar -cf - --null -T -) |
    tar -xf - -C "$tree"
  git -C "$src" rev-parse --short=12 HEAD >"$work/commit" 2>/dev/null
else
  tar -C "$src" --exclude=./build --exclude=./collbench --exclude=./config.mk \
    --exclude=./config.h -cf - . | tar -xf - -C "$tree"
fi
cd "$tree" || exit 3

# clang where there is one: its UBSan also checks array indexes whose
# address is only taken (gcc's misses &a[-1]); the MPI wrapper calls it.
if [ -z "${SANITIZE_CC:-}" ] && command -v clang >/dev/null 2>&1; then SANITIZE_CC=clang; fi
if [ -n "${SANITIZE_CC:-}" ]; then export OMPI_CC=$SANITIZE_CC MPICH_CC=$SANITIZE_CC; fi

start=$(date +%s)
if ! ./configure --enable-sanitizers --without-cuda >"$logs/configure.txt" 2>&1; then
  cat "$logs/configure.txt"
  echo "sanitize-check: configure failed"
  exit 1
fi
# the unit tests make check would build with this configuration
units=$(make -s -f Makefile -f - print-units <<<'print-units: ; @echo $(UNIT_BIN)')
if ! make -j"$(nproc)" collbench $units >"$logs/make.txt" 2>&1; then
  tail -n 30 "$logs/make.txt"
  echo "sanitize-check: the sanitizer build failed"
  exit 1
fi
built=$(date +%s)

common="log_path=$logs/report:print_stacktrace=1"
export UBSAN_OPTIONS="$common"
rc=0
# unit tests that start MPI themselves (a singleton) inherit Open MPI's leaks
mpi_units= plain_units=
for u in $units; do
  src=tests/unit/$(basename "$u" .t).c
  if grep -q 'MPI_Init' "$src"; then mpi_units="$mpi_units $u"; else plain_units="$plain_units $u"; fi
done
ASAN_OPTIONS="$common:detect_leaks=1" prove -f --timer --exec '' $plain_units || rc=1
[ -z "$mpi_units" ] || ASAN_OPTIONS="$common:detect_leaks=0" prove -f --timer --exec '' $mpi_units || rc=1
ASAN_OPTIONS="$common:detect_leaks=0" prove -f --timer --exec '' "${tests[@]}" || rc=1
end=$(date +%s)

if compgen -G "$logs/report.*" >/dev/null; then
  echo "sanitize-check: sanitizer reports:"
  for f in "$logs"/report.*; do
    echo "--- $(basename "$f")"
    head -n 40 "$f"
  done
  rc=1
fi
echo "sanitize-check: build $((built - start)) s, tests $((end - built)) s;" \
  "$(echo $units | wc -w) unit tests, ${#tests[@]} shell tests;" \
  "$([ $rc -eq 0 ] && echo 'no sanitizer reports' || echo FAILED)"
exit $rc
