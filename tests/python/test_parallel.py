"""spire.parallel: the runtime in a plain process (the one-rank "self" world, MPI never started),
communicators and device meshes; and one real 2-rank job under mpirun as a subprocess."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spire
import spire.parallel as par


@pytest.fixture(autouse=True)
def self_world():
    # The one-rank world, explicitly: these tests hold under a launcher too (MPI is then not started
    # by them); "auto" picking it in a plain process is tested in tests/engine/test_parallel_runtime.cpp.
    par.init(backend="self")
    yield


def test_plain_process_is_one_rank():
    assert par.is_initialized()
    assert par.rank() == 0 and par.size() == 1 and par.local_rank() == 0
    w = par.world()
    assert (w.rank, w.size, w.backend, w.device) == (0, 1, "self", "cpu")
    assert par.Communicator.find(w.id) is not None


def test_collectives_of_one_rank_are_copies():
    w = par.world()
    x = spire.tensor([1.5, -2.0, 3.0], dtype="float64")
    for op in ("sum", "mean", "max", "min"):
        w.all_reduce(x, op)
        np.testing.assert_array_equal(x.numpy(), [1.5, -2.0, 3.0])
    w.all_reduce_async(x, "sum").wait()
    out = spire.zeros(3, dtype="float64")
    w.all_gather(x, out)
    np.testing.assert_array_equal(out.numpy(), x.numpy())
    w.broadcast(x, 0)
    w.barrier()
    with pytest.raises(ValueError, match="allowed: sum, mean, max, min"):
        w.all_reduce(x, "prod")
    with pytest.raises(ValueError, match="complex"):
        w.all_reduce(spire.zeros(2, dtype="complex64"), "max")
    with pytest.raises(ValueError, match="itself"):
        w.send(x, 0)
    with pytest.raises(spire.ShapeError, match=r"\[3\]"):
        w.all_gather(x, spire.zeros(4, dtype="float64"))


def test_split_and_mesh():
    w = par.world()
    s = w.split(0)
    assert s.size == 1 and s.id != w.id and s.backend == "self"
    assert w.split(-1) is None
    mesh = par.DeviceMesh((1, 1), ("data", "model"))
    assert mesh.shape == (1, 1) and mesh.axis_names == ("data", "model") and mesh.coords() == (0, 0)
    assert mesh.comm("model").size == 1
    with pytest.raises(ValueError, match="no axis named 'pipe'"):
        mesh.comm("pipe")
    with pytest.raises(ValueError, match="must equal the communicator's size"):
        par.DeviceMesh((2,), ("data",))


def test_init_rejects_unknown_backend():
    par.finalize()
    with pytest.raises(ValueError, match="unknown backend 'tcp'"):
        par.init("tcp")
    par.init("self", timeout=9)
    if "SPIRE_COLLECTIVE_TIMEOUT" not in os.environ:
        assert par.collective_timeout() == 9
    par.finalize()
    par.init()


_JOB = textwrap.dedent("""
    import sys
    import numpy as np
    import spire, spire.parallel as par
    par.init()
    r, n = par.rank(), par.size()
    w = par.world()
    assert w.backend == "mpi" and n == 2, (w.backend, n)
    x = spire.tensor([1.0 + r, 10.0 * r], dtype="float64")
    w.all_reduce(x, "sum")
    assert x.numpy().tolist() == [3.0, 10.0], x
    out = spire.zeros(4, dtype="float32")
    w.all_gather(spire.tensor([r, r + 0.5], dtype="float32"), out)
    assert out.numpy().tolist() == [0.0, 0.5, 1.0, 1.5], out
    mesh = par.DeviceMesh((2, 1), ("data", "model"))
    assert mesh.coords() == (r, 0) and mesh.comm("data").size == 2
    # One line from rank 0 after every rank got here (ranks' output lines may interleave under mpirun).
    done = par.all_reduce(spire.tensor([1.0]), "sum")
    if r == 0:
        print("ranks ok:", int(done.numpy()[0]), flush=True)
    w.barrier()
    if sys.argv[1] == "raise" and r == 1:
        raise RuntimeError("python failure on rank 1")
    w.barrier()
""")


def _mpirun(mode, timeout):
    mpirun = shutil.which("mpirun")
    assert mpirun is not None, "mpirun is not on PATH: tools/install-deps installs openmpi-bin"  # required
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p), SPIRE_COLLECTIVE_TIMEOUT="60")
    return subprocess.run([mpirun, "-n", "2", "--oversubscribe", sys.executable, "-c", _JOB, mode],
                          capture_output=True, text=True, env=env, timeout=timeout)


def test_two_ranks_under_mpirun():
    p = _mpirun("ok", 60)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "ranks ok: 2" in p.stdout, p.stdout + p.stderr


def test_raising_rank_ends_the_job_with_its_traceback():
    # Rank 0 waits in a barrier with a 60 s timeout; only the excepthook's abort ends it this soon.
    p = _mpirun("raise", 30)
    assert p.returncode != 0
    assert "spire rank 1 of 2: uncaught Python exception" in p.stderr, p.stderr
    assert "RuntimeError: python failure on rank 1" in p.stderr, p.stderr
