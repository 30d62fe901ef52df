#!/usr/bin/env bash
# Installs the FDTD peer that `make bench` and `make validate` run beside Spire: Meep (Debian's
# python3-meep, double precision, with python3-matplotlib, which its Python module imports). It
# lives in Debian's own interpreter (/usr/bin/python3), which the programs find through
# SPIRE_MEEP_PYTHON or by trying that interpreter. Idempotent: what is there is left alone.
set -euo pipefail
say() { echo "install-peers (elec): $*" >&2; }
if ! /usr/bin/python3 -c "import meep" >/dev/null 2>&1; then
  sudo=(); [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  say "installing python3-meep"
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends python3-meep \
    python3-matplotlib
fi
