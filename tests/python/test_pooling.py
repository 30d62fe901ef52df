"""Pooling and resampling against PyTorch: outputs, indices and input gradients of max, average
and adaptive pooling, max unpooling and F.interpolate over a grid of options (1-d to 3-d, padding, stride,
dilation, ceil_mode, count_include_pad, divisor_override, sizes that do not divide, unbatched
inputs), in float32 and float64; ties; the layers' reprs and attributes; errors."""
import itertools

import numpy as np
import pytest
import torch
import torch.nn.functional as TF

import spire
import spire.nn as nn
import spire.nn.functional as F

TOL = {np.float64: 1e-12, np.float32: 2e-6}


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    """The reference calls are tiny: torch's threads would only add contention."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def rnd(shape, seed, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def check(t_fn, s_fn, x, *, seed=0, grad=True, indices=False):
    """Runs torch and spire on x; compares outputs (and indices) and the input gradient through a
    random cotangent."""
    tol = TOL[x.dtype.type]
    tx = torch.tensor(x, requires_grad=grad)
    sx = spire.tensor(x, requires_grad=grad)
    ty, sy = t_fn(tx), s_fn(sx)
    if indices:
        (ty, ti), (sy, si) = ty, sy
        assert si.dtype == spire.int64
        np.testing.assert_array_equal(np.asarray(si), ti.numpy())
    assert tuple(sy.shape) == tuple(ty.shape)
    np.testing.assert_allclose(np.asarray(sy), ty.detach().numpy(), rtol=tol, atol=tol)
    if not grad:
        return
    w = rnd(tuple(ty.shape), seed + 100, x.dtype)
    (ty * torch.tensor(w)).sum().backward()
    spire.sum(sy * spire.tensor(w)).backward()
    np.testing.assert_allclose(np.asarray(sx.grad), tx.grad.numpy(), rtol=tol, atol=tol)


DTYPES = [np.float64, np.float32]

# (spatial shape, kernel, stride, padding, dilation) per dimension.
MAX_CASES = {
    1: [((9,), 3, None, 1, 1), ((10,), 2, 3, 0, 2), ((7,), 4, 2, 2, 1)],
    2: [((7, 8), 2, None, 0, 1), ((7, 6), (3, 2), (2, 1), (1, 1), (2, 1)), ((5, 9), 3, 2, 1, (1, 3))],
    3: [((4, 5, 6), 2, None, 0, 1), ((5, 4, 7), (3, 2, 2), (2, 1, 2), (1, 0, 1), (1, 2, 1))],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_max_pool_against_torch(d, ceil_mode, dtype):
    for i, (shape, k, s, p, dl) in enumerate(MAX_CASES[d]):
        x = rnd((2, 3) + shape, seed=10 * d + i, dtype=dtype)
        kw = dict(kernel_size=k, stride=s, padding=p, dilation=dl, ceil_mode=ceil_mode)
        tf, sf = getattr(TF, f"max_pool{d}d"), getattr(F, f"max_pool{d}d")
        check(lambda t: tf(t, return_indices=True, **kw), lambda t: sf(t, return_indices=True, **kw), x,
              seed=i, indices=True)
        # Unbatched [C, *spatial].
        check(lambda t: tf(t, **kw), lambda t: sf(t, **kw), x[0], seed=i)


def test_max_pool_ties_and_with_indices():
    # Small integers make ties everywhere; the argmax and the gradient must be torch's.
    x = np.random.default_rng(3).integers(0, 3, (2, 2, 6, 7)).astype(np.float64)
    for k, s, p in [(2, None, 0), (3, 1, 1), ((2, 3), (1, 2), (1, 0))]:
        kw = dict(kernel_size=k, stride=s, padding=p)
        check(lambda t: TF.max_pool2d_with_indices(t, **kw), lambda t: F.max_pool2d_with_indices(t, **kw), x,
              indices=True)
    xi = np.random.default_rng(4).integers(-5, 5, (1, 3, 8))
    t = TF.max_pool2d(torch.tensor(xi), 2)
    s = F.max_pool2d(spire.tensor(xi), 2)
    assert s.dtype == spire.int64
    np.testing.assert_array_equal(np.asarray(s), t.numpy())


AVG_CASES = {
    1: [((9,), 3, None, 1), ((10,), 4, 3, 2), ((7,), 2, 1, 0)],
    2: [((7, 8), 2, None, 0), ((7, 6), (3, 2), (2, 1), (1, 1)), ((5, 9), 3, 2, 1)],
    3: [((4, 5, 6), 2, None, 0), ((5, 4, 7), (3, 2, 2), (2, 1, 2), (1, 0, 1))],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ceil_mode,count_include_pad", [(False, True), (True, True), (True, False), (False, False)])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_avg_pool_against_torch(d, ceil_mode, count_include_pad, dtype):
    for i, (shape, k, s, p) in enumerate(AVG_CASES[d]):
        x = rnd((2, 3) + shape, seed=20 * d + i, dtype=dtype)
        kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil_mode, count_include_pad=count_include_pad)
        tf, sf = getattr(TF, f"avg_pool{d}d"), getattr(F, f"avg_pool{d}d")
        check(lambda t: tf(t, **kw), lambda t: sf(t, **kw), x, seed=i)
        check(lambda t: tf(t, **kw), lambda t: sf(t, **kw), x[1], seed=i)
        if d > 1:
            kw["divisor_override"] = 3
            check(lambda t: tf(t, **kw), lambda t: sf(t, **kw), x, seed=i)


def test_avg_pool_many_planes_against_torch():
    # 32 planes: the reverse rule scatters per plane (fewer planes gather per input row).
    x = rnd((4, 8, 7, 6), 60)
    for kw in [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=2, count_include_pad=False)]:
        check(lambda t: TF.avg_pool2d(t, **kw), lambda t: F.avg_pool2d(t, **kw), x)
    check(lambda t: TF.adaptive_avg_pool2d(t, (3, 4)), lambda t: F.adaptive_avg_pool2d(t, (3, 4)), x)


ADAPTIVE = {
    1: [((10,), 3), ((5,), 7), ((6,), 6), ((7,), 2)],
    2: [((7, 9), (3, 4)), ((5, 6), (None, 4)), ((4, 4), 2), ((3, 5), (5, 2))],
    3: [((5, 6, 7), (2, 3, 4)), ((4, 5, 3), (None, 2, 5))],
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("d", [1, 2, 3])
def test_adaptive_pooling_against_torch(d, dtype):
    for i, (shape, out) in enumerate(ADAPTIVE[d]):
        x = rnd((2, 3) + shape, seed=30 * d + i, dtype=dtype)
        ta, sa = getattr(TF, f"adaptive_avg_pool{d}d"), getattr(F, f"adaptive_avg_pool{d}d")
        tm, sm = getattr(TF, f"adaptive_max_pool{d}d"), getattr(F, f"adaptive_max_pool{d}d")
        check(lambda t: ta(t, out), lambda t: sa(t, out), x, seed=i)
        check(lambda t: ta(t, out), lambda t: sa(t, out), x[0], seed=i)
        check(lambda t: tm(t, out, return_indices=True), lambda t: sm(t, out, return_indices=True), x, seed=i,
              indices=True)
        tw, sw = getattr(TF, f"adaptive_max_pool{d}d_with_indices"), getattr(F, f"adaptive_max_pool{d}d_with_indices")
        check(lambda t: tw(t, out), lambda t: sw(t, out), x[1], seed=i, indices=True)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("d", [1, 2, 3])
def test_max_unpool_against_torch(d, dtype):
    shape = {1: (8,), 2: (6, 8), 3: (4, 6, 4)}[d]
    x = rnd((2, 3) + shape, seed=40 + d, dtype=dtype)
    tp, sp = getattr(TF, f"max_pool{d}d"), getattr(F, f"max_pool{d}d")
    tu, su = getattr(TF, f"max_unpool{d}d"), getattr(F, f"max_unpool{d}d")
    # The default size, one more than it (within stride of it), and padded windows back to the input size.
    for k, s, p, out in [(2, None, 0, None), (2, None, 0, tuple(n + 1 for n in shape)), (3, 2, 1, shape)]:
        ti = tp(torch.tensor(x), k, s, p, return_indices=True)[1]
        si = sp(spire.tensor(x), k, s, p, return_indices=True)[1]
        np.testing.assert_array_equal(np.asarray(si), ti.numpy())
        v = rnd(tuple(ti.shape), seed=50 + d, dtype=dtype)
        check(lambda t: tu(t, ti, k, s, p, output_size=out), lambda t: su(t, si, k, s, p, output_size=out), v)
        tm, sm = getattr(torch.nn, f"MaxUnpool{d}d")(k, s, p), getattr(nn, f"MaxUnpool{d}d")(k, s, p)
        assert repr(sm) == repr(tm)
        assert (sm.kernel_size, sm.stride, sm.padding) == (tm.kernel_size, tm.stride, tm.padding)
        check(lambda t: tm(t, ti, output_size=out), lambda t: sm(t, si, output_size=out), v)
        # Unbatched.
        check(lambda t: tu(t, ti[0], k, s, p, output_size=out), lambda t: su(t, si[0], k, s, p, output_size=out), v[0])


INTERP = [
    # (shape, mode, size, scale_factor, align_corners, recompute_scale_factor)
    ((2, 3, 5), "nearest", 9, None, None, None),
    ((2, 3, 5), "nearest", None, 2.5, None, None),
    ((2, 3, 8), "nearest", 3, None, None, None),
    ((2, 3, 5), "nearest-exact", 8, None, None, None),
    ((2, 3, 4, 5), "nearest", None, (2, 3), None, None),
    ((2, 3, 4, 5), "nearest-exact", None, 1.7, None, True),
    ((1, 2, 3, 4, 5), "nearest", (5, 3, 7), None, None, None),
    ((2, 3, 5), "linear", 9, None, False, None),
    ((2, 3, 5), "linear", 9, None, True, None),
    ((2, 3, 7), "linear", 3, None, False, None),
    ((2, 3, 5), "linear", None, 1.5, False, None),
    ((2, 3, 5), "linear", None, 1.5, False, True),
    ((2, 3, 4, 5), "bilinear", (7, 3), None, False, None),
    ((2, 3, 4, 5), "bilinear", (7, 3), None, True, None),
    ((2, 3, 4, 5), "bilinear", None, 2, False, None),
    ((2, 3, 4, 5), "bilinear", None, (0.6, 2.2), True, None),
    ((1, 2, 3, 4, 5), "trilinear", (5, 3, 8), None, False, None),
    ((1, 2, 3, 4, 5), "trilinear", None, 2, True, None),
    ((2, 3, 7, 5), "area", (3, 4), None, None, None),
    ((2, 3, 7, 5), "area", None, 0.5, None, None),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", INTERP, ids=lambda c: f"{c[1]}-{len(c[0]) - 2}d-{c[2]}-{c[3]}-{c[4]}-{c[5]}")
def test_interpolate_against_torch(case, dtype):
    shape, mode, size, scale, align, recompute = case
    x = rnd(shape, seed=len(shape), dtype=dtype)
    kw = dict(size=size, scale_factor=scale, mode=mode, align_corners=align, recompute_scale_factor=recompute)
    check(lambda t: TF.interpolate(t, **kw), lambda t: F.interpolate(t, **kw), x)
    up_kw = dict(kw)
    del up_kw["recompute_scale_factor"]
    check(lambda t: torch.nn.Upsample(**up_kw)(t), lambda t: nn.Upsample(**up_kw)(t), x)


def test_layers_match_torch_reprs_attributes_and_outputs():
    T = torch.nn
    x2 = rnd((2, 3, 9, 8), 1)
    x1, x3 = rnd((2, 3, 11), 2), rnd((1, 2, 5, 6, 7), 3)
    cases = [
        (T.MaxPool2d(2), nn.MaxPool2d(2), x2),
        (T.MaxPool2d((3, 2), stride=1, padding=(1, 0), dilation=(2, 1), ceil_mode=True),
         nn.MaxPool2d((3, 2), stride=1, padding=(1, 0), dilation=(2, 1), ceil_mode=True), x2),
        (T.MaxPool1d(3, 2, 1), nn.MaxPool1d(3, 2, 1), x1),
        (T.MaxPool3d(2, padding=1), nn.MaxPool3d(2, padding=1), x3),
        (T.AvgPool1d(3), nn.AvgPool1d(3), x1),
        (T.AvgPool1d(4, 2, 2, ceil_mode=True, count_include_pad=False),
         nn.AvgPool1d(4, 2, 2, ceil_mode=True, count_include_pad=False), x1),
        (T.AvgPool2d(3, 2, 1, divisor_override=2), nn.AvgPool2d(3, 2, 1, divisor_override=2), x2),
        (T.AvgPool3d((1, 2, 2), ceil_mode=True), nn.AvgPool3d((1, 2, 2), ceil_mode=True), x3),
        (T.AdaptiveAvgPool1d(4), nn.AdaptiveAvgPool1d(4), x1),
        (T.AdaptiveAvgPool2d((None, 3)), nn.AdaptiveAvgPool2d((None, 3)), x2),
        (T.AdaptiveAvgPool3d(2), nn.AdaptiveAvgPool3d(2), x3),
        (T.AdaptiveMaxPool1d(5), nn.AdaptiveMaxPool1d(5), x1),
        (T.AdaptiveMaxPool2d((4, None)), nn.AdaptiveMaxPool2d((4, None)), x2),
        (T.AdaptiveMaxPool3d((2, 3, 4)), nn.AdaptiveMaxPool3d((2, 3, 4)), x3),
        (T.Upsample(scale_factor=2), nn.Upsample(scale_factor=2), x2),
        (T.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
         nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True), x2),
        (T.Upsample(scale_factor=(2.0, 1.5), mode="bilinear"), nn.Upsample(scale_factor=(2.0, 1.5), mode="bilinear"), x2),
    ]
    attrs = ["kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices", "count_include_pad",
             "divisor_override", "output_size", "size", "scale_factor", "mode", "align_corners"]
    for tm, sm, x in cases:
        assert repr(sm) == repr(tm)
        for a in attrs:
            if hasattr(tm, a):
                assert getattr(sm, a) == getattr(tm, a), (repr(tm), a)
        check(tm, sm, x)
    # return_indices: the layer gives (values, indices).
    check(T.MaxPool2d(3, 2, 1, return_indices=True), nn.MaxPool2d(3, 2, 1, return_indices=True), x2, indices=True)
    check(T.AdaptiveMaxPool2d(3, return_indices=True), nn.AdaptiveMaxPool2d(3, return_indices=True), x2,
          indices=True)
    # In a Sequential, as in a small CNN.
    seq = spire.nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.AdaptiveAvgPool2d(1))
    assert tuple(seq(spire.tensor(rnd((2, 3, 9, 8), 5, np.float32))).shape) == (2, 4, 1, 1)


def test_errors_name_what_is_wrong():
    x = spire.zeros((1, 1, 5, 5))
    with pytest.raises(ValueError, match="half the kernel"):
        F.max_pool2d(x, 2, padding=2)
    with pytest.raises(spire.ShapeError, match="larger than the padded"):
        F.max_pool2d(x, 6)
    with pytest.raises(spire.ShapeError, match="larger than the padded"):
        F.avg_pool2d(x, (2, 7))
    with pytest.raises(spire.ShapeError, match=r"max_pool2d.*\[N, C,"):
        F.max_pool2d(spire.zeros((5, 5)), 2)
    with pytest.raises(ValueError, match="stride"):
        F.avg_pool1d(spire.zeros((1, 1, 5)), 2, stride=0)
    with pytest.raises(ValueError, match="only one of size and scale_factor"):
        F.interpolate(x, size=3, scale_factor=2)
    with pytest.raises(spire.ShapeError, match="3-d"):
        F.interpolate(x, size=3, mode="linear")
    with pytest.raises(ValueError, match="align_corners"):
        F.interpolate(x, size=3, align_corners=True)


def test_vmap_and_double_backward_through_pooling():
    x = rnd((4, 2, 6, 6), 9)
    f = lambda t: F.max_pool2d(t, 2) * 2 + F.avg_pool2d(t, 3, 2, 1, count_include_pad=False)  # noqa: E731
    per = np.stack([np.asarray(f(spire.tensor(x[i]))) for i in range(4)])
    np.testing.assert_allclose(np.asarray(spire.vmap(f)(spire.tensor(x))), per, rtol=1e-14, atol=1e-14)
    # The gradient of a smooth function of the pooled values is itself differentiable.
    xs = spire.tensor(x, requires_grad=True)
    (g,) = spire.autograd.grad(spire.sum(F.max_pool2d(xs, 2) ** 3), [xs], create_graph=True)
    (h,) = spire.autograd.grad(spire.sum(g), [xs])
    xt = torch.tensor(x, requires_grad=True)
    (gt,) = torch.autograd.grad((TF.max_pool2d(xt, 2) ** 3).sum(), [xt], create_graph=True)
    (ht,) = torch.autograd.grad(gt.sum(), [xt])
    np.testing.assert_allclose(np.asarray(h), ht.numpy(), rtol=1e-12, atol=1e-12)
