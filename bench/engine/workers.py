"""One worker process per framework (numpy, spire, torch, jax), driven over a pipe.

Why processes: on 2 cores, two libraries' thread pools in one process (OpenMP, OpenBLAS, MKL,
XLA's) fight; we saw NumPy's 256x256 matmul drop ~30x right after Spire's OpenMP kernels had run
in the same process. Each worker imports NumPy and its one framework, builds the cases the driver
names (cases.py), and times them when asked; the driver interleaves samples across workers, so
only one framework computes at a time and a burst of outside load hits all of them alike."""
import multiprocessing as mp
import sys
import time
import traceback


def _loop_time(fn, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    return time.perf_counter() - t0


def _serve(fw, sys_path, conn):
    sys.path[:0] = sys_path
    import cases  # noqa: E402 -- after the path is set
    made = {}
    while True:
        msg = conn.recv()
        op = msg[0]
        try:
            if op == "stop":
                return
            if op == "version":
                reply = cases.version(fw)
            elif op == "build":  # ("build", key, builder, kwargs)
                _, key, builder, kwargs = msg
                made[key] = cases.BUILDERS[builder](fw, **kwargs)
                made[key][0]()  # warm-up: first-call costs (plans, JIT compilation) are not timed
                reply = True
            elif op == "result":
                reply = made[msg[1]][1]()
            elif op == "calibrate":  # calls per sample so that a sample lasts min_s
                _, key, min_s = msg
                fn, number = made[key][0], 1
                while True:
                    t = _loop_time(fn, number)
                    if t >= min_s or number >= 1 << 24:
                        break
                    number = max(number * 2, int(number * 1.2 * min_s / max(t, 1e-9)))
                reply = number
            elif op == "sample":  # seconds per call over `number` calls
                _, key, number = msg
                reply = _loop_time(made[key][0], number) / number
            elif op == "drop":
                made.pop(msg[1], None)
                reply = True
            else:
                raise ValueError(f"unknown request {op!r}")
            conn.send(("ok", reply))
        except Exception as e:  # noqa: BLE001 -- the driver reports it as "not measured"
            tb = traceback.extract_tb(e.__traceback__)
            where = f" ({tb[-1].filename.split('/')[-1]}:{tb[-1].lineno})" if tb else ""
            text = str(e).splitlines()[0][:200] if str(e) else ""
            conn.send(("error", f"{type(e).__name__}: {text}{where}"))


class WorkerError(Exception):
    pass


class Pool:
    def __init__(self, sys_path):
        self.sys_path = sys_path  # prepended in every worker (bench/engine, spire's package dir)
        self.ctx = mp.get_context("spawn")
        self.workers = {}

    def _worker(self, fw):
        if fw not in self.workers:
            parent, child = self.ctx.Pipe()
            p = self.ctx.Process(target=_serve, args=(fw, self.sys_path, child), daemon=True)
            p.start()
            self.workers[fw] = (p, parent)
        return self.workers[fw]

    def call(self, fw, *msg):
        p, conn = self._worker(fw)
        conn.send(msg)
        if not conn.poll(1800):
            raise WorkerError(f"{fw} worker did not answer {msg[0]} in 30 min")
        try:
            status, reply = conn.recv()
        except EOFError:
            self.workers.pop(fw, None)
            raise WorkerError(f"{fw} worker died (exit code {p.exitcode}) during {msg[0]}") from None
        if status == "error":
            raise WorkerError(reply)
        return reply

    def stop(self):
        for fw, (p, conn) in self.workers.items():
            try:
                conn.send(("stop",))
            except (BrokenPipeError, OSError):
                pass
            p.join(10)
        self.workers.clear()
