"""Discrete Fourier and cosine transforms, with NumPy's signatures (``n``/``s`` pad or truncate
the input; ``norm`` is "backward" (default), "ortho" or "forward"). Differentiable."""

from __future__ import annotations

from typing import Optional, Sequence

from . import _C

__all__ = ["fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "rfftn", "irfftn", "fft2", "ifft2",
           "rfft2", "irfft2", "dct", "idct", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_raw = _C._fft


def _norm(norm: Optional[str]) -> str:
    return "backward" if norm is None else norm


def _resize(x, n: int, axis: int):
    """x zero-padded or truncated to length n along axis."""
    axis %= x.ndim
    size = x.shape[axis]
    if n == size:
        return x
    if n < size:
        return _C.slice(x, axis, 0, n)
    pads = [(0, n - size)] + [(0, 0)] * (x.ndim - axis - 1)
    return _C.pad(x, pads)


def _axes_and_sizes(x, s, axes):
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    axes = [a % x.ndim for a in axes]
    if s is not None:
        if len(s) != len(axes):
            raise ValueError(f"fftn: s has {len(s)} entries for {len(axes)} axes")
        for a, n in zip(axes, s):
            x = _resize(x, n, a)
    return x, axes


def fft(x, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None):
    x = _C.asarray(x)
    if n is not None:
        x = _resize(x, n, axis)
    return _raw.fft(x, axis, _norm(norm))


def ifft(x, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None):
    x = _C.asarray(x)
    if n is not None:
        x = _resize(x, n, axis)
    return _raw.ifft(x, axis, _norm(norm))


def rfft(x, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None):
    x = _C.asarray(x)
    if n is not None:
        x = _resize(x, n, axis)
    return _raw.rfft(x, axis, _norm(norm))


def irfft(x, n: Optional[int] = None, axis: int = -1, norm: Optional[str] = None):
    """Inverse of rfft; ``n`` is the output length (default 2 * (m - 1))."""
    return _raw.irfft(_C.asarray(x), -1 if n is None else n, axis, _norm(norm))


def fftn(x, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
         norm: Optional[str] = None):
    x, axes = _axes_and_sizes(_C.asarray(x), s, axes)
    return _raw.fftn(x, axes, _norm(norm))


def ifftn(x, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
          norm: Optional[str] = None):
    x, axes = _axes_and_sizes(_C.asarray(x), s, axes)
    return _raw.ifftn(x, axes, _norm(norm))


def rfftn(x, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
          norm: Optional[str] = None):
    x, axes = _axes_and_sizes(_C.asarray(x), s, axes)
    return _raw.rfftn(x, axes, _norm(norm))


def irfftn(x, s: Optional[Sequence[int]] = None, axes: Optional[Sequence[int]] = None,
           norm: Optional[str] = None):
    """Inverse of rfftn; ``s`` gives the output sizes (default: the input's, with the last axis
    2 * (m - 1))."""
    x = _C.asarray(x)
    if axes is None:
        axes = list(range(x.ndim)) if s is None else list(range(x.ndim - len(s), x.ndim))
    axes = [a % x.ndim for a in axes]
    if s is None:
        s = [x.shape[a] for a in axes[:-1]] + [2 * (x.shape[axes[-1]] - 1)]
    elif len(s) != len(axes):
        raise ValueError(f"irfftn: s has {len(s)} entries for {len(axes)} axes")
    for a, n in zip(axes[:-1], s[:-1]):
        x = _resize(x, n, a)
    return _raw.irfftn(x, list(s), axes, _norm(norm))


def fft2(x, s=None, axes=(-2, -1), norm=None):
    return fftn(x, s, axes, norm)


def ifft2(x, s=None, axes=(-2, -1), norm=None):
    return ifftn(x, s, axes, norm)


def rfft2(x, s=None, axes=(-2, -1), norm=None):
    return rfftn(x, s, axes, norm)


def irfft2(x, s=None, axes=(-2, -1), norm=None):
    return irfftn(x, s, axes, norm)


def dct(x, type: int = 2, axis: int = -1, norm: Optional[str] = None):
    """DCT of type 1 or 2, scaled as scipy.fft.dct."""
    return _raw.dct(_C.asarray(x), type, axis, _norm(norm))


def idct(x, type: int = 2, axis: int = -1, norm: Optional[str] = None):
    """Inverse of dct of the same type."""
    return _raw.idct(_C.asarray(x), type, axis, _norm(norm))


def fftfreq(n: int, d: float = 1.0, dtype=None):
    """Sample frequencies of an n-point FFT with spacing d (as numpy.fft.fftfreq)."""
    dtype = _C.float32 if dtype is None else dtype
    k = _C.concat([_C._factories.arange(0, (n - 1) // 2 + 1, 1, _C.int64),
                   _C._factories.arange(-(n // 2), 0, 1, _C.int64)])
    return _C.cast(k, dtype) / (d * n)


def rfftfreq(n: int, d: float = 1.0, dtype=None):
    dtype = _C.float32 if dtype is None else dtype
    return _C.cast(_C._factories.arange(0, n // 2 + 1, 1, _C.int64), dtype) / (d * n)


def fftshift(x, axes=None):
    x = _C.asarray(x)
    axes = range(x.ndim) if axes is None else ([axes] if isinstance(axes, int) else axes)
    for a in axes:
        x = _C.roll(x, x.shape[a] // 2, a)
    return x


def ifftshift(x, axes=None):
    x = _C.asarray(x)
    axes = range(x.ndim) if axes is None else ([axes] if isinstance(axes, int) else axes)
    for a in axes:
        x = _C.roll(x, -(x.shape[a] // 2), a)
    return x
