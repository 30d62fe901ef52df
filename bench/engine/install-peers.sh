#!/usr/bin/env bash
# Installs the peers Spire is compared against, from PyPI: PyTorch, which the Python tests use as a
# reference (`install-peers.sh torch`, run by tools/install-deps), and JAX, EnvPool and Stable-Baselines3
# for the benchmarks (`install-peers.sh`, all). Idempotent: a peer that already imports and computes is left alone.
#
# PyPI's Linux torch wheel is the CUDA build and declares ~3 GiB of CUDA runtime wheels. Only PyPI is
# reachable (no CPU-only index), so we first try the light path: torch with --no-deps, its pure-Python
# dependencies, and only the CUDA libraries that libtorch_cuda.so links and that the machine's own
# CUDA toolkit (/usr/local/cuda, present on this machine kind) lacks or has in too old a version
# (cuFile, cuSPARSELt, NVSHMEM, NCCL). If torch still does not import, fall back to the full install.
set -euo pipefail
which=${1:-all}
case "$which" in torch|all) ;; *) echo "install-peers: argument must be 'torch' or 'all', got '$which'" >&2; exit 2;; esac
PY=${PYTHON:-python3}
PIP=("$PY" -m pip install --quiet --root-user-action=ignore)

torch_ok() { "$PY" -c "import torch; torch.randn(3).sum().item()" >/dev/null 2>&1; }
jax_ok() { "$PY" -c "import jax, jax.numpy as jnp; jnp.ones(3).sum().block_until_ready()" >/dev/null 2>&1; }

if ! torch_ok; then
  echo "install-peers: installing torch (light path: --no-deps + pure deps + 4 CUDA libs)" >&2
  "${PIP[@]}" filelock "typing-extensions>=4.13" "sympy>=1.13.3" "networkx>=2.5.1" jinja2 "fsspec>=0.8.5" setuptools
  "${PIP[@]}" --no-deps torch
  # Pin the CUDA libraries to the versions the installed torch declares.
  mapfile -t extra < <("$PY" - <<'PYEOF'
import importlib.metadata as md, re
want = {"nvidia-cusparselt-cu13", "nvidia-nvshmem-cu13", "nvidia-nccl-cu13"}
for r in md.requires("torch") or []:
    name = re.split(r"[ ;=<>~!\[]", r, 1)[0]
    if name in want:
        print(r.split(";")[0].strip())
    m = re.match(r"cuda-toolkit\[.*\]==(\d+)\.(\d+)", r)
    if m:
        print("nvidia-cufile")  # cuda-toolkit[cufile] resolves to this wheel
PYEOF
  )
  "${PIP[@]}" --no-deps "${extra[@]}"
  if ! torch_ok; then
    echo "install-peers: light torch install does not import; installing torch with all its dependencies" >&2
    "${PIP[@]}" torch
  fi
fi
"$PY" -c "import torch; print('install-peers: torch', torch.__version__, 'cuda available:', torch.cuda.is_available())"
[ "$which" = all ] || exit 0

if ! jax_ok; then
  echo "install-peers: installing jax, jaxlib (CPU)" >&2
  "${PIP[@]}" jax jaxlib
fi
"$PY" -c "import jax; print('install-peers: jax', jax.__version__, jax.devices())"

# EnvPool: the reference of bench/rl's environment throughput (OpenSpiel, the search reference, is a
# test dependency and comes with tools/install-deps).
if ! "$PY" -c "import envpool" >/dev/null 2>&1; then
  echo "install-peers: installing envpool" >&2
  "${PIP[@]}" envpool
fi

# Stable-Baselines3: the reference of bench/rl/agents.py (PPO on CartPole-v1). Its dependencies (torch,
# above; gymnasium, numpy, cloudpickle, from tools/install-deps) are already here, so --no-deps keeps pip
# from pulling anything else in.
if ! "$PY" -c "import stable_baselines3" >/dev/null 2>&1; then
  echo "install-peers: installing stable-baselines3" >&2
  "${PIP[@]}" --no-deps stable-baselines3
fi
