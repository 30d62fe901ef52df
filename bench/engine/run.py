#!/usr/bin/env python3
"""Runs the engine benchmarks -- build/bin/bench_engine (C++, Google Benchmark) and Spire's Python
API next to NumPy, PyTorch and JAX -- in one run on this machine, and writes bench/RESULTS.md.

    python3 bench/engine/run.py                      # everything (what `make bench` runs)
    python3 bench/engine/run.py --only matmul,fft    # some sections; the others in RESULTS.md stay

Every figure is a median over --reps interleaved samples. Peers come from bench/engine/install-peers.sh.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import pybench  # noqa: E402
from workers import Pool, WorkerError  # noqa: E402

# Which C++ benchmarks each section reads.
CPP_FILTERS = {"dispatch": "AddTiny", "matmul": "Matmul", "mlp": "MlpGrad", "hvp": "Mlp(Grad|Hvp)",
               "memory": "Stream|Axpb|Exp|Tanh", "fft": "Rfft", "pinn": "Pinn"}

# Sections another script renders on its own (it prints the section with --no-write); run here in a
# subprocess with this run's Spire on its path, so that `make bench` regenerates them too.
SCRIPTS = {"data": "data_bench.py"}
# RESULTS.md order (the section numbers in the titles follow it).
ORDER = [k for k in pybench.ALL if k != "train"] + ["data", "train"]


def run_script(key, spire_dir, reps):
    """The rendered section of SCRIPTS[key], or raises RuntimeError with why not."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([spire_dir, os.environ.get("PYTHONPATH", "")]))
    cmd = [sys.executable, os.path.join(HERE, SCRIPTS[key]), "--reps", str(reps), "--no-write"]
    print("+", " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    m = re.search(rf"<!-- section:{key} -->.*?<!-- end:{key} -->", proc.stdout, re.S)
    if proc.returncode != 0 or not m:
        raise RuntimeError(f"{SCRIPTS[key]} exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
    return m.group(0)


def machine():
    model = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            fl = next((l for l in f if l.startswith("flags")), "").split()
        flags = ", ".join(x for x in ("avx2", "fma", "avx512f") if x in fl)
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as f:
            kb = int(next(l for l in f if l.startswith("MemTotal")).split()[1])
        mem = f"{kb / 2**20:.0f} GiB"
    except (OSError, StopIteration):
        pass
    return {"nproc": os.cpu_count(), "cpu": model, "flags": flags, "memory": mem,
            "os": platform.platform(), "python": platform.python_version()}


def find_build(arg):
    cands = [os.path.abspath(arg)] if arg else [os.path.join(ROOT, d) for d in ("build", "build-bench")]
    for c in cands:
        if c and os.path.exists(os.path.join(c, "bin", "bench_engine")):
            return c
    return cands[0]


def run_cpp(build, sections, reps, min_time):
    """Median real time (and counters) of each C++ benchmark the sections need, one process per
    section so that a failure loses only that section's figures. Returns ({run_name: record},
    {section: error})."""
    exe = os.path.join(build, "bin", "bench_engine")
    res, errs = {}, {}
    for sec in sections:
        if sec not in CPP_FILTERS:
            continue
        if not os.path.exists(exe):
            errs[sec] = f"{os.path.relpath(exe, ROOT)} not built (configure with -DSPIRE_BENCH=ON)"
            continue
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as tmp:
            out = tmp.name
        cmd = [exe, f"--benchmark_filter={CPP_FILTERS[sec]}", f"--benchmark_repetitions={reps}",
               "--benchmark_report_aggregates_only=true", f"--benchmark_min_time={min_time}",
               f"--benchmark_out={out}", "--benchmark_out_format=json"]
        print("+", " ".join(cmd), flush=True)
        proc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            with open(out) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = {"benchmarks": []}
        finally:
            if os.path.exists(out):
                os.unlink(out)
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
        skipped = []
        for b in data.get("benchmarks", []):
            if b.get("error_occurred"):
                skipped.append(f"{b['run_name']}: {b.get('error_message')}")
                continue
            if b.get("aggregate_name") != "median":
                continue
            counters = {k: v for k, v in b.items() if isinstance(v, (int, float)) and k not in
                        ("real_time", "cpu_time", "iterations", "repetitions", "repetition_index",
                         "threads", "family_index", "per_family_instance_index")}
            name = re.sub(r"/real_time$", "", b["run_name"])
            res[name] = {"real_s": b["real_time"] * scale[b["time_unit"]], "counters": counters}
        problems = sorted(set(skipped))
        if proc.returncode != 0:
            problems.append(f"bench_engine exited {proc.returncode}: {proc.stderr.strip()[-300:]}")
        if problems:
            errs[sec] = "; ".join(problems)
    return res, errs


def spire_path(build):
    """Where to import spire from: python/spire, with this build's extension module when the build
    has one (a folder of links under the build dir), so that the Python and C++ figures measure the
    same engine library even if python/spire/ holds a module another build copied there."""
    pkg = os.path.join(ROOT, "python", "spire")
    libdir = os.path.join(build, "lib")
    ext = [f for f in os.listdir(libdir) if f.startswith("_C.") and f.endswith(".so")] \
        if os.path.isdir(libdir) else []
    if not ext or not os.path.isdir(pkg):
        return os.path.join(ROOT, "python"), "python/spire (its own extension module)"
    overlay = os.path.join(build, "bench-python", "spire")
    os.makedirs(overlay, exist_ok=True)
    for f in os.listdir(overlay):
        os.unlink(os.path.join(overlay, f))
    for f in os.listdir(pkg):
        if not (f.startswith("_C.") and f.endswith(".so")) and f != "__pycache__":
            os.symlink(os.path.join(pkg, f), os.path.join(overlay, f))
    os.symlink(os.path.join(libdir, ext[0]), os.path.join(overlay, ext[0]))
    return os.path.dirname(overlay), f"python/spire with {os.path.relpath(libdir, ROOT)}/{ext[0]}"


def engine_blas(build):
    """The BLAS library the engine loads here (its real path says which OpenBLAS build: pthread
    or openmp), read with ldd under this process's environment."""
    lib = os.path.join(build, "lib", "libspire_engine.so")
    try:
        out = subprocess.run(["ldd", lib], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    for line in out.splitlines():
        if "blas" in line and "=>" in line:
            path = line.split("=>")[1].split("(")[0].strip()
            return os.path.realpath(path) if path.startswith("/") else path
    return "unknown"


def versions(pool):
    import numpy as np
    v = {"numpy": np.__version__}
    for fw in ("spire", "torch", "jax"):
        try:
            v[fw] = pool.call(fw, "version")
        except WorkerError as e:
            v[fw] = f"not importable ({e})"
    return v


def render_section(sec, when):
    out = [f"<!-- section:{sec.key} -->", f"## {sec.title}", "",
           f"Goal: {sec.goal}. Reproduce: `{sec.command}` (measured {when}).", ""]
    for caption, header, rows in sec.tables:
        out += [f"{caption}:", "", "| " + " | ".join(header) + " |",
                "|" + "|".join("---" for _ in header) + "|"]
        out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
        out.append("")
    for n in sec.notes:
        out.append(f"- {n}")
    if sec.notes:
        out.append("")
    out.append(f"<!-- end:{sec.key} -->")
    return "\n".join(out)


def merge(path, header, rendered, order):
    """Replaces the rendered sections in RESULTS.md, keeps the others as they were."""
    old = {}
    if os.path.exists(path):
        text = open(path).read()
        for m in re.finditer(r"<!-- section:(\w+) -->.*?<!-- end:\1 -->", text, re.S):
            old[m.group(1)] = m.group(0)
    old.update(rendered)
    # Sections this script does not render (written by other bench scripts) stay, after its own.
    body = [old[k] for k in order if k in old] + [v for k, v in old.items() if k not in order]
    with open(path, "w") as f:
        f.write(header + "\n\n" + "\n\n".join(body) + "\n")


def main():
    warnings.filterwarnings("ignore", category=FutureWarning)  # torch's import-time notices
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated: " + ",".join(ORDER))
    ap.add_argument("--reps", type=int, default=7, help="samples per contender (median kept)")
    ap.add_argument("--build-dir", default=None, help="where bin/bench_engine is (default: build, else build-bench)")
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "RESULTS.md"))
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()
    sections = [s for s in args.only.split(",") if s] or list(ORDER)
    bad = [s for s in sections if s not in ORDER]
    if bad:
        ap.error(f"unknown section(s) {bad}; choose from {ORDER}")

    start = datetime.datetime.now().astimezone()
    load0 = os.getloadavg()
    build = find_build(args.build_dir)
    cpp, cpp_errs = run_cpp(build, sections, args.reps, 0.2)
    spire_dir, spire_how = spire_path(build)
    pool = Pool([HERE, spire_dir])
    blas = engine_blas(build)
    ctx = pybench.Ctx(args.reps, pool, cpp, blas)

    when = start.strftime("%Y-%m-%d %H:%M %Z")
    rendered = {}
    for key in sections:
        print(f"== {key}", flush=True)
        if key in SCRIPTS:
            try:
                rendered[key] = run_script(key, spire_dir, args.reps)
            except RuntimeError as e:
                sec = pybench.Section(key, key, f"python3 bench/engine/run.py --only {key}", "see above")
                sec.note(f"section failed: {e}")
                rendered[key] = render_section(sec, when)
            print(rendered[key], flush=True)
            continue
        try:
            sec = pybench.ALL[key](ctx)
        except Exception as e:  # noqa: BLE001 -- one broken section must not lose the others
            sec = pybench.Section(key, key, f"python3 bench/engine/run.py --only {key}", "see above")
            sec.note(f"section failed: {type(e).__name__}: {e}")
        if key in cpp_errs:
            sec.note(f"C++ figures not measured: {cpp_errs[key]}")
        rendered[key] = render_section(sec, when)
        print(rendered[key], flush=True)
    load1 = os.getloadavg()

    m = machine()
    v = versions(pool)
    pool.stop()
    header = "\n".join([
        "# Engine benchmarks",
        "",
        "Spire's engine next to NumPy, PyTorch (CPU) and JAX (CPU), measured in one run on one machine.",
        "Every time is the **median** of several samples, taken round-robin across the contenders (the",
        "machine is small and shared: medians and ratios are what to read, not single figures). Each",
        "framework runs in its own worker process (NumPy, Spire, PyTorch, JAX), so that their thread pools",
        "never compete; results are checked against a peer's before they are timed.",
        "Regenerate everything with `make bench`",
        "(it installs the peers with `bench/engine/install-peers.sh`, builds with `-DSPIRE_BENCH=ON`, then",
        "runs `python3 bench/engine/run.py --build-dir build`), or some sections with",
        "`make bench BENCH_ARGS=\"--only SECTION\"` or `python3 bench/engine/run.py --only SECTION` after a",
        "build. Each section says when it was measured.",
        "",
        f"- Machine: {m['nproc']} cores, {m['cpu']} ({m['flags']}), {m['memory']}; {m['os']}",
        f"- Last run: {when}, {args.reps} samples per figure, sections: {', '.join(sections)}; "
        f"load average {load0[0]:.1f} at start, {load1[0]:.1f} at end",
        "- Versions: " + ", ".join(f"{k} {val}" for k, val in v.items()) + f", Python {m['python']}",
        f"- C++: `{os.path.relpath(build, ROOT)}/bin/bench_engine` (Google Benchmark; "
        f"`--benchmark_repetitions={args.reps}`, median aggregate); Python: {spire_how}",
        f"- Spire's BLAS as loaded here: `{blas}`",
    ])
    if not args.no_write:
        merge(args.out, header, rendered, ORDER)
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
