"""`spire pde generate`: the dataset file is the same whether it is written by one process, by two
MPI ranks, or by a run that was killed and resumed (compared dataset by dataset with h5py)."""
import os
import shutil
import signal
import subprocess
import time

import h5py
import numpy as np

PDEFORMER_JOB = """
seed = 3
[family]
name = "pdeformer"
[domain]
x = [-1.0, 1.0]
periodic = true
[time]
t_end = 0.05
snapshots = 6
dt = 1e-3
[discretization]
n = 32
dealias = 2
scheme = "sbdf2"
[output]
layout = "both"
"""

# Random initial fields (PDEBench's generator) for Burgers; slow enough per sample (25000 steps, about
# 30 ms) to be killed in the middle of a run.
BURGERS_JOB = """
seed = 11
[pde]
equation = "dt(u) + dx(0.5*u^2) - 0.02*dx(dx(u)) = 0"
[domain]
x = [0.0, 1.0]
periodic = true
[initial]
u = "random"
[time]
t_end = 0.5
snapshots = 11
dt = 2e-5
[discretization]
n = 128
"""

MPI_ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               SPIRE_COLLECTIVE_TIMEOUT="60", OMP_NUM_THREADS="1")


def datasets(path):
    """Every dataset of an HDF5 file, by name."""
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: out.__setitem__(name, obj[()]) if isinstance(obj, h5py.Dataset) else None)
    return out


def assert_same_data(a, b):
    da, db = datasets(a), datasets(b)
    assert sorted(da) == sorted(db)
    for name in da:
        assert np.array_equal(da[name], db[name]), name  # bit for bit (NaN-free data)


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240, **kw)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def test_two_ranks_write_the_same_file_as_one_process(spire_cli, tmp_path):
    assert shutil.which("mpirun") is not None, "mpirun is not on PATH: tools/install-deps installs openmpi-bin"
    job = tmp_path / "job.toml"
    job.write_text(PDEFORMER_JOB)
    one, two = tmp_path / "one.h5", tmp_path / "two.h5"
    run([spire_cli, "pde", "generate", str(job), "-o", str(one), "--samples", "6", "--threads", "1", "--quiet"])
    run(["mpirun", "--oversubscribe", "-n", "2", spire_cli, "pde", "generate", str(job), "-o", str(two),
         "--samples", "6", "--threads", "1", "--quiet"], env=MPI_ENV)
    assert_same_data(one, two)
    d = datasets(one)
    assert d["u_sol_all"].shape == (6, 6, 32)
    assert d["coef/f0"].shape == (6, 4)  # [0, c1, c2, c3] of f0 per sample
    assert np.all(d["coef/f0"][:, 0] == 0)
    # different samples are different problems
    assert not np.array_equal(d["u_sol_all"][0], d["u_sol_all"][1])
    assert not os.path.exists(str(two) + ".partial")


def test_a_killed_run_resumes_to_the_same_file(spire_cli, tmp_path):
    job = tmp_path / "job.toml"
    job.write_text(BURGERS_JOB)
    whole, resumed = tmp_path / "whole.h5", tmp_path / "resumed.h5"
    cmd = [spire_cli, "pde", "generate", str(job), "--samples", "32", "--threads", "2", "--quiet"]
    run(cmd + ["-o", str(whole)])

    p = subprocess.Popen(cmd + ["-o", str(resumed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    partial = str(resumed) + ".partial"
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        done = [f for f in os.listdir(partial) if f.endswith(".h5")] if os.path.isdir(partial) else []
        if len(done) >= 4:
            break
        time.sleep(0.005)
    assert p.poll() is None, "the run ended before it could be killed"
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert not resumed.exists()
    kept_before = len([f for f in os.listdir(partial) if f.endswith(".h5")])
    assert 4 <= kept_before < 32

    run(cmd + ["-o", str(resumed)])
    assert_same_data(whole, resumed)
    assert not os.path.exists(partial)
