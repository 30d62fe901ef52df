"""spire.nn layers, functional forms and initialisers against PyTorch (skipped when torch is
missing): outputs, input gradients and parameter gradients in float64 to 1e-10 with the weights
copied from the torch layer, batch norm's running statistics, dropout's determinism per seed, and
the FNO layer against the reference implementation written out here in torch."""
import math

import numpy as np
import pytest
import torch

import spire
import spire.nn as nn
import spire.nn.functional as F
import spire.nn.init as init

TOL = 1e-10


def S(a):
    """torch tensor or NumPy array -> spire tensor (a copy)."""
    if isinstance(a, torch.Tensor):
        a = a.detach().numpy()
    return spire.tensor(np.array(a))


def N(t):
    return np.asarray(t.detach() if isinstance(t, torch.Tensor) else t)


def copy_weights(tm, sm):
    sm.load_state_dict({k: S(v) for k, v in tm.state_dict().items()})


def close(a, b, tol=TOL):
    a, b = N(a), N(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def compare(tm, sm, *inputs, grad=True, out_index=None, call_kw=None):
    """Runs both modules on the same inputs; compares outputs, input and parameter gradients."""
    call_kw = call_kw or {}
    copy_weights(tm, sm)
    tx = [torch.tensor(x, requires_grad=grad and x.dtype == np.float64) for x in inputs]
    sx = [S(x) for x in inputs]
    if grad:
        for x in sx:
            if x.dtype == spire.float64:
                x.requires_grad_(True) if hasattr(x, "requires_grad_") else setattr(x, "requires_grad", True)
    ty = tm(*tx, **call_kw)
    sy = sm(*sx, **{k: (S(v) if isinstance(v, torch.Tensor) else v) for k, v in call_kw.items()})
    if out_index is not None:
        ty, sy = ty[out_index], sy[out_index]
    close(sy, ty)
    if not grad:
        return
    probe = np.random.default_rng(0).standard_normal(tuple(ty.shape))
    (ty * torch.tensor(probe)).sum().backward()
    spire.sum(sy * S(probe)).backward()
    for t, s in zip(tx, sx):
        if t.requires_grad:
            close(s.grad, t.grad)
    sp = dict(sm.named_parameters())
    for name, p in tm.named_parameters():
        if p.grad is not None:
            close(sp[name].grad, p.grad)


def rnd(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


D = dict(dtype=torch.float64)
SD = dict(dtype=spire.float64)

CASES = {
    "linear": (lambda: torch.nn.Linear(5, 3, **D), lambda: nn.Linear(5, 3, **SD), [(4, 2, 5)]),
    "linear_nobias": (lambda: torch.nn.Linear(5, 3, bias=False, **D), lambda: nn.Linear(5, 3, bias=False, **SD), [(4, 5)]),
    "conv1d": (lambda: torch.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, **D),
               lambda: nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, **SD), [(2, 4, 11)]),
    "conv2d_circular": (lambda: torch.nn.Conv2d(3, 4, (3, 2), padding=(1, 2), padding_mode="circular", **D),
                        lambda: nn.Conv2d(3, 4, (3, 2), padding=(1, 2), padding_mode="circular", **SD), [(2, 3, 6, 5)]),
    "conv2d_reflect": (lambda: torch.nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect", bias=False, **D),
                       lambda: nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect", bias=False, **SD), [(1, 3, 5, 5)]),
    "conv3d": (lambda: torch.nn.Conv3d(2, 3, 2, stride=(1, 2, 1), **D),
               lambda: nn.Conv3d(2, 3, 2, stride=(1, 2, 1), **SD), [(1, 2, 4, 5, 3)]),
    "conv_transpose1d": (lambda: torch.nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, **D),
                         lambda: nn.ConvTranspose1d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2, **SD),
                         [(2, 4, 5)]),
    "conv_transpose2d": (lambda: torch.nn.ConvTranspose2d(3, 2, (2, 3), stride=(2, 1), dilation=(1, 2), **D),
                         lambda: nn.ConvTranspose2d(3, 2, (2, 3), stride=(2, 1), dilation=(1, 2), **SD), [(2, 3, 4, 3)]),
    "conv_transpose3d": (lambda: torch.nn.ConvTranspose3d(2, 2, 2, stride=2, **D),
                         lambda: nn.ConvTranspose3d(2, 2, 2, stride=2, **SD), [(1, 2, 2, 3, 2)]),
    "layer_norm": (lambda: torch.nn.LayerNorm((3, 4), **D), lambda: nn.LayerNorm((3, 4), **SD), [(2, 3, 4)]),
    "group_norm": (lambda: torch.nn.GroupNorm(2, 6, **D), lambda: nn.GroupNorm(2, 6, **SD), [(3, 6, 4)]),
    "batch_norm1d": (lambda: torch.nn.BatchNorm1d(3, **D), lambda: nn.BatchNorm1d(3, **SD), [(5, 3, 4)]),
    "batch_norm2d": (lambda: torch.nn.BatchNorm2d(3, momentum=None, **D), lambda: nn.BatchNorm2d(3, momentum=None, **SD),
                     [(2, 3, 4, 2)]),
    "relu": (torch.nn.ReLU, nn.ReLU, [(3, 7)]),
    "gelu": (torch.nn.GELU, nn.GELU, [(3, 7)]),
    "gelu_tanh": (lambda: torch.nn.GELU("tanh"), lambda: nn.GELU("tanh"), [(3, 7)]),
    "silu": (torch.nn.SiLU, nn.SiLU, [(3, 7)]),
    "tanh": (torch.nn.Tanh, nn.Tanh, [(3, 7)]),
    "softplus": (lambda: torch.nn.Softplus(beta=2.0, threshold=1.5), lambda: nn.Softplus(beta=2.0, threshold=1.5), [(3, 7)]),
    "leaky_relu": (lambda: torch.nn.LeakyReLU(0.2), lambda: nn.LeakyReLU(0.2), [(3, 7)]),
    "elu": (lambda: torch.nn.ELU(0.7), lambda: nn.ELU(0.7), [(3, 7)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_matches_torch(name):
    tmake, smake, shapes = CASES[name]
    tm, sm = tmake(), smake()
    inputs = [rnd(*s, seed=i + 1) for i, s in enumerate(shapes)]
    compare(tm, sm, *inputs)
    # Running statistics, after a second training step and in eval mode.
    if "batch_norm" in name:
        for k, v in tm.state_dict().items():
            close(sm.state_dict()[k], v)
        compare(tm, sm, inputs[0] * 2 + 1)
        tm.eval(), sm.eval()
        compare(tm, sm, inputs[0] - 0.5)


def test_sin_and_embedding():
    x = rnd(4, 3)
    close(nn.Sin()(S(x)), np.sin(x))
    close(nn.Sin(30.0)(S(x)), np.sin(30 * x))
    tm = torch.nn.Embedding(7, 3, padding_idx=2, **D)
    sm = nn.Embedding(7, 3, padding_idx=2, **SD)
    assert np.all(N(sm.weight)[2] == 0)
    copy_weights(tm, sm)
    idx = np.array([[0, 2, 6], [2, 1, 1]])
    ty, sy = tm(torch.tensor(idx)), sm(spire.tensor(idx))
    close(sy, ty)
    probe = rnd(2, 3, 3)
    (ty * torch.tensor(probe)).sum().backward()
    spire.sum(sy * S(probe)).backward()
    close(sm.weight.grad, tm.weight.grad)  # padding row: no gradient


@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention(batch_first):
    tm = torch.nn.MultiheadAttention(8, 2, batch_first=batch_first, **D)
    sm = nn.MultiheadAttention(8, 2, batch_first=batch_first, **SD)
    assert list(dict(sm.named_parameters())) == list(dict(tm.named_parameters()))
    L, S_, Nb = 4, 5, 3
    shp = (lambda t, n: (n, t, 8)) if batch_first else (lambda t, n: (t, n, 8))
    q, k, v = rnd(*shp(L, Nb), seed=1), rnd(*shp(S_, Nb), seed=2), rnd(*shp(S_, Nb), seed=3)
    kpm = np.zeros((Nb, S_), dtype=bool)
    kpm[0, -2:] = True
    am = np.triu(np.ones((L, S_), dtype=bool), 2)
    for kw in [{}, {"key_padding_mask": torch.tensor(kpm)}, {"attn_mask": torch.tensor(am)},
               {"attn_mask": torch.tensor(rnd(L, S_, seed=4)), "average_attn_weights": False},
               {"key_padding_mask": torch.tensor(kpm), "attn_mask": torch.tensor(am)}]:
        compare(tm, sm, q, k, v, out_index=0, call_kw=kw)
        tm.zero_grad(), sm.zero_grad()
        compare(tm, sm, q, k, v, out_index=1, call_kw=kw, grad=False)
    # Self-attention, unbatched.
    x = rnd(L, 8, seed=5)
    compare(tm, sm, x, x, x, out_index=0)


@pytest.mark.parametrize("norm_first,activation", [(False, "relu"), (True, "gelu")])
def test_transformer_encoder_layer(norm_first, activation):
    tm = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, activation=activation, norm_first=norm_first,
                                          batch_first=True, **D).eval()
    sm = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1, activation=activation, norm_first=norm_first,
                                    batch_first=True, **SD).eval()
    assert list(sm.state_dict().keys()) == list(tm.state_dict().keys())
    x = rnd(3, 5, 8)
    compare(tm, sm, x)
    kpm = np.zeros((3, 5), dtype=bool)
    kpm[1, 3:] = True
    tm.zero_grad(), sm.zero_grad()
    compare(tm, sm, x, call_kw={"src_key_padding_mask": torch.tensor(kpm)})


def fno_reference(x, weights, modes):
    """The reference FNO SpectralConv2d forward (Li et al.), in torch."""
    m1, m2 = modes
    B, _, n1, n2 = x.shape
    xf = torch.fft.rfft2(x)
    out = torch.zeros(B, weights[0].shape[1], n1, n2 // 2 + 1, dtype=torch.complex128)
    out[:, :, :m1, :m2] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :m1, :m2], weights[0])
    out[:, :, -m1:, :m2] = torch.einsum("bixy,ioxy->boxy", xf[:, :, -m1:, :m2], weights[1])
    return torch.fft.irfft2(out, s=(n1, n2))


def test_spectral_conv2d_matches_fno_reference():
    sm = nn.SpectralConv2d(3, 2, (3, 2), **SD)
    assert sorted(dict(sm.named_parameters())) == ["weights1", "weights2"]
    assert sm.weights1.dtype == spire.complex128
    # Initial weights: scale * (U[0,1) + i U[0,1)), scale = 1 / (in * out).
    w = N(sm.weights1)
    assert w.real.min() >= 0 and w.real.max() < 1 / 6 and w.imag.min() >= 0 and w.imag.max() < 1 / 6
    tw = [torch.tensor(N(sm.weights1), requires_grad=True), torch.tensor(N(sm.weights2), requires_grad=True)]
    x = rnd(2, 3, 8, 7)
    tx = torch.tensor(x, requires_grad=True)
    sx = S(x)
    sx.requires_grad = True
    ty, sy = fno_reference(tx, tw, (3, 2)), sm(sx)
    close(sy, ty)
    probe = rnd(*ty.shape, seed=9)
    (ty * torch.tensor(probe)).sum().backward()
    spire.sum(sy * S(probe)).backward()
    close(sx.grad, tx.grad)
    # torch's gradient of a complex leaf is the conjugate Wirtinger one, d/dRe + i d/dIm.
    close(sm.weights1.grad, tw[0].grad)
    close(sm.weights2.grad, tw[1].grad)


def test_spectral_conv_1d_and_3d_shapes():
    y = nn.SpectralConv1d(2, 3, 4, **SD)(S(rnd(2, 2, 16)))
    assert y.shape == (2, 3, 16)
    m3 = nn.SpectralConv3d(2, 1, (2, 2, 2), **SD)
    assert len(list(m3.parameters())) == 4
    assert m3(S(rnd(1, 2, 6, 5, 4))).shape == (1, 1, 6, 5, 4)


def test_functional_forms():
    x = rnd(3, 6)
    tx = torch.tensor(x)
    close(F.softplus(S(x * 10), beta=0.5, threshold=3.0), torch.nn.functional.softplus(tx * 10, beta=0.5, threshold=3.0))
    close(F.gelu(S(x), approximate="tanh"), torch.nn.functional.gelu(tx, approximate="tanh"))
    close(F.softmax(S(x), dim=0), torch.softmax(tx, 0))
    close(F.log_softmax(S(x)), torch.log_softmax(tx, -1))
    q, k, v = rnd(2, 4, 3, seed=1), rnd(2, 5, 3, seed=2), rnd(2, 5, 2, seed=3)
    mask = rnd(4, 5, seed=4) > 0
    mask[:, 0] = True
    tq, tk, tv = map(torch.tensor, (q, k, v))
    sdpa = torch.nn.functional.scaled_dot_product_attention
    close(F.scaled_dot_product_attention(S(q), S(k), S(v), is_causal=True), sdpa(tq, tk, tv, is_causal=True))
    close(F.scaled_dot_product_attention(S(q), S(k), S(v), attn_mask=spire.tensor(mask), scale=0.3),
          sdpa(tq, tk, tv, attn_mask=torch.tensor(mask), scale=0.3))
    rm, rv = np.zeros(6), np.ones(6)
    trm, trv = torch.tensor(rm), torch.tensor(rv)
    srm, srv = S(rm), S(rv)
    close(F.batch_norm(S(x), srm, srv, training=True, momentum=0.3),
          torch.nn.functional.batch_norm(tx, trm, trv, training=True, momentum=0.3))
    close(srm, trm)
    close(srv, trv)
    close(F.conv_transpose2d(S(rnd(1, 2, 3, 3)), S(rnd(2, 1, 2, 2, seed=5)), stride=2, output_padding=1),
          torch.nn.functional.conv_transpose2d(torch.tensor(rnd(1, 2, 3, 3)), torch.tensor(rnd(2, 1, 2, 2, seed=5)),
                                               stride=2, output_padding=1))


def test_dropout_determinism_and_modes():
    x = spire.ones((200,), dtype=spire.float64)
    a = N(F.dropout(x, 0.25, generator=spire.random.Generator(3)))
    b = N(F.dropout(x, 0.25, generator=spire.random.Generator(3)))
    c = N(F.dropout(x, 0.25, generator=spire.random.Generator(4)))
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert set(np.unique(a)) <= {0.0, 1 / 0.75}
    d = nn.Dropout(0.5, generator=spire.random.Generator(1))
    y1 = N(d(x))
    assert (y1 == 0).any()
    d.eval()
    assert np.array_equal(N(d(x)), N(x))
    spire.manual_seed(11)
    y2 = N(nn.Dropout(0.5)(x))
    spire.manual_seed(11)
    assert np.array_equal(N(nn.Dropout(0.5)(x)), y2)


def test_init():
    for nl, p in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                  ("leaky_relu", None), ("leaky_relu", 0.3), ("selu", None)]:
        assert init.calculate_gain(nl, p) == pytest.approx(torch.nn.init.calculate_gain(nl, p), abs=1e-15)
    g = spire.random.Generator(0)
    w = spire.zeros((30, 20), dtype=spire.float64)
    assert init.orthogonal_(w, gain=1.5, generator=g) is not None
    np.testing.assert_allclose(N(w).T @ N(w), 2.25 * np.eye(20), atol=1e-12)
    w = spire.zeros((64, 32, 3), dtype=spire.float64)
    init.kaiming_uniform_(w, a=math.sqrt(5), generator=g)
    assert np.abs(N(w)).max() <= 1 / math.sqrt(96)
    init.xavier_normal_(w, generator=g)
    assert np.std(N(w)) == pytest.approx(math.sqrt(2 / (96 + 192)), rel=0.05)
    init.siren_uniform_(w, is_first=True, generator=g)
    assert np.abs(N(w)).max() <= 1 / 96
    init.constant_(w, 0.5)
    assert np.all(N(w) == 0.5)
    # Default layer initialisation is seeded: same generator seed, same weights.
    l1 = nn.Linear(4, 3, generator=spire.random.Generator(5))
    l2 = nn.Linear(4, 3, generator=spire.random.Generator(5))
    assert np.array_equal(N(l1.weight), N(l2.weight)) and np.array_equal(N(l1.bias), N(l2.bias))
    assert np.abs(N(l1.weight)).max() <= 0.5


def test_flatten_matches_torch():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    for args in [(), (0, 1), (1, 2), (2, -1)]:
        got = np.asarray(spire.nn.Flatten(*args)(spire.from_numpy(x)))
        want = torch.nn.Flatten(*args)(torch.from_numpy(x)).numpy()
        np.testing.assert_array_equal(got, want)
    assert repr(spire.nn.Flatten()) == repr(torch.nn.Flatten())


# ------------------------------------------------------------------------------------------------
# Convolution padding: "same" / "valid" and padding_mode "replicate", layers and functional forms,
# outputs and gradients against torch for 1-d, 2-d and 3-d, odd and even kernels, dilation.

PAD_CASES = [
    # (spatial, kernel, dilation, padding, padding_mode)
    (1, 3, 1, "same", "zeros"), (1, 4, 1, "same", "zeros"), (1, 2, 3, "same", "replicate"),
    (1, 3, 2, "valid", "zeros"), (1, 3, 1, 2, "replicate"),
    (2, (2, 3), (1, 2), "same", "zeros"), (2, 4, 1, "same", "replicate"), (2, 3, 1, "same", "reflect"),
    (2, (3, 2), 1, (1, 2), "replicate"), (2, 3, 2, "valid", "replicate"),
    (3, 2, 1, "same", "zeros"), (3, (3, 2, 1), (1, 1, 2), "same", "replicate"), (3, 2, 1, 1, "replicate"),
]


@pytest.mark.filterwarnings("ignore:Using padding='same'")
@pytest.mark.parametrize("spatial,kernel,dilation,padding,mode", PAD_CASES)
def test_conv_padding_options_match_torch(spatial, kernel, dilation, padding, mode):
    tcls = getattr(torch.nn, f"Conv{spatial}d")
    scls = getattr(nn, f"Conv{spatial}d")
    kw = dict(kernel_size=kernel, dilation=dilation, padding=padding, padding_mode=mode)
    tm, sm = tcls(2, 3, **kw, **D), scls(2, 3, **kw, **SD)
    size = {1: (2, 2, 9), 2: (2, 2, 7, 6), 3: (1, 2, 5, 4, 5)}[spatial]
    compare(tm, sm, rnd(*size, seed=spatial))
    assert sm.padding == tm.padding
    assert repr(sm) == repr(tm)
    # The functional form (zeros only in torch's functional padding strings).
    if mode == "zeros":
        tf, sf = getattr(torch.nn.functional, f"conv{spatial}d"), getattr(F, f"conv{spatial}d")
        x, w = rnd(*size, seed=7), rnd(3, 2, *tm.kernel_size, seed=8)
        close(sf(S(x), S(w), padding=padding, dilation=dilation),
              tf(torch.tensor(x), torch.tensor(w), padding=padding, dilation=dilation))


def test_conv_padding_errors_as_torch():
    with pytest.raises(ValueError, match="strided"):
        nn.Conv2d(2, 2, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="strided"):
        torch.nn.Conv2d(2, 2, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="'full'"):
        nn.Conv1d(2, 2, 3, padding="full")
    with pytest.raises(ValueError, match="strided"):
        F.conv1d(S(rnd(1, 2, 5)), S(rnd(2, 2, 3)), stride=2, padding="same")
    with pytest.raises(ValueError, match="transposed"):
        nn.ConvTranspose1d(2, 2, 3, padding="same")
    with pytest.raises(ValueError, match="transposed"):
        F.conv_transpose1d(S(rnd(1, 2, 5)), S(rnd(2, 2, 3)), padding="valid")
    with pytest.raises(ValueError, match="padding_mode"):
        nn.ConvTranspose2d(2, 2, 3, padding_mode="replicate")
    with pytest.raises(ValueError, match="padding_mode"):
        nn.Conv2d(2, 2, 3, padding_mode="edge")


# ------------------------------------------------------------------------------------------------
# MultiheadAttention with kdim/vdim (separate q/k/v projections), add_bias_kv, add_zero_attn: a
# torch state_dict loads under the same names and outputs, weights and gradients match.

MHA_CASES = [
    dict(kdim=5, vdim=3),
    dict(kdim=5, vdim=8, batch_first=True),
    dict(add_bias_kv=True),
    dict(add_zero_attn=True),
    dict(kdim=6, vdim=3, add_bias_kv=True, add_zero_attn=True, bias=False),
]


@pytest.mark.parametrize("opts", MHA_CASES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_multihead_attention_kdim_vdim_bias_kv_zero_attn(opts):
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2, **opts, **D)
    sm = nn.MultiheadAttention(8, 2, **opts, **SD)
    assert list(sm.state_dict()) == list(tm.state_dict())
    assert list(dict(sm.named_parameters())) == list(dict(tm.named_parameters()))
    assert sm._qkv_same_embed_dim == tm._qkv_same_embed_dim
    for name in ["in_proj_weight", "q_proj_weight", "bias_k", "bias_v"]:
        assert (getattr(sm, name) is None) == (getattr(tm, name) is None), name
    bf = opts.get("batch_first", False)
    kd, vd = opts.get("kdim", 8), opts.get("vdim", 8)
    L, S_, Nb = 4, 5, 3
    shp = (lambda t, n, e: (n, t, e)) if bf else (lambda t, n, e: (t, n, e))
    q, k, v = rnd(*shp(L, Nb, 8), seed=1), rnd(*shp(S_, Nb, kd), seed=2), rnd(*shp(S_, Nb, vd), seed=3)
    kpm = np.zeros((Nb, S_), dtype=bool)
    kpm[0, -2:] = True
    am = np.triu(np.ones((L, S_), dtype=bool), 2)
    for kw in [{}, {"key_padding_mask": torch.tensor(kpm), "attn_mask": torch.tensor(am)},
               {"attn_mask": torch.tensor(rnd(Nb * 2, L, S_, seed=4)), "average_attn_weights": False},
               {"key_padding_mask": torch.tensor(rnd(Nb, S_, seed=5)), "need_weights": False}]:
        compare(tm, sm, q, k, v, out_index=0, call_kw=kw)
        tm.zero_grad(), sm.zero_grad()
        if kw.get("need_weights", True):
            compare(tm, sm, q, k, v, out_index=1, call_kw=kw, grad=False)
        else:
            assert sm(S(q), S(k), S(v), need_weights=False)[1] is None
    # Unbatched.
    compare(tm, sm, q[:, 0] if not bf else q[0], k[:, 0] if not bf else k[0], v[:, 0] if not bf else v[0],
            out_index=0)


def test_multi_head_attention_functional_separate_weights_match_torch():
    rng = np.random.default_rng(3)
    E, H, kd, vd = 6, 3, 4, 5
    q, k, v = rng.standard_normal((2, 3, E)), rng.standard_normal((4, 3, kd)), rng.standard_normal((4, 3, vd))
    w = {n: rng.standard_normal(s) for n, s in [("qw", (E, E)), ("kw", (E, kd)), ("vw", (E, vd)), ("b", (3 * E,)),
                                                 ("ow", (E, E)), ("ob", (E,)), ("bk", (1, 1, E)), ("bv", (1, 1, E))]}
    T = {n: torch.tensor(a) for n, a in w.items()}
    to, tw = torch.nn.functional.multi_head_attention_forward(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), E, H, None, T["b"], T["bk"], T["bv"], True, 0.0,
        T["ow"], T["ob"], training=False, use_separate_proj_weight=True, q_proj_weight=T["qw"],
        k_proj_weight=T["kw"], v_proj_weight=T["vw"])
    so, sw = F.multi_head_attention(S(q), S(k), S(v), H, None, S(w["b"]), S(w["ow"]), S(w["ob"]),
                                    q_proj_weight=S(w["qw"]), k_proj_weight=S(w["kw"]), v_proj_weight=S(w["vw"]),
                                    bias_k=S(w["bk"]), bias_v=S(w["bv"]), add_zero_attn=True, training=False)
    close(so, to)
    close(sw, tw)
