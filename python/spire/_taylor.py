"""Taylor mode, vmap and differential operators: jet, vmap, laplacian, hessian_diag, input_grad,
divergence, curl, derivative.

``jet`` and ``vmap`` take and return pytrees, as their JAX namesakes. The differential operators act
on *point functions*: ``f`` maps ``x`` of shape ``[..., d]`` (points along the leading axes,
coordinates last) to ``[..., *out]``, each point on its own, as a network applied to a batch does.
Their derivatives are taken along directions shared by all points, which is exact for such
functions (see docs/taylor.md). Each operator returns a function of ``x``; further arguments given
to it are passed on to ``f`` unchanged.

The computations are the engine's (engine/autodiff/taylor.h, vmap.h, differential.h); everything
here composes with ``grad``, ``jvp`` and ``vmap``.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any, Callable, List, Optional, Sequence

from . import _C
from ._C import Tensor
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["jet", "vmap", "laplacian", "hessian_diag", "input_grad", "divergence", "curl", "derivative"]

_T = _C._taylor

# The randomised Laplacian estimators ``laplacian(f, estimator=...)`` accepts.
_ESTIMATORS = ("hutchinson", "sparse")


def _leaf(x: Any, dtype: Any = None) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return _C.asarray(x) if dtype is None else _C.asarray(x, dtype)


def _require_callable(fname: str, f: Any) -> None:
    if not callable(f):
        raise TypeError(f"{fname}: f must be callable, got {type(f).__name__}")


def _shape(t: Tensor) -> list:
    return list(t.shape)


# --- jet ---------------------------------------------------------------------------------------

def jet(f: Callable, primals: Sequence[Any], series: Sequence[Sequence[Any]]):
    """Taylor-mode forward propagation of truncated series, as ``jax.experimental.jet.jet``.

    ``primals`` holds one pytree per positional argument of ``f``; ``series[i]`` is a list of K
    terms shaped like ``primals[i]``, term k-1 being the k-th derivative of the path
    ``x(t) = x0 + x1 t + x2 t^2/2! + ...`` through that argument (``None`` for a zero term). All
    arguments have the same number of terms K. Returns ``(f(*primals), series_out)``: each leaf of
    the output is replaced in ``series_out`` by its list of K terms, in the same (derivative)
    convention, so that ``series_out[k-1]`` is ``d^k/dt^k f(x(t))`` at ``t = 0`` for a single
    output. Terms that are not tensors take the dtype of their primal.
    """
    _require_callable("jet", f)
    if not isinstance(primals, (tuple, list)) or not isinstance(series, (tuple, list)):
        raise TypeError("jet: primals and series must be tuples (one entry per argument of f)")
    if len(series) != len(primals):
        raise ValueError(f"jet: {len(series)} series for {len(primals)} primals")
    for i, s in enumerate(series):
        if not isinstance(s, (tuple, list)):
            raise TypeError(f"jet: series[{i}] must be a list of terms, got {type(s).__name__}")
    orders = sorted({len(s) for s in series})
    if len(orders) > 1:
        raise ValueError(f"jet: the series have different numbers of terms {orders}; give every "
                         "argument the same number (None for zero terms)")
    order = orders[0] if orders else 0
    if order == 0:
        raise ValueError("jet: give at least one series term per argument")

    flat: List[Tensor] = []
    flat_series: List[list] = []
    defs = []
    for i, (p, terms) in enumerate(zip(primals, series)):
        leaves, td = tree_flatten(p)
        leaves = [_leaf(x) for x in leaves]
        defs.append(td)
        per_leaf: List[list] = [[] for _ in leaves]
        for k, term in enumerate(terms):
            if term is None:
                for s in per_leaf:
                    s.append(None)
                continue
            # a single-tensor primal takes any array-like term (a list of numbers is no pytree here)
            t_leaves, t_td = ([term], td) if td.kind == "leaf" else tree_flatten(term)
            if t_td != td:
                raise ValueError(f"jet: series[{i}][{k}] has structure {t_td!r}, primals[{i}] {td!r}")
            for j, (x, c) in enumerate(zip(leaves, t_leaves)):
                c = _leaf(c, x.dtype)
                if _shape(c) != _shape(x):
                    raise ValueError(f"jet: series[{i}][{k}] has shape {_shape(c)} where primals[{i}] "
                                     f"has shape {_shape(x)}")
                if c.dtype != x.dtype:
                    raise TypeError(f"jet: series[{i}][{k}] has dtype {c.dtype} where primals[{i}] "
                                    f"has dtype {x.dtype}")
                per_leaf[j].append(c)
        flat += leaves
        flat_series += per_leaf
    box = {}

    def flat_f(xs):
        args, k = [], 0
        for td in defs:
            args.append(tree_unflatten(td, xs[k:k + td.num_leaves]))
            k += td.num_leaves
        leaves, box["out"] = tree_flatten(f(*args))
        return [_leaf(y) for y in leaves]

    outs, out_series = _T.jet(flat_f, flat, flat_series)
    out_td = box["out"]
    return tree_unflatten(out_td, outs), tree_unflatten(out_td, [list(s) for s in out_series])


# --- vmap --------------------------------------------------------------------------------------

def _is_int(a: Any) -> bool:
    return isinstance(a, numbers.Integral) and not isinstance(a, bool)


def _one_level(node: Any):
    """The children of a pytree node (as leaves) and the node's own structure."""
    return tree_flatten(node, is_leaf=lambda x: x is not node)


def _broadcast_prefix(fname: str, what: str, prefix: Any, tree: Any, allow_none: bool) -> list:
    """One axis per leaf of ``tree`` from ``prefix``, a tree prefix of it with axes at its leaves."""
    if prefix is None or _is_int(prefix):
        if prefix is None and not allow_none:
            raise ValueError(f"{fname}: {what} entries must be integers, got None")
        return [prefix] * tree_flatten(tree)[1].num_leaves
    p_children, p_td = _one_level(prefix)
    if p_td.kind == "leaf":
        raise TypeError(f"{fname}: {what} entries must be integers{', None' if allow_none else ''} or "
                        f"containers of them, got {type(prefix).__name__}")
    t_children, t_td = _one_level(tree)
    if t_td != p_td:
        raise ValueError(f"{fname}: {what} {prefix!r} does not match the structure of its value "
                         f"{tree_flatten(tree)[1]!r}")
    out = []
    for p, t in zip(p_children, t_children):
        out += _broadcast_prefix(fname, what, p, t, allow_none)
    return out


def vmap(f: Callable, in_axes: Any = 0, out_axes: Any = 0) -> Callable:
    """``f`` mapped over an axis of its arguments, as ``jax.vmap``: the mapped function runs once
    on whole batches, each op with its batching rule.

    ``in_axes`` is an int (every argument mapped over that axis), ``None`` (not mapped), or a tuple
    with one entry per positional argument, each an int, ``None`` or a pytree prefix of that
    argument with ints or ``None`` at its leaves. Keyword arguments are mapped over axis 0. All
    mapped axes must have the same size, and at least one leaf must be mapped; unmapped leaves may
    be anything. ``out_axes`` (an int or a pytree prefix of the output) says where the mapped axis
    goes in each output. Inside ``f`` tensors have their per-entry shapes; their data cannot be read
    (no ``.numpy()`` or ``.item()``). vmaps nest, and compose with ``jet`` and the differential
    operators; ``grad`` inside a vmapped function is not supported yet.
    """
    _require_callable("vmap", f)
    if not (in_axes is None or _is_int(in_axes) or isinstance(in_axes, (tuple, list))):
        raise TypeError("vmap: in_axes must be an int, None, or a tuple with one entry per positional "
                        f"argument, got {type(in_axes).__name__}")
    if not (_is_int(out_axes) or isinstance(out_axes, (tuple, list, dict))):
        raise TypeError(f"vmap: out_axes must be an int or a pytree prefix of the output with ints at its "
                        f"leaves, got {type(out_axes).__name__}")

    @functools.wraps(f)
    def vmapped(*args, **kwargs):
        if isinstance(in_axes, (tuple, list)):
            if len(in_axes) != len(args):
                raise ValueError(f"vmap: in_axes has {len(in_axes)} entries for {len(args)} positional "
                                 "arguments")
            arg_axes = list(in_axes)
        else:
            arg_axes = [in_axes] * len(args)
        kw_keys = sorted(kwargs)
        trees = list(args) + [kwargs[k] for k in kw_keys]
        names = [f"argument {i}" for i in range(len(args))] + [f"keyword argument {k!r}" for k in kw_keys]
        arg_axes += [0] * len(kw_keys)

        leaves: list = []   # every leaf, as given
        defs = []
        mapped: List[int] = []   # positions in `leaves` of the mapped leaves
        axes: List[int] = []
        size, size_of = None, None
        for tree, axis_prefix, name in zip(trees, arg_axes, names):
            tl, td = tree_flatten(tree)
            for x, a in zip(tl, _broadcast_prefix("vmap", "in_axes", axis_prefix, tree, True)):
                if a is not None:
                    x = _leaf(x)
                    if not -x.ndim <= a < x.ndim:
                        raise ValueError(f"vmap: in_axes {a} is out of range for {name}, a tensor of "
                                         f"shape {_shape(x)}")
                    n = x.shape[a]
                    if size is None:
                        size, size_of = n, f"axis {a} of {name}"
                    elif n != size:
                        raise ValueError(f"vmap: the mapped axes have different sizes: {size_of} has "
                                         f"size {size}, axis {a} of {name} has size {n}")
                    mapped.append(len(leaves))
                    axes.append(int(a))
                leaves.append(x)
            defs.append(td)
        if not mapped:
            raise ValueError("vmap: no argument is mapped; give at least one in_axes entry that is an int")
        box = {}

        def flat_f(xs):
            full = list(leaves)
            for pos, x in zip(mapped, xs):
                full[pos] = x
            rebuilt, k = [], 0
            for td in defs:
                rebuilt.append(tree_unflatten(td, full[k:k + td.num_leaves]))
                k += td.num_leaves
            out = f(*rebuilt[:len(args)], **dict(zip(kw_keys, rebuilt[len(args):])))
            out_leaves, box["out"] = tree_flatten(out)
            return [_leaf(y) for y in out_leaves]

        outs = _T.vmap(flat_f, [leaves[p] for p in mapped], axes)
        out = tree_unflatten(box["out"], outs)
        moved = []
        for y, a in zip(outs, _broadcast_prefix("vmap", "out_axes", out_axes, out, False)):
            if not -y.ndim <= a < y.ndim:
                raise ValueError(f"vmap: out_axes {a} is out of range for an output of {y.ndim - 1} "
                                 "dimensions (plus the mapped one)")
            moved.append(_C.moveaxis(y, 0, a) if a % y.ndim else y)
        return tree_unflatten(box["out"], moved)

    return vmapped


# --- differential operators of point functions --------------------------------------------------

def _point_operator(fname: str, f: Callable, run: Callable[[Callable, Tensor], Tensor]) -> Callable:
    _require_callable(fname, f)

    @functools.wraps(f)
    def operator_f(x, *args, **kwargs):
        g = (lambda y: f(y, *args, **kwargs)) if args or kwargs else f
        return run(g, _leaf(x))

    return operator_f


def laplacian(f: Callable, estimator: Optional[str] = None, samples: Optional[int] = None,
              seed: int = 0) -> Callable:
    """The Laplacian ``sum_i d^2 f / dx_i^2`` of a point function ``f``, at every point: a function
    of ``x`` ([..., d]) returning a tensor shaped like ``f(x)``.

    Exact by default, in one forward-Laplacian pass carrying the value, d first-order tangents and
    one summed second-order term. With ``estimator`` (``"hutchinson"`` or ``"sparse"``), an unbiased
    estimate from ``samples`` random directions per point, drawn from a generator seeded by
    ``seed`` (the same seed gives the same estimate):

    - ``"hutchinson"``: Rademacher v, mean of v^T H v; variance per point
      ``2 (||H||_F^2 - sum_i H_ii^2) / samples`` (zero for a diagonal Hessian).
    - ``"sparse"``: coordinates i drawn uniformly, mean of d H_ii; variance per point
      ``(d sum_i H_ii^2 - (tr H)^2) / samples`` (zero when every H_ii is equal).
    """
    _require_callable("laplacian", f)
    if estimator is None:
        if samples is not None:
            raise ValueError("laplacian: samples applies to an estimator; the exact Laplacian takes none "
                             f"(estimator must be one of {_ESTIMATORS} to use samples)")
        return _point_operator("laplacian", f, _T.laplacian)
    if estimator not in _ESTIMATORS:
        raise ValueError(f"laplacian: estimator must be None (exact) or one of "
                         f"{', '.join(repr(e) for e in _ESTIMATORS)}, got {estimator!r}")
    if samples is None or not _is_int(samples) or samples < 1:
        raise ValueError(f"laplacian: estimator {estimator!r} needs samples, a positive int, got {samples!r}")
    if not _is_int(seed) or not 0 <= seed < 2 ** 64:
        raise ValueError(f"laplacian: seed must be an int in [0, 2**64), got {seed!r}")
    samples, seed = int(samples), int(seed)
    return _point_operator("laplacian", f, lambda g, x: _T.laplacian_estimate(g, x, estimator, samples, seed))


def hessian_diag(f: Callable) -> Callable:
    """The diagonal of the Hessian of a point function, ``d^2 f / dx_i^2`` for every i: a function
    of ``x`` ([..., d]) returning ``[..., *out, d]``; one pass with d directions."""
    return _point_operator("hessian_diag", f, _T.hessian_diag)


def input_grad(f: Callable) -> Callable:
    """The derivatives ``df/dx_i`` of a point function for every i (its gradient for a scalar f,
    its Jacobian for a vector f): a function of ``x`` ([..., d]) returning ``[..., *out, d]``; one
    forward pass carrying d tangents. Use ``grad`` for derivatives with respect to parameters."""
    return _point_operator("input_grad", f, _T.input_grad)


def divergence(f: Callable) -> Callable:
    """The divergence ``sum_i df_i/dx_i`` of a vector field f: [..., d] -> [..., d], shape [...]."""
    return _point_operator("divergence", f, _T.divergence)


def curl(f: Callable) -> Callable:
    """The curl of a vector field f: [..., 3] -> [..., 3], shape [..., 3]."""
    return _point_operator("curl", f, _T.curl)


def derivative(f: Callable, order: int, direction: Any) -> Callable:
    """The ``order``-th directional derivative ``d^k/dt^k f(x + t v)`` at ``t = 0``, shaped like
    ``f(x)``, by one jet of that order. ``direction`` v is shaped like x or like its last axis (then
    the same direction at every point); it is cast to x's dtype."""
    _require_callable("derivative", f)
    if not _is_int(order) or order < 1:
        raise ValueError(f"derivative: order must be a positive int, got {order!r}")
    v = _leaf(direction)
    order = int(order)
    return _point_operator("derivative", f, lambda g, x: _T.derivative(g, x, order, v))
