"""The CUDA backend: whether this build has one and a GPU is usable, the caching allocator's
memory statistics, streams and events.

Tensors move with ``t.to("cuda")``, ``t.cuda()`` and ``t.cpu()``; ``t.pin_memory()`` puts a CPU
tensor in page-locked memory so that ``t.to("cuda", non_blocking=True)`` returns before the copy
is done (synchronise, or wait for an event, before relying on it from the host).

Work runs on the current stream of its device; ``with spire.cuda.stream(s):`` makes ``s`` current
for a block::

    s = spire.cuda.Stream()
    start, end = spire.cuda.Event(enable_timing=True), spire.cuda.Event(enable_timing=True)
    with spire.cuda.stream(s):
        start.record()
        y = x @ x
        end.record()
    end.synchronize()
    print(start.elapsed_time(end), "ms")
"""

from ._C.cuda import (Event, Stream, current_device, current_stream, default_stream, device_count,
                      empty_cache, get_device_description, get_device_name, is_available,
                      max_memory_allocated, memory_allocated, memory_cached, memory_reserved,
                      memory_stats, reset_peak_memory_stats, set_device, set_stream, synchronize,
                      unavailable_reason)
from ._C import get_float32_matmul_precision, set_float32_matmul_precision

__all__ = ["Event", "Stream", "StreamContext", "current_device", "current_stream", "default_stream",
           "device_count", "empty_cache", "get_device_description", "get_device_name", "is_available",
           "max_memory_allocated", "memory_allocated", "memory_cached", "memory_reserved",
           "memory_stats", "reset_peak_memory_stats", "set_device", "set_stream", "stream",
           "synchronize", "unavailable_reason", "get_float32_matmul_precision",
           "set_float32_matmul_precision"]


class StreamContext:
    """Makes ``stream`` (and its device) current for this thread inside a ``with`` block and
    restores the previous ones after it. ``None`` changes nothing."""

    def __init__(self, stream):
        self.stream = stream
        self._previous_stream = None
        self._previous_device = None

    def __enter__(self):
        s = self.stream
        if s is None:
            return None
        self._previous_device = current_device()
        self._previous_stream = current_stream(s.device)
        set_device(s.device)
        set_stream(s)
        return s

    def __exit__(self, *exc):
        if self.stream is None:
            return False
        set_stream(self._previous_stream)
        set_device(self._previous_device)
        return False


def stream(s):
    """``with spire.cuda.stream(s):`` runs the block's GPU work on stream ``s``."""
    return StreamContext(s)
