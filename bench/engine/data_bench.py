"""HDF5 loader throughput: spire.data.HDF5Dataset + DataLoader against reading the same file with
h5py, one epoch of batches, sequential and shuffled. Writes its section of bench/RESULTS.md.

    PYTHONPATH=<dir with spire> python3 bench/engine/data_bench.py [--reps 5] [--no-write]

Each figure is the median of --reps epochs; every epoch opens the dataset afresh (an empty block
cache; the file itself is in the OS page cache after the first, for both readers)."""
import argparse
import datetime
import os
import re
import statistics
import tempfile
import time

import h5py
import numpy as np

import spire
from spire import data

N, FEATURES, BATCH, CHUNK_ROWS = 20000, 784, 256, 256
HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "..", "RESULTS.md")


def make_file(path):
    rng = np.random.default_rng(0)
    with h5py.File(path, "w") as f:
        f.create_dataset("x", data=rng.standard_normal((N, FEATURES), dtype=np.float32), chunks=(CHUNK_ROWS, FEATURES))
        f.create_dataset("y", data=rng.integers(0, 10, N), chunks=(CHUNK_ROWS * 16,))


def spire_epoch(path, shuffle, seed):
    ds = data.HDF5Dataset(path, ["x", "y"])
    loader = data.DataLoader(ds, batch_size=BATCH, shuffle=shuffle, seed=seed)
    rows = 0
    for x, y in loader:
        rows += x.shape[0]
    assert rows == N
    return rows


def h5py_epoch(path, shuffle, seed):
    order = np.asarray(data.seeded_permutation(N, seed, 0)) if shuffle else np.arange(N)
    rows = 0
    with h5py.File(path, "r") as f:
        x, y = f["x"], f["y"]
        for i in range(0, N, BATCH):
            idx = order[i:i + BATCH]
            if shuffle:  # h5py's fancy indexing needs increasing indices; put the batch back in order
                s = np.sort(idx)
                back = np.argsort(np.argsort(idx))
                xb, yb = x[s][back], y[s][back]
            else:
                xb, yb = x[i:i + BATCH], y[i:i + BATCH]
            rows += xb.shape[0]
    assert rows == N
    return rows


def check(path):
    """Both readers give the same batches (shuffled, first epoch)."""
    loader = data.DataLoader(data.HDF5Dataset(path, ["x", "y"]), batch_size=BATCH, shuffle=True, seed=3)
    order = np.asarray(data.seeded_permutation(N, 3, 0))
    with h5py.File(path, "r") as f:
        for k, (x, y) in enumerate(loader):
            idx = order[k * BATCH:(k + 1) * BATCH]
            s = np.sort(idx)
            np.testing.assert_array_equal(np.asarray(x), f["x"][s][np.argsort(np.argsort(idx))])
            if k == 3:
                break


def timed(fn, *args, reps):
    times = []
    for r in range(reps):
        t0 = time.perf_counter()
        fn(*args, seed=r)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def render(rows, reps, load0, load1, when):
    mb = N * (FEATURES * 4 + 8) / 1e6
    out = ["<!-- section:data -->", "## 7. HDF5 loader throughput", "",
           f"Goal: the loader at least as fast as reading the same file with h5py. Reproduce: "
           f"`PYTHONPATH=<spire> python3 bench/engine/data_bench.py` (measured {when}).", "",
           f"One epoch of {N} samples (x: float32 [{FEATURES}], y: int64; {mb:.1f} MB) in batches of {BATCH}, "
           f"HDF5 chunks of {CHUNK_ROWS} rows; median of {reps} epochs:", "",
           "| order | Spire DataLoader | h5py | Spire samples/s | h5py samples/s | Spire MB/s | speed-up |",
           "|---|---|---|---|---|---|---|"]
    for order, ts, th in rows:
        out.append(f"| {order} | {ts * 1e3:.1f} ms | {th * 1e3:.1f} ms | {N / ts:,.0f} | {N / th:,.0f} | "
                   f"{mb / ts:,.0f} | {th / ts:.2f}× |")
    out += ["",
            "- Spire: `HDF5Dataset(path, [\"x\", \"y\"])` (64 MiB block cache, opened afresh each epoch) and "
            "`DataLoader(batch_size, shuffle, seed)` with its C++ prefetch thread (2 batches ahead); a batch is "
            "in order, one hyperslab read straight into the batch; shuffled, the missing blocks (one hyperslab per "
            "run of them) and a gather of its rows. h5py: slices `x[i:i+B]` in order; "
            "shuffled, `x[sorted(idx)]` (h5py's fancy indexing wants increasing indices) put back in the batch's "
            "order. Both read the file from the OS page cache (warm after the first epoch); the batches are checked "
            "equal before timing.",
            f"- h5py {h5py.__version__} (HDF5 {h5py.version.hdf5_version}); Spire's HDF5 is Debian's serial build. "
            f"Load average (1 min) {load0:.1f} when this section started, {load1:.1f} when it ended "
            f"(2 shared cores: figures taken under load are not comparable).",
            "<!-- end:data -->"]
    return "\n".join(out)


def write_section(text):
    doc = open(RESULTS).read() if os.path.exists(RESULTS) else "# Engine benchmarks\n"
    pattern = re.compile(r"<!-- section:data -->.*?<!-- end:data -->", re.S)
    doc = pattern.sub(lambda _: text, doc) if pattern.search(doc) else doc.rstrip("\n") + "\n\n" + text + "\n"
    with open(RESULTS, "w") as f:
        f.write(doc)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "bench.h5")
        make_file(path)
        check(path)
        rows = []
        for order, shuffle in (("sequential", False), ("shuffled", True)):
            spire_epoch(path, shuffle, 0)  # warm the page cache
            ts = timed(spire_epoch, path, shuffle, reps=args.reps)
            th = timed(h5py_epoch, path, shuffle, reps=args.reps)
            rows.append((order, ts, th))
    text = render(rows, args.reps, load0, os.getloadavg()[0], when)
    print(text)
    if not args.no_write:
        write_section(text)


if __name__ == "__main__":
    main()
