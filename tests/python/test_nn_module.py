"""spire.nn.Module from Python: subclassing, attribute registration, mixing Python and engine
modules, state_dict round trips and mismatch errors, train/eval, lifetime of Python modules held by
the engine, and an optimizer fitting a tiny model to a closed-form least-squares solution."""

import gc
import weakref

import numpy as np
import pytest
import torch

import spire
import spire.nn as nn


def param(values):
    return nn.Parameter(spire.tensor(np.asarray(values, dtype=np.float64)))


class Affine(nn.Module):
    def __init__(self, n_in, n_out, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.weight = param(rng.standard_normal((n_out, n_in)) * 0.5)
        self.bias = param(np.zeros(n_out))
        self.plain = 3  # not a tensor: an ordinary attribute

    def forward(self, x):
        return x @ self.weight.T + self.bias

    def extra_repr(self):
        return f"in_features={self.weight.shape[1]}, out_features={self.weight.shape[0]}"


class Tanh(nn.Module):
    def forward(self, x):
        return spire.tanh(x)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = Affine(3, 4, seed=1)
        self.act = Tanh()
        self.fc2 = Affine(4, 2, seed=2)
        self.register_buffer("scale", spire.tensor([2.0], dtype=spire.float64))
        self.register_buffer("cache", spire.zeros(1), persistent=False)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x))) * self.scale


def names(pairs):
    return [k for k, _ in pairs]


def test_parameter_is_a_leaf_requiring_grad_sharing_memory():
    base = spire.tensor([1.0, 2.0])
    p = nn.Parameter(base)
    assert p.requires_grad and p.is_leaf
    assert not base.requires_grad
    assert np.shares_memory(np.asarray(p.detach()), np.asarray(base))


def test_subclass_registers_attributes():
    net = Net()
    assert names(net.named_parameters()) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert len(list(net.parameters())) == 4
    assert names(net.named_buffers()) == ["scale", "cache"]
    # PyTorch's order: a module's own parameters and buffers, then its children's.
    assert list(net.state_dict().keys()) == ["scale", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert names(net.named_children()) == ["fc1", "act", "fc2"]
    assert names(net.named_modules()) == ["", "fc1", "act", "fc2"]
    assert next(iter(net.modules())) is net
    assert net.fc1.plain == 3
    assert "fc1" in dir(net) and "weight" in dir(net.fc1)
    # Attribute reads go to the registry: the same tensor as named_parameters gives.
    w = dict(net.named_parameters())["fc1.weight"]
    assert np.array_equal(np.asarray(w.detach()), np.asarray(net.fc1.weight.detach()))
    assert net.get_submodule("fc2") is net.fc2
    # A tensor that does not require grad is a plain attribute, not a parameter.
    net.fc1.x0 = spire.zeros(2)
    assert names(net.fc1.named_parameters()) == ["weight", "bias"]
    # Deleting unregisters.
    del net.fc1.bias
    assert names(net.fc1.named_parameters()) == ["weight"]
    with pytest.raises(AttributeError, match="no attribute 'bias'"):
        net.fc1.bias


def test_child_modules_keep_python_identity():
    net = Net()
    fc1 = net.fc1
    assert net.fc1 is fc1
    assert list(net.children())[0] is fc1


def test_call_runs_forward_and_gradients_reach_parameters():
    lin = Affine(3, 2)
    x = spire.tensor(np.array([[1.0, 2, 3], [4, 5, 6]]))
    out = lin(x)
    np.testing.assert_allclose(np.asarray(out.detach()),
                               np.asarray(x) @ np.asarray(lin.weight.detach()).T, rtol=1e-12)
    out.sum().backward()
    np.testing.assert_allclose(np.asarray(lin.weight.grad), [[5, 7, 9], [5, 7, 9]])
    np.testing.assert_allclose(np.asarray(lin.bias.grad), [2, 2])
    lin.zero_grad()
    assert lin.weight.grad is None


def test_forward_with_keywords_and_missing_forward():
    class Scaled(nn.Module):
        def forward(self, x, *, factor=1.0):
            return x * factor

    assert float(Scaled()(spire.tensor(2.0), factor=3.0)) == 6.0
    with pytest.raises(ValueError, match="Empty defines no forward"):
        type("Empty", (nn.Module,), {})()(spire.ones(1))


def test_mixed_python_and_engine_modules():
    # A Python module inside an engine Sequential, and an engine Sequential inside a Python module.
    inner = nn.Sequential(Affine(3, 4, seed=3), Tanh())

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = inner
            self.head = Affine(4, 1, seed=4)

        def forward(self, x):
            return self.head(self.body(x))

    model = Outer()
    assert names(model.named_parameters()) == ["body.0.weight", "body.0.bias", "head.weight", "head.bias"]
    x = spire.tensor(np.linspace(-1, 1, 6).reshape(2, 3))
    a, h = inner[0], model.head
    want = np.tanh(np.asarray(x) @ np.asarray(a.weight.detach()).T) @ np.asarray(h.weight.detach()).T
    np.testing.assert_allclose(np.asarray(model(x).detach()), want, rtol=1e-12)
    model.eval()
    assert not inner.training and not inner[1].training and not model.head.training
    model.train()
    assert inner[0].training
    assert len(inner) == 2 and isinstance(inner[-1], Tanh) and len(inner[0:1]) == 1
    assert [type(m).__name__ for m in inner] == ["Affine", "Tanh"]


def test_module_list():
    layers = nn.ModuleList([Affine(2, 2, seed=i) for i in range(3)])
    layers.append(Tanh())
    assert len(layers) == 4
    assert names(layers.named_parameters())[:2] == ["0.weight", "0.bias"]
    assert len(list(layers.parameters())) == 6
    assert isinstance(layers[-1], Tanh)

    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = layers

    assert len(list(Stack().parameters())) == 6


def test_state_dict_round_trip_keeps_parameter_objects():
    src, dst = Net(), Net()
    with spire.no_grad():
        for p in src.parameters():
            p.set_data(p * 1.5 + 0.25)
    w_before = dst.fc1.weight
    result = dst.load_state_dict(src.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    for (k, a), (_, b) in zip(src.state_dict().items(), dst.state_dict().items()):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=k)
    # Rebound in place: a handle taken before the load sees the new values, still a parameter.
    np.testing.assert_array_equal(np.asarray(w_before.detach()), np.asarray(src.fc1.weight.detach()))
    assert w_before.requires_grad and w_before.is_leaf
    # NumPy arrays are accepted as values.
    sd = {k: np.asarray(v) * 0 for k, v in src.state_dict().items()}
    dst.load_state_dict(sd)
    assert float(dst.fc2.bias.detach().sum()) == 0.0


def test_load_state_dict_errors_name_keys():
    net = Net()
    old = np.asarray(net.fc1.weight.detach()).copy()
    sd = net.state_dict()
    del sd["fc2.bias"]
    sd["fc3.weight"] = spire.zeros((2, 2), dtype=spire.float64)
    sd["fc1.weight"] = spire.ones((4, 3), dtype=spire.float64)
    with pytest.raises(ValueError) as e:
        net.load_state_dict(sd)
    msg = str(e.value)
    assert 'Missing key(s) in state_dict: "fc2.bias"' in msg
    assert 'Unexpected key(s) in state_dict: "fc3.weight"' in msg
    np.testing.assert_array_equal(np.asarray(net.fc1.weight.detach()), old)

    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["fc2.bias"] and result.unexpected_keys == ["fc3.weight"]
    np.testing.assert_array_equal(np.asarray(net.fc1.weight.detach()), np.ones((4, 3)))

    bad = net.state_dict()
    bad["fc1.bias"] = spire.zeros(5, dtype=spire.float64)
    with pytest.raises(ValueError, match=r"size mismatch for fc1\.bias"):
        net.load_state_dict(bad, strict=False)
    with pytest.raises(TypeError, match="mapping"):
        net.load_state_dict([1, 2])


def test_assignment_errors():
    net = Net()
    with pytest.raises(TypeError, match="parameter 'weight'"):
        net.fc1.weight = spire.ones((4, 3), dtype=spire.float64) * 2  # not a leaf requiring grad
    with pytest.raises(TypeError, match="child module 'fc1'"):
        net.fc1 = 5
    net.fc1.bias = None
    assert names(net.fc1.named_parameters()) == ["weight"]

    class Early(nn.Module):
        def __init__(self):
            self.w = nn.Parameter(spire.ones(1))
            super().__init__()

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def test_train_eval_flags():
    net = Net()
    assert net.training
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    net.fc1.training = False
    assert not net.fc1.training and net.fc2.training


def test_repr():
    net = Net()
    assert repr(net) == ("Net(\n"
                         "  (fc1): Affine(in_features=3, out_features=4)\n"
                         "  (act): Tanh()\n"
                         "  (fc2): Affine(in_features=4, out_features=2)\n"
                         ")")
    assert repr(nn.Sequential(Tanh())) == "Sequential(\n  (0): Tanh()\n)"


def test_python_module_held_by_engine_stays_alive():
    seq = nn.Sequential()
    mod = Tanh()
    ref = weakref.ref(mod)
    seq.append(mod)
    del mod
    gc.collect()
    assert ref() is not None  # the engine-side Sequential keeps it
    x = spire.tensor([0.5])
    assert float(seq(x)) == pytest.approx(np.tanh(0.5))
    assert seq[0] is ref()
    del seq
    gc.collect()
    assert ref() is None  # and lets it go with the container


def test_dtype_conversion_keeps_parameter_objects():
    net = Net()
    w = net.fc1.weight
    assert net.float() is net
    assert w.dtype == spire.float32 and net.fc1.weight.dtype == spire.float32
    assert net.scale.dtype == spire.float32
    net.double()
    assert w.dtype == spire.float64


def test_optimizer_fits_least_squares_solution():
    # y = X a + b with noise: the trained Affine must reach the closed-form least-squares solution.
    rng = np.random.default_rng(0)
    X = rng.standard_normal((64, 3))
    y = X @ np.array([[1.5], [-2.0], [0.5]]) + 0.3 + 0.01 * rng.standard_normal((64, 1))
    A = np.hstack([X, np.ones((64, 1))])
    sol = np.linalg.lstsq(A, y, rcond=None)[0].ravel()

    model = nn.Sequential(Affine(3, 1, seed=5))
    opt = spire.optim.Adam(model.parameters(), lr=0.05)
    xs, ys = spire.tensor(X), spire.tensor(y)
    params_before = list(model.parameters())
    for _ in range(600):
        opt.zero_grad()
        loss = ((model(xs) - ys) ** 2).mean()
        loss.backward()
        opt.step()
    lin = model[0]
    got = np.concatenate([np.asarray(lin.weight.detach()).ravel(), np.asarray(lin.bias.detach())])
    np.testing.assert_allclose(got, sol, atol=1e-6)
    # The optimizer rebinds values: still the same parameter tensors, now holding the solution.
    for p, q in zip(params_before, model.parameters()):
        np.testing.assert_array_equal(np.asarray(p.detach()), np.asarray(q.detach()))


def test_lbfgs_on_module_parameters():
    rng = np.random.default_rng(1)
    X = rng.standard_normal((32, 2))
    y = X @ np.array([[0.7], [-1.2]]) - 0.4
    model = Affine(2, 1, seed=6)
    opt = spire.optim.LBFGS(model.parameters(), max_iter=100, tolerance_grad=1e-12, tolerance_change=1e-15,
                            line_search_fn="strong_wolfe")
    xs, ys = spire.tensor(X), spire.tensor(y)

    def closure():
        opt.zero_grad()
        loss = ((model(xs) - ys) ** 2).mean()
        loss.backward()
        return loss

    for _ in range(3):
        opt.step(closure)
    np.testing.assert_allclose(np.asarray(model.weight.detach()).ravel(), [0.7, -1.2], atol=1e-6)
    np.testing.assert_allclose(np.asarray(model.bias.detach()), [-0.4], atol=1e-6)


def test_engine_layers_inside_python_modules_and_back():
    class Net2(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(3, 8), Tanh())
            self.head = nn.Linear(8, 1)

        def forward(self, x):
            return self.head(self.body(x))

    net = Net2().double()
    assert names(net.named_parameters()) == ["body.0.weight", "body.0.bias", "head.weight", "head.bias"]
    # An engine layer keeps its own handle: assigning a parameter rebinds it in place.
    w = net.head.weight
    net.head.weight = nn.Parameter(spire.ones((1, 8), dtype=spire.float64))
    assert float(w.detach().sum()) == 8.0
    net.head.note = "plain attributes work on engine layers too"
    assert net.head.note.startswith("plain")
    x = spire.tensor(np.linspace(-1, 1, 15).reshape(5, 3))
    b = net.body[0]
    want = np.tanh(np.asarray(x) @ np.asarray(b.weight.detach()).T + np.asarray(b.bias.detach())).sum(1)
    np.testing.assert_allclose(np.asarray(net(x).detach()).ravel(),
                               want + float(net.head.bias.detach()), rtol=1e-12)


def test_state_dict_matches_torch():
    tn = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1)).double()
    sn = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1)).double()
    assert list(sn.state_dict().keys()) == list(tn.state_dict().keys())
    assert repr(sn) == repr(tn)
    sn.load_state_dict({k: v.numpy() for k, v in tn.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 3))
    np.testing.assert_allclose(np.asarray(sn(spire.tensor(x)).detach()),
                               tn(torch.from_numpy(x)).detach().numpy(), rtol=1e-12, atol=1e-15)


# ------------------------------------------------------------------------------------------------
# Parameter as a type (torch.nn.Parameter): what modules hand out is a Parameter, other tensors
# are not; it stays a handle to the module's one tensor.

def test_parameters_are_parameter_instances():
    net = Net()
    assert isinstance(net.fc1.weight, nn.Parameter) and isinstance(net.fc1.weight, spire.Tensor)
    assert all(isinstance(p, nn.Parameter) for p in net.parameters())
    assert all(isinstance(p, nn.Parameter) for _, p in net.named_parameters())
    lin = nn.Linear(3, 2)
    assert isinstance(lin.weight, nn.Parameter) and isinstance(lin.bias, nn.Parameter)
    # Plain tensors, results of ops on parameters, buffers and state_dict values are not.
    assert not isinstance(spire.ones(2, requires_grad=True), nn.Parameter)
    assert not isinstance(lin.weight * 2, nn.Parameter)
    assert not isinstance(lin.weight.detach(), nn.Parameter)
    assert not isinstance(net.scale, nn.Parameter)
    assert not any(isinstance(v, nn.Parameter) for v in net.state_dict().values())
    # repr as torch's.
    assert repr(lin.weight).startswith("Parameter containing:\ntensor(")
    assert str(nn.Parameter(spire.ones(1))).startswith("Parameter containing:")
    # Same tensor behind every Parameter object: an optimizer step is seen through all of them.
    w1, w2 = lin.weight, next(iter(lin.parameters()))
    opt = spire.optim.SGD(lin.parameters(), lr=0.5)
    lin(spire.ones((1, 3))).sum().backward()
    opt.step()
    np.testing.assert_array_equal(np.asarray(w1.detach()), np.asarray(w2.detach()))
    np.testing.assert_allclose(np.asarray(w1.detach()), np.asarray(lin.weight.detach()))


def test_parameter_constructor_and_frozen_parameters():
    assert nn.Parameter().shape == (0,)
    p = nn.Parameter(spire.ones(2), requires_grad=False)
    assert isinstance(p, nn.Parameter) and not p.requires_grad

    class Frozen(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(spire.ones(2), requires_grad=False)  # still a parameter, as torch

        def forward(self, x):
            return x * self.w

    m = Frozen()
    assert names(m.named_parameters()) == ["w"] and not m.w.requires_grad
    assert torch.nn.Parameter(torch.ones(2), requires_grad=False).requires_grad is False
    # A frozen Parameter assigned to an engine layer's parameter freezes it in place.
    lin = nn.Linear(2, 2)
    w = lin.weight
    lin.weight = nn.Parameter(spire.zeros((2, 2)), requires_grad=False)
    assert not w.requires_grad and np.all(np.asarray(lin.weight.detach()) == 0)
    # A Parameter assigned where a buffer was replaces the buffer (torch's rule).
    net = Net()
    net.scale = nn.Parameter(spire.tensor([3.0], dtype=spire.float64))
    assert "scale" in names(net.named_parameters()) and "scale" not in names(net.named_buffers())
    import copy
    import pickle
    q = copy.deepcopy(lin.bias)
    assert isinstance(q, nn.Parameter) and q.requires_grad
    r = pickle.loads(pickle.dumps(lin.bias))
    assert isinstance(r, nn.Parameter)
    np.testing.assert_array_equal(np.asarray(r.detach()), np.asarray(lin.bias.detach()))


# ------------------------------------------------------------------------------------------------
# Hooks, against torch: the same model in both frameworks records the same events; replacements,
# removal, and full backward hooks' gradients.

class TorchAffine(torch.nn.Module):
    def __init__(self, a):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.tensor(np.asarray(a.weight.detach())))
        self.bias = torch.nn.Parameter(torch.tensor(np.asarray(a.bias.detach())))

    def forward(self, x):
        return x @ self.weight.T + self.bias


def _models():
    """A Python parent calling children (one an engine Sequential holding an engine Linear and a
    Python module), in spire and torch with the same weights."""
    class SNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = Affine(3, 4, seed=5)
            self.seq = nn.Sequential(nn.Linear(4, 4, dtype=spire.float64), Tanh(), Affine(4, 2, seed=6))

        def forward(self, x):
            return self.seq(self.fc(x))

    class TNet(torch.nn.Module):
        def __init__(self, s):
            super().__init__()
            self.fc = TorchAffine(s.fc)
            lin = torch.nn.Linear(4, 4, dtype=torch.float64)
            lin.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in s.seq[0].state_dict().items()})
            self.seq = torch.nn.Sequential(lin, torch.nn.Tanh(), TorchAffine(s.seq[2]))

        def forward(self, x):
            return self.seq(self.fc(x))

    s = SNet()
    return s, TNet(s)


def _install(model, log):
    handles = []
    for name, m in model.named_modules():
        handles.append(m.register_forward_pre_hook(lambda mod, args, n=name: log.append(("pre", n))))
        handles.append(m.register_forward_hook(lambda mod, args, out, n=name: log.append(("fwd", n))))
        handles.append(m.register_full_backward_hook(lambda mod, gi, go, n=name: log.append(("bwd", n))))
    return handles


def test_hooks_fire_in_torchs_order_through_python_and_engine_parents():
    s, t = _models()
    x = np.random.default_rng(0).standard_normal((2, 3))
    slog, tlog = [], []
    sh, th = _install(s, slog), _install(t, tlog)
    sx = spire.tensor(x, requires_grad=True)
    tx = torch.tensor(x, requires_grad=True)
    s(sx).sum().backward()
    t(tx).sum().backward()
    assert slog == tlog
    assert ("fwd", "seq.0") in slog and ("bwd", "seq.2") in slog  # engine layer, Python module in Sequential
    np.testing.assert_allclose(np.asarray(sx.grad), tx.grad.numpy(), rtol=1e-12)
    for h in sh:
        h.remove()
    slog.clear()
    s(sx).sum().backward()
    assert slog == []


def test_forward_hooks_replace_inputs_and_outputs_and_remove():
    lin = nn.Linear(3, 2, dtype=spire.float64)
    x = spire.tensor(np.arange(3.0))
    base = np.asarray(lin(x).detach())
    order = []

    def pre(m, args):
        order.append("pre")
        assert m is lin and isinstance(args, tuple)
        return args[0] * 2  # not a tuple: one argument

    def fwd(m, args, out):
        order.append("fwd")
        np.testing.assert_array_equal(np.asarray(args[0]), 2 * np.arange(3.0))
        return out + 1

    def first(m, args):
        order.append("first")

    h1 = lin.register_forward_pre_hook(pre)
    h2 = lin.register_forward_hook(fwd)
    lin.register_forward_pre_hook(first, prepend=True)
    want = np.asarray(lin.forward(x * 2).detach()) + 1
    np.testing.assert_allclose(np.asarray(lin(x).detach()), want)
    assert order == ["first", "pre", "fwd"]
    h1.remove(), h2.remove(), h2.remove()
    np.testing.assert_allclose(np.asarray(lin(x).detach()), base)
    # Handles are context managers; keyword arguments reach forward untouched.

    class Scaled(nn.Module):
        def forward(self, x, *, factor=1.0):
            return x * factor

    m = Scaled()
    with m.register_forward_hook(lambda mod, args, out: (out, "extra")):
        out = m(spire.tensor(2.0), factor=3.0)
        assert isinstance(out, tuple) and float(out[0]) == 6.0 and out[1] == "extra"
    assert float(m(spire.tensor(2.0), factor=3.0)) == 6.0
    # A hook on a child inside an engine Sequential replaces what the container passes on.
    seq = nn.Sequential(nn.Linear(3, 3, dtype=spire.float64), Tanh())
    seq[0].register_forward_hook(lambda mod, args, out: out * 0)
    assert np.all(np.asarray(seq(x).detach()) == 0)
    with pytest.raises(TypeError, match="must be callable"):
        lin.register_forward_hook(3)


@pytest.mark.filterwarnings("ignore:Full backward hook is firing")
def test_full_backward_hook_gradients_match_torch():
    s = nn.Linear(3, 2, dtype=spire.float64)
    t = torch.nn.Linear(3, 2, dtype=torch.float64)
    t.load_state_dict({k: torch.tensor(np.asarray(v)) for k, v in s.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((4, 3))
    probe = np.random.default_rng(2).standard_normal((4, 2))
    seen = {}

    def hook(tag):
        def f(m, gi, go):
            seen[tag] = ([None if g is None else np.asarray(g) for g in gi], [np.asarray(g) for g in go])
            return tuple(None if g is None else g * 3 for g in gi)
        return f

    s.register_full_backward_hook(hook("s"))
    t.register_full_backward_hook(hook("t"))
    sx, tx = spire.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    spire.sum(s(sx) * spire.tensor(probe)).backward()
    (t(tx) * torch.tensor(probe)).sum().backward()
    (sgi, sgo), (tgi, tgo) = seen["s"], seen["t"]
    np.testing.assert_allclose(sgo[0], tgo[0], rtol=1e-12)
    np.testing.assert_allclose(sgi[0], tgi[0], rtol=1e-12)
    np.testing.assert_allclose(np.asarray(sx.grad), tx.grad.numpy(), rtol=1e-12)  # both scaled by 3
    np.testing.assert_allclose(np.asarray(s.weight.grad), t.weight.grad.numpy(), rtol=1e-12)
    # An input that needs no gradient: grad_input is (None,), as torch.
    seen.clear()
    spire.sum(s(spire.tensor(x)) * spire.tensor(probe)).backward()
    (t(torch.tensor(x)) * torch.tensor(probe)).sum().backward()
    assert seen["s"][0] == [None] and seen["t"][0] == [None]
