"""The CUDA backend: whether this build has one and a GPU is usable (tensors move with
``t.to("cuda")``, ``t.cuda()``, ``t.cpu()``)."""

from ._C.cuda import device_count, get_device_name, is_available, synchronize, unavailable_reason

__all__ = ["device_count", "get_device_name", "is_available", "synchronize", "unavailable_reason"]
