"""spire.parallel.DataParallel: in this process (the one-rank "self" world) it must train exactly as
the plain model (same operations, same bits), with the manual loop and with spire.train.fit; and
one 2-rank run under mpirun must match a one-rank run with the same global batch."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import spire
import spire.parallel as par

F64 = spire.float64


def mlp(seed):
    spire.manual_seed(seed)
    return spire.nn.Sequential(spire.nn.Linear(5, 12, dtype=F64), spire.nn.Tanh(), spire.nn.Linear(12, 3, dtype=F64))


def batch(step, n=8):
    i = np.arange(n * 5, dtype=np.float64).reshape(n, 5)
    j = np.arange(n * 3, dtype=np.float64).reshape(n, 3)
    return spire.tensor(np.sin(0.37 * i + 0.11 * step)), spire.tensor(np.cos(0.23 * j - 0.07 * step))


def params(model):
    return [p.numpy().copy() for p in model.parameters()]


def train_manual(model, steps=10):
    opt = spire.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for s in range(steps):
        x, y = batch(s)
        opt.zero_grad()
        spire.nn.functional.mse_loss(model(x), y).backward()
        opt.step()


def test_one_rank_trains_bitwise_like_the_plain_model():
    plain, inner = mlp(0), mlp(0)
    dp = par.DataParallel(inner, bucket_cap_mb=0.0003)  # several buckets
    assert len(dp.bucket_indices) == 3
    train_manual(plain)
    train_manual(dp)
    assert not dp.sync_pending
    assert dp.reductions_started == 3 * 10
    for a, b in zip(params(plain), params(inner)):
        np.testing.assert_array_equal(a, b)


def test_fit_with_data_parallel_and_a_distributed_sampler():
    x, y = batch(0, n=16)
    ds = spire.data.ArrayDataset(x, y)
    plain, inner = mlp(1), mlp(1)
    dp = par.DataParallel(inner)
    for model, loader in [
        (plain, spire.data.DataLoader(ds, batch_size=4, shuffle=True, seed=3)),
        (dp, spire.data.DataLoader(ds, batch_size=4, sampler=par.distributed_sampler(ds, seed=3))),
    ]:
        opt = spire.optim.SGD(model.parameters(), lr=0.05)
        spire.train.fit(model, spire.nn.MSELoss(), opt, loader, epochs=2, verbose=0)
    for a, b in zip(params(plain), params(inner)):
        np.testing.assert_array_equal(a, b)


def test_state_dict_prefix_module_and_plain_dicts():
    inner = mlp(0)
    dp = par.DataParallel(inner)
    assert list(dp.state_dict()) == ["module.0.weight", "module.0.bias", "module.2.weight", "module.2.bias"]
    assert dp.module is inner
    other = mlp(5)
    dp.load_state_dict(other.state_dict())  # a plain model's dict
    for a, b in zip(params(inner), params(other)):
        np.testing.assert_array_equal(a, b)
    third = par.DataParallel(mlp(6))
    third.load_state_dict(dp.state_dict())  # this model's own ("module.") dict
    for a, b in zip(params(third.module), params(inner)):
        np.testing.assert_array_equal(a, b)


def test_python_module_with_keyword_arguments_and_unused_parameters():
    class Net(spire.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = spire.nn.Linear(5, 3, dtype=F64)
            self.unused = spire.nn.Linear(5, 3, dtype=F64)

        def forward(self, x, scale=1.0):
            return {"y": self.a(x) * scale}

    net = Net()
    dp = par.DataParallel(net)
    x, y = batch(0)
    spire.nn.functional.mse_loss(dp(x, scale=2.0)["y"], y).backward()
    assert not dp.sync_pending  # the unused head was found by forward: the hooks finished the round
    assert net.unused.weight.grad is None  # no rank used it: no gradient, as without DataParallel
    ref = Net()
    ref.load_state_dict(net.state_dict())
    spire.nn.functional.mse_loss(ref(x, scale=2.0)["y"], y).backward()
    np.testing.assert_array_equal(net.a.weight.grad.numpy(), ref.a.weight.grad.numpy())


def test_no_sync_accumulates_and_finish_gradient_sync_closes_an_open_round():
    inner = mlp(0)
    dp = par.DataParallel(inner)
    x, y = batch(0)
    with dp.no_sync():
        spire.nn.functional.mse_loss(dp(x), y).backward()
    assert dp.reductions_started == 0
    spire.nn.functional.mse_loss(dp(x), y).backward()
    assert dp.reductions_started == 1
    ref = mlp(0)
    for _ in range(2):
        spire.nn.functional.mse_loss(ref(x), y).backward()
    for p, q in zip(inner.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-14, atol=0)

    class TwoHeads(spire.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = spire.nn.Linear(5, 3, dtype=F64)
            self.b = spire.nn.Linear(5, 3, dtype=F64)

        def forward(self, x):
            return self.a(x), self.b(x)

    dp2 = par.DataParallel(TwoHeads())
    spire.nn.functional.mse_loss(dp2(x)[0], y).backward()  # head b was reached but gets no gradient
    assert dp2.sync_pending
    with pytest.raises(ValueError, match="finish_gradient_sync"):
        dp2(x)
    dp2.finish_gradient_sync()
    assert not dp2.sync_pending
    assert dp2.module.b.weight.grad is None


def test_checkpoints_only_on_the_main_process(tmp_path):
    assert par.is_main_process()
    cb = par.save_on_main_only(spire.train.ModelCheckpoint(str(tmp_path / "ck-{epoch}.h5")))
    dp = par.DataParallel(mlp(0))
    x, y = batch(0)
    loader = spire.data.DataLoader(spire.data.ArrayDataset(x, y), batch_size=4)
    spire.train.fit(dp, spire.nn.MSELoss(), spire.optim.SGD(dp.parameters(), lr=0.1), loader, epochs=2,
                    callbacks=[cb], verbose=0)
    assert sorted(os.listdir(tmp_path)) == ["ck-1.h5", "ck-2.h5"]


SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import spire, spire.parallel as par
    par.init()
    world = par.world()
    sys.path.insert(0, {testdir!r})
    from test_data_parallel import batch, mlp
    model = par.DataParallel(mlp(world.rank))  # each rank starts differently: rank 0's values win
    opt = spire.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    n, b = world.size, 8 // world.size
    for s in range(20):
        x, y = batch(s)
        x, y = x[world.rank * b:(world.rank + 1) * b], y[world.rank * b:(world.rank + 1) * b]
        opt.zero_grad()
        spire.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    # Checkpoints once: a file named by the rank exists only for rank 0.
    cb = par.save_on_main_only(spire.train.ModelCheckpoint({out!r} + f"/ck-rank{{world.rank}}.h5"))
    loader = spire.data.DataLoader(spire.data.ArrayDataset(*batch(0)), batch_size=4,
                                   sampler=par.distributed_sampler(spire.data.ArrayDataset(*batch(0))))
    spire.train.fit(model, spire.nn.MSELoss(), spire.optim.SGD(model.parameters(), lr=0.0), loader,
                    callbacks=[cb], verbose=0)
    if world.rank == 0:
        with open({out!r} + "/params.json", "w") as f:
            json.dump([p.numpy().ravel().tolist() for p in model.module.parameters()], f)
""")


def test_two_ranks_under_mpirun_match_one_rank(tmp_path):
    assert shutil.which("mpirun") is not None, "mpirun is not on PATH: tools/install-deps installs openmpi-bin"
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.format(testdir=os.path.dirname(__file__), out=str(tmp_path)))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               SPIRE_COLLECTIVE_TIMEOUT="60", OMP_NUM_THREADS="1")
    r = subprocess.run(["mpirun", "--oversubscribe", "-n", "2", sys.executable, str(script)], env=env,
                       capture_output=True, text=True, timeout=240)
    assert r.returncode == 0, r.stdout + r.stderr
    assert sorted(os.listdir(tmp_path)) == ["ck-rank0.h5", "params.json", "train.py"]
    got = json.loads((tmp_path / "params.json").read_text())
    # The one-rank reference: the full global batch in this process.
    ref = mlp(0)
    train_manual(ref, steps=20)
    # Half-batch means averaged over 2 ranks equal the full-batch mean up to rounding (the sums
    # are grouped differently); measured 6e-16 relative after 20 steps (5e-16 on 4 ranks).
    for a, b in zip(got, params(ref)):
        b = b.ravel()
        assert np.max(np.abs(np.array(a) - b)) <= 1e-12 * np.max(np.abs(b))
