"""Functional transforms over Python functions of pytrees: grad, value_and_grad, vjp, jvp, jacrev,
jacfwd, hessian, hvp. They compose in any order (``grad(grad(f))``, ``jacfwd(jacrev(f))``).

The derivatives are computed by the engine's transforms (engine/autodiff/functional.h), which work
on flat lists of tensors; this module flattens arguments and results and rebuilds their
structure. Arguments not selected by ``argnums`` and keyword arguments are held constant and may be
anything; the selected ones may be pytrees whose leaves are tensors or numbers (numbers become
float32 tensors, NumPy arrays keep their dtype).
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Sequence, Tuple, Union

from . import _C
from ._C import Tensor
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "hvp"]

_F = _C._functional
Argnums = Union[int, Sequence[int]]


def _leaf(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else _C.asarray(x)


def _leaves(tree: Any, what: str) -> Tuple[list, Any]:
    leaves, td = tree_flatten(tree)
    return [_leaf(x) for x in leaves], td


class _Args:
    """Positional arguments split into the differentiated leaves (flat) and the rest (constant)."""

    def __init__(self, fname: str, args: tuple, argnums: Argnums):
        self.single = isinstance(argnums, int)
        nums = (argnums,) if self.single else tuple(argnums)
        if not nums:
            raise ValueError(f"{fname}: argnums must name at least one argument")
        n = len(args)
        self.nums = []
        for a in nums:
            if not -n <= a < n:
                raise ValueError(f"{fname}: argnums {a} is out of range for {n} positional arguments")
            self.nums.append(a % n)
        self.args = list(args)
        self.flat: list = []
        self.defs = []
        for a in self.nums:
            leaves, td = _leaves(args[a], fname)
            self.flat += leaves
            self.defs.append(td)

    def rebuild(self, flat: list) -> list:
        args = list(self.args)
        k = 0
        for a, td in zip(self.nums, self.defs):
            args[a] = tree_unflatten(td, flat[k:k + td.num_leaves])
            k += td.num_leaves
        return args

    def group(self, flat: list, fill: Callable[[int], Any] | None = None) -> Any:
        """Per-argnum pytrees from a flat list shaped like the differentiated leaves."""
        if fill is not None:
            flat = [fill(i) if x is None else x for i, x in enumerate(flat)]
        out = []
        k = 0
        for td in self.defs:
            out.append(tree_unflatten(td, flat[k:k + td.num_leaves]))
            k += td.num_leaves
        return out[0] if self.single else tuple(out)


def _scalar_output(fname: str, out: Any) -> Tensor:
    if not isinstance(out, Tensor):
        raise TypeError(f"{fname}: the function must return a scalar tensor, got {type(out).__name__}"
                        " (with has_aux=True, return a pair (value, aux))")
    return out


def _split_aux(fname: str, out: Any, has_aux: bool) -> Tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError(f"{fname}: with has_aux=True the function must return a pair (value, aux)")
    return out[0], out[1]


def _zeros_filler(leaves: list) -> Callable[[int], Tensor]:
    return lambda i: _C.zeros_like(leaves[i])


def value_and_grad(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """``g(*args) -> (f(*args), gradient)``; with ``has_aux``, ``((value, aux), gradient)``. The
    gradient has the structure of the argument (a tuple of them when argnums is a tuple)."""

    @functools.wraps(f)
    def value_and_grad_f(*args, **kwargs):
        a = _Args("value_and_grad", args, argnums)
        aux_box = []

        def flat_f(flat):
            value, aux = _split_aux("value_and_grad", f(*a.rebuild(flat), **kwargs), has_aux)
            aux_box[:] = [aux]
            return [_scalar_output("value_and_grad", value)]

        res = _F.value_and_grad(flat_f, list(range(len(a.flat))))(a.flat)
        grads = a.group(res[1:], _zeros_filler(a.flat))
        return ((res[0], aux_box[0]) if has_aux else res[0]), grads

    return value_and_grad_f


def grad(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """The gradient of a scalar-valued ``f`` with respect to the arguments in ``argnums``; with
    ``has_aux`` (f returns ``(value, aux)``), ``g`` returns ``(gradient, aux)``."""

    @functools.wraps(f)
    def grad_f(*args, **kwargs):
        a = _Args("grad", args, argnums)
        aux_box = []

        def flat_f(flat):
            value, aux = _split_aux("grad", f(*a.rebuild(flat), **kwargs), has_aux)
            aux_box[:] = [aux]
            return [_scalar_output("grad", value)]

        res = _F.grad(flat_f, list(range(len(a.flat))))(a.flat)
        grads = a.group(res, _zeros_filler(a.flat))
        return (grads, aux_box[0]) if has_aux else grads

    return grad_f


def vjp(f: Callable, *primals: Any, has_aux: bool = False):
    """``(f(*primals), vjp_fn)``; ``vjp_fn(cotangent)`` (shaped like the output) returns a tuple of
    cotangents, one per primal. With ``has_aux``: ``(out, vjp_fn, aux)``."""
    flat, in_td = _leaves(tuple(primals), "vjp")
    box = {}

    def flat_f(xs):
        out, aux = _split_aux("vjp", f(*tree_unflatten(in_td, xs)), has_aux)
        leaves, box["out"] = tree_flatten(out)
        box["aux"] = aux
        return [_leaf(x) for x in leaves]

    outs, back = _F.vjp(flat_f, flat)
    out_td = box["out"]

    def vjp_fn(cotangent):
        cts, td = _leaves(cotangent, "vjp_fn")
        if td != out_td:
            raise ValueError(f"vjp_fn: the cotangent has structure {td!r}, the output {out_td!r}")
        grads = back(cts)
        grads = [_C.zeros_like(flat[i]) if g is None else g for i, g in enumerate(grads)]
        return tree_unflatten(in_td, grads)

    out = tree_unflatten(out_td, outs)
    return (out, vjp_fn, box["aux"]) if has_aux else (out, vjp_fn)


def jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any], has_aux: bool = False):
    """``(f(*primals), tangent_out)``: forward-mode derivative of f at ``primals`` along
    ``tangents`` (same structure). With ``has_aux``: ``(out, tangent_out, aux)``."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp: primals and tangents must be tuples (one entry per argument of f)")
    flat, in_td = _leaves(tuple(primals), "jvp")
    flat_t, t_td = _leaves(tuple(tangents), "jvp")
    if t_td != in_td:
        raise ValueError(f"jvp: tangents have structure {t_td!r}, primals {in_td!r}")
    box = {}

    def flat_f(xs):
        out, aux = _split_aux("jvp", f(*tree_unflatten(in_td, xs)), has_aux)
        leaves, box["out"] = tree_flatten(out)
        box["aux"] = aux
        return [_leaf(x) for x in leaves]

    outs, touts = _F.jvp(flat_f, flat, flat_t)
    touts = [_C.zeros_like(outs[i]) if t is None else t for i, t in enumerate(touts)]
    out, tout = tree_unflatten(box["out"], outs), tree_unflatten(box["out"], touts)
    return (out, tout, box["aux"]) if has_aux else (out, tout)


def _jacobian(kind: str, f: Callable, argnums: Argnums, has_aux: bool) -> Callable:
    transform = getattr(_F, kind)

    @functools.wraps(f)
    def jac_f(*args, **kwargs):
        a = _Args(kind, args, argnums)
        box = {}

        def evaluate(flat):
            out, aux = _split_aux(kind, f(*a.rebuild(flat), **kwargs), has_aux)
            leaves, box["out"] = tree_flatten(out)
            box["aux"] = aux
            return [_leaf(x) for x in leaves]

        # The engine differentiates output 0; each output leaf gets its own pass.
        evaluate(a.flat)
        out_td = box["out"]
        per_output = []
        for k in range(out_td.num_leaves):
            fk = (lambda flat, k=k: [evaluate(flat)[k]])
            jac = transform(fk, list(range(len(a.flat))))(a.flat)
            per_output.append(a.group(jac))
        res = tree_unflatten(out_td, per_output)
        return (res, box["aux"]) if has_aux else res

    return jac_f


def jacrev(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """The Jacobian by reverse mode: for each output leaf, ``out.shape + arg.shape`` arrays with the
    structure of the arguments (nested inside the output's structure)."""
    return _jacobian("jacrev", f, argnums, has_aux)


def jacfwd(f: Callable, argnums: Argnums = 0, has_aux: bool = False) -> Callable:
    """The Jacobian by forward mode; same layout as :func:`jacrev`."""
    return _jacobian("jacfwd", f, argnums, has_aux)


def hessian(f: Callable, argnums: Argnums = 0) -> Callable:
    """The Hessian of a scalar ``f``, shape ``arg.shape + arg.shape``. With several differentiated
    leaves it is ``jacfwd(jacrev(f))``: nested blocks H[i][j], as in JAX."""

    @functools.wraps(f)
    def hessian_f(*args, **kwargs):
        a = _Args("hessian", args, argnums)
        if len(a.flat) != 1:
            return jacfwd(jacrev(f, argnums), argnums)(*args, **kwargs)

        def flat_f(flat):
            return [_scalar_output("hessian", f(*a.rebuild(flat), **kwargs))]

        h = _F.hessian(flat_f, [0])(a.flat)
        return a.group(h)

    return hessian_f


def hvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any]) -> Any:
    """The Hessian of a scalar ``f`` at ``primals`` applied to ``tangents`` (forward over reverse),
    with the structure of ``primals`` (a tuple, one entry per argument)."""
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("hvp: primals and tangents must be tuples (one entry per argument of f)")
    flat, in_td = _leaves(tuple(primals), "hvp")
    flat_t, t_td = _leaves(tuple(tangents), "hvp")
    if t_td != in_td:
        raise ValueError(f"hvp: tangents have structure {t_td!r}, primals {in_td!r}")

    def flat_f(xs):
        return [_scalar_output("hvp", f(*tree_unflatten(in_td, xs)))]

    res = _F.hvp(flat_f, flat, flat_t)
    res = [_C.zeros_like(flat[i]) if r is None else r for i, r in enumerate(res)]
    return tree_unflatten(in_td, res)
