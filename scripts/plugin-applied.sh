#!/bin/sh
# Whether NCCL applied collbench's tuner plugin's rules: reads NCCL's log
# (NCCL_DEBUG=INFO, NCCL_DEBUG_SUBSYS with TUNING) for the plugin's decision
# lines, "TUNER/collbench: <coll> <bytes> bytes: <algo>/<proto> by the rule of
# line N [...]", and checks each against line N of the rules file it was given.
# "Using collbench" alone says only that NCCL loaded the plugin.
# usage: scripts/plugin-applied.sh RULES LOG
#   -> one line; exit 0 when at least one rule was applied and every applied
#      rule's algorithm and protocol are those of its line, 1 otherwise
#      (2 when RULES or LOG cannot be read)
[ $# -eq 2 ] && [ -r "$1" ] && [ -r "$2" ] || {
  echo "plugin-applied: usage: plugin-applied.sh RULES LOG (both readable files)"
  exit 2
}
awk -v rules="$1" '
  BEGIN { while ((getline l < rules) > 0) line[++n] = l }
  /TUNER\/collbench: .* by the rule of line [0-9]+/ {
    s = $0; sub(/.*TUNER\/collbench: /, "", s)
    split(s, w, " ")          # coll bytes "bytes:" algo/proto by the rule of line N
    split(w[4], ap, "/"); k = w[10] + 0
    split(line[k], f, ",")
    gsub(/ /, "", f[4]); gsub(/ /, "", f[5])
    if (k > 0 && k <= n && tolower(f[4]) == tolower(ap[1]) && tolower(f[5]) == tolower(ap[2])) {
      good++
      if (!first) first = w[1] " " w[2] " B: " w[4] " (line " k ")"
    } else if (!bad++) badline = s
  }
  END {
    if (bad) { printf "the plugin applied %d decision(s) that do not match their rule'"'"'s line, first: %s\n", bad, badline; exit 1 }
    if (!good) { print "NCCL loaded the plugin but its log shows no rule applied (NCCL_DEBUG_SUBSYS without TUNING? no rule for this communicator?)"; exit 1 }
    printf "the plugin applied %d decision(s) by the rules, each as its line says; first: %s\n", good, first
  }' "$2"
