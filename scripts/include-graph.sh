#!/bin/sh
# The include graph of collbench's C and CUDA sources, by module (a .c and
# its .h are one module), with the rules the house keeps (bench/LAYOUT.md):
# every include points down the layers, no module reaches itself through
# others (a cycle), and no file name is used twice.
#
#   scripts/include-graph.sh            the rules' verdict; exit 1 if broken
#   scripts/include-graph.sh --edges    module -> module, one a line
#   scripts/include-graph.sh --folders  folder -> folder with counts
#   scripts/include-graph.sh --dot      the module graph for graphviz
#
# A header can hide a cycle (leaves defining what their hub's header
# declares, the hub calling them), so where the library is built the
# graph also holds who calls whom: each object's undefined symbols
# (nm) against the module that defines them, main.o's among them. File names are unique, so
# an archive member's name is its module.
#
# Quoted includes resolve as the compiler does (Makefile: -I. -Ibench):
# the including file's folder, then the root, then bench/. Generated
# headers (config.h, gitversion.h) are not ours to sort.
set -eu
cd "$(dirname "$0")/.."
mode=${1:-check}
files=$(find bench tuner kernels -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) | sort)

edges_raw() {
  # shellcheck disable=SC2086
  awk -v list="$files" '
    BEGIN { n = split(list, f, "\n"); for (i = 1; i <= n; i++) have[f[i]] = 1 }
    function mod(p) { sub(/\.(c|h|cu)$/, "", p); return p }
    function norm(p,   parts, out, k, m, i) {
      m = split(p, parts, "/"); k = 0
      for (i = 1; i <= m; i++) {
        if (parts[i] == "." || parts[i] == "") continue
        if (parts[i] == "..") { if (k > 0) k--; continue }
        out[++k] = parts[i]
      }
      p = out[1]; for (i = 2; i <= k; i++) p = p "/" out[i]
      return p
    }
    FNR == 1 { dir = FILENAME; sub(/\/[^\/]*$/, "", dir) }
    /^[ \t]*#[ \t]*include[ \t]*"/ {
      inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc)
      if (inc == "config.h" || inc == "gitversion.h") next
      t = ""
      if (norm(dir "/" inc) in have) t = norm(dir "/" inc)
      else if (norm(inc) in have) t = norm(inc)
      else if (norm("bench/" inc) in have) t = norm("bench/" inc)
      if (t == "") { printf "unresolved %s %s\n", FILENAME, inc; next }
      if (mod(t) != mod(FILENAME)) printf "%s %s\n", mod(FILENAME), mod(t)
    }' $files
  if [ -f build/libcollbench.a ]; then
    # the library's members and main.o, the program's one object outside it
    { nm -A build/libcollbench.a; [ ! -f build/bench/main.o ] || nm -A build/bench/main.o; } 2>/dev/null |
      awk -v list="$files" '
      BEGIN { n = split(list, f, "\n")
              for (i = 1; i <= n; i++) { b = f[i]; sub(/.*\//, "", b); sub(/\.(c|cu)$/, ".o", b)
                                         if (f[i] ~ /\.(c|cu)$/) { m = f[i]; sub(/\.(c|cu)$/, "", m); mod[b] = m } } }
      { k = split($1, p, ":"); o = ""; for (j = 1; j <= k; j++) if (p[j] ~ /\.o$/) o = p[j]
        sub(/.*\//, "", o); if (!(o in mod)) next
        if ($2 == "U") use[mod[o] " " $3] = 1
        else if (NF == 3 && $2 ~ /^[TDBRC]$/) def[$3] = mod[o] }
      END { for (k in use) { split(k, a, " "); if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }'
  fi
}

edges() { edges_raw | sort -u; }

# A module's layer: the first pattern its path matches (bench/LAYOUT.md).
layer() {
  awk '
    function layer(p) {
      if (p ~ /^bench\/base\//) return 0
      if (p ~ /^kernels\//) return 1
      if (p ~ /^bench\/(runtime|results|ops|backends|probe|output|readback|topology|engine)\//) return 2
      if (p ~ /^(bench\/(accept|burnin|fleet|model|report|import|copy)|tuner)\//) return 3
      if (p ~ /^bench\/(modes\/|main$)/) return 4
      return -1
    }
    $1 == "unresolved" { print; next }
    { print layer($1), layer($2), $1, $2 }'
}

case $mode in
--edges) edges | grep -v '^unresolved' ;;
--folders)
  edges | grep -v '^unresolved' | awk '{ a = $1; b = $2; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b);
    if (a != b) n[a " -> " b]++ } END { for (k in n) print k, "(" n[k] ")" }' | sort ;;
--dot)
  echo 'digraph collbench {'
  edges | grep -v '^unresolved' | awk '{ printf "  \"%s\" -> \"%s\";\n", $1, $2 }'
  echo '}' ;;
check)
  all=$(edges) # read once: the sources' includes and the library's symbols
  out=$(echo "$all" | layer)
  msgs=$(
    echo "$out" | grep '^unresolved' || true
    echo "$out" | awk '$1 == -1 || $2 == -1 { print "no layer: " ($1 == -1 ? $3 : $4) }' | sort -u
    echo "$out" | awk '$1 >= 0 && $2 > $1 { print "upward include: " $3 " (layer " $1 ") -> " $4 " (layer " $2 ")" }'
    echo "$all" | grep -v '^unresolved' | tsort 2>&1 >/dev/null | sed 's/^tsort: -: //; s/^tsort: //' || true
    # folders too, in every layer: one reaching into another that reaches
    # back (the measuring core's nine folders, the features' eight)
    echo "$out" | awk '$1 >= 0 && $2 >= 0 { a = $3; b = $4; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b)
      if (a != b) print a, b }' | sort -u | tsort 2>&1 >/dev/null |
      sed 's/^tsort: -: input contains a loop:/folders form a loop:/; s/^tsort: //' || true
    for d in $(for f in $files; do basename "$f"; done | sort | uniq -d); do
      echo "file name used twice: $(echo "$files" | grep "/$d\$" | tr '\n' ' ')"
    done
  )
  if [ -n "$msgs" ]; then
    echo "$msgs"
    exit 1
  fi
  n=$(echo "$all" | grep -vc '^unresolved' || true)
  echo "include graph: $n module edges, no cycle, no upward include, no file name twice" ;;
*) echo "usage: $0 [--edges|--folders|--dot]" >&2; exit 2 ;;
esac
