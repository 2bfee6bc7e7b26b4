#!/bin/sh
# The largest healthy node set (issue 58): runs an acceptance, leaves out the
# hosts its --exclude-out names (a node that FAILed, or one that hung: the
# watchdog names it), and runs again on the rest, until a run is ACCEPTED,
# the set falls under a floor, or a limit of rounds or time is reached.
#
#   scripts/isolate.sh --hostfile HOSTS [options] -- --accept FILE [collbench options]
#   scripts/isolate.sh --slurm [options] -- --accept FILE [collbench options]   (in an allocation)
#
#   --hostfile FILE  Open MPI's: "HOST [slots=N] [max_slots=N]" a line, # comments
#   --slurm          the allocation's nodes ($SLURM_JOB_NODELIST), launched by
#                    srun --mpi=pmix --exclude=... (one task per node unless
#                    --ranks-per-node)
#   --floor N        stop when fewer than N hosts are left (default 1)
#   --rounds N       at most N acceptance runs (default 4, at most 64)
#   --time-limit S   at most S seconds in all; each run gets what is left (default 3600)
#   --ranks-per-node K  ranks on each host (default: the hostfile's slots, else 1)
#   --out DIR        each round's files (default: a new isolate.XXXXXX here)
#   --launcher-args "ARGS"  more words for mpirun (or srun)
#   COLLBENCH=PATH   the binary (default ./collbench); MPIRUN=PATH (default mpirun)
#
# Prints each round, then the largest accepted set in Slurm's hostlist form
# and, per excluded host, the round and why. Exit 0 when a set was accepted,
# 1 when none was (the floor, a limit, or a run that named no host to
# leave out), 2 for bad arguments or a hostfile it cannot read.
set -u
me=isolate.sh
made= # a folder this run made: a refusal leaves nothing behind
usage() { [ -n "$made" ] && rm -rf "$made"; echo "$me: $*" >&2; echo "usage: scripts/isolate.sh (--hostfile FILE | --slurm) [--floor N] [--rounds N] [--time-limit S] [--ranks-per-node K] [--out DIR] [--launcher-args ARGS] -- --accept FILE [options]" >&2; exit 2; }
# a whole number of at most 9 digits: the shell's test would fail on 2^63
count() {
  case $2 in '' | *[!0-9]*) usage "$1 needs a whole number, got '$2'" ;; esac
  [ ${#2} -le 9 ] || usage "$1 $2: at most 999999999"
}

hostfile= slurm=0 floor=1 rounds=4 limit=3600 per= out= largs=
while [ $# -gt 0 ]; do
  case $1 in
  --hostfile) [ $# -ge 2 ] || usage "--hostfile needs a file"; hostfile=$2; shift 2 ;;
  --slurm) slurm=1; shift ;;
  --floor) [ $# -ge 2 ] || usage "--floor needs N"; count --floor "$2"; floor=$2; shift 2 ;;
  --rounds) [ $# -ge 2 ] || usage "--rounds needs N"; count --rounds "$2"; rounds=$2; shift 2 ;;
  --time-limit) [ $# -ge 2 ] || usage "--time-limit needs seconds"; count --time-limit "$2"; limit=$2; shift 2 ;;
  --ranks-per-node) [ $# -ge 2 ] || usage "--ranks-per-node needs K"; count --ranks-per-node "$2"; per=$2; shift 2 ;;
  --out) [ $# -ge 2 ] || usage "--out needs a folder"; out=$2; shift 2 ;;
  --launcher-args) [ $# -ge 2 ] || usage "--launcher-args needs words"; largs=$2; shift 2 ;;
  --) shift; break ;;
  *) usage "unknown option '$1'" ;;
  esac
done
[ "$slurm" = 1 ] && [ -n "$hostfile" ] && usage "--hostfile or --slurm, one of them"
[ "$slurm" = 1 ] || [ -n "$hostfile" ] || usage "--hostfile FILE or --slurm: the hosts to start from"
[ "$rounds" -ge 1 ] && [ "$rounds" -le 64 ] || usage "--rounds $rounds: from 1 to 64"
[ "$floor" -ge 1 ] || usage "--floor $floor: at least 1"
[ "$limit" -ge 1 ] || usage "--time-limit $limit: at least 1 second"
[ -z "$per" ] || { [ "$per" -ge 1 ] && [ "$per" -le 4096 ]; } || usage "--ranks-per-node $per: from 1 to 4096"
case " $* " in *" --accept "*) ;; *) usage "give collbench's --accept FILE after --" ;; esac
case " $* " in *" --exclude-out "* | *" --json "* | *" --dry-run "*)
  usage "give no --exclude-out, --json or --dry-run: each round's are the script's (--out)" ;;
esac
cb=${COLLBENCH:-./collbench}
mpirun=${MPIRUN:-mpirun}

if [ -z "$out" ]; then
  out=$(mktemp -d "isolate.XXXXXX") || exit 2
  made=$out
elif [ ! -d "$out" ]; then
  mkdir -p "$out" || usage "--out $out: cannot make it"
  made=$out
fi

# The starting hosts, one "ENTRY SLOTS" a line in $out/hosts.
if [ "$slurm" = 1 ]; then
  [ -n "${SLURM_JOB_NODELIST:-}" ] || usage "--slurm outside an allocation (no SLURM_JOB_NODELIST)"
  scontrol show hostnames "$SLURM_JOB_NODELIST" | awk -v k="${per:-1}" '{ print $1, k }' >"$out/hosts" ||
    usage "scontrol cannot expand SLURM_JOB_NODELIST '$SLURM_JOB_NODELIST'"
else
  [ -r "$hostfile" ] || usage "--hostfile $hostfile: cannot read it"
  # Open MPI's hostfile: refuse what it would read otherwise than we do
  awk -v k="$per" -v f="$hostfile" '
    function shown(s) { gsub(/\r/, "\\r", s); gsub(/[^[:print:]]/, "?", s); return s }
    /\r$/ { printf "%s:%d: the line ends in a carriage return (a Windows line end): convert the file with dos2unix or sed -i \"s/\\r$//\"\n", f, NR > "/dev/stderr"; bad = 1; exit }
    { sub(/#.*/, ""); if ($0 ~ /^[ \t]*$/) next
      slots = 1
      for (i = 2; i <= NF; i++) {
        # a count from 1 to 4096 ranks a host: slots=0 or 1e20 is no launch
        if ($i ~ /^(slots|max_slots|max-slots)=[1-9][0-9]?[0-9]?[0-9]?$/ && substr($i, index($i, "=") + 1) + 0 <= 4096) { if ($i ~ /^slots=/) slots = substr($i, 7) + 0 }
        else { printf "%s:%d: cannot read \"%s\" (HOST [slots=N] [max_slots=N], N from 1 to 4096)\n", f, NR, shown($i) > "/dev/stderr"; bad = 1; exit }
      }
      if ($1 !~ /^[A-Za-z0-9._:-]+$/) { printf "%s:%d: \"%s\" is not a host name or address\n", f, NR, shown($1) > "/dev/stderr"; bad = 1; exit }
      if (seen[$1]++) { printf "%s:%d: %s twice\n", f, NR, $1 > "/dev/stderr"; bad = 1; exit }
      print $1, (k != "" ? k : slots) }
    END { exit bad }' "$hostfile" >"$out/hosts" || usage "--hostfile $hostfile: not a hostfile it can read (above)"
fi
[ -s "$out/hosts" ] || usage "no hosts to start from"

# What each entry calls itself (collbench names hosts as they do: a hostfile
# may name them by address or alias): one rank per entry, in its order.
if [ "$slurm" = 1 ]; then
  awk '{ print $1, $1 }' "$out/hosts" >"$out/names"
else
  awk '{ print $1, "slots=1" }' "$out/hosts" >"$out/probe.hosts"
  n=$(wc -l <"$out/hosts")
  # shellcheck disable=SC2086 # launcher args are words
  timeout -k 5 120 "$mpirun" $largs --hostfile "$out/probe.hosts" --map-by node -np "$n" \
    sh -c 'echo "$OMPI_COMM_WORLD_RANK $(hostname)"' </dev/null >"$out/names.raw" 2>"$out/names.err"
  if [ "$(wc -l <"$out/names.raw")" -eq "$n" ]; then
    sort -n "$out/names.raw" | awk 'NR == FNR { e[NR] = $1; next } { print e[FNR], $2 }' "$out/hosts" - >"$out/names"
  else
    echo "$me: could not ask every host its name (see $out/names.err); taking the hostfile's names" >&2
    awk '{ print $1, $1 }' "$out/hosts" >"$out/names"
  fi
fi

# hostlist NAME...: Slurm's compressed form (n1 n2 n4 -> n[1-2,4])
hostlist() {
  printf '%s\n' "$@" | awk '
    { if (match($0, /[0-9]+$/)) { p = substr($0, 1, RSTART - 1); d = substr($0, RSTART) } else { p = $0; d = "" }
      if (d == "") { plain[++np] = p; next }
      if (!(p in n)) order[++no] = p
      num[p, ++n[p]] = d }
    END {
      out = ""
      for (i = 1; i <= np; i++) out = out (out == "" ? "" : ",") plain[i]
      for (o = 1; o <= no; o++) {
        p = order[o]; k = n[p]
        for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (num[p, j] + 0 < num[p, i] + 0) { t = num[p, i]; num[p, i] = num[p, j]; num[p, j] = t }
        s = ""; i = 1
        while (i <= k) {
          j = i
          while (j < k && num[p, j + 1] + 0 == num[p, j] + 1 && length(num[p, j + 1]) == length(num[p, i])) j++
          s = s (s == "" ? "" : ",") (j > i ? num[p, i] "-" num[p, j] : num[p, i])
          i = j + 1
        }
        out = out (out == "" ? "" : ",") (k > 1 || index(s, "-") ? p "[" s "]" : p s)
      }
      print out }'
}

start=$(date +%s)
cp "$out/hosts" "$out/left"
: >"$out/excluded"
round=0 status=1 why=
while :; do
  left=$(wc -l <"$out/left")
  if [ "$left" -lt "$floor" ]; then why="$left host(s) left, under --floor $floor"; break; fi
  if [ "$round" -ge "$rounds" ]; then why="--rounds $rounds reached"; break; fi
  spent=$(($(date +%s) - start))
  if [ "$spent" -ge "$limit" ]; then why="--time-limit $limit s reached"; break; fi
  round=$((round + 1))
  r=$out/round$round
  np=$(awk '{ s += $2 } END { print s }' "$out/left")
  if [ "$slurm" = 1 ]; then
    excl=$(cut -d' ' -f1 "$out/excluded" | paste -sd, -)
    # shellcheck disable=SC2086
    timeout -k 10 $((limit - spent)) srun --mpi=pmix $largs ${excl:+--exclude="$excl"} -N "$left" \
      --ntasks-per-node "${per:-1}" "$cb" "$@" --exclude-out "$r.ex" --json "$r.jsonl" \
      </dev/null >"$r.out" 2>"$r.err"
  else
    awk '{ print $1, "slots=" $2 }' "$out/left" >"$r.hosts"
    # shellcheck disable=SC2086
    timeout -k 10 $((limit - spent)) "$mpirun" $largs --hostfile "$r.hosts" -np "$np" "$cb" "$@" \
      --exclude-out "$r.ex" --json "$r.jsonl" </dev/null >"$r.out" 2>"$r.err"
  fi
  st=$?
  names=$(awk 'NR == FNR { want[$1] = 1; next } ($1 in want) { print $2 }' "$out/left" "$out/names")
  # shellcheck disable=SC2086
  if [ "$st" -eq 0 ]; then
    echo "# round $round: $left host(s), $(hostlist $names): ACCEPTED"
    status=0
    break
  fi
  if [ "$st" -eq 2 ]; then
    echo "# round $round: collbench refused the run (exit 2):" >&2; sed 's/^/#   /' "$r.err" >&2
    status=2 why="a configuration error"
    break
  fi
  # the hosts to leave out: names in the first column, why after a tab
  named=0
  if [ -s "$r.ex" ]; then
    while IFS="$(printf '\t')" read -r host reason; do
      entry=$(awk -v h="$host" '$2 == h { print $1; exit }' "$out/names")
      [ -n "$entry" ] || entry=$host
      awk -v e="$entry" '$1 == e { f = 1 } END { exit !f }' "$out/left" || continue
      printf '%s %s round %d: %s\n' "$entry" "$host" "$round" "${reason:-named by --exclude-out}" >>"$out/excluded"
      awk -v e="$entry" '$1 != e' "$out/left" >"$out/left.new" && mv "$out/left.new" "$out/left"
      named=$((named + 1))
    done <"$r.ex"
  fi
  # shellcheck disable=SC2086
  echo "# round $round: $left host(s), $(hostlist $names): NOT ACCEPTED (exit $st), $named left out"
  if [ "$named" -eq 0 ]; then
    why="round $round was not accepted and named no host to leave out (its output: $r.out)"
    break
  fi
done

if [ "$status" -eq 0 ]; then
  names=$(awk 'NR == FNR { want[$1] = 1; next } ($1 in want) { print $2 }' "$out/left" "$out/names")
  # shellcheck disable=SC2086
  echo "accepted: $(wc -l <"$out/left") of $(wc -l <"$out/hosts") hosts: $(hostlist $names)"
else
  echo "not accepted: $why"
fi
while read -r entry host rest; do
  [ "$entry" = "$host" ] && echo "excluded: $host $rest" || echo "excluded: $host ($entry) $rest"
done <"$out/excluded"
echo "# each round's files: $out"
exit "$status"
