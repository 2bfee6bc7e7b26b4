#!/bin/sh
# scripts/isolate.sh refuses what it cannot read before anything runs (exit
# 2, the bad line named, no folder left behind), and never loops without a
# bound: rounds 1 to 64, a time limit, a floor. Its runs across nodes are in
# tests/hang_cluster.t.
. tests/lib.sh
plan 6

cd "$TMP" || exit 1
iso=$OLDPWD/scripts/isolate.sh
refused() { # PATTERN ARGS...: exit 2, PATTERN on stderr, no isolate.* folder made
  pat=$1
  shift
  "$iso" "$@" >out 2>err
  st=$?
  [ $st -eq 2 ] && grep -q -e "$pat" err && ! ls -d isolate.* >/dev/null 2>&1 && return 0
  echo "exit $st" | diag; diag err; return 1
}
printf 'node1 slots=2\nnode2 slots=two\n' >bad.hosts
refused 'bad.hosts:2: cannot read "slots=two"' --hostfile bad.hosts -- --accept x.conf
ok $? "a hostfile line it cannot read: exit 2 naming file, line and word"
printf 'node1\nnode1\n' >twice.hosts
refused 'twice.hosts:2: node1 twice' --hostfile twice.hosts -- --accept x.conf
ok $? "a host twice: exit 2"
printf 'node1\n' >good.hosts
refused '--rounds 0: from 1 to 64' --hostfile good.hosts --rounds 0 -- --accept x.conf
ok $? "--rounds 0: exit 2"
refused '--rounds 65: from 1 to 64' --hostfile good.hosts --rounds 65 -- --accept x.conf
ok $? "--rounds 65: exit 2 (never unbounded)"
refused "give collbench's --accept FILE" --hostfile good.hosts -- --sweep
ok $? "no --accept: exit 2"
refused 'give no --exclude-out' --hostfile good.hosts -- --accept x.conf --exclude-out e
ok $? "its own --exclude-out given: exit 2 (each round's is the script's)"
finish
