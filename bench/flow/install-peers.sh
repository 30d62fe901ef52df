#!/usr/bin/env bash
# Installs the PDE peers from PyPI: py-pde, and Dedalus 3, whose wheel is built here against the
# machine's MPI and FFTW (Debian's libfftw3-mpi-dev and libopenmpi-dev); SymPy for the manufactured
# solutions of tests/validate/flow.py. Idempotent: what already imports is left alone.
set -euo pipefail
PY=${PYTHON:-python3}
PIP=("$PY" -m pip install --quiet --root-user-action=ignore)
say() { echo "install-peers (flow): $*" >&2; }

"$PY" -c "import sympy" 2>/dev/null || { say "installing sympy"; "${PIP[@]}" sympy; }
"$PY" -c "import pde" 2>/dev/null || { say "installing py-pde"; "${PIP[@]}" py-pde; }
if ! "$PY" -c "import dedalus.public" >/dev/null 2>&1; then
  if ! dpkg-query -W -f='${Status}' libfftw3-mpi-dev 2>/dev/null | grep -q "install ok installed"; then
    sudo=(); [ "$(id -u)" -ne 0 ] && sudo=(sudo)
    say "installing libfftw3-mpi-dev (Dedalus builds against it)"
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -q --no-install-recommends libfftw3-mpi-dev
  fi
  # Dedalus's build finds FFTW by itself but not Open MPI's headers, which Debian keeps off the path.
  say "installing dedalus (builds its extension, a few minutes)"
  C_INCLUDE_PATH="$(mpicc --showme:incdirs | tr ' ' ':')${C_INCLUDE_PATH:+:$C_INCLUDE_PATH}" "${PIP[@]}" dedalus
fi
OMP_NUM_THREADS=1 "$PY" -c "import dedalus, pde; print('install-peers (flow): dedalus', dedalus.__version__, 'py-pde', pde.__version__)" 2>/dev/null
