"""Prints the CUDA backend's figures from bench_cuda's JSON (medians of its repetitions) as ratios
to the peers measured in the same run, and, where PyTorch with CUDA is importable, PyTorch's time
for the same MLP training step and small-op dispatch on the same GPU.

    bin/bench_cuda --benchmark_repetitions=5 --benchmark_out=cuda.json && python3 bench/cuda/report.py cuda.json

With --results bench/RESULTS.md it also replaces that file's CUDA section with these figures.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time


def medians(path):
    runs = json.load(open(path))["benchmarks"]
    by_name = {}
    for r in runs:
        if r.get("run_type") == "aggregate" or r.get("error_occurred"):
            continue
        by_name.setdefault(r["run_name"], []).append(r)
    out = {}
    for name, rs in by_name.items():
        med = {"time": statistics.median(r["real_time"] for r in rs), "unit": rs[0]["time_unit"]}
        for key in ("TFLOP/s", "GB/s", "elements/s"):
            if key in rs[0]:
                med[key] = statistics.median(r[key] for r in rs)
        out[name] = med
    return out


def torch_figures():
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    dev = "cuda"
    torch.manual_seed(0)
    a, b = torch.randn(16, device=dev), torch.randn(16, device=dev)
    for _ in range(100):
        a + b
    torch.cuda.synchronize()
    n = 20000
    t0 = time.perf_counter()
    for _ in range(n):
        a + b
    torch.cuda.synchronize()
    dispatch_us = (time.perf_counter() - t0) / n * 1e6
    params = []
    for _ in range(4):
        params += [(torch.randn(256, 256, device=dev) / 16).requires_grad_(), torch.zeros(256, device=dev, requires_grad=True)]
    opt = torch.optim.Adam(params, lr=1e-3)
    x = torch.randn(1024, 256, device=dev)

    def step():
        h = x
        for layer in range(4):
            h = h @ params[2 * layer] + params[2 * layer + 1]
            if layer < 3:
                h = torch.tanh(h)
        opt.zero_grad(set_to_none=True)
        (h * h).mean().backward()
        opt.step()

    times = []
    for rep in range(5):
        for _ in range(20):
            step()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(200):
            step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) / 200 * 1e6)
    return {"dispatch_us": dispatch_us, "mlp_us": statistics.median(times), "version": torch.__version__}


def gpu_name():
    try:
        return subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True).stdout.strip() or "unknown GPU"
    except OSError:
        return "unknown GPU"


def write_section(path, lines):
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    body = ["<!-- section:cuda -->", "## CUDA backend against cuBLAS, cuFFT and the memory system", "",
            f"Measured {stamp} on {gpu_name()} with `make gpu-test` (medians of 5 repetitions of "
            "`build-gpu/bin/bench_cuda`, ratios from `bench/cuda/report.py`).", ""]
    body += [f"- {line[len('figure: '):]}" for line in lines] + ["", "<!-- end:cuda -->"]
    doc = open(path).read() if os.path.exists(path) else "# Engine benchmarks\n"
    pattern = re.compile(r"<!-- section:cuda -->.*?<!-- end:cuda -->", re.S)
    text = "\n".join(body)
    doc = pattern.sub(lambda _: text, doc) if pattern.search(doc) else doc.rstrip() + "\n\n" + text + "\n"
    with open(path + ".tmp", "w") as f:
        f.write(doc)
    os.replace(path + ".tmp", path)


def main():
    args = sys.argv[1:]
    results = None
    if "--results" in args:
        i = args.index("--results")
        results = args[i + 1]
        del args[i:i + 2]
    m = medians(args[0])
    lines = []

    def say(line):
        print(line)
        lines.append(line)

    def ratio(mine, peer, key, goal, what):
        if mine not in m or peer not in m:
            say(f"figure: {what}: not measured")
            return
        r = m[mine][key] / m[peer][key]
        say(f"figure: {what}: Spire {m[mine][key]:.3g} {key}, peer {m[peer][key]:.3g} {key}: "
            f"{r:.2f}x (goal >= {goal}x)")

    ratio("BM_GemmSpire<DType::Float32>/4096/manual_time", "BM_GemmCublas<DType::Float32>/4096/manual_time",
          "TFLOP/s", 0.95, "GEMM float32 4096^2 against cublasSgemm")
    ratio("BM_GemmSpire<DType::Float64>/4096/manual_time", "BM_GemmCublas<DType::Float64>/4096/manual_time",
          "TFLOP/s", 0.95, "GEMM float64 4096^2 against cublasDgemm")
    ratio("BM_AddSpire/67108864/manual_time", "BM_CopyDeviceToDevice/67108864/manual_time", "GB/s", 0.85,
          "add float32 2^26 against a device-to-device copy (bandwidth)")
    ratio("BM_Fft2Spire/2048/manual_time", "BM_Fft2Cufft/2048/manual_time", "elements/s", 0.95,
          "FFT complex64 2048^2 against cufftExecC2C")
    peer = torch_figures()
    disp = m.get("BM_DispatchSmallAdd")
    mlp = m.get("BM_MlpTrainStep/manual_time")
    if disp:
        tail = f"; PyTorch {peer['dispatch_us']:.2f} us: {disp['time'] / peer['dispatch_us']:.2f}x its time" if peer else ""
        say(f"figure: eager dispatch of a 16-element add: {disp['time']:.2f} us{tail}")
    if mlp:
        tail = f"; PyTorch {peer['mlp_us']:.0f} us: {mlp['time'] / peer['mlp_us']:.2f}x its time (goal <= 1)" if peer else ""
        say(f"figure: 4x256 MLP training step (batch 1024, Adam): {mlp['time']:.0f} us{tail}")
    if peer is None:
        say("figure: PyTorch with a usable GPU is not available here; the PyTorch comparisons were not run")
    if results and m:  # a run without a GPU measured nothing and leaves the file alone
        write_section(results, lines)


if __name__ == "__main__":
    main()
