"""spire.parallel's differentiable collectives: on one rank (the self world, where they are identities
or zeros) in this process, and on two ranks under mpirun as a subprocess, where each rank checks its
values and gradients against torch computing the global function of both ranks' inputs."""

import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spire
import spire.parallel as par


def _x(shape, seed):
    return spire.tensor(np.random.default_rng(seed).uniform(-1, 1, shape), dtype="float64", requires_grad=True)


@pytest.mark.parametrize("call", [
    lambda x: par.all_reduce(x, "sum"),
    lambda x: par.all_reduce(x, "mean", comm=par.world()),
    lambda x: par.all_reduce(x, "max"),
    lambda x: par.all_reduce(x, "min"),
    lambda x: par.all_gather(x, axis=1),
    lambda x: par.reduce_scatter(x, axis=-1, op="sum"),
    lambda x: par.all_to_all(x, split_axis=0, concat_axis=1),
    lambda x: par.broadcast(x, root=0),
    lambda x: par.permute(x, [(0, 0)]),
])
def test_one_rank_collectives_are_identities_with_identity_gradients(call):
    x = _x((3, 4), 1)
    y = call(x)
    np.testing.assert_array_equal(y.numpy(), x.detach().numpy())
    w = np.random.default_rng(2).uniform(-1, 1, (3, 4))
    (y * spire.tensor(w)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w)


def test_permute_without_a_source_gives_zeros_and_no_gradient():
    x = _x((2, 3), 3)
    y = par.permute(x, [])
    assert y.numpy().tolist() == [[0.0] * 3] * 2
    y.sum().backward()
    assert x.grad.numpy().tolist() == [[0.0] * 3] * 2


def test_errors_name_what_is_wrong():
    x = _x((3,), 4)
    with pytest.raises(ValueError, match="unknown reduction 'prod'"):
        par.all_reduce(x, "prod")
    with pytest.raises(ValueError, match="source of two pairs"):
        par.permute(x, [(0, 0), (0, 0)])
    with pytest.raises(ValueError, match="cannot send to itself"):
        par.send(x, 0)
    with pytest.raises(ValueError, match="tag"):
        par.recv((3,), "float64", 0, tag=par.MAX_TAG)
    with pytest.raises(TypeError, match="complex"):
        par.all_reduce(spire.zeros(2, dtype="complex64"), "max")
    par.barrier()


_JOB = textwrap.dedent("""
    import numpy as np, torch
    import spire, spire.parallel as par
    par.init()
    r, n = par.rank(), par.size()
    assert n == 2

    def inputs(shape, seed):  # every rank's input, so each rank can compute the global function
        return [np.random.default_rng(seed * 10 + s).uniform(-1, 1, shape) for s in range(n)]

    # (name, per-rank input shape, spire op on this rank, torch definition: list of inputs -> list of outputs)
    cases = [
        ("all_reduce sum", (3, 2), lambda x: par.all_reduce(x, "sum"), lambda xs: [sum(xs)] * n),
        ("all_reduce mean", (3, 2), lambda x: par.all_reduce(x, "mean"), lambda xs: [sum(xs) / n] * n),
        ("all_reduce max", (3, 2), lambda x: par.all_reduce(x, "max"), lambda xs: [torch.stack(xs).amax(0)] * n),
        ("all_reduce min", (3, 2), lambda x: par.all_reduce(x, "min"), lambda xs: [torch.stack(xs).amin(0)] * n),
        ("all_gather 1", (2, 3), lambda x: par.all_gather(x, 1), lambda xs: [torch.cat(xs, 1)] * n),
        ("reduce_scatter 0", (4, 3), lambda x: par.reduce_scatter(x, 0, "sum"),
         lambda xs: list(torch.chunk(sum(xs), n, 0))),
        ("reduce_scatter max 1", (3, 4), lambda x: par.reduce_scatter(x, 1, "max"),
         lambda xs: list(torch.chunk(torch.stack(xs).amax(0), n, 1))),
        ("all_to_all 1 0", (3, 4), lambda x: par.all_to_all(x, 1, 0),
         lambda xs: [torch.cat([torch.chunk(x, n, 1)[d] for x in xs], 0) for d in range(n)]),
        ("broadcast 1", (2, 2), lambda x: par.broadcast(x, 1), lambda xs: [xs[1]] * n),
        ("permute swap", (2, 3), lambda x: par.permute(x, [(0, 1), (1, 0)]), lambda xs: [xs[1], xs[0]]),
        ("permute 0 to 1", (2, 3), lambda x: par.permute(x, [(0, 1)]), lambda xs: [torch.zeros_like(xs[0]), xs[0]]),
    ]
    for k, (name, shape, op, ref) in enumerate(cases):
        xs = [torch.tensor(a, requires_grad=True) for a in inputs(shape, 100 + k)]
        ys = ref(xs)
        ws = [np.random.default_rng(900 + 10 * k + s).uniform(-1, 1, tuple(ys[s].shape)) for s in range(n)]
        sum((y * torch.tensor(w)).sum() for y, w in zip(ys, ws)).backward()  # the global loss
        x = spire.tensor(xs[r].detach().numpy(), requires_grad=True)
        y = op(x)
        np.testing.assert_allclose(y.detach().numpy(), ys[r].detach().numpy(), rtol=1e-14, atol=1e-15, err_msg=name)
        (y * spire.tensor(ws[r])).sum().backward()  # this rank's part of the loss
        want = xs[r].grad if xs[r].grad is not None else torch.zeros_like(xs[r])  # None: F ignores x_r
        np.testing.assert_allclose(x.grad.numpy(), want.numpy(), rtol=1e-14, atol=1e-15, err_msg=name)
    # Point to point, not differentiable.
    if r == 0:
        par.send(spire.tensor([1.0, 2.0]), 1, tag=7)
    else:
        got = par.recv((2,), "float32", 0, tag=7)
        assert got.numpy().tolist() == [1.0, 2.0] and not got.requires_grad
    par.barrier()
    # One line from rank 0 after every rank got here (ranks' output lines may interleave under mpirun).
    done = par.all_reduce(spire.tensor([1.0]), "sum")
    if r == 0:
        print("ranks ok:", int(done.numpy()[0]), flush=True)
""")


def test_two_ranks_against_torch():
    import torch  # noqa: F401  (the reference the job compares with; tools/install-deps installs it)
    mpirun = shutil.which("mpirun")
    assert mpirun is not None, "mpirun is not on PATH: tools/install-deps installs openmpi-bin"  # required
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p), SPIRE_COLLECTIVE_TIMEOUT="60")
    p = subprocess.run([mpirun, "-n", "2", "--oversubscribe", sys.executable, "-c", _JOB],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "ranks ok: 2" in p.stdout, p.stdout + p.stderr
