"""Custom ops: defined in Python with NumPy kernels, or loaded from C++ plugins.

``spire.custom_op(name, forward, backward=None, jvp=None, infer=None)`` registers a real engine op
whose CPU kernel is ``forward`` (NumPy arrays in, NumPy arrays out) and whose reverse and forward
rules are ``backward`` and ``jvp``; it then takes part in ``backward()``, ``spire.grad``, ``jvp``
and ``vmap`` like a built-in. As a decorator::

    @spire.custom_op("demo.cube")
    def cube(x):
        return x ** 3

    @cube.def_backward
    def _(x, out, dout):          # inputs..., output(s), output gradient(s)
        return 3 * x ** 2 * dout  # one gradient per input (None: zero)

``load_library(path)`` loads a plugin of C++ ops (see examples/custom_op and docs/custom_ops.md);
``call(name, *inputs, **attrs)`` runs any registered op by name. See docs/custom_ops.md.
"""

from typing import Any, Callable, NamedTuple, Optional, Tuple

from ._C import _custom

__all__ = ["custom_op", "CustomOp", "TensorSpec", "call", "load_library", "op_names"]


class TensorSpec(NamedTuple):
    """Shape and dtype of an input, as ``infer`` functions receive them."""

    shape: Tuple[int, ...]
    dtype: Any


def call(name: str, *inputs, **attrs):
    """Runs the registered op ``name`` on ``inputs`` (tensors or array-likes) with attributes
    ``attrs`` (int, float, bool, str, dtype, or lists of ints or floats). Returns a tensor, or a
    tuple for ops with several outputs. Records autodiff as any op does."""
    return _custom.call(name, *inputs, **attrs)


def load_library(path) -> list:
    """Loads a plugin of C++ custom ops (built with spire_add_custom_op, cmake/SpireCustomOp.cmake)
    and returns the names of the ops it defined. Loading it again returns the same names."""
    import os

    return _custom.load_library(os.fspath(path))


def op_names() -> list:
    """Names of every registered op, built-in or custom, sorted."""
    return _custom.op_names()


class CustomOp:
    """A handle on a registered op: call it like a function, ``op(*inputs, **attrs)``."""

    def __init__(self, name: str, forward: Optional[Callable] = None):
        self.name = name
        self.__wrapped__ = forward
        if forward is not None:
            self.__doc__ = forward.__doc__

    def __call__(self, *inputs, **attrs):
        return _custom.call(self.name, *inputs, **attrs)

    def def_backward(self, fn: Callable) -> Callable:
        """Sets (or replaces) the backward of an op defined in Python; usable as a decorator."""
        _custom.set_rule(self.name, "backward", fn)
        return fn

    def def_jvp(self, fn: Callable) -> Callable:
        """Sets (or replaces) the forward-mode rule of an op defined in Python."""
        _custom.set_rule(self.name, "jvp", fn)
        return fn

    def def_taylor(self, fn: Callable) -> Callable:
        """Sets (or replaces) the Taylor rule of an op defined with ``rules="spire"``."""
        _custom.set_rule(self.name, "taylor", fn)
        return fn

    def def_infer(self, fn: Callable) -> Callable:
        """Sets (or replaces) the shape function of an op defined in Python."""
        _custom.set_rule(self.name, "infer", fn)
        return fn

    def __repr__(self):
        return f"spire.custom.CustomOp({self.name!r})"


def custom_op(name: str, forward: Optional[Callable] = None, backward: Optional[Callable] = None,
              jvp: Optional[Callable] = None, infer: Optional[Callable] = None, *, taylor: Optional[Callable] = None,
              rules: str = "numpy",
              differentiable: bool = True, replace: bool = False):
    """Defines the op ``name`` from Python functions; returns a :class:`CustomOp`.

    forward(*inputs, **attrs): NumPy arrays in (read-only views of the inputs), an array-like out,
        or a tuple of them for several outputs. It runs as the op's CPU kernel.
    backward(*inputs, out, dout, **attrs): the gradients of the inputs (a tuple with one entry per
        input, or one value for a one-input op; None means zero; values broadcast to the input's
        shape). ``out``/``dout`` are the output and its gradient (tuples for several outputs).
    jvp(*inputs, out, *tangents, **attrs): the tangent(s) of the output(s).
    infer(*specs, **attrs): ``(shape, dtype)`` (or a list of them), from TensorSpec(shape, dtype) of
        each input. Without it, the first call runs forward during shape inference and uses that
        result (forward runs once per call either way).
    rules: "numpy" (default): backward and jvp take and return NumPy arrays; each runs as an op of
        its own ("<name>.backward", "<name>.jvp"), so first derivatives work everywhere, and asking
        for a derivative of them (create_graph, hessians, jvp of grad) raises. "spire": backward and
        jvp take spire tensors and must be written with spire ops: then every order works.
    differentiable: False for ops whose outputs carry no gradient (as argmax).
    replace: redefine an op defined earlier from Python (the functions are swapped in place).

    taylor(*inputs, out, series, **attrs), ``rules="spire"`` only: the Taylor rule used by spire.jet,
        laplacian and the other differential operators. ``series[i]`` is a tuple of the K normalised
        coefficients x_1..x_K of input i (x_k = k-th derivative / k!; None where zero); it returns the
        output's K coefficients z_1..z_K (a sequence per output for several outputs; None for zero).
        Write it with spire ops so that reverse mode differentiates through it. Without it, Taylor
        mode raises naming the op.
    Inputs are passed positionally; attributes are keyword arguments.
    """
    if rules not in ("numpy", "spire"):
        raise ValueError(f"custom_op: rules must be 'numpy' or 'spire', got {rules!r}")

    def register(fn: Callable) -> CustomOp:
        _custom.define(name, fn, backward, jvp, infer, taylor, rules == "spire", differentiable, replace)
        return CustomOp(name, fn)

    if forward is None:
        return register
    return register(forward)
