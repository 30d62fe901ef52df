"""Context managers (and decorators) for the thread-local autodiff switches."""

from __future__ import annotations

import functools

from . import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "detect_anomaly",
           "set_detect_anomaly", "is_anomaly_enabled"]

is_grad_enabled = _C.is_grad_enabled
is_anomaly_enabled = _C.is_anomaly_enabled


class _Switch:
    """Sets a switch on entry and restores it on exit; usable as ``with`` and as a decorator.
    Entries nest, even of one instance."""

    _get = staticmethod(_C.is_grad_enabled)
    _set = staticmethod(_C._set_grad_enabled)

    def __init__(self, value: bool):
        self._value = value
        self._saved = []

    def __enter__(self):
        self._saved.append(self._get())
        self._set(self._value)
        return self

    def __exit__(self, *exc):
        self._set(self._saved.pop())
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self._fresh():  # a new switch per call: safe across threads and recursion
                return func(*args, **kwargs)

        return wrapper

    def _fresh(self) -> "_Switch":
        s = _Switch.__new__(_Switch)
        s._value, s._saved, s._get, s._set = self._value, [], self._get, self._set
        return s


class no_grad(_Switch):
    """Ops inside record no history: results do not require grad (evaluation, parameter updates)."""

    def __init__(self):
        super().__init__(False)


class enable_grad(_Switch):
    """Turns recording back on inside a ``no_grad`` region."""

    def __init__(self):
        super().__init__(True)


class set_grad_enabled(_Switch):
    """Recording on or off by argument; takes effect immediately (also without ``with``)."""

    def __init__(self, mode: bool):
        super().__init__(bool(mode))
        self._saved.append(_C.is_grad_enabled())
        _C._set_grad_enabled(bool(mode))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self._saved:
            _C._set_grad_enabled(self._saved.pop())
        return False


class detect_anomaly(_Switch):
    """Inside, every op checks its outputs for NaN and Inf and raises naming the op that made the
    first one (slow: for debugging)."""

    _get = staticmethod(_C.is_anomaly_enabled)
    _set = staticmethod(_C._set_anomaly_enabled)

    def __init__(self, check_nan: bool = True):
        super().__init__(bool(check_nan))


def set_detect_anomaly(mode: bool) -> None:
    _C._set_anomaly_enabled(bool(mode))
