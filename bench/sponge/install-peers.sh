#!/usr/bin/env bash
# Installs the MD peers that `make validate` and `make bench` run beside Spire: LAMMPS (Debian's
# `lammps`, the `lmp` binary), OpenMM from PyPI (its CPU platform, and its energies as references),
# and MDAnalysis, which must read Spire's H5MD trajectories. Idempotent: what is there is left alone.
set -euo pipefail
PY=${PYTHON:-python3}
PIP=("$PY" -m pip install --quiet --root-user-action=ignore)
say() { echo "install-peers (sponge): $*" >&2; }

if ! command -v lmp >/dev/null; then
  sudo=(); [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  say "installing lammps"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends lammps
fi
"$PY" -c "import openmm" 2>/dev/null || { say "installing openmm"; "${PIP[@]}" openmm; }
"$PY" -c "import MDAnalysis" 2>/dev/null || { say "installing MDAnalysis"; "${PIP[@]}" MDAnalysis; }
