"""Validation: PPO, DQN and A2C learn CartPole-v1; PPO learns Pendulum-v1.

Each run trains from scratch with the settings of its job file in examples/rl/ (rl-baselines3-zoo's
tuned hyperparameters) and evaluates 100 deterministic episodes (10 environments x 10) every
EVAL_EVERY environment steps, stopping when the mean return reaches 475 ("solved"). Checks (the
issue's):
  * PPO solves CartPole within 2e5 environment steps on at least 4 of seeds 0..4;
  * DQN solves CartPole within 3e5 environment steps on at least 3 of seeds 0..4;
  * A2C (budget 5e5) and PPO on Pendulum-v1 (1e5 steps; the usual level with rl-zoo's settings
    is about -200, SB3's published PPO result with gSDE -172 +/- 75) are reported;
  * PPO under async_multi_actor_single_learner (two actors on threads, seeds 0 and 1) is reported:
    its updates take whichever rollouts have arrived (stale ones re-evaluated by the learner), so
    they are smaller and more of them; not reproducible run to run.
Prints `figure:` lines for the report.
"""
import os
import statistics
import sys
import time
import tomllib

import spire.rl

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "examples", "rl")
SEEDS = range(5)
EVAL_EVERY = 2048


def job(name: str, **over) -> dict:
    with open(os.path.join(EXAMPLES, name), "rb") as f:
        j = tomllib.load(f)
    for table, values in over.items():
        if isinstance(values, dict):
            j.setdefault(table, {}).update(values)
        else:
            j[table] = values
    j.pop("checkpoint", None)
    return j


def solve(name: str, budget: int, seed: int, **over) -> tuple[int | None, float, float]:
    """Steps to solve (None when not solved within the budget), the last evaluation, seconds."""
    j = job(name, seed=seed, run={"total_steps": budget},
            evaluation={"every_steps": EVAL_EVERY, "episodes": 100, "envs": 10, "target": 475.0}, **over)
    t0 = time.perf_counter()
    s = spire.rl.Agent(j).train()
    seconds = time.perf_counter() - t0
    ret = s["evaluation"]["mean_return"]
    return (s["env_steps"] if s["stop_reason"] == "target" else None), ret, seconds


def cartpole(label: str, name: str, budget: int, need: int, seeds=SEEDS, **over) -> bool:
    solved = []
    for seed in seeds:
        steps, ret, seconds = solve(name, budget, seed, **over)
        print(f"{label} seed {seed}: {'solved after ' + str(steps) + ' steps' if steps else 'not solved'} "
              f"(last evaluation {ret:.1f}), {seconds:.1f} s", flush=True)
        solved.append(steps)
    n = sum(s is not None for s in solved)
    steps = [s for s in solved if s is not None]
    print(f"figure: {label} CartPole-v1 seeds solved within {budget} steps = {n}/{len(seeds)} (need {need})")
    if steps:
        print(f"figure: {label} CartPole-v1 median steps to solve (solved seeds) = {statistics.median(steps):.0f}")
    return n >= need


def main() -> int:
    ok = cartpole("PPO", "ppo_cartpole.toml", 200_000, 4)
    ok &= cartpole("DQN", "dqn_cartpole.toml", 300_000, 3)
    cartpole("A2C", "a2c_cartpole.toml", 500_000, 0)
    cartpole("PPO async (2 actors on threads)", "ppo_cartpole.toml", 200_000, 0, seeds=range(2),
             policy="async_multi_actor_single_learner")
    returns = []
    for seed in range(3):
        j = job("ppo_pendulum.toml", seed=seed, evaluation={"every_steps": 0, "episodes": 100})
        s = spire.rl.Agent(j).train()
        returns.append(s["evaluation"]["mean_return"])
        print(f"PPO Pendulum-v1 seed {seed}: {returns[-1]:.1f} after {s['env_steps']} steps", flush=True)
    print(f"figure: PPO Pendulum-v1 mean evaluation return after 1e5 steps, seeds 0..2 = {statistics.mean(returns):.1f} "
          f"(rl-zoo level without gSDE about -200)")
    print("rl agents:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
