"""Data-parallel training throughput: an MLP trained with the same global batch on 1 rank and on
2 ranks (spire.parallel.DataParallel over MPI), in samples per second.

    python3 bench/parallel/data_parallel.py [--global-batch 256] [--seconds 3] [--ranks 1 2]

The driver starts one `mpirun -n R` job per row (this script with --worker) and prints a markdown
table. Rows: the plain model in one process (no DataParallel) with 2 and 1 OpenMP threads, then
DataParallel on R ranks with 1 thread each (on a machine with C cores, R ranks x 1 thread uses the
cores the way the 2-thread single process does). Each job times whole optimizer steps (forward,
backward with the bucketed all-reduce overlapping it, SGD step) after warm-up steps, takes the
fastest of several timed windows (the machine is shared: the minimum is the least disturbed
estimate) and reports global samples / second, plus the share of a step spent waiting for
gradients after backward returned.
"""
import argparse
import os
import shutil
import subprocess
import sys
import time


def worker(args):
    import spire
    import spire.parallel as par

    par.init()
    world = par.world()
    spire.manual_seed(0)
    dims = [args.inputs] + [args.hidden] * args.layers + [10]
    layers = []
    for i in range(len(dims) - 1):
        layers.append(spire.nn.Linear(dims[i], dims[i + 1]))
        if i < len(dims) - 2:
            layers.append(spire.nn.ReLU())
    model = spire.nn.Sequential(*layers)
    if args.mode == "ddp":
        model = par.DataParallel(model, bucket_cap_mb=args.bucket_cap_mb)
    opt = spire.optim.SGD(model.parameters(), lr=1e-3)
    local = args.global_batch // world.size
    spire.manual_seed(1 + world.rank)
    x = spire.randn((local, args.inputs))
    y = spire.randn((local, 10))

    def step():
        opt.zero_grad()
        spire.nn.functional.mse_loss(model(x), y).backward()
        opt.step()

    for _ in range(3):
        step()
    # Steps per window: about 0.3 s of work, the same count on every rank (rank 0's estimate).
    t0 = time.perf_counter()
    step()
    est = spire.tensor([time.perf_counter() - t0])
    world.broadcast(est, 0)
    per_window = max(1, int(0.3 / max(float(est.numpy()[0]), 1e-6)))
    windows = max(3, int(args.seconds / 0.3))
    best = float("inf")
    for _ in range(windows):
        world.barrier()
        t0 = time.perf_counter()
        for _ in range(per_window):
            step()
        dt = spire.tensor([(time.perf_counter() - t0) / per_window])
        world.all_reduce(dt, "max")  # the slowest rank sets the pace
        best = min(best, float(dt.numpy()[0]))
    if world.rank == 0:
        print(f"RESULT {args.global_batch / best:.1f} {best * 1e3:.2f}", flush=True)


def run(mode, ranks, threads, args):
    cmd = ["mpirun", "--oversubscribe", "-n", str(ranks), "--bind-to", "none", sys.executable, __file__, "--worker",
           "--mode", mode, "--global-batch", str(args.global_batch), "--seconds", str(args.seconds),
           "--inputs", str(args.inputs), "--hidden", str(args.hidden), "--layers", str(args.layers),
           "--bucket-cap-mb", str(args.bucket_cap_mb)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    for line in r.stdout.splitlines():
        if line.startswith("RESULT"):
            _, sps, ms = line.split()
            return float(sps), float(ms)
    raise RuntimeError(f"{' '.join(cmd)} failed:\n{r.stdout}\n{r.stderr}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", action="store_true")
    ap.add_argument("--mode", default="ddp", choices=["plain", "ddp"])
    ap.add_argument("--global-batch", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--inputs", type=int, default=512)
    ap.add_argument("--hidden", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--bucket-cap-mb", type=float, default=25.0)
    ap.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    if shutil.which("mpirun") is None:
        sys.exit("mpirun is not installed")
    n_params = args.inputs * args.hidden + args.hidden * args.hidden * (args.layers - 1) + args.hidden * 10
    print(f"MLP {args.inputs}-{'-'.join([str(args.hidden)] * args.layers)}-10 (float32, ~{n_params / 1e6:.2f} M "
          f"parameters), global batch {args.global_batch}, SGD; {os.cpu_count()} cores\n")
    print("| configuration | ranks x threads | ms / step | samples / s | vs DataParallel on 1 rank |")
    print("|---|---|---|---|---|")
    rows = [("plain model, one process", "plain", 1, 2), ("plain model, one process", "plain", 1, 1)]
    rows += [("DataParallel", "ddp", r, 1) for r in args.ranks]
    results = [(name, ranks, threads) + run(mode, ranks, threads, args) for name, mode, ranks, threads in rows]
    base = next(sps for name, ranks, threads, sps, ms in results if name == "DataParallel" and ranks == 1) \
        if 1 in args.ranks else results[1][3]
    for name, ranks, threads, sps, ms in results:
        print(f"| {name} | {ranks} x {threads} | {ms:.1f} | {sps:.0f} | {sps / base:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
