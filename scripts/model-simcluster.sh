#!/bin/bash
# scripts/model-simcluster.sh: validates the performance model at a larger scale than
# it was fitted on, on a simulated cluster (scripts/simcluster.sh; root only). For each
# node count (one rank per node, or --ppn ranks sharing memory within a node) it builds
# a cluster whose every node's egress is shaped by tc (simcluster_shape_egress: the
# node's "NIC"), sweeps the ops once with Open MPI's algorithm forced (ring where
# coll/tuned has one) and once with coll/tuned choosing, fits on every node count but
# the largest and --validate's on the largest. Results in OUTDIR/rK/ per repeat K:
#   MODE-N.jsonl   the sweep of MODE (forced, auto) on N nodes; MODE-N.cpu its CPU use
#   MODE.txt/json  --fit on the smaller counts, --validate on the largest
# and at the end the per op and size held-out error of every repeat side by side.
#   usage: sudo scripts/model-simcluster.sh [--nodes 2,4,8] [--rate 200mbit]
#          [--burst 32kb] [--ops LIST] [-b 64K] [-e 8M] [--modes forced,auto]
#          [--repeat N] [--ppn N] [--rs-algo N] [--lock FILE] [--latency T]
#          [--sysctl K=V] [--mca K=V] [--refit]
#          [OUTDIR]   (default ./model-simcluster)
# --rs-algo N forces reduce_scatter_block algorithm N in the forced mode (1 basic_linear,
# 2 recursive_doubling, 3 recursive_halving, the default, 4 butterfly).
# --refit measures nothing: it fits and validates OUTDIR's sweeps again (a new model).
# --lock FILE takes FILE (flock) around each node count's sweeps only, so that a
# shared machine's other jobs run between them. A measuring tool, not a test: its
# figures go into notes, not into assertions.
set -u
cd "$(dirname "$0")/.." || exit 2
usage() { sed -n '/^#   usage:/,/^# --lock/p' "$0" | sed '$d; s/^# \{0,3\}//' >&2; exit 2; }
nodes=2,4,8 rate=200mbit burst=32kb ops=allreduce,allgather,reducescatter
minb=64K maxb=8M modes=forced,auto repeat=1 ppn=1 rs_algo=3 lock='' out=model-simcluster latency='' sysctls='' mcas='' refit=no
while [ $# -gt 0 ]; do
    case $1 in
    --nodes) nodes=${2:?}; shift ;;
    --rate) rate=${2:?}; shift ;;
    --burst) burst=${2:?}; shift ;;
    --ops) ops=${2:?}; shift ;;
    -b) minb=${2:?}; shift ;;
    -e) maxb=${2:?}; shift ;;
    --modes) modes=${2:?}; shift ;;
    --repeat) repeat=${2:?}; shift ;;
    --ppn) ppn=${2:?}; shift ;;
    --rs-algo) rs_algo=${2:?}; shift ;;
    --lock) lock=${2:?}; shift ;;
    --latency) latency=${2:?}; shift ;;
    --sysctl) sysctls="$sysctls ${2:?}"; shift ;;
    --refit) refit=yes ;;
    --mca) mcas="$mcas --mca ${2%%=*} ${2#*=}"; shift ;;
    -h|--help) usage ;;
    -*) echo "model-simcluster: unknown option '$1'" >&2; usage ;;
    *) out=$1 ;;
    esac
    shift
done
counts=$(echo "$nodes" | tr , ' ')
for n in $counts $repeat $ppn; do
    case $n in ''|*[!0-9]*|0) echo "model-simcluster: '$n' is not a positive count" >&2; exit 2 ;; esac
done
case $rs_algo in [1-4]) ;; *) echo "model-simcluster: --rs-algo '$rs_algo' is not 1 to 4" >&2; exit 2 ;; esac
[ "$(echo "$counts" | wc -w)" -ge 2 ] || { echo "model-simcluster: --nodes needs two counts or more" >&2; exit 2; }
for m in $(echo "$modes" | tr , ' '); do
    case $m in forced|auto) ;; *) echo "model-simcluster: mode '$m' is not forced or auto" >&2; exit 2 ;; esac
done
[ -x ./collbench ] || { echo "model-simcluster: build collbench first (./configure && make)" >&2; exit 2; }
. scripts/simcluster.sh
[ "$(id -u)" -eq 0 ] || { echo "model-simcluster: needs root (network namespaces, tc)" >&2; exit 2; }
command -v tc >/dev/null || { echo "model-simcluster: tc not found" >&2; exit 2; }
mkdir -p "$out" || exit 2
trap simcluster_down EXIT
trap 'exit 130' HUP INT TERM

# coll/tuned's numbers (bench/backends/ompi_algo.c): ring for allreduce and allgather;
# reduce_scatter_block has no ring in Open MPI 4.1: recursive halving, its
# bandwidth-optimal one, unless --rs-algo says otherwise.
forced_env="OMPI_MCA_coll_tuned_use_dynamic_rules=1 OMPI_MCA_coll_tuned_allreduce_algorithm=4
OMPI_MCA_coll_tuned_allgather_algorithm=4 OMPI_MCA_coll_tuned_reduce_scatter_block_algorithm=$rs_algo"

# CPU time of the whole machine (/proc/stat's first line, in ticks): user nice system
# idle iowait irq softirq.
cpu_ticks() { awk '/^cpu /{print $2, $3, $4, $5, $6, $7, $8; exit}' /proc/stat; }
cpu_use() { # cpu_use BEFORE AFTER: busy, user, system, softirq as % of all cores
    echo "$1 $2" | awk '{u=$8-$1+$9-$2; s=$10-$3+$13-$6; i=$11-$4+$12-$5; q=$14-$7;
        t=u+s+i+q; if (t <= 0) t = 1;
        printf "busy %.0f%% user %.0f%% system %.0f%% softirq %.0f%%\n",
               100*(u+s+q)/t, 100*u/t, 100*s/t, 100*q/t}'
}

# sweep DIR MODE N: one sweep on the cluster that is up; ranks on one node share
# memory (vader), as on a real cluster, and talk TCP between nodes.
sweep() {
    dir=$1 mode=$2 n=$3
    args=$(echo "$SIMCLUSTER_MPIRUN_ARGS" | sed 's/--mca btl tcp,self/--mca btl vader,tcp,self/')
    env=
    [ "$mode" = forced ] && env=$forced_env
    xs=
    for kv in $env; do xs="$xs -x ${kv%%=*}"; done
    before=$(cpu_ticks) t0=$(date +%s)
    # shellcheck disable=SC2086 # args, env and xs are lists of words
    env $env mpirun $args $mcas $xs -np $((n * ppn)) --map-by "ppr:$ppn:node" ./collbench --op "$ops" \
        -b "$minb" -e "$maxb" -n 8 -w 2 --json "$dir/$mode-$n.jsonl" >"$dir/$mode-$n.txt" 2>&1 ||
        { echo "model-simcluster: the $mode sweep on $n nodes failed:" >&2
          tail -n 20 "$dir/$mode-$n.txt" >&2; return 1; }
    echo "$mode on $n nodes: $(( $(date +%s) - t0 )) s, $(cpu_use "$before" "$(cpu_ticks)")" |
        tee "$dir/$mode-$n.cpu"
}

# shape NODE: the node's egress at --rate (tbf); --latency sets how long its queue may
# grow (default simcluster_shape_egress's 100ms); --sysctl settings inside the node.
shape() {
    simcluster_shape_egress "$1" "$rate" "$burst" || return 1
    if [ -n "$latency" ]; then
        ip netns exec "$1" tc qdisc replace dev eth0 root tbf rate "$rate" burst "$burst" \
            latency "$latency" || return 1
    fi
    for kv in $sysctls; do ip netns exec "$1" sysctl -qw "$kv" || return 1; done
}

# on_cluster DIR N: a cluster of N shaped nodes for the sweeps of every mode, then down.
on_cluster() {
    # checked under the lock: another job's cluster may hold the subnet until then
    reason=$(simcluster_can_run) || { echo "model-simcluster: $reason" >&2; return 1; }
    simcluster_up "$2" "$ppn" || return 1
    for node in $SIMCLUSTER_NODES; do
        shape "$node" || { simcluster_down; return 1; }
    done
    for mode in $(echo "$modes" | tr , ' '); do sweep "$1" "$mode" "$2" || { simcluster_down; return 1; }; done
    simcluster_down
}

largest=$(echo "$counts" | tr ' ' '\n' | sort -n | tail -n 1)
fit_validate() { # fit_validate DIR MODE: fit on the smaller counts, validate the largest
    fit=
    for n in $counts; do [ "$n" = "$largest" ] || fit="$fit $1/$2-$n.jsonl"; done
    # shellcheck disable=SC2086 # fit is a list of files
    ./collbench --fit $fit --validate "$1/$2-$largest.jsonl" --op "$ops" \
        --json "$1/$2.json" >"$1/$2.txt" 2>&1
}
echo "model-simcluster: nodes $nodes ($ppn rank(s) each), egress $rate burst $burst," \
     "$ops $minb..$maxb, modes $modes (reduce_scatter_block algorithm $rs_algo), $repeat repeat(s)"
r=1
while [ "$refit" = no ] && [ "$r" -le "$repeat" ]; do
    dir=$out/r$r
    mkdir -p "$dir" || exit 2
    for n in $counts; do
        if [ -n "$lock" ]; then
            exec 9>>"$lock" && flock 9 || exit 3
        fi
        on_cluster "$dir" "$n" 9>&-
        rc=$?
        [ -n "$lock" ] && exec 9>&-
        [ $rc -eq 0 ] || exit 3
    done
    r=$((r + 1))
done

# Every repeat's fit and validation (again with --refit: the sweeps kept, the model new).
for dir in "$out"/r*/; do
    for mode in $(echo "$modes" | tr , ' '); do
        [ -f "$dir/$mode-$largest.jsonl" ] || continue
        fit_validate "${dir%/}" "$mode" ||
            { echo "model-simcluster: --fit/--validate failed in $dir:" >&2; tail -n 5 "$dir/$mode.txt" >&2; }
    done
done
# Per op and size over the repeats: each repeat's median signed error (of the
# out-of-place and in-place results), then the median and largest |error| of all
# points; per op, the same over every size.
for mode in $(echo "$modes" | tr , ' '); do
    set -- "$out"/r*/"$mode.json"
    [ -f "$1" ] || continue
    echo "== $mode: fitted on nodes $(echo "$counts" | tr ' ' '\n' | grep -vx "$largest" | paste -sd,)," \
         "validated on $largest; $# repeat(s)"
    jq -s -r '(map(.validation.points) | add) as $all |
        ["op", "size", "per-repeat median error", "median |error|", "max |error|"],
        ((map(.validation.summary.per_op_size) | transpose[]) as $rows |
         ($all | map(select(.op == $rows[0].op and .bytes == $rows[0].bytes) | .rel_error | fabs) | sort) as $e |
         [$rows[0].op, ($rows[0].bytes | tostring),
          ($rows | map(.median_rel_error * 100 | round | tostring + "%") | join(" ")),
          (($e[($e | length - 1) / 2 | floor] + $e[($e | length) / 2 | floor]) / 2 * 100 | round | tostring + "%"),
          ($e[-1] * 100 | round | tostring + "%")]),
        (($all | map(.op) | unique[]) as $op |
         ($all | map(select(.op == $op) | .rel_error | fabs) | sort) as $e |
         [$op, "all", "-", (($e[($e | length - 1) / 2 | floor] + $e[($e | length) / 2 | floor]) / 2 * 100 | round | tostring + "%"),
          ($e[-1] * 100 | round | tostring + "%")]) | @tsv' "$@" | column -t -s "$(printf '\t')"
done
echo "model-simcluster: sweeps, fits and validations in $out/"
