#!/usr/bin/python3
"""Derive the JSON schema tests/k8s.t validates scripts/k8s/*.yaml against
from the Kubeflow MPI Operator's CRD (manifests/base/kubeflow.org_mpijobs.yaml):
the v2beta1 openAPIV3Schema, descriptions dropped, and made strict the way
kubeconform -strict is: an object that lists its properties and neither sets
additionalProperties nor x-kubernetes-preserve-unknown-fields refuses others
(the API server would silently prune a misspelt field instead).

usage: scripts/k8s/crd-schema.py CRD.yaml > scripts/k8s/mpijob-v2beta1.schema.json"""
import json
import sys

import yaml


def strict(node):
    if isinstance(node, dict):
        node.pop("description", None)
        for v in node.values():
            strict(v)
        if ("properties" in node and "additionalProperties" not in node
                and not node.get("x-kubernetes-preserve-unknown-fields")):
            node["additionalProperties"] = False
    elif isinstance(node, list):
        for v in node:
            strict(v)
    return node


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.splitlines()[-1])
    with open(sys.argv[1]) as f:
        crd = yaml.safe_load(f)
    versions = [v for v in crd["spec"]["versions"] if v["name"] == "v2beta1"]
    if crd["spec"]["names"]["kind"] != "MPIJob" or not versions:
        sys.exit(f"{sys.argv[1]}: not an MPIJob CRD with a v2beta1 version")
    schema = strict(versions[0]["schema"]["openAPIV3Schema"])
    # metadata is checked by the API server itself, not by the CRD
    schema["properties"]["metadata"] = {"type": "object"}
    schema["$schema"] = "http://json-schema.org/draft-07/schema#"
    json.dump(schema, sys.stdout, sort_keys=True, separators=(",", ":"))
    print()


main()
