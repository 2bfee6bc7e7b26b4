#!/bin/sh
# scripts/k8s/*.yaml against the Kubeflow MPI Operator's MPIJob v2beta1
# schema (no Debian or npm package validates against a CRD, so
# scripts/k8s/check.py does it with python3-jsonschema and the schema derived
# from the operator's CRD), the operator's own validation rules, and
# collbench's (-np = workers x slots, one GPU per rank). Misspelt, mistyped
# and inconsistent copies must fail: the check can fail.
. tests/lib.sh
plan 5

if ! python3 -c 'import yaml, jsonschema' 2>/dev/null; then
  for _ in 1 2 3 4 5; do skip "python3-yaml or python3-jsonschema missing (scripts/install-test-deps.sh installs them)"; done
  exit 0
fi

python3 scripts/k8s/check.py scripts/k8s/*.yaml >"$TMP/out" 2>&1
ok $? "every scripts/k8s/*.yaml is a valid MPIJob v2beta1 ($(ls scripts/k8s/*.yaml | wc -l) files)"
diag "$TMP/out"

# bad NAME SED-SCRIPT PATTERN: a damaged copy fails, naming the problem
bad() {
  sed "$2" scripts/k8s/accept-mpijob.yaml >"$TMP/$1.yaml"
  python3 scripts/k8s/check.py "$TMP/$1.yaml" >"$TMP/$1.out" 2>&1
  st=$?
  [ $st -eq 1 ] && grep -q -- "$3" "$TMP/$1.out"
  ok $? "$1: exit $st, $(head -n 1 "$TMP/$1.out")"
}
bad misspelt 's/slotsPerWorker:/slotPerWorker:/' "'slotPerWorker' was unexpected"
bad mistyped 's/replicas: 2/replicas: "two"/' "'two' is not of type 'integer'"
bad policy 's/cleanPodPolicy: Running/cleanPodPolicy: Sometimes/' "'Sometimes' is not one of"
bad np 's/"16"  /"24"  /' "mpirun -np 24, but 2 workers x slotsPerWorker 8 = 16"
finish
