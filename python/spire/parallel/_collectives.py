"""Collectives as differentiable ops (engine/parallel/collectives.h).

Each returns a new tensor and records itself for autodiff like any other op: its reverse rule is
its transpose (all_reduce sum <-> all_reduce sum, all_gather <-> reduce_scatter sum, all_to_all <->
all_to_all with the axes swapped, broadcast <-> sum to the root, permute <-> the inverse
permutation), and forward mode, Taylor mode and vmap go through it too. ``comm`` is a
:class:`Communicator` (``None``: the world). Every rank must make the same calls in the same order,
and must differentiate the same function: a backward pass issues collectives as well.

``send``/``recv`` are plain, non-differentiable point-to-point calls; use :func:`permute` where a
gradient must cross ranks. See docs/parallel.md.
"""

from .._C import _parallel as _C

__all__ = ["all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "permute", "send", "recv",
           "barrier", "MAX_TAG"]

MAX_TAG = _C.MAX_TAG  # user tags are 0 .. MAX_TAG - 1; permute uses the tags above


def all_reduce(x, op="sum", comm=None):
    """The reduction over ranks of ``x`` ("sum", "mean", "max", "min"), on every rank.

    Gradient of max/min: the cotangents summed over ranks go to the element(s) that attain the
    extreme, shared evenly among ties on all ranks (the convention of ``jnp.max``)."""
    return _C.all_reduce(x, op, comm)


def all_gather(x, axis=0, comm=None):
    """The ranks' ``x`` concatenated along ``axis`` in rank order."""
    return _C.all_gather(x, axis, comm)


def reduce_scatter(x, axis=0, op="sum", comm=None):
    """``x`` cut into ``size`` chunks along ``axis``; rank r gets the reduction over ranks of chunk r."""
    return _C.reduce_scatter(x, axis, op, comm)


def all_to_all(x, split_axis=0, concat_axis=0, comm=None):
    """Chunk j of ``x`` (along ``split_axis``) goes to rank j, which concatenates the chunks it gets
    along ``concat_axis`` in the order of the senders."""
    return _C.all_to_all(x, split_axis, concat_axis, comm)


def broadcast(x, root=0, comm=None):
    """Root's ``x`` on every rank (the others' ``x`` give only shape and dtype)."""
    return _C.broadcast(x, root, comm)


def permute(x, pairs, comm=None):
    """Collective permute (JAX's ``ppermute``): for each ``(src, dst)`` in ``pairs`` rank dst gets
    src's ``x``; a rank nobody sends to gets zeros. Each rank appears at most once as a source and
    once as a destination. Differentiable: the gradient travels the pairs reversed."""
    return _C.permute(x, [tuple(p) for p in pairs], comm)


def send(x, dst, tag=0, comm=None):
    """Blocking send of ``x`` to rank ``dst`` (not differentiable)."""
    _C.send(x, dst, tag, comm)


def recv(shape, dtype=None, src=0, tag=0, comm=None):
    """Blocking receive of a tensor of ``shape`` and ``dtype`` (default float32) from rank ``src``."""
    return _C.recv(shape, dtype, src, tag, comm)


def barrier(comm=None):
    """Returns once every rank of ``comm`` has entered it."""
    _C.barrier(comm)
