"""Datasets and loaders, in the manner of ``torch.utils.data``.

``ArrayDataset(x, y)`` holds tensors in memory (sample ``i`` is row ``i`` of each);
``HDF5Dataset(path, keys)`` reads an HDF5 file lazily, in blocks of rows kept in an LRU cache;
``DataLoader`` batches a dataset in a sampler's order on a background thread::

    train = spire.data.HDF5Dataset("train.h5", ["x", "y"])
    loader = spire.data.DataLoader(train, batch_size=64, shuffle=True, seed=0)
    for epoch in range(10):
        loader.set_epoch(epoch)          # the order of (seed, epoch), the same on every run
        for x, y in loader:
            ...

Iteration yields tuples with one tensor per field, each field's samples stacked along a new axis
0. Shuffled orders are Philox permutations keyed by ``(seed, epoch)``; without ``set_epoch`` each
pass of a shuffling loader moves to the next epoch, so every pass is shuffled anew. A
``DistributedSampler(dataset, num_replicas, rank)`` splits those orders across ranks as PyTorch's.

For the built-in datasets the loader runs in C++: a worker thread assembles up to ``prefetch``
batches ahead without the GIL. A Python dataset (any object with ``__len__`` and ``__getitem__``,
for example a subclass of :class:`Dataset`) is loaded by a Python thread instead and its samples
are collated like PyTorch's ``default_collate``. Either way an exception raised while loading is
re-raised by the loop where its batch would have come, and leaving the loop early stops the thread.
"""

import abc
import os
import queue
import threading

import numpy as np

from . import _C
from ._C._data import (ArrayDataset, HDF5Dataset, Sampler, SequentialSampler, RandomSampler,  # noqa: F401
                       seeded_permutation)
from ._C._data import Dataset as _CDataset, DistributedSampler as _CDistributedSampler

__all__ = ["Dataset", "ArrayDataset", "HDF5Dataset", "DataLoader", "Sampler", "SequentialSampler",
           "RandomSampler", "DistributedSampler", "default_collate", "seeded_permutation"]


class Dataset(abc.ABC):
    """Base of Python datasets: define ``__len__`` and ``__getitem__`` (returning a tensor, a
    number, a NumPy array, or a tuple, list or dict of them); a subclass missing either cannot be
    instantiated. Optionally ``__getitems__(indices)`` returns a whole batch of samples at once, as
    in PyTorch."""

    @abc.abstractmethod
    def __len__(self):
        """The number of samples."""

    @abc.abstractmethod
    def __getitem__(self, index):
        """The sample at ``index``."""


def DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
    """PyTorch's DistributedSampler: rank ``rank`` of ``num_replicas`` gets every
    ``num_replicas``-th index of the (seed, epoch) permutation, padded to equal lengths (or cut,
    with ``drop_last``). ``num_replicas`` and ``rank`` default to the world of ``spire.parallel``
    once it is initialised (mpirun sets no WORLD_SIZE), else to the ``WORLD_SIZE`` and ``RANK``
    environment variables (as torchrun sets them), else to 1 and 0."""
    world = _C._parallel.world() if _C._parallel.is_initialized() else None
    if num_replicas is None:
        num_replicas = world.size if world is not None else int(os.environ.get("WORLD_SIZE", 1))
    if rank is None:
        rank = world.rank if world is not None else int(os.environ.get("RANK", 0))
    return _CDistributedSampler(dataset, num_replicas, rank, shuffle, seed, drop_last)


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


def default_collate(samples):
    """Stacks a list of samples into a batch, as PyTorch's ``default_collate``: tensors and NumPy
    arrays are stacked along a new axis 0; Python floats, ints and bools become float64, int64 and
    bool tensors; tuples and lists are collated field by field into a tuple, dicts key by key;
    anything else (strings) is left as a list."""
    first = samples[0]
    if _is_tensor(first):
        return _C.stack(list(samples), 0)
    if isinstance(first, np.ndarray):
        return _C.from_numpy(np.ascontiguousarray(np.stack(samples)))
    if isinstance(first, (bool, np.bool_)):
        return _C.tensor(list(samples), dtype=_C.bool)
    if isinstance(first, (int, np.integer)):
        return _C.tensor(list(samples), dtype=_C.int64)
    if isinstance(first, (float, np.floating)):
        return _C.tensor(list(samples), dtype=_C.float64)
    if isinstance(first, dict):
        return {k: default_collate([s[k] for s in samples]) for k in first}
    if isinstance(first, (tuple, list)):
        n = len(first)
        if any(len(s) != n for s in samples):
            raise ValueError("default_collate: every sample must have the same number of fields")
        return tuple(default_collate([s[i] for s in samples]) for i in range(n))
    return list(samples)


def _load_batch(loader, indices):
    ds = loader.dataset
    getitems = getattr(ds, "__getitems__", None)
    samples = getitems(indices) if getitems is not None else [ds[i] for i in indices]
    return loader.collate_fn(samples)


_END = object()


def _put(q, stop, item):
    while not stop.is_set():
        try:
            q.put(item, timeout=0.05)
            return True
        except queue.Full:
            continue
    return False


def _work(loader, batches, q, stop):
    # Holds no reference to the pass object, so that dropping the pass (leaving a loop early)
    # collects it, and its __del__ stops this thread.
    for indices in batches:
        if stop.is_set():
            return
        try:
            item = (True, _load_batch(loader, indices))
        except BaseException as e:  # noqa: BLE001  (delivered to the consumer, in order)
            _put(q, stop, (False, e))
            return
        if not _put(q, stop, item):
            return
    _put(q, stop, _END)


class _PythonPass:
    """One pass over a Python dataset: batches loaded by a thread into a bounded queue."""

    def __init__(self, loader, batches):
        self._loader = loader
        self._batches = batches
        self._next = 0
        self._thread = None
        if loader.prefetch > 0 and batches:
            self._queue = queue.Queue(maxsize=loader.prefetch)
            self._stop = threading.Event()
            self._thread = threading.Thread(target=_work, args=(loader, batches, self._queue, self._stop),
                                            name="spire-data-loader", daemon=True)
            self._thread.start()

    def __iter__(self):
        return self

    def __next__(self):
        if self._next >= len(self._batches):
            self.close()
            raise StopIteration
        if self._thread is None:
            self._next += 1
            try:
                return _load_batch(self._loader, self._batches[self._next - 1])
            except BaseException:
                self._next = len(self._batches)  # the pass ends at its first error
                raise
        item = self._queue.get()
        if item is _END:
            self.close()
            raise StopIteration
        ok, value = item
        if not ok:
            self.close()
            raise value
        self._next += 1
        return value

    def close(self):
        """Stops the loading thread now."""
        self._next = len(self._batches)
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


class DataLoader:
    """Batches of ``dataset`` in the order of ``sampler`` (or of a ``RandomSampler(dataset, seed)``
    with ``shuffle=True``, else sequential), ``batch_size`` samples each; ``drop_last`` drops a
    short last batch. A background thread keeps ``prefetch`` batches ready (0: load in the loop).
    ``seed=None`` draws the seed from spire's default generator (``spire.manual_seed`` sets it).
    ``len(loader)`` is the number of batches per pass, as PyTorch's."""

    def __init__(self, dataset, batch_size=1, shuffle=False, sampler=None, drop_last=False, prefetch=2,
                 seed=None, collate_fn=None):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size < 1:
            raise ValueError(f"DataLoader: batch_size should be a positive integer, got {batch_size!r}")
        if not isinstance(prefetch, int) or prefetch < 0:
            raise ValueError(f"DataLoader: prefetch must be an integer >= 0 (0: no thread), got {prefetch!r}")
        if sampler is not None and shuffle:
            raise ValueError("DataLoader: sampler option is mutually exclusive with shuffle")
        if not (hasattr(dataset, "__len__") and hasattr(dataset, "__getitem__")):
            raise TypeError(f"DataLoader: the dataset must define __len__ and __getitem__, got "
                            f"{type(dataset).__name__}")
        if seed is None:
            seed = int(_C.random.randint(0, 2**62, ()).item())
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.prefetch = prefetch
        self.seed = seed
        self.collate_fn = collate_fn if collate_fn is not None else default_collate
        if sampler is None:
            sampler = RandomSampler(dataset, seed) if shuffle else SequentialSampler(dataset)
        self.sampler = sampler
        # The C++ loader serves built-in datasets collated by stacking.
        self._native = None
        if isinstance(dataset, _CDataset) and collate_fn is None:
            self._native = _C._data.Loader(dataset, batch_size=batch_size, drop_last=drop_last,
                                           prefetch=prefetch,
                                           sampler=sampler if isinstance(sampler, Sampler) else None)

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def set_epoch(self, epoch):
        """Fixes the epoch (and so the shuffled order) of the next pass."""
        if not hasattr(self.sampler, "set_epoch"):
            raise TypeError(f"DataLoader.set_epoch: the sampler {type(self.sampler).__name__} has no set_epoch")
        self.sampler.set_epoch(epoch)

    def _batches(self, order):
        b = self.batch_size
        batches = [order[i:i + b] for i in range(0, len(order), b)]
        if self.drop_last and batches and len(batches[-1]) < b:
            batches.pop()
        return batches

    def __iter__(self):
        if self._native is not None:
            if isinstance(self.sampler, Sampler):
                return self._native.iter()
            return self._native.iter_order([int(i) for i in self.sampler])
        return _PythonPass(self, self._batches([int(i) for i in self.sampler]))

    def __repr__(self):
        return (f"DataLoader({type(self.dataset).__name__} of {len(self.dataset)}, batch_size={self.batch_size}, "
                f"sampler={type(self.sampler).__name__}, drop_last={self.drop_last}, prefetch={self.prefetch})")
