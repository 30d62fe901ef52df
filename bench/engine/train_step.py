"""The training-step cases: one full step (zero the gradients, forward, cross-entropy loss, backward,
Adam update) of a small classifier, in Spire (spire.nn layers, spire.optim.Adam,
spire.nn.functional.cross_entropy) and PyTorch (torch.nn, torch.optim.Adam,
torch.nn.functional.cross_entropy). Like cases.py, each builder returns (fn, result) and runs inside
its framework's worker process.

Models (float32, weights drawn once with NumPy and loaded into both frameworks):
  mlp: 784 -> 256 -> 256 -> 10, ReLU between, batch 128;
  cnn: 1x28x28 -> Conv 16 3x3 -> ReLU -> Conv 32 3x3 stride 2 -> ReLU -> flatten -> Linear 10, batch 64.
result() runs CHECK_STEPS steps from those weights and returns the losses or the final weights, so
the check covers forward, loss, backward and the optimizer update, not the forward alone."""
import math

import numpy as np

MODELS = {"mlp": {"batch": 128, "doc": "MLP 784→256→256→10, ReLU, batch 128"},
          "cnn": {"batch": 64, "doc": "CNN 1×28×28 → Conv 16 3×3 → ReLU → Conv 32 3×3 stride 2 → "
                                     "ReLU → flatten (32×12×12) → Linear 10, batch 64"}}
LR = 1e-3
CHECK_STEPS = 3


def _layers(model):
    """[(kind, weight shape, kwargs)] in forward order; bias shape is weight.shape[0]."""
    if model == "mlp":
        return [("linear", (256, 784), {}), ("relu", None, {}), ("linear", (256, 256), {}),
                ("relu", None, {}), ("linear", (10, 256), {})]
    if model == "cnn":
        return [("conv", (16, 1, 3, 3), {"stride": 1}), ("relu", None, {}),
                ("conv", (32, 16, 3, 3), {"stride": 2}), ("relu", None, {}), ("flatten", None, {}),
                ("linear", (10, 32 * 12 * 12), {})]
    raise ValueError(model)


def train_data(model):
    """Inputs, targets and the initial weights: PyTorch's default initialisation (uniform in
    +-1/sqrt(fan_in) for weights and biases, which is what kaiming_uniform(a=sqrt(5)) gives)."""
    rng = np.random.default_rng(7)
    batch = MODELS[model]["batch"]
    x = rng.standard_normal((batch, 784) if model == "mlp" else (batch, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int64)
    weights = []
    for kind, shape, _ in _layers(model):
        if shape is None:
            continue
        bound = 1.0 / math.sqrt(int(np.prod(shape[1:])))
        weights.append(rng.uniform(-bound, bound, shape).astype(np.float32))
        weights.append(rng.uniform(-bound, bound, shape[0]).astype(np.float32))
    return x, y, weights


def _build(fw, model):
    """(module, optimizer, x, y, loss_fn, to_numpy) with the shared initial weights."""
    x, y, weights = train_data(model)
    if fw == "spire":
        import spire as m
        nn, F = m.nn, m.nn.functional

        def tensor(a):
            return m.from_numpy(np.ascontiguousarray(a).copy())

        to_numpy = np.asarray
    elif fw == "torch":
        import torch as m
        nn, F = m.nn, m.nn.functional

        def tensor(a):
            return m.from_numpy(np.ascontiguousarray(a).copy())

        to_numpy = lambda t: t.detach().numpy()  # noqa: E731
    else:
        raise ValueError(fw)
    layers = []
    for kind, shape, kw in _layers(model):
        if kind == "linear":
            layers.append(nn.Linear(shape[1], shape[0]))
        elif kind == "conv":
            layers.append(nn.Conv2d(shape[1], shape[0], shape[2], stride=kw["stride"]))
        elif kind == "relu":
            layers.append(nn.ReLU())
        elif kind == "flatten":
            layers.append(nn.Flatten())
    net = nn.Sequential(*layers)
    names = [n for n, _ in net.named_parameters()]
    assert len(names) == len(weights), (names, len(weights))
    net.load_state_dict({n: tensor(w) for n, w in zip(names, weights)})
    forward = net

    opt = m.optim.Adam(net.parameters(), lr=LR)
    tx, ty = tensor(x), tensor(y)
    return net, opt, forward, tx, ty, F.cross_entropy, to_numpy


def train_step(fw, model, check="losses"):
    """check: what result() returns -- "losses" (the CHECK_STEPS losses) or "weights" (the
    parameters after CHECK_STEPS steps). Separate, because they need different tolerances: Adam's
    first update is about lr * sign(g), so a gradient entry at rounding level moves its weight by up
    to 2 * lr whichever framework rounds it."""
    _, opt, forward, x, y, ce, _ = _build(fw, model)

    def step():
        opt.zero_grad()
        loss = ce(forward(x), y)
        loss.backward()
        opt.step()
        return loss

    def result():
        net2, opt2, fwd2, x2, y2, ce2, to_np2 = _build(fw, model)
        losses = []
        for _ in range(CHECK_STEPS):
            opt2.zero_grad()
            loss = ce2(fwd2(x2), y2)
            loss.backward()
            opt2.step()
            losses.append(to_np2(loss).reshape(1))
        return losses if check == "losses" else [to_np2(p) for p in net2.parameters()]

    return step, result
