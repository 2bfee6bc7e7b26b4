#!/bin/sh
# Installs what `make check` needs beyond building and running (Slurm,
# munge, Prometheus, Chromium, clang, MPICH, ...): scripts/install-deps.sh
# --test, which lists them and why. CI (.ci/run) runs this; a user who only
# builds and runs collbench needs scripts/install-deps.sh alone.
exec sh "$(dirname "$0")/install-deps.sh" --test "$@"
