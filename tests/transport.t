#!/bin/sh
# --transport selects Open MPI's path, and the records say which was used.
. tests/lib.sh
plan 6

mpi 2 --transport tcp --op allreduce,p2p_lat -e 4K --max-time 0.1 --json "$TMP/tcp.jsonl"
ok $STATUS "--transport tcp runs"
jq_all "$TMP/tcp.jsonl" '.transport == "tcp"'
ok $? "records say tcp"
mpi 2 --transport shm --op allreduce,p2p_lat -e 4K --max-time 0.1 --json "$TMP/shm.jsonl"
ok $STATUS "--transport shm runs"
jq_all "$TMP/shm.jsonl" '.transport == "shm"'
ok $? "records say shm"
jq -e -s '.[0].env.OMPI_MCA_btl == "self,vader" and .[0].env.OMPI_MCA_pml == "ob1"' "$TMP/shm.jsonl" >/dev/null
ok $? "the run record carries the MCA settings --transport made"
UCX_TLS=shm NCCL_ALGO=Ring mpi 1 -e 8 --max-time 0.05 --json "$TMP/env.jsonl"
jq -e -s '.[0].env.UCX_TLS == "shm" and .[0].env.NCCL_ALGO == "Ring" and (.[0].env | keys | all(startswith("OMPI_MCA_orte") | not))' "$TMP/env.jsonl" >/dev/null
ok $? "result-changing variables are recorded, mpirun's wiring is not"
finish
