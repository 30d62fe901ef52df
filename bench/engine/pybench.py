"""The sections of bench/RESULTS.md: Spire's Python API timed next to NumPy, PyTorch and JAX (each
in its own worker process, see workers.py), plus the C++ figures of bench_engine. A contender that
cannot run (a peer not installed, a Spire function not there yet, a wrong answer) is reported as
not measured, with the reason; no figure is ever filled in by hand."""
import os
import statistics

import numpy as np

from cases import BATCH, LAYERS, N_ELEM, N_FFT, WIDTH
from pinn import DIMS, HIDDEN_LAYERS, N_POINTS, WIDTH as PINN_WIDTH
from train_step import CHECK_STEPS, LR, MODELS as TRAIN_MODELS
from workers import WorkerError


class Section:
    def __init__(self, key, title, command, goal):
        self.key, self.title, self.command, self.goal = key, title, command, goal
        self.tables = []  # (caption, header, rows)
        self.notes = []

    def table(self, caption, header, rows):
        self.tables.append((caption, header, rows))

    def note(self, text):
        if text not in self.notes:
            self.notes.append(text)


class Ctx:
    def __init__(self, reps, pool, cpp, blas=""):
        self.reps = reps
        self.blas = blas  # the BLAS library the engine loads
        self.pool = pool
        self.cpp = cpp  # {bench_engine run name: {"real_s", "counters"}}, medians


def _max_rel_diff(got, want):
    got = got if isinstance(got, (list, tuple)) else [got]
    want = want if isinstance(want, (list, tuple)) else [want]
    if len(got) != len(want):
        return float("inf")
    worst = 0.0
    for a, b in zip(got, want):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return float("inf")
        worst = max(worst, float(np.max(np.abs(a - b)) / (np.max(np.abs(b)) + 1e-30)))
    return worst


def measure(ctx, sec, contenders, min_s=0.2, reference=None, rtol=1e-4, timed=True, diffs=None):
    """contenders: {label: (framework, builder, kwargs)}. Builds each in its framework's worker,
    checks each result against `reference`'s (a label) when given, then takes ctx.reps samples of
    every contender, round-robin, and returns {label: median seconds per call}. Failures become
    notes of `sec`. timed=False only checks (the values are then None). `diffs`, a dict, receives
    each checked label's max relative difference to the reference."""
    pool, built = ctx.pool, {}
    for label, (fw, builder, kwargs) in contenders.items():
        key = f"{label}|{builder}|{sorted(kwargs.items())}"
        try:
            pool.call(fw, "build", key, builder, kwargs)
            built[label] = (fw, key)
        except WorkerError as e:
            sec.note(f"{label} ({builder} {kwargs}) not measured: {e}")
    if reference in built:
        ref_fw, ref_key = built[reference]
        want = pool.call(ref_fw, "result", ref_key)
        for label in [l for l in built if l != reference]:
            fw, key = built[label]
            try:
                err = _max_rel_diff(pool.call(fw, "result", key), want)
            except WorkerError as e:
                err, why = float("inf"), str(e)
            else:
                why = f"max relative difference to {reference} {err:.1e}"
                if diffs is not None:
                    diffs[label] = err
            if not err <= rtol:
                sec.note(f"{label} ({contenders[label][1]} {contenders[label][2]}) not timed: "
                          f"its result is off ({why}, tolerance {rtol:g})")
                pool.call(fw, "drop", key)
                del built[label]
    if not timed:
        for fw, key in built.values():
            pool.call(fw, "drop", key)
        return {label: None for label in built}
    numbers, samples = {}, {label: [] for label in built}
    for label, (fw, key) in built.items():
        numbers[label] = pool.call(fw, "calibrate", key, min_s)
    for _ in range(ctx.reps):
        for label, (fw, key) in built.items():
            samples[label].append(pool.call(fw, "sample", key, numbers[label]))
    for label, (fw, key) in built.items():
        pool.call(fw, "drop", key)
    return {label: statistics.median(v) for label, v in samples.items()}


def fmt_time(s):
    if s is None:
        return "not measured"
    if s < 1e-6:
        return f"{s * 1e9:.0f} ns"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.3f} s"


def fmt_ratio(r):
    return "—" if r is None else f"{r:.2f}×"


def verdict(ok):
    return "—" if ok is None else ("met" if ok else "NOT met")


def cpp_time(ctx, name):
    r = ctx.cpp.get(name)
    return fmt_time(r["real_s"]) if r else "not measured"


# ---------------------------------------------------------------------------------------------

def bench_dispatch(ctx):
    s = Section("dispatch", "1. Eager dispatch overhead of a tiny op (float32 add)",
                "python3 bench/engine/run.py --only dispatch",
                "Spire ≤ PyTorch's per-op time (PyTorch: ~1–2 µs)")
    rows = []
    for n in (1, 8):
        med = measure(ctx, s, {f: (f, "add", {"n": n}) for f in ("spire", "torch", "numpy")},
                      min_s=0.1, reference="numpy")
        sp, pt = med.get("spire"), med.get("torch")
        ratio = sp / pt if sp and pt else None
        rows.append([f"`a + b`, {n} element{'s' if n > 1 else ''}", fmt_time(sp), fmt_time(pt),
                     fmt_time(med.get("numpy")), fmt_ratio(ratio),
                     verdict(None if ratio is None else ratio <= 1.0)])
    s.table("From Python (median time per op; ratio = Spire / PyTorch)",
            ["case", "Spire", "PyTorch", "NumPy (ref.)", "ratio", "goal ≤ 1×"], rows)
    s.table("From C++ (Google Benchmark, `BUILD/bin/bench_engine --benchmark_filter=AddTiny`; no "
            "libtorch here, so no C++ peer: absolute times only)", ["case", "Spire"],
            [[label, cpp_time(ctx, name)] for name, label in (
                ("BM_AddTiny/1", "`spire::add`, 1 element"),
                ("BM_AddTiny/8", "`spire::add`, 8 elements"),
                ("BM_AddTinyRecorded/1", "`spire::add`, 1 element, an input requires grad"),
                ("BM_AddTinyRecorded/8", "`spire::add`, 8 elements, an input requires grad"))])
    return s


def bench_matmul(ctx):
    s = Section("matmul", "2. Matmul throughput (square n×n @ n×n)",
                "python3 bench/engine/run.py --only matmul", "Spire ≥ 0.9× NumPy's GFLOP/s")
    rows = []
    for dt, cname in (("float32", "f32"), ("float64", "f64")):
        for n in (256, 1024, 2048):
            kw = {"n": n, "dtype": dt}
            med = measure(ctx, s, {f: (f, "matmul", kw) for f in ("spire", "numpy", "torch")},
                          reference="numpy", rtol=1e-4 if dt == "float32" else 1e-10)
            gf = {k: 2.0 * n ** 3 / v * 1e-9 for k, v in med.items()}
            cpp = ctx.cpp.get(f"BM_Matmul/{cname}/{n}")
            ratio = gf["spire"] / gf["numpy"] if "spire" in gf and "numpy" in gf else None
            cell = lambda k: f"{gf[k]:.1f}" if k in gf else "not measured"  # noqa: E731
            rows.append([f"{cname}, n={n}", cell("spire"),
                         f"{cpp['counters']['GFLOPS']:.1f}" if cpp else "not measured",
                         cell("numpy"), cell("torch"), fmt_ratio(ratio),
                         verdict(None if ratio is None else ratio >= 0.9)])
    s.table("GFLOP/s (2n³ flops per product, median time); ratio = Spire (Python) / NumPy",
            ["case", "Spire (Python)", "Spire (C++)", "NumPy", "PyTorch (ref.)", "ratio",
             "goal ≥ 0.9×"], rows)
    s.note("NumPy uses the OpenBLAS bundled in its wheel, PyTorch MKL, Spire the system BLAS "
           "(Eigen with EIGEN_USE_BLAS); each runs in its own process with 2 threads available.")
    return s


MLP_DOC = (f"Model: {LAYERS} dense layers {WIDTH}→{WIDTH} (weights and biases), tanh after the first "
           f"{LAYERS - 1}, batch {BATCH}, float32; loss = mean(out²); derivatives w.r.t. all "
           f"{2 * LAYERS} parameter tensors; every framework's result is checked against PyTorch's "
           "(relative 1e-4) before it is timed.")


def bench_mlp(ctx):
    s = Section("mlp", "3. MLP forward + backward (gradient of the loss)",
                "python3 bench/engine/run.py --only mlp", "Spire ≤ PyTorch eager's time")
    med = measure(ctx, s, {"torch": ("torch", "mlp", {"what": "grad"}),
                           "spire": ("spire", "mlp", {"what": "grad"}),
                           "jax": ("jax", "mlp", {"what": "grad"})},
                  min_s=0.3, reference="torch", rtol=1e-4)
    sp, pt = med.get("spire"), med.get("torch")
    ratio = sp / pt if sp and pt else None
    s.table("Median time per gradient; ratio = Spire (Python) / PyTorch eager",
            ["Spire: `spire.grad(loss)(params)`", "Spire (C++): `spire::grad`",
             "PyTorch eager: forward + `torch.autograd.grad`", "JAX `jit(grad(loss))` (ref.)",
             "ratio", "goal ≤ 1×"],
            [[fmt_time(sp), cpp_time(ctx, "BM_MlpGrad"), fmt_time(pt), fmt_time(med.get("jax")),
              fmt_ratio(ratio), verdict(None if ratio is None else ratio <= 1.0)]])
    s.note(MLP_DOC)
    s.note("JAX compiles the whole gradient (XLA fuses it), so it is a reference for what graph "
           "mode could reach, not an eager peer.")
    if "openblas-pthread" in ctx.blas:
        s.note("The engine loads the pthread build of OpenBLAS: its threads and the engine's OpenMP "
               "threads spin against each other on 2 cores between the many mid-sized GEMMs and "
               "elementwise kernels of this model (perf: most time in libgomp spinning and "
               "sched_yield); the OpenMP build of OpenBLAS shares one thread pool instead.")
    return s


def bench_hvp(ctx):
    s = Section("hvp", "4. Hessian-vector product cost / gradient cost (same MLP)",
                "python3 bench/engine/run.py --only hvp", "Spire's hvp / grad ≤ 3")
    med = measure(ctx, s, {
        "torch hvp": ("torch", "mlp", {"what": "hvp"}),
        "torch grad": ("torch", "mlp", {"what": "funcgrad"}),
        "spire hvp": ("spire", "mlp", {"what": "hvp"}),
        "spire grad": ("spire", "mlp", {"what": "grad"}),
        "jax hvp": ("jax", "mlp", {"what": "hvp"}),
        "jax grad": ("jax", "mlp", {"what": "grad"})}, min_s=0.3)
    rows = []
    for k, label in (("spire", "Spire (Python): `spire.hvp` / `spire.grad`"),
                     ("torch", "PyTorch: `torch.func.jvp(torch.func.grad(loss))` / "
                               "`torch.func.grad` (ref.)"),
                     ("jax", "JAX: `jit(jvp(grad(loss)))` / `jit(grad(loss))` (ref.)")):
        g, h = med.get(f"{k} grad"), med.get(f"{k} hvp")
        r = h / g if g and h else None
        rows.append([label, fmt_time(h), fmt_time(g), fmt_ratio(r),
                     verdict(None if r is None else r <= 3.0) if k == "spire" else "—"])
    cg, ch = ctx.cpp.get("BM_MlpGrad"), ctx.cpp.get("BM_MlpHvp")
    r = ch["real_s"] / cg["real_s"] if cg and ch else None
    rows.append(["Spire (C++): `spire::hvp` / `spire::grad`", cpp_time(ctx, "BM_MlpHvp"),
                 cpp_time(ctx, "BM_MlpGrad"), fmt_ratio(r), verdict(None if r is None else r <= 3.0)])
    s.table("Median times; ratio = hvp time / gradient time",
            ["framework", "hvp", "grad", "ratio", "goal ≤ 3"], rows)
    s.note(MLP_DOC.replace("every framework's result is checked against PyTorch's (relative 1e-4) "
                           "before it is timed", "v is a fixed random direction"))
    check = measure(ctx, s, {"torch": ("torch", "mlp", {"what": "hvp"}),
                             "spire": ("spire", "mlp", {"what": "hvp"}),
                             "jax": ("jax", "mlp", {"what": "hvp"})},
                    reference="torch", rtol=1e-4, timed=False)
    s.note("Hessian-vector products checked against PyTorch's (relative 1e-4): " +
           ", ".join(f"{k} {'agrees' if k in check else 'see above'}" for k in ("spire", "jax")))
    return s


def bench_memory(ctx):
    s = Section("memory", "5a. Elementwise throughput on 2^24 float32 vs memory bandwidth",
                "python3 bench/engine/run.py --only memory",
                "a large fraction of the bandwidth measured in the same run (no number set)")
    nbytes = 2 * 4 * N_ELEM  # one float32 read and one written per element
    bw = {}
    med = measure(ctx, s, {"numpy copy": ("numpy", "copy", {})})
    if "numpy copy" in med:
        bw["NumPy copy (`np.copyto`, 1 thread)"] = nbytes / med["numpy copy"]
    for name, label in (("BM_StreamCopy", "C++ memcpy, 2 threads"),
                        ("BM_StreamTriad", "C++ STREAM triad a = b + s·c, 2 threads")):
        r = ctx.cpp.get(name)
        if r:
            bw[label] = r["counters"]["bytes_per_second"]
    ref_name = max(bw, key=bw.get) if bw else None
    ref = bw.get(ref_name)
    s.table("Bandwidth measured in this run (bytes read + written per second)",
            ["measurement", "GB/s"], [[k, f"{v * 1e-9:.1f}"] for k, v in bw.items()])
    rows = []
    for op, label, cpp_name in (("axpb", "y = x * 1.5 + 0.25", "BM_AxpbScalar"),
                                ("exp", "y = exp(x)", "BM_Exp"), ("tanh", "y = tanh(x)", "BM_Tanh")):
        med = measure(ctx, s, {f: (f, "elementwise", {"op": op}) for f in ("spire", "numpy", "torch")},
                      reference="numpy", rtol=1e-5)

        def cell(t, rate=None):
            if t is None:
                return "not measured"
            rate = rate or nbytes / t
            return f"{fmt_time(t)} ({rate * 1e-9:.1f} GB/s" + (f", {rate / ref:.0%})" if ref else ")")

        cpp = ctx.cpp.get(cpp_name)
        rows.append([f"`{label}`", cell(med.get("spire")),
                     cell(cpp["real_s"], cpp["counters"]["bytes_per_second"]) if cpp else "not measured",
                     cell(med.get("numpy")), cell(med.get("torch"))])
    s.table("Median time per op; effective GB/s counts 8 bytes per element (x read once, y written "
            f"once); % of the best bandwidth above ({ref_name})",
            ["op", "Spire (Python)", "Spire (C++)", "NumPy (ref.)", "PyTorch (ref.)"], rows)
    s.note("Spire and PyTorch use both cores; NumPy's elementwise ops use one. `x * 1.5 + 0.25` is "
           "two ops (two passes over memory) in Spire, NumPy and PyTorch alike.")
    return s


def bench_fft(ctx):
    s = Section("fft", f"5b. rfft of 2^{N_FFT.bit_length() - 1} float64 points",
                "python3 bench/engine/run.py --only fft", "none set (ratio = Spire / NumPy time)")
    med = measure(ctx, s, {f: (f, "rfft", {}) for f in ("spire", "numpy", "torch")},
                  reference="numpy", rtol=1e-12)
    sp, nm = med.get("spire"), med.get("numpy")
    s.table("Median time per transform (FFTW plan made before timing); ratio = Spire (Python) / NumPy",
            ["Spire (Python)", "Spire (C++)", "NumPy (pocketfft)", "PyTorch (ref.)", "ratio"],
            [[fmt_time(sp), cpp_time(ctx, "BM_Rfft/1048576"), fmt_time(nm), fmt_time(med.get("torch")),
              fmt_ratio(sp / nm if sp and nm else None)]])
    return s


PINN_STEPS = {"spire": ("Spire", "spire", {}),
              "torch": ("PyTorch", "torch", {}),
              "jax hessian": ("JAX (trace of `jax.hessian`)", "jax", {"laplacian": "hessian"}),
              "jax jet": ("JAX (`jax.experimental.jet`)", "jax", {"laplacian": "jet"})}


def bench_pinn(ctx):
    s = Section("pinn", "6. PINN training step: Laplacian loss and its parameter gradient",
                "python3 bench/engine/run.py --only pinn",
                "Spire's step ≤ 5× its forward pass at d = 2; its cost growing no faster than the "
                "number of tangents carried (d + 2: the value, d first-order tangents, the Laplacian); "
                "≥ 3× faster than PyTorch at d = 8")
    times, diffs = {}, {}
    load0 = os.getloadavg()[0]
    for d in DIMS:
        steps = {k: (fw, "pinn", {"d": d, "what": "step", **kw}) for k, (_, fw, kw) in PINN_STEPS.items()}
        forwards = {f"{fw} forward": (fw, "pinn", {"d": d, "what": "forward"})
                    for fw in ("spire", "torch", "jax")}
        diffs[d] = {}
        ok_steps = measure(ctx, s, steps, reference="torch", rtol=1e-4, timed=False, diffs=diffs[d])
        ok_fwd = measure(ctx, s, forwards, reference="torch forward", rtol=1e-5, timed=False)
        times[d] = measure(ctx, s, {**{k: steps[k] for k in ok_steps},
                                    **{k: forwards[k] for k in ok_fwd}}, min_s=0.3)
    cell = lambda d, k: fmt_time(times[d].get(k))  # noqa: E731

    def ratio(d, k, fw):
        st, fo = times[d].get(k), times[d].get(f"{fw} forward")
        return st / fo if st and fo else None

    s.table("Median time per step (loss and gradient w.r.t. all parameters) and per forward pass u(x)",
            ["d", "Spire step", "Spire forward", "PyTorch step", "PyTorch forward",
             "JAX step (hessian)", "JAX step (jet)", "JAX forward"],
            [[d, cell(d, "spire"), cell(d, "spire forward"), cell(d, "torch"), cell(d, "torch forward"),
              cell(d, "jax hessian"), cell(d, "jax jet"), cell(d, "jax forward")] for d in DIMS])
    rows = []
    for d in DIMS:
        sp, pt = times[d].get("spire"), times[d].get("torch")
        speedup = pt / sp if sp and pt else None
        r = ratio(d, "spire", "spire")
        rows.append([d, fmt_ratio(r), fmt_ratio(ratio(d, "torch", "torch")),
                     fmt_ratio(ratio(d, "jax hessian", "jax")), fmt_ratio(ratio(d, "jax jet", "jax")),
                     fmt_ratio(speedup),
                     verdict(None if r is None else r <= 5.0) if d == 2 else "—",
                     verdict(None if speedup is None else speedup >= 3.0) if d == 8 else "—"])
    s.table("Step time / forward time of the same framework, and Spire's speed-up over PyTorch "
            "(PyTorch step / Spire step)",
            ["d", "Spire", "PyTorch", "JAX (hessian)", "JAX (jet)", "Spire speed-up over PyTorch",
             "goal ≤ 5× (d = 2)", "goal ≥ 3× faster (d = 8)"], rows)
    base = DIMS[0]
    rows = []
    for d in DIMS:
        tangents = (d + 2) / (base + 2)
        cells = []
        for k in ("spire", "torch", "jax hessian", "jax jet"):
            a, b = times[d].get(k), times[base].get(k)
            cells.append(fmt_ratio(a / b if a and b else None))
        g = None if not (times[d].get("spire") and times[base].get("spire")) else \
            times[d]["spire"] / times[base]["spire"] <= tangents
        rows.append([d, f"{tangents:.2f}×"] + cells + [verdict(g) if d != base else "—"])
    s.table(f"Growth with d: step time at d / step time at d = {base}, next to the growth of the "
            "number of tangents the forward Laplacian carries, (d + 2) / "
            f"({base} + 2)", ["d", "tangents", "Spire", "PyTorch", "JAX (hessian)", "JAX (jet)",
                             "goal: Spire ≤ tangents"], rows)
    s.table("Spire from C++ (`BUILD/bin/bench_engine --benchmark_filter=Pinn`): forward, the loss "
            "alone (forward Laplacian, no reverse pass), the step",
            ["d", "forward", "loss", "step", "loss / forward", "step / forward"],
            [[d, cpp_time(ctx, f"BM_PinnForward/{d}"), cpp_time(ctx, f"BM_PinnLaplacian/{d}"),
              cpp_time(ctx, f"BM_PinnStep/{d}")] + [
                 fmt_ratio(ctx.cpp[f"BM_Pinn{w}/{d}"]["real_s"] / ctx.cpp[f"BM_PinnForward/{d}"]["real_s"])
                 if f"BM_Pinn{w}/{d}" in ctx.cpp and f"BM_PinnForward/{d}" in ctx.cpp else "—"
                 for w in ("Laplacian", "Step")] for d in DIMS])
    s.note(f"Model: u: R^d → R, {HIDDEN_LAYERS} hidden tanh layers of {PINN_WIDTH} units and a linear "
           f"output, float32, {N_POINTS} points uniform in [-1, 1]^d; loss = mean((Δu(x) − s(x))²) with "
           "s(x) = −π² Σ sin(π x_i); a step = the loss and its gradient w.r.t. all 10 parameter tensors "
           "(no optimizer update). Same weights and points in every framework (bench/engine/pinn.py).")
    s.note("Spire: `spire.value_and_grad(loss)` with `spire.laplacian(u)` inside (one forward-Laplacian "
           "pass carrying the value, d tangents and the summed second-order term, then reverse mode "
           "through it). PyTorch: `torch.autograd.grad(u.sum(), x, create_graph=True)`, then one "
           "`autograd.grad(g[:, i].sum(), x, create_graph=True)` per coordinate, then "
           "`autograd.grad(loss, params)` (forward under `torch.no_grad()`). JAX: `jit(value_and_grad)` "
           "of the loss with Δu as `vmap` over points of `trace(jax.hessian(u))`, or as the sum over i of "
           "second-order `jet`s along e_i (vmapped over i); forward jit-compiled too.")
    checked = []
    for d in DIMS:
        checked.append(f"d = {d}: " + ", ".join(
            f"{PINN_STEPS[k][0]} {diffs[d][k]:.1e}" for k in PINN_STEPS if k in diffs[d]))
    s.note(f"Load average (1 min) {load0:.1f} when this section started, {os.getloadavg()[0]:.1f} when it "
           "ended: Spire's OpenMP kernels lose much more than PyTorch's pool when other processes "
           "take cores (each parallel region waits for a descheduled thread), so figures taken under "
           "load are not comparable.")
    s.note("Loss and gradient checked against PyTorch's before timing (max relative difference over "
           "the loss and the 10 gradients; tolerance 1e-4): " + "; ".join(checked))
    return s


def bench_train(ctx):
    s = Section("train", "8. Training step: forward, cross-entropy, backward, Adam update",
                "python3 bench/engine/run.py --only train", "Spire ≤ PyTorch's time per step (ratio ≤ 1×)")
    load0 = os.getloadavg()[0]
    rows, checked = [], []
    for model, info in TRAIN_MODELS.items():
        ok, diffs = None, {}
        for check, rtol in (("losses", 1e-5), ("weights", 1e-3)):
            d = {}
            passed = measure(ctx, s, {fw: (fw, "train_step", {"model": model, "check": check})
                                      for fw in ("torch", "spire")},
                             reference="torch", rtol=rtol, timed=False, diffs=d)
            ok = set(passed) if ok is None else ok & set(passed)
            if "spire" in d:
                diffs[check] = d["spire"]
        checked.append(f"{model}: " + ", ".join(f"{k} {v:.1e}" for k, v in diffs.items()))
        med = measure(ctx, s, {fw: (fw, "train_step", {"model": model, "check": "losses"})
                               for fw in ("spire", "torch") if fw in ok}, min_s=0.3)
        sp, pt = med.get("spire"), med.get("torch")
        ratio = sp / pt if sp and pt else None
        rows.append([info["doc"], fmt_time(sp), fmt_time(pt), fmt_ratio(ratio),
                     verdict(None if ratio is None else ratio <= 1.0)])
    s.table("Median time per training step (`zero_grad`, forward, `cross_entropy`, `backward`, "
            "`Adam.step`); ratio = Spire / PyTorch",
            ["model", "Spire", "PyTorch (CPU, eager)", "ratio", "goal ≤ 1×"], rows)
    s.note(f"Float32; the same weights (PyTorch's default initialisation, drawn with NumPy), inputs "
           f"(standard normal) and integer targets in both; Adam with lr = {LR:g} and PyTorch's other "
           "defaults; one step on a fixed batch per call, the optimizer state carried across calls. "
           "Spire: `spire.nn.Sequential` of `Linear`/`Conv2d`/`ReLU`/`Flatten`, `spire.nn.functional.cross_entropy`, "
           "`loss.backward()`, `spire.optim.Adam`; PyTorch: the same with `torch.nn`/`torch.optim` "
           "(bench/engine/train_step.py). The CNN flattens with `nn.Flatten`.")
    s.note("Both use every core of the machine: PyTorch's intra-op pool (`torch.get_num_threads()`, "
           "see Versions) and Spire's OpenMP pool (one thread per core by default).")
    s.note(f"Checked before timing, against PyTorch, over {CHECK_STEPS} steps from the same weights "
           "(max relative difference): the losses (tolerance 1e-5) and the weights after the steps "
           "(tolerance 1e-3: Adam's first update is about lr·sign(g), so a gradient entry at rounding "
           "level may move by 2·lr either way) — " + "; ".join(checked))
    s.note(f"Load average (1 min) {load0:.1f} when this section started, {os.getloadavg()[0]:.1f} when it "
           "ended (figures taken under load are not comparable).")
    return s


ALL = {"dispatch": bench_dispatch, "matmul": bench_matmul, "mlp": bench_mlp, "hvp": bench_hvp,
       "memory": bench_memory, "fft": bench_fft, "pinn": bench_pinn,
       "train": bench_train}
