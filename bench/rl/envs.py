"""CartPole-v1 environment steps per second from Python: spire.rl.make_vec (synchronous, and
asynchronous with batch_size < num_envs) against EnvPool (same num_envs, batch_size, num_threads)
and Gymnasium's SyncVectorEnv and AsyncVectorEnv (one subprocess per environment). Prints a
markdown table.

    PYTHONPATH=<dir with spire> python3 bench/rl/envs.py [--reps 5] [--configs 8:4:2,64:32:2]

A config is num_envs:batch_size:num_threads. Actions are drawn before the timed loop; each figure
is the median of --reps runs of a fixed number of step calls (after a warm-up call). One "step" is
one environment transition: a synchronous call counts num_envs, a recv counts batch_size.
"""
import argparse
import datetime
import os
import statistics
import sys
import time
import warnings

import envpool
import gymnasium as gym
import numpy as np

import spire.rl as rl

ENV = "CartPole-v1"
warnings.filterwarnings("ignore", module="gymnasium")  # EnvPool's float64 Box bounds


def timed(run, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        steps = run()
        times.append(steps / (time.perf_counter() - t0))
    return statistics.median(times)


def sync_loop(step, actions):
    def run():
        for a in actions:
            step(a)
        return actions.size
    return run


def async_loop(recv, send, actions):
    def run():
        for a in actions:
            info = recv()[4]
            send(a, info["env_id"])
        return actions.size
    return run


def bench_config(n, b, threads, reps, calls, out):
    rng = np.random.default_rng(0)
    sync_actions = rng.integers(0, 2, size=(calls, n)).astype(np.int64)
    async_actions = rng.integers(0, 2, size=(calls * n // b, b)).astype(np.int64)
    rows = []

    def add(system, mode, steps_per_s):
        rows.append((system, mode, steps_per_s))
        print(f"  {system:28s} {mode:6s} {steps_per_s:14,.0f} steps/s", file=sys.stderr)

    # Synchronous
    pool = rl.make_vec(ENV, n, num_threads=threads)
    pool.reset(seed=0)
    add("spire make_vec", "sync", timed(sync_loop(pool.step, sync_actions), reps))
    pool.close()
    ep = envpool.make(ENV, env_type="gymnasium", num_envs=n, batch_size=n, num_threads=threads, seed=0)
    ep.reset()
    add("EnvPool", "sync", timed(sync_loop(ep.step, sync_actions), reps))
    ep.close()
    # Asynchronous
    pool = rl.make_vec(ENV, n, batch_size=b, num_threads=threads)
    pool.async_reset(seed=0)
    add("spire make_vec", "async", timed(async_loop(pool.recv, pool.send, async_actions), reps))
    pool.close()
    ep = envpool.make(ENV, env_type="gymnasium", num_envs=n, batch_size=b, num_threads=threads, seed=0)
    ep.async_reset()
    add("EnvPool", "async", timed(async_loop(ep.recv, ep.send, async_actions), reps))
    ep.close()
    # Gymnasium: pure Python in one process, and one subprocess per environment.
    few = sync_actions[: max(calls // 10, 50)]
    sync = gym.vector.SyncVectorEnv([lambda: gym.make(ENV)] * n)
    sync.reset(seed=0)
    add("gymnasium SyncVectorEnv", "sync", timed(sync_loop(sync.step, few), reps))
    sync.close()
    asyn = gym.vector.AsyncVectorEnv([lambda: gym.make(ENV)] * n)
    asyn.reset(seed=0)
    add("gymnasium AsyncVectorEnv", "sync", timed(sync_loop(asyn.step, few), reps))
    asyn.close()

    envpool_rate = {mode: r for system, mode, r in rows if system == "EnvPool"}
    for system, mode, r in rows:
        out.append(f"| {n} | {b if mode == 'async' else n} | {threads} | {system} | {mode} | {r:,.0f} | "
                   f"{r / envpool_rate[mode]:.2f} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--calls", type=int, default=20000, help="step calls per run (spire, EnvPool)")
    p.add_argument("--configs", default="8:4:2,64:32:2", help="num_envs:batch_size:num_threads, comma-separated")
    args = p.parse_args()
    cmd = "PYTHONPATH=<spire> python3 bench/rl/envs.py " + " ".join(sys.argv[1:])
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = ["### CartPole-v1 steps per second (bench/rl/envs.py)", "",
           f"Goal: spire ≥ EnvPool's throughput. Reproduce: `{cmd.strip()}` (measured {when}, "
           f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; envpool {envpool.__version__}, gymnasium {gym.__version__}; "
           f"median of {args.reps} runs; ratio = steps/s ÷ EnvPool's in the same mode).", "",
           "| num_envs | batch | threads | system | mode | steps/s | vs EnvPool |",
           "|---:|---:|---:|---|---|---:|---:|"]
    for cfg in args.configs.split(","):
        n, b, t = (int(x) for x in cfg.split(":"))
        print(f"num_envs={n} batch_size={b} num_threads={t}", file=sys.stderr)
        calls = max(args.calls * 8 // n, 200)
        bench_config(n, b, t, args.reps, calls, out)
    print("\n".join(out))


if __name__ == "__main__":
    main()
