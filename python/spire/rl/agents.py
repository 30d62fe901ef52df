"""RL algorithms written as dataflow fragments (C++, reinforcement/agents and /dataflow): PPO, A2C and
DQN, whose actors and learner a distribution policy places on threads and MPI ranks.

    agent = spire.rl.PPO("CartPole-v1", seed=0, total_steps=100_000, envs_per_actor=8,
                         n_steps=32, batch_size=256, n_epochs=20, lr=1e-3, lr_schedule="linear")
    summary = agent.train(progress=print)          # until the budget (or evaluation.target)
    agent.evaluate(episodes=100)                   # {"mean_return": ..., "returns": [...], ...}
    agent.predict(obs)                             # deterministic actions for a batch of observations

    agent = spire.rl.Agent("examples/rl/ppo_cartpole.toml", policy="multi_actor_single_learner")

A job is a TOML file (a path) or a dict with the file's layout (docs/rl_agents.md): top-level
algorithm, seed, policy; tables env, actors, run, evaluation, checkpoint and the algorithm's own
(ppo, a2c, dqn). Unknown keys and bad values raise spire.ConfigError naming them. Training runs in
C++ without the GIL; callback(update, logs) after each update may return False to stop. Under
``mpirun -n N python script.py`` every rank builds the same Agent and calls train(); only the
learner's rank (0) holds the learner (evaluate, predict, save). Ctrl-C stops the run cleanly (its
history and checkpoint are written) and then raises KeyboardInterrupt.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Mapping

import numpy as np

from .._C import _rl
from ._toml import to_toml

__all__ = ["Agent", "PPO", "A2C", "DQN", "algorithms", "policies"]


def algorithms() -> list[str]:
    """The algorithms a job may name."""
    return list(_rl.algorithms())


def policies() -> list[str]:
    """The distribution policies a job (or ``policy=``) may name."""
    return list(_rl.policies())


class Agent:
    """A run of an algorithm under a distribution policy, from a job file or a dict."""

    def __init__(self, job: "str | os.PathLike | Mapping[str, Any]", *, policy: str | None = None):
        if isinstance(job, Mapping):
            text, where = to_toml(job, "Agent config"), "config"
        elif isinstance(job, (str, os.PathLike)):
            where = os.fspath(job)
            with open(where, encoding="utf-8") as f:
                text = f.read()
        else:
            raise TypeError(f"Agent: job must be a dict or the path of a TOML job file, got {type(job).__name__}")
        self._run = _rl.Run(text, where, policy or "")

    @classmethod
    def load(cls, path: "str | os.PathLike", *, policy: str | None = None) -> "Agent":
        """The agent saved in a run's checkpoint (its job is stored in it), ready to predict, evaluate
        or train on (``policy`` overrides the job's, e.g. "single_process" to evaluate a run trained
        on several ranks)."""
        agent = cls.__new__(cls)
        agent._run = _rl.Run.from_checkpoint(os.fspath(path), policy or "")
        return agent

    def train(self, callback: Callable[[int, dict], bool | None] | None = None,
              progress: Callable[[str], None] | None = None) -> dict:
        """Runs until the step budget, the evaluation target, a callback returning False or Ctrl-C.
        Returns a summary: env_steps, updates, episodes, stop_reason, seconds, evaluation."""
        summary = self._run.train(callback, progress)
        if summary["stop_reason"] == "interrupted":
            raise KeyboardInterrupt(f"the run stopped after {summary['updates']} updates; its files are written")
        return summary

    def evaluate(self, episodes: int = 100, envs: int = 10, seed: int = 0) -> dict:
        """Episodes of the deterministic policy: mean_return, std_return, mean_length, returns, lengths."""
        return self._run.evaluate(episodes, envs, seed)

    def predict(self, observations) -> np.ndarray:
        """Deterministic actions for observations [n, obs_dim] (or one observation)."""
        obs = np.asarray(observations, dtype=np.float32)
        single = obs.ndim == 1
        actions = np.asarray(self._run.act(np.ascontiguousarray(obs[None] if single else obs)))
        return actions[0] if single else actions

    def save(self, path: "str | os.PathLike") -> None:
        """The learner's checkpoint (networks, optimizer, replay buffer, counters)."""
        self._run.save(os.fspath(path))

    def resume(self, path: "str | os.PathLike") -> None:
        """Before train(): continue the run saved at ``path``."""
        self._run.resume(os.fspath(path))

    @property
    def history(self) -> list[dict]:
        """One dict of logs per update: env_steps, episode_return (mean of the last 100 episodes),
        the learner's losses, eval_return when evaluated (NaN otherwise), ..."""
        return self._run.history

    algorithm = property(lambda self: self._run.algorithm)
    policy = property(lambda self: self._run.policy)
    env_steps = property(lambda self: self._run.env_steps)
    updates = property(lambda self: self._run.updates)
    is_learner = property(lambda self: self._run.is_learner)

    def __repr__(self):
        return f"<Agent {self.algorithm} policy={self.policy} env_steps={self.env_steps}>"


_SHARED = {"env": ("id", "envs_per_actor", "max_episode_steps", "threads"), "actors": ("count",),
           "run": ("total_steps", "log_every", "learner_threads"), "evaluation": ("every_steps", "episodes", "envs", "target"),
           "checkpoint": ("every", "dir")}
_ALIASES = {"actors": ("actors", "count"), "eval_every_steps": ("evaluation", "every_steps"),
            "eval_episodes": ("evaluation", "episodes"), "eval_envs": ("evaluation", "envs"),
            "target": ("evaluation", "target"), "checkpoint_dir": ("checkpoint", "dir"),
            "checkpoint_every": ("checkpoint", "every"), "env_threads": ("env", "threads")}


def _job(algorithm: str, env: str, seed: int, policy: str, kwargs: dict) -> dict:
    """Keyword arguments sorted into the job's tables: the shared tables' keys (and the aliases
    above) go there, everything else to the algorithm's own table."""
    job: dict[str, Any] = {"algorithm": algorithm, "seed": seed, "policy": policy, "env": {"id": env}}
    for key, value in kwargs.items():
        if key in _ALIASES:
            table, name = _ALIASES[key]
        else:
            table = next((t for t, keys in _SHARED.items() if key in keys and t != "actors"), algorithm)
            name = key
        job.setdefault(table, {})[name] = value
    return job


def PPO(env: str = "CartPole-v1", *, seed: int = 0, policy: str = "single_process", **kwargs) -> Agent:
    """Proximal policy optimisation (docs/rl_ppo.md); keywords as the job file's keys."""
    return Agent(_job("ppo", env, seed, policy, kwargs))


def A2C(env: str = "CartPole-v1", *, seed: int = 0, policy: str = "single_process", **kwargs) -> Agent:
    """Advantage actor-critic (docs/rl_ppo.md); keywords as the job file's keys."""
    return Agent(_job("a2c", env, seed, policy, kwargs))


def DQN(env: str = "CartPole-v1", *, seed: int = 0, policy: str = "single_process", **kwargs) -> Agent:
    """Deep Q-networks with double, dueling, n-step and prioritized replay (docs/rl_dqn.md)."""
    return Agent(_job("dqn", env, seed, policy, kwargs))
