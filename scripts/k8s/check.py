#!/usr/bin/python3
"""Checks Kubeflow MPIJob manifests (kubeflow.org/v2beta1) without a cluster:
  1. the MPI Operator's own CRD schema (mpijob-v2beta1.schema.json beside this
     file, from crd-schema.py), strict: a misspelt field is an error, where the
     API server would silently drop it;
  2. the rules the operator's validation.go adds (ValidateMPIJob): the enums,
     one launcher, at least one worker, containers present, name short enough
     for its worker pods' DNS labels;
  3. collbench's: mpirun's -np is workers x slotsPerWorker, and a worker asks
     for slotsPerWorker GPUs (one rank per GPU).
Prints one line per problem (file: path: message) and exits 1 if any, 2 on
unreadable input.

usage: scripts/k8s/check.py FILE.yaml..."""
import json
import os
import re
import sys

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ENUMS = {  # validation.go's sets
    ("spec", "runPolicy", "cleanPodPolicy"): {"None", "Running", "All"},
    ("spec", "mpiImplementation"): {"OpenMPI", "Intel", "MPICH"},
    ("spec", "runPolicy", "managedBy"): {"kubeflow.org/mpi-operator", "kueue.x-k8s.io/multikueue"},
}
DNS1035 = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def get(doc, path):
    for key in path:
        if not isinstance(doc, dict) or key not in doc:
            return None
        doc = doc[key]
    return doc


def operator_rules(job):
    spec = job.get("spec", {})
    for path, allowed in ENUMS.items():
        v = get(job, path)
        if v is not None and v not in allowed:
            yield ".".join(path), f"{v!r} is not one of {sorted(allowed)}"
    replicas = spec.get("mpiReplicaSpecs", {})
    if "Launcher" not in replicas:
        yield "spec.mpiReplicaSpecs", "must have a Launcher replica spec"
    for kind, rs in replicas.items():
        where = f"spec.mpiReplicaSpecs.{kind}"
        n = rs.get("replicas")
        if n is None:
            yield where + ".replicas", "must define the number of replicas"
        elif kind == "Launcher" and n != 1:
            yield where + ".replicas", f"{n}: must be 1"
        elif kind == "Worker" and n < 1:
            yield where + ".replicas", f"{n}: must be at least 1"
        rp = rs.get("restartPolicy")
        if rp is not None and rp not in ("Never", "OnFailure"):
            yield where + ".restartPolicy", f"{rp!r} is not Never or OnFailure"
        if not get(rs, ("template", "spec", "containers")):
            yield where + ".template.spec.containers", "must define at least one container"
    workers = get(replicas, ("Worker", "replicas")) or 1
    host = f"{get(job, ('metadata', 'name'))}-worker-{workers - 1}"
    if len(host) > 63 or not DNS1035.match(host):
        yield "metadata.name", f"worker pod name {host!r} is not a DNS-1035 label"


def collbench_rules(job):
    spec = job.get("spec", {})
    slots = spec.get("slotsPerWorker")
    workers = get(spec, ("mpiReplicaSpecs", "Worker", "replicas"))
    for c in get(spec, ("mpiReplicaSpecs", "Launcher", "template", "spec", "containers")) or []:
        argv = (c.get("command") or []) + (c.get("args") or [])
        if "mpirun" in argv and "-np" in argv[:-1] and slots and workers:
            np = argv[argv.index("-np") + 1]
            if str(np) != str(workers * slots):
                yield "spec.mpiReplicaSpecs.Launcher", (
                    f"mpirun -np {np}, but {workers} workers x slotsPerWorker {slots} "
                    f"= {workers * slots}")
    for c in get(spec, ("mpiReplicaSpecs", "Worker", "template", "spec", "containers")) or []:
        gpus = get(c, ("resources", "limits", "nvidia.com/gpu"))
        if gpus is not None and slots is not None and int(gpus) != slots:
            yield "spec.mpiReplicaSpecs.Worker", (
                f"container {c.get('name')} asks for {gpus} GPUs, but slotsPerWorker is {slots} "
                "(one rank per GPU)")


def check(path, validator):
    try:
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d is not None]
    except (OSError, yaml.YAMLError) as e:
        print(f"{path}: {e}")
        return 2
    problems = [] if docs else [("", "no YAML document in the file")]
    for job in docs:
        if not isinstance(job, dict) or job.get("kind") != "MPIJob" or job.get(
                "apiVersion") != "kubeflow.org/v2beta1":
            problems.append(("", "not a kubeflow.org/v2beta1 MPIJob"))
            continue
        errors = [(".".join(str(p) for p in e.absolute_path), e.message)
                  for e in validator.iter_errors(job)]
        # the other rules read the fields' values: only once their types are right
        problems += errors or list(operator_rules(job)) + list(collbench_rules(job))
    for where, msg in problems:
        print(f"{path}: {where or '(document)'}: {msg}")
    return 1 if problems else 0


def main():
    if len(sys.argv) < 2:
        print(__doc__.splitlines()[-1], file=sys.stderr)
        return 2
    with open(os.path.join(HERE, "mpijob-v2beta1.schema.json")) as f:
        validator = jsonschema.Draft7Validator(json.load(f))
    return max(check(p, validator) for p in sys.argv[1:])


sys.exit(main())
