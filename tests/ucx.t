#!/bin/sh
# The ucx backend for real over shared memory and TCP (UCX_TLS and
# --transport), checked, with the transport UCX chose in every record.
. tests/lib.sh
if ! ./collbench --list | grep -q '^  ucx *usable'; then
  echo "1..0 # SKIP this build has no ucx backend (configure found no UCX)"
  exit 0
fi
plan 17

mpi 2 --backend ucx --op p2p_lat,p2p_bw,p2p_bibw -e 256K --max-time 0.1 --json "$TMP/auto.jsonl"
ok $STATUS "mpirun -np 2 --backend ucx --op p2p_lat,p2p_bw,p2p_bibw exits 0"
[ $STATUS -eq 0 ] || diag "$TMP/err"
n=$(jq -s '[.[] | select(.type == "result" and .backend == "ucx" and .wrong == 0)] | length' "$TMP/auto.jsonl")
[ "$n" -eq 48 ]
ok $? "48 ucx results (3 ops x 16 sizes) with wrong = 0 (got $n)"

UCX_TLS=tcp mpi 2 --backend ucx --op p2p_lat,p2p_bw -e 4K --max-time 0.1 --json "$TMP/tcp.jsonl"
ok $STATUS "UCX_TLS=tcp from the environment is respected"
jq_all "$TMP/tcp.jsonl" '.transport == "tcp" and .wrong == 0'
ok $? "records say tcp"
jq -e -s '.[0].env.UCX_TLS == "tcp"' "$TMP/tcp.jsonl" >/dev/null
ok $? "the run record keeps UCX_TLS"

mpi 2 --backend ucx --transport shm --op p2p_lat -e 64 --max-time 0.1 --json "$TMP/shm.jsonl"
jq_all "$TMP/shm.jsonl" '(.transport | test("posix|sysv|xpmem|cma|knem")) and .wrong == 0'
ok $? "--transport shm gives a shared-memory transport ($(jq -r 'select(.type == "result") | .transport' "$TMP/shm.jsonl" | head -n 1))"

for tls in shm tcp; do
  mpi 2 --backend ucx --ucx-api put --transport $tls --op p2p_bw,p2p_bibw -e 256K --max-time 0.05 --json "$TMP/put-$tls.jsonl"
  [ $STATUS -eq 0 ] && jq_all "$TMP/put-$tls.jsonl" '(.transport | endswith("/put")) and .wrong == 0'
  ok $? "--ucx-api put over $tls: data lands in the partner's memory, checked"
done

# every requested series skipped: refused before anything runs (exit 2)
mpi 2 --backend ucx --op allreduce -e 64
[ $STATUS -eq 2 ] && grep -q 'nothing to measure.*allreduce on ucx.*point-to-point ops only' "$TMP/err"
ok $? "collectives alone on ucx are refused with the reason (exit 2)"
mpi 2 --backend ucx --op allreduce,p2p_lat -e 64
[ $STATUS -eq 0 ] && grep -q 'allreduce skipped for ucx.*point-to-point ops only' "$TMP/out"
ok $? "collectives beside p2p on ucx are skipped with the reason"

mpi 3 --backend ucx --op p2p_bibw -e 1K --max-time 0.05 --json "$TMP/odd.jsonl"
ok $STATUS "3 ranks: the odd one sits out without a hang"

# Two pairs on two cores, rendezvous sizes: a rank leaving a window with a
# protocol message still queued used to hang its partner (watchdog, exit 3).
mpi 4 --backend ucx --op p2p_bibw,p2p_lat,p2p_bw -b 8K -e 4M --max-time 0.05 --timeout 60
ok $STATUS "4 ranks on 2 cores, rendezvous sizes: no hang (status $STATUS)"

# GPU memory: device buffers need a GPU and a UCX built with CUDA, pinned
# ones a GPU. Where one is missing: one message, exit 2, no output file.
./collbench --list >"$TMP/list"
gpu=0
grep -q '^  device *usable' "$TMP/list" && gpu=1
if grep -q '^  device *not built' "$TMP/list"; then
  ucx_cuda=0
  skip "built without CUDA: --list has no ucx device memory line"
else
  ucx_cuda=1
  grep -q '^  device memory with the ucx backend' "$TMP/list" && ucx_cuda=0
  line=$(grep '^  device memory with the ucx backend' "$TMP/list")
  if [ $ucx_cuda -eq 0 ]; then
    echo "$line" | grep -q 'UCX [0-9.]* was built without CUDA memory support (memory types: host'
  else # no line: this UCX must have a CUDA memory domain
    ucx_info -d | grep -q '^# Memory domain: *cuda'
  fi
  ok $? "--list says whether UCX moves CUDA memory (${line:-its memory types include cuda})"
fi

refused() { # MEM: exit 2, one collbench message, no JSON file written
  [ $STATUS -eq 2 ] && [ "$(grep -c '^collbench: ' "$TMP/err")" -eq 1 ] &&
    grep -q -e "--mem $1: no usable GPU" -e "--mem $1: not built" -e "--backend ucx --mem $1: " "$TMP/err" &&
    [ ! -e "$TMP/$1.jsonl" ]
}
mpi 2 --backend ucx --mem device --op p2p_lat -e 64 --max-time 0.05 --json "$TMP/device.jsonl"
if [ $gpu -eq 0 ] || [ $ucx_cuda -eq 0 ]; then
  refused device
  ok $? "--backend ucx --mem device here: exit 2, one message ($(grep '^collbench: ' "$TMP/err"))"
  skip "needs a GPU and a UCX built with CUDA: ucx device memory p2p_lat, p2p_bw, put, wrong = 0"
else
  skip "a GPU and a UCX with CUDA are here: the refusal of device memory is not tested"
  [ $STATUS -eq 0 ] && jq_all "$TMP/device.jsonl" '.mem == "device" and (.transport | endswith("/cuda")) and .wrong == 0' &&
    mpi 2 --backend ucx --mem device --ucx-api put --op p2p_bw,p2p_bibw -e 1M --max-time 0.05 --json "$TMP/dput.jsonl" &&
    jq_all "$TMP/dput.jsonl" '(.transport | endswith("/put/cuda")) and .wrong == 0'
  ok $? "ucx device memory: tag and put, records say /cuda, wrong = 0 (status $STATUS)"
fi

mpi 2 --backend ucx --mem pinned --op p2p_lat,p2p_bw -e 64K --max-time 0.05 --json "$TMP/pinned.jsonl"
if [ $gpu -eq 0 ]; then
  refused pinned
  ok $? "--backend ucx --mem pinned without a GPU: exit 2, one message"
  skip "needs a GPU: ucx pinned memory p2p_lat, p2p_bw, wrong = 0"
else
  skip "a GPU is here: the refusal of pinned memory is not tested"
  [ $STATUS -eq 0 ] && jq_all "$TMP/pinned.jsonl" '.mem == "pinned" and (.transport | contains("cuda") | not) and .wrong == 0'
  ok $? "ucx pinned memory is host memory to UCX, wrong = 0 (status $STATUS)"
fi
finish
