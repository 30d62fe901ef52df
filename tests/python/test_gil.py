"""Long kernels release the GIL: Python threads keep running during a big matmul."""
import threading
import time

import spire


def test_big_matmul_releases_gil():
    n = 1200
    a = spire.random.normal((n, n), dtype=spire.float64)
    b = spire.random.normal((n, n), dtype=spire.float64)
    spire.matmul(a[:64, :64], b[:64, :64])  # warm up the BLAS

    start = time.perf_counter()
    spire.matmul(a, b)
    alone = time.perf_counter() - start

    done = threading.Event()
    ticks = []

    def worker():
        spire.matmul(a, b)
        spire.matmul(a, b)
        done.set()

    th = threading.Thread(target=worker)
    th.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    th.join()
    # With the GIL held for the whole matmul, the main thread could not tick at all meanwhile.
    assert len(ticks) >= 5, f"main thread ticked {len(ticks)} times during {2 * alone:.3f}s of matmul"
    gaps = [b - a for a, b in zip(ticks, ticks[1:])]
    assert max(gaps) < max(0.75 * alone, 0.05), f"longest stall {max(gaps):.3f}s vs one matmul {alone:.3f}s"


def test_threads_compute_correctly_in_parallel():
    import numpy as np

    x = spire.tensor(np.linspace(0, 1, 100_000))
    results = [None] * 4

    def work(i):
        results[i] = float(spire.exp(x * float(i)).sum())

    ths = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    for i in range(4):
        assert results[i] == __import__("pytest").approx(np.exp(np.linspace(0, 1, 100_000) * i).sum(), rel=1e-9)
