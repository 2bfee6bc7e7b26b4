# scripts/simcluster.sh: a simulated multi-node cluster on one machine, for tests.
# Source it from POSIX sh or bash; needs root, ip (iproute2), unshare and taskset (util-linux),
# and tc for simcluster_throttle.
#
# Each "node" is a network namespace with its own loopback and an eth0 at 198.18.0.I/24,
# joined by a veth pair to a Linux bridge in the root namespace (198.18.0.254/24).
# mpirun stays in the root namespace and starts its orted daemons in the nodes through a
# launch agent that behaves like ssh, so launch, wire-up and MPI traffic are real
# multi-host TCP. 198.18.0.0/15 is the range set aside for benchmarking (RFC 2544);
# nothing here addresses anything outside 198.18.0.0/24 or loopback.
#
#   . scripts/simcluster.sh
#   reason=$(simcluster_can_run) || { echo "1..0 # SKIP $reason"; exit 0; }
#   trap simcluster_down EXIT; trap 'exit 1' HUP INT TERM
#   simcluster_up 2 [SLOTS]            # SLOTS ranks per node in the hostfile (default 1)
#   mpirun $SIMCLUSTER_MPIRUN_ARGS -np 2 ./prog
#   simcluster_throttle "$(set -- $SIMCLUSTER_NODES; echo $2)" 200mbit
#   simcluster_throttle_link FROM TO 200mbit   # one direction of one pair only
#   simcluster_down                    # idempotent
#
# Exported by simcluster_up: SIMCLUSTER_NODES (node names, space separated, node I has
# address 198.18.0.I), SIMCLUSTER_HOSTFILE, SIMCLUSTER_AGENT, SIMCLUSTER_MPIRUN_ARGS,
# SIMCLUSTER_DIR (temp dir; agent.log there records every launch), and
# OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1 because mpirun refuses root otherwise.
# One cluster at a time per machine: two bridges in one subnet would fight over the route.

SIMCLUSTER_NET=198.18.0

# A second bridge holding the subnet (a cluster up, or left over by a killed run) would
# take half the replies: launch then fails with "unable to complete a TCP connection".
_simcluster_net_free() {
    if ip -4 -o addr show 2>/dev/null | grep -q " $SIMCLUSTER_NET\."; then
        echo "simcluster: $SIMCLUSTER_NET.0/24 already in use here (another cluster up or left over:" \
             "see ip -br addr)"
        return 1
    fi
}

# The CPUs this process may run on, as numbers separated by spaces (0-2,5 -> 0 1 2 5).
_simcluster_cpus() {
    sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status | tr ',' '\n' |
        awk -F- '{ for (c = $1; c <= ($2 == "" ? $1 : $2); c++) printf "%d ", c }'
}

# Prints one line saying why not and returns 1 when a cluster cannot be built here.
simcluster_can_run() {
    if [ "$(id -u)" -ne 0 ]; then
        echo "simcluster: needs root (network namespaces, bridge)"; return 1
    fi
    for _sc_t in ip unshare taskset; do
        command -v "$_sc_t" >/dev/null 2>&1 || { echo "simcluster: '$_sc_t' not found"; return 1; }
    done
    _simcluster_net_free || return 1
    # Root is not enough inside some containers: try each kind of object once.
    _sc_p=scp$$
    _sc_ok=no
    if ip netns add "$_sc_p" 2>/dev/null &&
       ip link add "${_sc_p}b" type bridge 2>/dev/null &&
       ip link add "${_sc_p}v" type veth peer name eth0 netns "$_sc_p" 2>/dev/null &&
       ip netns exec "$_sc_p" unshare --uts sh -c "hostname $_sc_p" 2>/dev/null; then
        _sc_ok=yes
    fi
    ip link del "${_sc_p}b" 2>/dev/null
    ip link del "${_sc_p}v" 2>/dev/null
    ip netns del "$_sc_p" 2>/dev/null
    [ "$_sc_ok" = yes ] || { echo "simcluster: network namespaces, bridges or veths not permitted here"; return 1; }
    return 0
}

# simcluster_up N [SLOTS]: bridge + N nodes, hostfile, agent; exports SIMCLUSTER_*.
# On failure it tears down what it made and returns 1.
simcluster_up() {
    _sc_n=${1:?usage: simcluster_up N [SLOTS]}
    _sc_slots=${2:-1}
    if [ -n "${SIMCLUSTER_DIR:-}" ]; then echo "simcluster_up: already up ($SIMCLUSTER_DIR)" >&2; return 1; fi
    case $_sc_n in *[!0-9]*|'') _sc_n=0 ;; esac
    _simcluster_net_free >&2 || return 1
    if [ "$_sc_n" -lt 1 ] || [ "$_sc_n" -gt 253 ]; then echo "simcluster_up: N must be 1..253" >&2; return 1; fi
    # Names carry the PID so concurrent or leftover runs never collide; interface names
    # must stay under 16 characters: "sc" + pid (<= 7 digits) + "v" + node (<= 3) fits.
    SIMCLUSTER_ID=sc$$
    SIMCLUSTER_BRIDGE=${SIMCLUSTER_ID}br
    SIMCLUSTER_NODES=
    SIMCLUSTER_DIR=$(mktemp -d "${TMPDIR:-/tmp}/simcluster.XXXXXX") || { SIMCLUSTER_DIR=; return 1; }
    SIMCLUSTER_HOSTFILE=$SIMCLUSTER_DIR/hostfile
    SIMCLUSTER_AGENT=$SIMCLUSTER_DIR/agent
    export SIMCLUSTER_ID SIMCLUSTER_BRIDGE SIMCLUSTER_DIR SIMCLUSTER_HOSTFILE SIMCLUSTER_AGENT
    : >"$SIMCLUSTER_HOSTFILE"

    # mpirun (root namespace) must reach the orteds and they must call back to it, so the
    # bridge itself carries an address in the subnet; without it oob has nothing to use.
    { ip link add "$SIMCLUSTER_BRIDGE" type bridge &&
      ip addr add "$SIMCLUSTER_NET.254/24" dev "$SIMCLUSTER_BRIDGE" &&
      ip link set "$SIMCLUSTER_BRIDGE" up; } || { simcluster_down; return 1; }

    _sc_i=1
    while [ "$_sc_i" -le "$_sc_n" ]; do
        _sc_node=${SIMCLUSTER_ID}n$_sc_i
        SIMCLUSTER_NODES="${SIMCLUSTER_NODES:+$SIMCLUSTER_NODES }$_sc_node"  # before creating: down must see it
        # Both veth ends must be up (and lo, which Open MPI uses within a node); the
        # node end is created directly inside the namespace, so "eth0" cannot clash.
        { ip netns add "$_sc_node" &&
          ip link add "${SIMCLUSTER_ID}v$_sc_i" type veth peer name eth0 netns "$_sc_node" &&
          ip link set "${SIMCLUSTER_ID}v$_sc_i" master "$SIMCLUSTER_BRIDGE" up &&
          ip -n "$_sc_node" addr add "$SIMCLUSTER_NET.$_sc_i/24" dev eth0 &&
          ip -n "$_sc_node" link set eth0 up &&
          ip -n "$_sc_node" link set lo up; } || { simcluster_down; return 1; }
        # The hostfile names nodes by address: mpirun then never looks a node name up,
        # which would send DNS queries out of the machine. The agent maps address to node.
        echo "$SIMCLUSTER_NET.$_sc_i slots=$_sc_slots" >>"$SIMCLUSTER_HOSTFILE"
        _sc_i=$((_sc_i + 1))
    done
    export SIMCLUSTER_NODES

    # A core (SLOTS cores) of its own for each node when there are enough, listed one
    # line a node in cpus for the agent's taskset. Unbound, two ranks on one core made
    # every exchange wait for the other's time slice (the first row of a launch at 4 or
    # 8 ms in 10 of 20 launches beside two CPU hogs, the rest at 37-86 us) until the
    # scheduler moved one away.
    : >"$SIMCLUSTER_DIR/cpus"
    set -- $(_simcluster_cpus)
    if [ $((_sc_n * _sc_slots)) -le $# ]; then
        _sc_i=0
        while [ "$_sc_i" -lt "$_sc_n" ]; do
            _sc_list=$1; shift
            _sc_k=1
            while [ "$_sc_k" -lt "$_sc_slots" ]; do _sc_list=$_sc_list,$1; shift; _sc_k=$((_sc_k + 1)); done
            echo "$_sc_list" >>"$SIMCLUSTER_DIR/cpus"
            _sc_i=$((_sc_i + 1))
        done
    fi

    # The agent is called like ssh: AGENT [ssh options such as -x] HOST COMMAND...
    # COMMAND arrives as words meant for a remote shell (ssh joins them with spaces), so
    # they are joined and given to sh. The environment (PATH, LD_LIBRARY_PATH) passes
    # through ip netns exec and unshare unchanged, so orted finds what mpirun found.
    cat >"$SIMCLUSTER_AGENT" <<EOF
#!/bin/sh
# simcluster launch agent for mpirun (--mca plm_rsh_agent), generated by simcluster_up.
while [ \$# -gt 0 ]; do
    case \$1 in $SIMCLUSTER_NET.*) break ;; esac
    shift                           # ssh-style options before the host
done
[ \$# -ge 2 ] || { echo "simcluster agent: no node address in arguments" >&2; exit 255; }
node=$SIMCLUSTER_ID"n"\${1##*.}
shift
echo "\$node: \$*" >>"$SIMCLUSTER_DIR/agent.log"
# A UTS namespace per launch gives the node its own hostname (what MPI_Get_processor_name
# and the output show); exit 255 like ssh when the node cannot be entered.
# nice -10: a simulated node's ranks own their node as real ones do; the
# machine's other load (a CPU hog per core in the flake hunt) must not take
# the core whenever a rank yields, which made a healthy pair's ping-pong a
# whole 4 ms scheduler tick and a node's incoming bandwidth 15x low.
cpus=\$(sed -n "\${node##*n}p" "$SIMCLUSTER_DIR/cpus")
exec nice -n -10 \${cpus:+taskset -c "\$cpus"} ip netns exec "\$node" unshare --uts sh -c 'hostname "\$0" || exit 255; eval "\$1"' "\$node" "\$*"
EOF
    chmod +x "$SIMCLUSTER_AGENT"

    # oob (launch/wire-up) and btl tcp restricted to the cluster subnet; tcp,self only so
    # ranks talk TCP even when placed on the same node; IPv6 off (no v6 addresses set up);
    # --bind-to none because each node would otherwise bind its ranks to core 0 (the
    # agent's taskset gives each node its own core instead, when there are enough);
    # mpi_yield_when_idle 1 only when the ranks outnumber the cores: every node thinks it
    # has a core to itself, and with more ranks than cores busy-polling ranks starve each
    # other (8 ms instead of 40 us ping-pongs with 4 nodes on 2 cores). With a core per
    # rank, yielding hands the core to the machine's other load until the next tick: 2
    # nodes on 2 cores beside two CPU hogs, 16-32 KiB all-reduce per launch, 10 launches
    # each: yielding 29 of 40 figures at 0.5-6 ms, bound and not yielding 40 of 40 at 54-114 us
    # (without the hogs both 47-85 us).
    _sc_yield=0
    [ ! -s "$SIMCLUSTER_DIR/cpus" ] && _sc_yield=1 # not bound: more ranks than cores
    SIMCLUSTER_MPIRUN_ARGS="--hostfile $SIMCLUSTER_HOSTFILE --mca plm_rsh_agent $SIMCLUSTER_AGENT \
--mca oob_tcp_if_include $SIMCLUSTER_NET.0/24 --mca btl tcp,self \
--mca btl_tcp_if_include $SIMCLUSTER_NET.0/24 --mca btl_tcp_disable_family 6 --bind-to none \
--mca mpi_yield_when_idle $_sc_yield"
    export SIMCLUSTER_MPIRUN_ARGS
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
}

# simcluster_throttle NODE RATE: token-bucket limit (e.g. 200mbit) on traffic into NODE,
# applied on its bridge-side veth (egress of that veth = towards the node). NODE is a name
# from SIMCLUSTER_NODES or its address.
simcluster_throttle() {
    _sc_node=${1:?usage: simcluster_throttle NODE RATE}
    _sc_rate=${2:?usage: simcluster_throttle NODE RATE}
    _sc_node=${_sc_node##*.}
    _sc_node=${_sc_node##*n}
    tc qdisc replace dev "${SIMCLUSTER_ID}v$_sc_node" root tbf rate "$_sc_rate" burst 64kb latency 50ms
}

# simcluster_shape_egress NODE RATE [BURST]: token-bucket limit on everything NODE sends
# (its own eth0, inside the namespace): the node's "NIC" rate, as the model's inter-node
# tier assumes. BURST defaults to 32kb: a small bucket, so the rate holds from the first
# packets of a message on.
simcluster_shape_egress() {
    _sc_node=${1:?usage: simcluster_shape_egress NODE RATE [BURST]}
    _sc_rate=${2:?usage: simcluster_shape_egress NODE RATE [BURST]}
    _sc_node=${_sc_node##*.}
    _sc_node=${_sc_node##*n}
    ip netns exec "${SIMCLUSTER_ID}n$_sc_node" \
        tc qdisc replace dev eth0 root tbf rate "$_sc_rate" burst "${3:-32kb}" latency 100ms
}

# simcluster_throttle_link FROM TO RATE: limits only the traffic from node FROM to node
# TO (names or addresses): an HTB class at RATE for packets from FROM's address on TO's
# bridge-side veth, everything else unlimited. A bad link, not a bad node.
simcluster_throttle_link() {
    _sc_from=${1:?usage: simcluster_throttle_link FROM TO RATE}
    _sc_to=${2:?usage: simcluster_throttle_link FROM TO RATE}
    _sc_rate=${3:?usage: simcluster_throttle_link FROM TO RATE}
    _sc_from=${_sc_from##*.}; _sc_from=${_sc_from##*n}
    _sc_to=${_sc_to##*.}; _sc_to=${_sc_to##*n}
    _sc_dev=${SIMCLUSTER_ID}v$_sc_to
    tc qdisc replace dev "$_sc_dev" root handle 1: htb default 20 &&
    tc class add dev "$_sc_dev" parent 1: classid 1:10 htb rate "$_sc_rate" burst 64kb &&
    tc class add dev "$_sc_dev" parent 1: classid 1:20 htb rate 100gbit &&
    tc filter add dev "$_sc_dev" parent 1: protocol ip prio 1 u32 \
        match ip src "$SIMCLUSTER_NET.$_sc_from/32" flowid 1:10
}

# simcluster_down: removes what simcluster_up made; safe to call twice or after a failed up.
simcluster_down() {
    for _sc_node in ${SIMCLUSTER_NODES:-}; do
        # Kill what is still running in our own namespace (a hung orted or rank), else the
        # namespace, and the veth inside it, outlive "ip netns del".
        _sc_pids=$(ip netns pids "$_sc_node" 2>/dev/null)
        if [ -n "$_sc_pids" ]; then
            # shellcheck disable=SC2086,SC2046 # lists of pids
            kill $_sc_pids 2>/dev/null; sleep 1
            # shellcheck disable=SC2046
            kill -9 $(ip netns pids "$_sc_node" 2>/dev/null) 2>/dev/null
        fi
        # Deleting the root-side veth removes its peer; deleting the namespace would too,
        # but only once the last process in it has gone.
        ip link del "${SIMCLUSTER_ID}v${_sc_node##*n}" 2>/dev/null
        ip netns del "$_sc_node" 2>/dev/null
    done
    [ -n "${SIMCLUSTER_BRIDGE:-}" ] && ip link del "$SIMCLUSTER_BRIDGE" 2>/dev/null
    [ -n "${SIMCLUSTER_DIR:-}" ] && rm -rf "$SIMCLUSTER_DIR"
    SIMCLUSTER_NODES='' SIMCLUSTER_BRIDGE='' SIMCLUSTER_DIR=''
    return 0
}
