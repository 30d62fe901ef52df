"""PPO on CartPole-v1: Spire's PPO (a dataflow job, spire.rl.Agent) against Stable-Baselines3's PPO,
and the environment steps per second of Spire's PPO on 1, 2 and 4 MPI ranks. Prints a markdown
section.

    PYTHONPATH=<dir with spire> python3 bench/rl/agents.py [--reps 3] [--seeds 0,1,2,3,4] [--quick]
        [--parts solve,ranks] [--ranks 1,2,4] [--ranks-reps 5] [--bind-to none] [--spire build/bin/spire]

solve: wall time to solve CartPole-v1 with rl-baselines3-zoo's hyperparameters (8 environments,
n_steps 32, batch_size 256, gae_lambda 0.8, gamma 0.98, n_epochs 20, ent_coef 0, lr 1e-3 and
clip_range 0.2 both linear; Spire: one actor of 8 environments, learner_threads 1; SB3: its
sequential in-process vector environment (make_vec_env's default, which steps the environments one
after another in the calling thread) and torch.set_num_threads(1), as rl-zoo does). The same protocol in both: after the update
that brings the step count to a multiple of 2048, 100 deterministic episodes on 10 environments
(10 each); stop when their mean return reaches 475, budget 2e5 steps. Spire evaluates with its own
[evaluation] table; SB3 with a callback calling evaluate_policy at the start of the rollout that
follows that update (EvalCallback would evaluate one update earlier, before the 8th rollout's
training). Each evaluation is timed and subtracted to give the training time; the time with
evaluations is reported too. Every run is its own process (python3 agents.py --worker ...); the
systems alternate seed by seed, and each seed's figures are the medians of --reps runs (the steps to
solve are the same in every run: both are deterministic on one thread).

ranks: Spire's PPO under mpirun --oversubscribe --bind-to none -n R with actors = R (8 environments each,
n_steps 128), placed by multi_actor_single_learner and async_multi_actor_single_learner, with a
learner that does almost nothing (n_epochs 1, one minibatch of the whole rollout) so that the rate
is the collection's and the trajectories' and parameters' traffic. The figure is the environment
steps of the run divided by the trainer's seconds ("stopped ... s": the learner's loop, without
MPI's start-up); the median of the history's per-round fps column is printed beside it. Medians of
--ranks-reps runs, configurations round-robin. --bind-to none because Open MPI otherwise binds each
of 1 or 2 ranks to one core, where a rank's actor and learner threads cannot overlap.
"""
import argparse
import csv
import datetime
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = "CartPole-v1"
TARGET = 475.0
BUDGET = 200_000
EVAL_EVERY = 2048
EVAL_EPISODES = 100
EVAL_ENVS = 10
ZOO = dict(n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20, ent_coef=0.0)
LR, CLIP = 1e-3, 0.2
N_ENVS = 8


# --- workers: one run in this process, a JSON line on stdout ---------------------------------------

def spire_solve(seed):
    import spire.rl as rl
    job = {"algorithm": "ppo", "seed": seed, "policy": "single_process",
           "env": {"id": ENV, "envs_per_actor": N_ENVS}, "actors": {"count": 1},
           "run": {"total_steps": BUDGET, "learner_threads": 1},
           "evaluation": {"every_steps": EVAL_EVERY, "episodes": EVAL_EPISODES, "envs": EVAL_ENVS, "target": TARGET},
           "ppo": dict(ZOO, lr=LR, lr_schedule="linear", clip_range=CLIP, clip_range_schedule="linear")}
    agent = rl.Agent(job)
    # The history's `time` is stamped after the update and before its evaluation; the callback runs
    # after the evaluation. Their offset is a constant (plus microseconds) on updates without one,
    # so an evaluation's time is its update's offset less the median offset of the others.
    stamps = []
    solved = [None]

    def callback(update, logs):
        stamps.append((time.perf_counter(), logs["time"], logs["eval_return"], logs["env_steps"]))
        if solved[0] is None and logs["eval_return"] >= TARGET:
            solved[0] = int(logs["env_steps"])

    t0 = time.perf_counter()
    summary = agent.train(callback=callback)
    wall = time.perf_counter() - t0
    offsets = [c - t for c, t, e, _ in stamps if e != e]  # NaN: no evaluation
    base = statistics.median(offsets) if offsets else 0.0
    evals = [(c - t) - base for c, t, e, _ in stamps if e == e]
    if summary["stop_reason"] != "target" and stamps and stamps[-1][2] != stamps[-1][2]:
        # the final evaluation after the budget runs after the last callback
        evals.append(max(0.0, wall - (stamps[-1][0] - t0)))
    return {"solved_at": solved[0], "steps": summary["env_steps"], "wall": wall, "eval": sum(evals),
            "evaluations": len(evals), "fps": statistics.median(h["fps"] for h in agent.history)}


def sb3_solve(seed):
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.evaluation import evaluate_policy
    torch.set_num_threads(1)

    class EvaluateEvery(BaseCallback):
        """Evaluates once the update after every EVAL_EVERY steps is done: at the next rollout's start."""

        def __init__(self, eval_env):
            super().__init__()
            self.eval_env, self.next, self.seconds, self.count = eval_env, EVAL_EVERY, 0.0, 0
            self.solved_at = None

        def _on_rollout_start(self):
            if self.num_timesteps < self.next or self.solved_at is not None:
                return
            while self.next <= self.num_timesteps:
                self.next += EVAL_EVERY
            t0 = time.perf_counter()
            mean, _ = evaluate_policy(self.model, self.eval_env, n_eval_episodes=EVAL_EPISODES, deterministic=True)
            self.seconds += time.perf_counter() - t0
            self.count += 1
            if mean >= TARGET:
                self.solved_at = self.num_timesteps

        def _on_step(self):
            return self.solved_at is None

    linear = lambda start: (lambda progress_remaining: start * progress_remaining)  # rl-zoo's lin_
    env = make_vec_env(ENV, n_envs=N_ENVS, seed=seed)
    eval_env = make_vec_env(ENV, n_envs=EVAL_ENVS, seed=10**6 + seed)
    model = PPO("MlpPolicy", env, learning_rate=linear(LR), clip_range=linear(CLIP), seed=seed, device="cpu",
                verbose=0, **ZOO)
    cb = EvaluateEvery(eval_env)
    t0 = time.perf_counter()
    model.learn(total_timesteps=BUDGET, callback=cb)
    wall = time.perf_counter() - t0
    return {"solved_at": cb.solved_at, "steps": model.num_timesteps, "wall": wall, "eval": cb.seconds,
            "evaluations": cb.count}


def worker(system, seed):
    out = {"spire": spire_solve, "sb3": sb3_solve}[system](seed)
    print(json.dumps(out))


def run_worker(system, seed):
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", system, str(seed)],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"{system} seed {seed} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


# --- part 1: wall time to solve --------------------------------------------------------------------

def solve_section(seeds, reps, out):
    runs = {(s, sys_): [] for s in seeds for sys_ in ("spire", "sb3")}
    for rep in range(reps):
        for s in seeds:
            for system in (("spire", "sb3") if rep % 2 == 0 else ("sb3", "spire")):
                r = run_worker(system, s)
                runs[(s, system)].append(r)
                print(f"  rep {rep} seed {s} {system:5s}: solved at {r['solved_at']}, wall {r['wall']:.2f} s, "
                      f"evaluation {r['eval']:.2f} s ({r['evaluations']})", file=sys.stderr, flush=True)

    def med(s, system, f):
        return statistics.median(f(r) for r in runs[(s, system)])

    def steps(s, system):
        got = {r["solved_at"] for r in runs[(s, system)]}
        return " / ".join("not solved" if g is None else f"{g:,}" for g in sorted(got, key=lambda g: g or 10**9))

    out += ["| seed | Spire steps to solve | SB3 steps to solve | Spire training (s) | SB3 training (s) | Spire / SB3 "
            "| Spire with evaluation (s) | SB3 with evaluation (s) | Spire / SB3 |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    train_ratio, total_ratio = [], []
    for s in seeds:
        tr = {x: med(s, x, lambda r: r["wall"] - r["eval"]) for x in ("spire", "sb3")}
        tot = {x: med(s, x, lambda r: r["wall"]) for x in ("spire", "sb3")}
        train_ratio.append(tr["spire"] / tr["sb3"])
        total_ratio.append(tot["spire"] / tot["sb3"])
        out.append(f"| {s} | {steps(s, 'spire')} | {steps(s, 'sb3')} | {tr['spire']:.2f} | {tr['sb3']:.2f} "
                   f"| {train_ratio[-1]:.3f}× | {tot['spire']:.2f} | {tot['sb3']:.2f} | {total_ratio[-1]:.3f}× |")
    out.append(f"| **median** | | | | | **{statistics.median(train_ratio):.3f}×** | | | "
               f"**{statistics.median(total_ratio):.3f}×** |")
    # Per environment step: the two may need different numbers of steps to solve.
    per_step = {x: statistics.median((r["wall"] - r["eval"]) / r["steps"] for s in seeds for r in runs[(s, x)])
                for x in ("spire", "sb3")}
    per_eval = {x: statistics.median(r["eval"] / r["evaluations"] for s in seeds for r in runs[(s, x)]
                                     if r["evaluations"]) for x in ("spire", "sb3")}
    fps = statistics.median(r["fps"] for s in seeds for r in runs[(s, "spire")])
    out += ["", f"Per environment step of training: Spire {per_step['spire'] * 1e6:.0f} µs, SB3 "
            f"{per_step['sb3'] * 1e6:.0f} µs ({per_step['sb3'] / per_step['spire']:.0f}× as long); one evaluation "
            f"(100 episodes): Spire {per_eval['spire'] * 1e3:.0f} ms, SB3 {per_eval['sb3'] * 1e3:.0f} ms; median "
            f"of Spire's per-round `fps` column {fps:,.0f} steps/s (medians over all runs)."]


# --- part 2: steps per second on 1, 2, 4 ranks -----------------------------------------------------

def ranks_job(actors, steps):
    rollout = actors * N_ENVS * 128
    return (f'algorithm = "ppo"\nseed = 0\n[env]\nid = "{ENV}"\nenvs_per_actor = {N_ENVS}\n[actors]\ncount = {actors}\n'
            f"[run]\ntotal_steps = {steps}\n[evaluation]\nepisodes = 0\n"
            f"[ppo]\nn_steps = 128\nbatch_size = {rollout}\nn_epochs = 1\n")


def ranks_run(spire, ranks, policy, steps, tmp, bind):
    job = os.path.join(tmp, f"ppo_{ranks}.toml")
    with open(job, "w") as f:
        f.write(ranks_job(ranks, steps))
    out = tempfile.mkdtemp(prefix=f"run_{ranks}_{policy}_", dir=tmp)  # a fresh folder: spire never overwrites a run
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    for attempt in range(3):  # a shared build directory may be relinking the binary for a moment
        p = subprocess.run(["mpirun", "--oversubscribe", "--bind-to", bind, "-n", str(ranks), spire, "rl", "train", job,
                            "-o", out, "--policy", policy], capture_output=True, text=True, env=env, check=False)
        if p.returncode == 0 or os.access(spire, os.X_OK):
            break
        time.sleep(30)
    m = re.search(r"stopped \(\w+\) after (\d+) updates, (\d+) environment steps, \d+ episodes, ([\d.e+-]+) s",
                  p.stdout + p.stderr)
    if p.returncode != 0 or not m:
        raise RuntimeError(f"mpirun -n {ranks} {policy} failed:\n{(p.stdout + p.stderr)[-3000:]}")
    with open(os.path.join(out, "history.csv")) as f:
        fps = statistics.median(float(row["fps"]) for row in csv.DictReader(f))
    return int(m.group(2)) / float(m.group(3)), fps, int(m.group(1))


def ranks_section(spire, ranks, reps, steps, bind, out):
    policies = ("multi_actor_single_learner", "async_multi_actor_single_learner")
    res = {(r, p): [] for r in ranks for p in policies}
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(reps):
            for r in ranks:
                for p in policies:
                    rate, fps, updates = ranks_run(spire, r, p, steps, tmp, bind)
                    res[(r, p)].append((rate, fps, updates))
                    print(f"  rep {rep} ranks {r} {p}: {rate:,.0f} steps/s (fps median {fps:,.0f}, {updates} updates)",
                          file=sys.stderr, flush=True)
    out += ["| ranks | actors × envs | policy | steps/s (run) | vs 1 rank | median round fps | updates |",
            "|---:|---|---|---:|---:|---:|---:|"]
    one = statistics.median(x[0] for x in res[(ranks[0], policies[0])])  # both against the synchronous one
    for p in policies:
        for r in ranks:
            rate = statistics.median(x[0] for x in res[(r, p)])
            fps = statistics.median(x[1] for x in res[(r, p)])
            upd = statistics.median(x[2] for x in res[(r, p)])
            out.append(f"| {r} | {r} × {N_ENVS} | {p} | {rate:,.0f} | {rate / one:.2f}× | {fps:,.0f} | {upd:.0f} |")
    out += ["", f'("vs 1 rank" is against {policies[0]} on {ranks[0]} rank{"s" if ranks[0] > 1 else ""}.)']


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            return next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--seeds", default="0,1,2,3,4")
    p.add_argument("--parts", default="solve,ranks")
    p.add_argument("--ranks", default="1,2,4")
    p.add_argument("--ranks-reps", type=int, default=5)
    p.add_argument("--ranks-steps", type=int, default=400_000, help="environment steps of each ranks run")
    p.add_argument("--bind-to", default="none", help="mpirun --bind-to: none lets a rank's threads use every core "
                   "(Open MPI's default for 1 or 2 ranks, core, confines each rank to one)")
    p.add_argument("--spire", default=os.path.join(REPO, "build", "bin", "spire"), help="the spire command")
    p.add_argument("--quick", action="store_true", help="one rep, seeds 0 and 1, short ranks runs")
    p.add_argument("--worker", nargs=2, metavar=("SYSTEM", "SEED"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:
        worker(args.worker[0], int(args.worker[1]))
        return
    if args.quick:
        args.reps, args.seeds, args.ranks_reps, args.ranks_steps = 1, "0,1", 1, 100_000
    seeds = [int(s) for s in args.seeds.split(",")]
    parts = args.parts.split(",")
    import stable_baselines3
    import torch
    import gymnasium
    cmd = "PYTHONPATH=python python3 bench/rl/agents.py " + " ".join(sys.argv[1:])
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load0 = os.getloadavg()[0]
    out = ["## 11. Reinforcement learning: PPO against Stable-Baselines3, and on MPI ranks", "",
           f"Reproduce: `{cmd.strip()}` (measured {when}; {os.cpu_count()} cores, {cpu_name()}; load average "
           f"{load0:.1f} at the start; stable-baselines3 {stable_baselines3.__version__}, torch {torch.__version__} "
           f"(1 thread), gymnasium {gymnasium.__version__}). The script's header gives the exact protocol.", ""]
    if "solve" in parts:
        out += ["**Wall time to solve CartPole-v1**, rl-baselines3-zoo's PPO hyperparameters in both (8 environments, "
                "n_steps 32, batch 256, 20 epochs, gae_lambda 0.8, gamma 0.98, lr 1e-3 and clip 0.2 linear), one "
                "thread each; 100 deterministic episodes on 10 environments after every 2,048 steps, solved at a mean "
                f"≥ 475, budget 2e5 steps; seeds {args.seeds}, median of {args.reps} runs per seed. *Training* = "
                "the whole `train()` / `learn()` call less the time spent evaluating (each evaluation timed in both "
                "and subtracted); *with evaluation* = the whole call.", ""]
        solve_section(seeds, args.reps, out)
        out.append("")
    if "ranks" in parts:
        ranks = [int(r) for r in args.ranks.split(",")]
        out += [f"**PPO environment steps per second on MPI ranks** (`mpirun --oversubscribe --bind-to {args.bind_to} "
                f"-n R spire rl train`): "
                f"R actors of 8 CartPole-v1 environments, n_steps 128, a learner doing one minibatch of the whole "
                f"rollout per update; {args.ranks_steps:,} steps per run; steps/s = steps ÷ the trainer's seconds "
                f"(MPI start-up excluded); median of {args.ranks_reps} runs. This machine has {os.cpu_count()} cores: "
                f"past {os.cpu_count()} ranks nothing can run in parallel.", ""]
        ranks_section(args.spire, ranks, args.ranks_reps, args.ranks_steps, args.bind_to, out)
        out.append("")
    out.append(f"(load average {os.getloadavg()[0]:.1f} at the end)")
    print("\n".join(out))


if __name__ == "__main__":
    main()
