#!/bin/sh
# --transport selects Open MPI's path, and the records say which was used.
. tests/lib.sh
plan 4

mpi 2 --transport tcp --op allreduce,p2p_lat -e 4K --max-time 0.1 --json "$TMP/tcp.jsonl"
ok $STATUS "--transport tcp runs"
jq_all "$TMP/tcp.jsonl" '.transport == "tcp"'
ok $? "records say tcp"
mpi 2 --transport shm --op allreduce,p2p_lat -e 4K --max-time 0.1 --json "$TMP/shm.jsonl"
ok $STATUS "--transport shm runs"
jq_all "$TMP/shm.jsonl" '.transport == "shm"'
ok $? "records say shm"
finish
