"""Parallel runtime: ranks, communicators and device meshes over MPI (CPU tensors) and NCCL (CUDA tensors).

The same script runs in a plain process (one rank, no launcher, MPI never started) and under
``mpirun -n N`` (or srun, or any MPI launcher)::

    import spire.parallel as par
    par.init()                        # "auto": MPI under a launcher, else the one-rank "self" world
    world = par.world()
    x = spire.ones(4)
    world.all_reduce(x, "sum")        # in place; deterministic (ranks combined in rank order)
    mesh = par.DeviceMesh((2, 2), ("data", "model"))
    mesh.comm("data").all_reduce(grad, "mean")

Failures end the whole job instead of hanging it: a collective that does not complete within the
timeout (``init(timeout=...)`` or ``SPIRE_COLLECTIVE_TIMEOUT``, seconds) aborts every rank with a
message naming it, and after ``init()`` on more than one rank an uncaught Python exception aborts
the job with its traceback and rank. See docs/parallel.md.
"""

import sys
import traceback

from .._C._parallel import Communicator, DeviceMesh, Work  # noqa: F401
from .._C import _parallel as _C
from .._C._parallel import DataParallel, distributed_sampler, is_main_process, save_on_main_only  # noqa: F401
from ._collectives import (MAX_TAG, all_gather, all_reduce, all_to_all, barrier, broadcast, permute,  # noqa: F401
                           recv, reduce_scatter, send)

__all__ = ["init", "is_initialized", "finalize", "rank", "size", "local_rank", "world", "collective_timeout",
           "abort_job", "Communicator", "DeviceMesh", "Work",
           "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast", "permute", "send", "recv",
           "barrier", "MAX_TAG", "DataParallel", "distributed_sampler", "is_main_process", "save_on_main_only"]

_previous_excepthook = None


def _abort_on_uncaught(kind, value, tb):
    # Print the traceback here (the other ranks' output is killed with the job), then end the job:
    # the other ranks would otherwise wait for this one in their next collective.
    text = "".join(traceback.format_exception(kind, value, tb))
    _C.abort_job("uncaught Python exception\n" + text, 1)


def init(backend="auto", timeout=None):
    """Start the runtime (idempotent). ``backend``: "auto" (MPI when a launcher started this process,
    else "self"), "mpi" or "self". ``timeout``: seconds a collective may wait (default 600; <= 0
    waits forever); ``SPIRE_COLLECTIVE_TIMEOUT`` overrides it."""
    global _previous_excepthook
    _C.init(backend, timeout)
    if _C.size() > 1 and _previous_excepthook is None:
        _previous_excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught


def is_initialized():
    return _C.is_initialized()


def finalize():
    """End the runtime (collective; safe to call twice; also done at exit)."""
    global _previous_excepthook
    _C.finalize()
    if _previous_excepthook is not None:
        sys.excepthook = _previous_excepthook
        _previous_excepthook = None


def rank():
    """This process's rank in the world (starts the runtime with defaults if needed)."""
    return _C.rank()


def size():
    """The number of ranks in the world."""
    return _C.size()


def local_rank():
    """The rank among the ranks on this node (which GPU to use)."""
    return _C.local_rank()


def world():
    """The world :class:`Communicator`."""
    return _C.world()


def collective_timeout():
    return _C.collective_timeout()


def abort_job(message, code=1):
    """Print ``spire rank r of n: <message>`` and end every rank of the job."""
    _C.abort_job(str(message), code)
