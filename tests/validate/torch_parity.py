"""Parity with PyTorch (issue 4), in float64 with the weights copied from torch into spire.

1. Training: an MLP (Linear + Tanh/ReLU, MSE loss) and a small CNN (Conv2d, ReLU, MaxPool2d, Conv2d,
   Linear, cross-entropy) trained for 100 full-batch
   steps on fixed random data by SGD (momentum; Nesterov with weight decay), Adam and AdamW from
   spire.optim and torch.optim: the loss curves agree to 1e-6 relative at every step, and so do the
   final parameters.
2. Layers: every spire.nn layer that torch has (Linear, Conv1d/2d/3d, ConvTranspose1d/2d/3d,
   LayerNorm, BatchNorm1d/2d/3d in train and eval mode, GroupNorm, Embedding, MultiheadAttention,
   TransformerEncoderLayer, the activations, max/average/adaptive pooling, Upsample) and the losses:
   outputs, input gradients and parameter gradients (of a fixed random cotangent) agree to 1e-10.

Relative differences are normwise: max|spire - torch| / max|torch|, so that entries near zero do not
turn rounding into large ratios. One "figure:" line per comparison; exit 1 if any fails.
"""
import sys

import numpy as np

try:
    import torch
except ImportError:  # the validation suite needs the reference; say how to get it
    print("torch_parity: PyTorch is not importable; install the reference peers with "
          "bench/engine/install-peers.sh (PyTorch from PyPI) and run again", file=sys.stderr)
    sys.exit(2)

import spire
import spire.nn as nn
import spire.nn.functional as F

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
D = dict(dtype=torch.float64)
SD = dict(dtype=spire.float64)
LAYER_TOL = 1e-10
CURVE_TOL = 1e-6
STEPS = 100

results = []  # (what, value, tolerance)


def report(what, value, tol):
    ok = bool(np.isfinite(value) and value <= tol)
    results.append((what, value, tol, ok))
    print(f"figure: torch parity {what}: max rel diff {value:.3e} (reference 0, tolerance {tol:.0e}) "
          f"{'ok' if ok else 'FAILED'}", flush=True)


def npy(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t)


def S(a, requires_grad=False):
    """torch tensor or NumPy array -> a spire tensor holding a copy."""
    return spire.tensor(np.array(npy(a)), requires_grad=requires_grad)


def rel(a, b):
    """Normwise relative difference of spire result a from torch reference b (inf on shape mismatch)."""
    a, b = npy(a), npy(b)
    if a.shape != b.shape:
        print(f"  shape mismatch: spire {a.shape} vs torch {b.shape}")
        return float("inf")
    if a.size == 0:
        return 0.0
    a, b = a.astype(np.float64), b.astype(np.float64)
    scale = np.max(np.abs(b))
    return float(np.max(np.abs(a - b)) / (scale if scale > 0 else 1.0))


def copy_weights(tm, sm):
    """torch state_dict -> spire module (parameters and buffers); the key sets must agree."""
    tkeys, skeys = list(tm.state_dict()), list(sm.state_dict())
    if sorted(tkeys) != sorted(skeys):
        raise AssertionError(f"state_dict keys differ: torch {tkeys}, spire {skeys}")
    sm.load_state_dict({k: np.array(npy(v)) for k, v in tm.state_dict().items()})


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


# ---- 2. layers ----------------------------------------------------------------------------------

def compare_layer(name, tm, sm, inputs, kw=None, out_index=None, grad=True, copy=True):
    """Runs both modules on the same inputs; reports the output and, through a random cotangent, the
    input and parameter gradients (the maximum over all of them)."""
    kw = kw or {}
    if copy:
        copy_weights(tm, sm)
    tm.zero_grad()
    sm.zero_grad()
    floating = [np.issubdtype(x.dtype, np.floating) for x in inputs]
    tx = [torch.tensor(x, requires_grad=grad and f) for x, f in zip(inputs, floating)]
    sx = [S(x, requires_grad=grad and f) for x, f in zip(inputs, floating)]
    ty = tm(*tx, **{k: torch.tensor(v) for k, v in kw.items() if not isinstance(v, (bool, int, float, str))},
            **{k: v for k, v in kw.items() if isinstance(v, (bool, int, float, str))})
    sy = sm(*sx, **{k: S(v) for k, v in kw.items() if not isinstance(v, (bool, int, float, str))},
            **{k: v for k, v in kw.items() if isinstance(v, (bool, int, float, str))})
    if out_index is not None:
        ty, sy = ty[out_index], sy[out_index]
    report(f"{name} output", rel(sy, ty), LAYER_TOL)
    if not grad:
        return
    probe = rnd(*ty.shape, seed=99)
    (ty * torch.tensor(probe)).sum().backward()
    spire.sum(sy * S(probe)).backward()
    worst = 0.0
    for t, s in zip(tx, sx):
        if t.requires_grad:
            worst = max(worst, rel(s.grad, t.grad))
    sp = dict(sm.named_parameters())
    for pname, p in tm.named_parameters():
        if p.grad is not None:
            if sp[pname].grad is None:
                print(f"  {name}: spire has no gradient for {pname}")
                worst = float("inf")
            else:
                worst = max(worst, rel(sp[pname].grad, p.grad))
    report(f"{name} gradients", worst, LAYER_TOL)


def compare_buffers(name, tm, sm):
    """Batch norm's running statistics after the training-mode call."""
    sd = sm.state_dict()
    worst = max(rel(sd[k], v) for k, v in tm.state_dict().items())
    report(f"{name} running stats", worst, LAYER_TOL)


def layer_checks():
    T, N_ = torch.nn, nn
    cases = [
        ("Linear", T.Linear(5, 3, **D), N_.Linear(5, 3, **SD), [(4, 2, 5)]),
        ("Linear no bias", T.Linear(5, 3, bias=False, **D), N_.Linear(5, 3, bias=False, **SD), [(4, 5)]),
        ("Conv1d", T.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, **D),
         N_.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, **SD), [(2, 4, 11)]),
        ("Conv2d", T.Conv2d(3, 4, (3, 2), stride=(1, 2), padding=(1, 0), **D),
         N_.Conv2d(3, 4, (3, 2), stride=(1, 2), padding=(1, 0), **SD), [(2, 3, 7, 6)]),
        ("Conv2d circular", T.Conv2d(3, 4, (3, 2), padding=(1, 2), padding_mode="circular", **D),
         N_.Conv2d(3, 4, (3, 2), padding=(1, 2), padding_mode="circular", **SD), [(2, 3, 6, 5)]),
        ("Conv2d reflect", T.Conv2d(3, 4, 3, padding=1, padding_mode="reflect", bias=False, **D),
         N_.Conv2d(3, 4, 3, padding=1, padding_mode="reflect", bias=False, **SD), [(1, 3, 5, 5)]),
        ("Conv1d same even kernel", T.Conv1d(2, 3, 4, padding="same", dilation=1, **D),
         N_.Conv1d(2, 3, 4, padding="same", dilation=1, **SD), [(2, 2, 9)]),
        ("Conv2d same replicate", T.Conv2d(3, 4, (2, 3), padding="same", dilation=(3, 1), padding_mode="replicate", **D),
         N_.Conv2d(3, 4, (2, 3), padding="same", dilation=(3, 1), padding_mode="replicate", **SD), [(2, 3, 7, 6)]),
        ("Conv3d valid", T.Conv3d(2, 3, 2, padding="valid", **D), N_.Conv3d(2, 3, 2, padding="valid", **SD),
         [(1, 2, 4, 5, 3)]),
        ("Conv3d", T.Conv3d(2, 3, 2, stride=(1, 2, 1), padding=1, **D),
         N_.Conv3d(2, 3, 2, stride=(1, 2, 1), padding=1, **SD), [(2, 2, 4, 5, 3)]),
        ("ConvTranspose1d", T.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, **D),
         N_.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, **SD), [(2, 4, 5)]),
        ("ConvTranspose2d", T.ConvTranspose2d(3, 2, (2, 3), stride=(2, 1), dilation=(1, 2), **D),
         N_.ConvTranspose2d(3, 2, (2, 3), stride=(2, 1), dilation=(1, 2), **SD), [(2, 3, 4, 3)]),
        ("ConvTranspose3d", T.ConvTranspose3d(2, 3, 2, stride=2, padding=1, **D),
         N_.ConvTranspose3d(2, 3, 2, stride=2, padding=1, **SD), [(1, 2, 3, 3, 2)]),
        ("LayerNorm", T.LayerNorm((3, 4), **D), N_.LayerNorm((3, 4), **SD), [(2, 3, 4)]),
        ("LayerNorm no affine", T.LayerNorm(6, elementwise_affine=False, **D),
         N_.LayerNorm(6, elementwise_affine=False, **SD), [(4, 6)]),
        ("GroupNorm", T.GroupNorm(2, 6, **D), N_.GroupNorm(2, 6, **SD), [(3, 6, 4)]),
        ("GroupNorm 2d", T.GroupNorm(3, 6, eps=1e-3, **D), N_.GroupNorm(3, 6, eps=1e-3, **SD), [(2, 6, 3, 2)]),
        ("MaxPool1d", T.MaxPool1d(3, 2, 1, ceil_mode=True), N_.MaxPool1d(3, 2, 1, ceil_mode=True), [(2, 3, 10)]),
        ("MaxPool2d", T.MaxPool2d((3, 2), (2, 1), (1, 0), dilation=(1, 2)),
         N_.MaxPool2d((3, 2), (2, 1), (1, 0), dilation=(1, 2)), [(2, 3, 7, 6)]),
        ("MaxPool3d", T.MaxPool3d(2, padding=1), N_.MaxPool3d(2, padding=1), [(1, 2, 4, 5, 3)]),
        ("AvgPool1d", T.AvgPool1d(4, 2, 2, ceil_mode=True, count_include_pad=False),
         N_.AvgPool1d(4, 2, 2, ceil_mode=True, count_include_pad=False), [(2, 3, 11)]),
        ("AvgPool2d", T.AvgPool2d(3, 2, 1, divisor_override=4), N_.AvgPool2d(3, 2, 1, divisor_override=4),
         [(2, 3, 7, 6)]),
        ("AvgPool3d", T.AvgPool3d((1, 2, 2), ceil_mode=True), N_.AvgPool3d((1, 2, 2), ceil_mode=True),
         [(1, 2, 4, 5, 3)]),
        ("AdaptiveAvgPool1d", T.AdaptiveAvgPool1d(4), N_.AdaptiveAvgPool1d(4), [(2, 3, 10)]),
        ("AdaptiveAvgPool2d", T.AdaptiveAvgPool2d((None, 3)), N_.AdaptiveAvgPool2d((None, 3)), [(2, 3, 7, 5)]),
        ("AdaptiveAvgPool3d", T.AdaptiveAvgPool3d(2), N_.AdaptiveAvgPool3d(2), [(1, 2, 5, 4, 3)]),
        ("AdaptiveMaxPool1d", T.AdaptiveMaxPool1d(3), N_.AdaptiveMaxPool1d(3), [(2, 3, 10)]),
        ("AdaptiveMaxPool2d", T.AdaptiveMaxPool2d((4, 3)), N_.AdaptiveMaxPool2d((4, 3)), [(2, 3, 7, 5)]),
        ("AdaptiveMaxPool3d", T.AdaptiveMaxPool3d((2, 3, 2)), N_.AdaptiveMaxPool3d((2, 3, 2)), [(1, 2, 5, 4, 3)]),
        ("Upsample nearest", T.Upsample(scale_factor=2), N_.Upsample(scale_factor=2), [(2, 3, 4, 5)]),
        ("Upsample bilinear", T.Upsample(size=(7, 3), mode="bilinear", align_corners=True),
         N_.Upsample(size=(7, 3), mode="bilinear", align_corners=True), [(2, 3, 4, 5)]),
        ("Upsample trilinear", T.Upsample(scale_factor=1.5, mode="trilinear"),
         N_.Upsample(scale_factor=1.5, mode="trilinear"), [(1, 2, 3, 4, 5)]),
        ("ReLU", T.ReLU(), N_.ReLU(), [(3, 7)]),
        ("GELU", T.GELU(), N_.GELU(), [(3, 7)]),
        ("GELU tanh", T.GELU("tanh"), N_.GELU("tanh"), [(3, 7)]),
        ("SiLU", T.SiLU(), N_.SiLU(), [(3, 7)]),
        ("Tanh", T.Tanh(), N_.Tanh(), [(3, 7)]),
        ("Sigmoid", T.Sigmoid(), N_.Sigmoid(), [(3, 7)]),
        ("Softplus", T.Softplus(beta=2.0, threshold=1.5), N_.Softplus(beta=2.0, threshold=1.5), [(3, 7)]),
        ("LeakyReLU", T.LeakyReLU(0.2), N_.LeakyReLU(0.2), [(3, 7)]),
        ("ELU", T.ELU(0.7), N_.ELU(0.7), [(3, 7)]),
    ]
    for name, tm, sm, shapes in cases:
        compare_layer(name, tm, sm, [rnd(*s, seed=i + 1) for i, s in enumerate(shapes)])


def batch_norm_checks():
    T, N_ = torch.nn, nn
    # Batch norm: training mode (batch statistics, running statistics updated), a second training
    # step, then eval mode (running statistics used).
    for name, tm, sm, shape in [
        ("BatchNorm1d", T.BatchNorm1d(3, **D), N_.BatchNorm1d(3, **SD), (5, 3, 4)),
        ("BatchNorm1d 2-D input", T.BatchNorm1d(4, momentum=0.3, **D), N_.BatchNorm1d(4, momentum=0.3, **SD), (6, 4)),
        ("BatchNorm2d", T.BatchNorm2d(3, **D), N_.BatchNorm2d(3, **SD), (2, 3, 4, 2)),
        ("BatchNorm2d cumulative", T.BatchNorm2d(3, momentum=None, **D), N_.BatchNorm2d(3, momentum=None, **SD),
         (2, 3, 4, 2)),
        ("BatchNorm3d", T.BatchNorm3d(2, **D), N_.BatchNorm3d(2, **SD), (2, 2, 3, 2, 2)),
    ]:
        with torch.no_grad():  # non-trivial affine parameters
            tm.weight.copy_(torch.tensor(rnd(tm.num_features, seed=7)))
            tm.bias.copy_(torch.tensor(rnd(tm.num_features, seed=8)))
        x = rnd(*shape, seed=3)
        compare_layer(f"{name} train", tm, sm, [x])
        compare_buffers(f"{name} train", tm, sm)
        compare_layer(f"{name} train step 2", tm, sm, [2 * x + 1], copy=False)
        compare_buffers(f"{name} train step 2", tm, sm)
        tm.eval(), sm.eval()
        compare_layer(f"{name} eval", tm, sm, [x - 0.5], copy=False)

    # Embedding (integer input: parameter gradient only), with a padding row that gets no gradient.
    for name, tm, sm in [("Embedding", T.Embedding(7, 3, **D), N_.Embedding(7, 3, **SD)),
                         ("Embedding padding_idx", T.Embedding(7, 3, padding_idx=2, **D),
                          N_.Embedding(7, 3, padding_idx=2, **SD))]:
        compare_layer(name, tm, sm, [np.array([[0, 2, 6], [2, 1, 1]], dtype=np.int64)])


def attention_checks():
    T, N_ = torch.nn, nn
    # Multi-head attention: masks of each kind, both layouts, attention weights too.
    for bf in (False, True):
        tm = T.MultiheadAttention(8, 2, batch_first=bf, **D)
        sm = N_.MultiheadAttention(8, 2, batch_first=bf, **SD)
        L, S_, Nb = 4, 5, 3
        shp = (lambda t, n: (n, t, 8)) if bf else (lambda t, n: (t, n, 8))
        q, k, v = rnd(*shp(L, Nb), seed=1), rnd(*shp(S_, Nb), seed=2), rnd(*shp(S_, Nb), seed=3)
        kpm = np.zeros((Nb, S_), dtype=bool)
        kpm[0, -2:] = True
        bool_mask = np.triu(np.ones((L, S_), dtype=bool), 2)
        tag = "batch_first" if bf else "seq_first"
        for kname, kw in [("", {}), (" key_padding_mask", {"key_padding_mask": kpm}),
                          (" bool attn_mask", {"attn_mask": bool_mask}),
                          (" float attn_mask", {"attn_mask": rnd(L, S_, seed=4), "average_attn_weights": False}),
                          (" both masks", {"key_padding_mask": kpm, "attn_mask": bool_mask})]:
            compare_layer(f"MultiheadAttention {tag}{kname}", tm, sm, [q, k, v], kw=kw, out_index=0)
            compare_layer(f"MultiheadAttention {tag}{kname} weights", tm, sm, [q, k, v], kw=kw, out_index=1,
                          grad=False)
    tm, sm = T.MultiheadAttention(6, 3, bias=False, **D), N_.MultiheadAttention(6, 3, bias=False, **SD)
    compare_layer("MultiheadAttention no bias", tm, sm, [rnd(4, 2, 6, seed=1), rnd(3, 2, 6, seed=2),
                                                         rnd(3, 2, 6, seed=3)], out_index=0)
    # kdim/vdim (separate q/k/v projection weights, loaded from torch's state_dict), add_bias_kv,
    # add_zero_attn.
    for opts in [dict(kdim=5, vdim=3), dict(kdim=4, vdim=7, add_bias_kv=True, add_zero_attn=True)]:
        tm, sm = T.MultiheadAttention(6, 3, **opts, **D), N_.MultiheadAttention(6, 3, **opts, **SD)
        tag = ", ".join(f"{k}={v}" for k, v in opts.items())
        kpm = np.zeros((2, 3), dtype=bool)
        kpm[1, -1] = True
        compare_layer(f"MultiheadAttention {tag}", tm, sm, [rnd(4, 2, 6, seed=1), rnd(3, 2, opts["kdim"], seed=2),
                                                           rnd(3, 2, opts["vdim"], seed=3)],
                      kw={"key_padding_mask": kpm}, out_index=0)


def transformer_checks():
    T, N_ = torch.nn, nn

    # Transformer encoder layer: post- and pre-norm, relu and gelu; eval mode (dropout off) and train
    # mode with dropout 0 (the same arithmetic, but through the training paths).
    for nf, act in [(False, "relu"), (True, "gelu")]:
        for mode, p in [("eval", 0.1), ("train", 0.0)]:
            tm = T.TransformerEncoderLayer(8, 2, 16, dropout=p, activation=act, norm_first=nf, batch_first=True, **D)
            sm = N_.TransformerEncoderLayer(8, 2, 16, dropout=p, activation=act, norm_first=nf, batch_first=True,
                                            **SD)
            if mode == "eval":
                tm.eval(), sm.eval()
            name = f"TransformerEncoderLayer {'pre' if nf else 'post'}-norm {act} {mode}"
            x = rnd(3, 5, 8)
            compare_layer(name, tm, sm, [x])
            kpm = np.zeros((3, 5), dtype=bool)
            kpm[1, 3:] = True
            compare_layer(name + " padding mask", tm, sm, [x], kw={"src_key_padding_mask": kpm}, copy=False)


def loss_checks():
    """The losses: values and input gradients."""
    tF = torch.nn.functional
    x, y = rnd(6, 4, seed=1), rnd(6, 4, seed=2)
    logits = rnd(6, 5, seed=3)
    labels = np.array([0, 4, 2, 2, 1, 3], dtype=np.int64)
    probs = 1 / (1 + np.exp(-x))
    targets01 = np.random.default_rng(5).uniform(size=(6, 4))
    cases = [
        ("mse_loss", lambda a: tF.mse_loss(a, torch.tensor(y)), lambda a: F.mse_loss(a, S(y)), x),
        ("l1_loss sum", lambda a: tF.l1_loss(a, torch.tensor(y), reduction="sum"),
         lambda a: F.l1_loss(a, S(y), reduction="sum"), x),
        ("huber_loss", lambda a: tF.huber_loss(a, torch.tensor(y), delta=0.7),
         lambda a: F.huber_loss(a, S(y), delta=0.7), x),
        ("cross_entropy", lambda a: tF.cross_entropy(a, torch.tensor(labels)),
         lambda a: F.cross_entropy(a, S(labels)), logits),
        ("cross_entropy label_smoothing", lambda a: tF.cross_entropy(a, torch.tensor(labels), label_smoothing=0.1),
         lambda a: F.cross_entropy(a, S(labels), label_smoothing=0.1), logits),
        ("binary_cross_entropy", lambda a: tF.binary_cross_entropy(a, torch.tensor(targets01)),
         lambda a: F.binary_cross_entropy(a, S(targets01)), probs),
        ("binary_cross_entropy_with_logits", lambda a: tF.binary_cross_entropy_with_logits(a, torch.tensor(targets01)),
         lambda a: F.binary_cross_entropy_with_logits(a, S(targets01)), x),
    ]
    for name, tf, sf, inp in cases:
        ta, sa = torch.tensor(inp, requires_grad=True), S(inp, requires_grad=True)
        tl, sl = tf(ta), sf(sa)
        report(f"loss {name} value", rel(sl, tl), LAYER_TOL)
        tl.backward()
        sl.backward()
        report(f"loss {name} gradient", rel(sa.grad, ta.grad), LAYER_TOL)


# ---- 1. training curves -------------------------------------------------------------------------

class TorchCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 4, 3, padding=1, **D)
        self.pool = torch.nn.MaxPool2d(2)
        self.conv2 = torch.nn.Conv2d(4, 8, 3, padding=1, **D)
        self.fc = torch.nn.Linear(8 * 4 * 4, 3, **D)

    def forward(self, x):
        h = torch.relu(self.conv2(self.pool(torch.relu(self.conv1(x)))))
        return self.fc(h.reshape(h.shape[0], -1))


class SpireCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1, **SD)
        self.pool = nn.MaxPool2d(2)
        self.conv2 = nn.Conv2d(4, 8, 3, padding=1, **SD)
        self.fc = nn.Linear(8 * 4 * 4, 3, **SD)

    def forward(self, x):
        h = F.relu(self.conv2(self.pool(F.relu(self.conv1(x)))))
        return self.fc(h.reshape(h.shape[0], -1))


def make_mlp():
    tm = torch.nn.Sequential(torch.nn.Linear(8, 32, **D), torch.nn.Tanh(), torch.nn.Linear(32, 32, **D),
                             torch.nn.ReLU(), torch.nn.Linear(32, 4, **D))
    sm = nn.Sequential(nn.Linear(8, 32, **SD), nn.Tanh(), nn.Linear(32, 32, **SD), nn.ReLU(), nn.Linear(32, 4, **SD))
    x, y = rnd(64, 8, seed=11), rnd(64, 4, seed=12)
    return tm, sm, (torch.tensor(x), torch.tensor(y)), (S(x), S(y)), torch.nn.functional.mse_loss, F.mse_loss


def make_cnn():
    x = rnd(32, 1, 8, 8, seed=21)
    y = np.random.default_rng(22).integers(0, 3, size=32).astype(np.int64)
    return (TorchCNN(), SpireCNN(), (torch.tensor(x), torch.tensor(y)), (S(x), S(y)),
            torch.nn.functional.cross_entropy, F.cross_entropy)


OPTIMIZERS = [
    ("SGD momentum", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9),
     lambda p: spire.optim.SGD(p, lr=0.05, momentum=0.9)),
    ("SGD nesterov", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3),
     lambda p: spire.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("Adam", lambda p: torch.optim.Adam(p, lr=5e-3), lambda p: spire.optim.Adam(p, lr=5e-3)),
    ("AdamW", lambda p: torch.optim.AdamW(p, lr=5e-3, weight_decay=0.05),
     lambda p: spire.optim.AdamW(p, lr=5e-3, weight_decay=0.05)),
    ("AdamW two param groups", lambda p: torch.optim.AdamW(two_groups(p), lr=5e-3, weight_decay=0.05),
     lambda p: spire.optim.AdamW(two_groups(p), lr=5e-3, weight_decay=0.05)),
]


def two_groups(params):
    """torch's parameter groups: the first layer at a tenth of the rate, the rest without weight decay."""
    ps = list(params)
    return [{"params": ps[:2], "lr": 5e-4}, {"params": ps[2:], "weight_decay": 0.0}]


def training_checks():
    for mname, make in [("MLP", make_mlp), ("CNN", make_cnn)]:
        for oname, topt, sopt in OPTIMIZERS:
            tm, sm, (tx, ty), (sx, sy), tloss, sloss = make()
            copy_weights(tm, sm)
            to, so = topt(tm.parameters()), sopt(sm.parameters())
            tcurve, scurve = [], []
            for _ in range(STEPS):
                to.zero_grad()
                lt = tloss(tm(tx), ty)
                lt.backward()
                to.step()
                tcurve.append(lt.item())
                so.zero_grad()
                ls = sloss(sm(sx), sy)
                ls.backward()
                so.step()
                scurve.append(ls.item())
            tcurve, scurve = np.array(tcurve), np.array(scurve)
            curve = float(np.max(np.abs(scurve - tcurve) / np.abs(tcurve)))
            report(f"{mname} {oname} loss curve ({STEPS} steps, {tcurve[0]:.4g} -> {tcurve[-1]:.4g})", curve,
                   CURVE_TOL)
            sp = dict(sm.named_parameters())
            final = max(rel(sp[n], p) for n, p in tm.named_parameters())
            report(f"{mname} {oname} final parameters", final, CURVE_TOL)
            if not tcurve[-1] < 0.9 * tcurve[0]:  # a curve that does not descend checks little
                print(f"  note: {mname} {oname} loss did not fall by 10% ({tcurve[0]:.4g} -> {tcurve[-1]:.4g})")


def main():
    print(f"torch parity: spire {getattr(spire, '__version__', '?')} vs torch {torch.__version__}, float64")
    for section in (training_checks, layer_checks, batch_norm_checks, attention_checks, transformer_checks,
                    loss_checks):
        try:
            section()
        except Exception as e:  # an error is a failed comparison, reported with the rest
            import traceback
            traceback.print_exc()
            results.append((section.__name__, float("inf"), 0.0, False))
            print(f"figure: torch parity {section.__name__}: raised {type(e).__name__}: {e} FAILED")
    failed = [r for r in results if not r[3]]
    worst = max((r[1] for r in results), default=0.0)
    print(f"figure: torch parity summary: {len(results) - len(failed)}/{len(results)} comparisons within tolerance "
          f"(worst layer/curve rel diff {worst:.3e})")
    if failed:
        print("FAILED: " + "; ".join(r[0] for r in failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
