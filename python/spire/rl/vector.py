"""Vectorized environments: a pool of environments stepped by C++ threads (EnvPool-style), with
Gymnasium 1.0's vector API, and the adapter for Python Gymnasium environments.

    envs = spire.rl.make_vec("CartPole-v1", 8, num_threads=2)
    obs, info = envs.reset(seed=0)                  # environment i is seeded with 0 + i
    obs, rewards, terminated, truncated, info = envs.step(envs.action_space.sample())

    envs = spire.rl.make_vec("CartPole-v1", 8, batch_size=4)   # asynchronous, as EnvPool
    envs.async_reset(seed=0)
    obs, rewards, terminated, truncated, info = envs.recv()   # the first 4 to finish
    envs.send(actions, info["env_id"])

Autoreset is Gymnasium 1.0's "next step" mode: after an environment terminates or truncates, the
next step sent to it resets it and returns the reset observation with reward 0 and both flags
false (its action is ignored). See docs/rl_vector.md.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .._C import _rl
from . import Env, spaces  # spire.rl defines Env before importing this module
from .spaces import Box, MultiDiscrete, Space

__all__ = ["make_vec", "VectorEnv", "from_gymnasium", "GymnasiumEnv", "MultiDiscrete"]


def _batch_space(space: Space, n: int) -> Space:
    if isinstance(space, Box):
        return Box(np.broadcast_to(space.low, (n, *space.shape)), np.broadcast_to(space.high, (n, *space.shape)))
    return MultiDiscrete(np.full(n, space.n), np.full(n, space.start))


class VectorEnv:
    """``num_envs`` environments stepped by C++ worker threads, with Gymnasium's vector API and
    EnvPool's asynchronous one.

    * ``reset(*, seed=None, options=None) -> (obs, info)``: environment ``i`` gets ``seed + i``.
    * ``step(actions) -> (obs, rewards, terminated, truncated, info)``: ``actions`` are ints of shape
      ``(num_envs,)`` (Discrete) or floats of shape ``(num_envs, *action_shape)`` (Box).
    * ``async_reset(seed=None)``, ``send(actions, env_id=None)``, ``recv()``: EnvPool's asynchronous
      API; ``recv`` returns the first ``batch_size`` environments to finish, their ids in
      ``info["env_id"]``.

    Results are NumPy arrays (obs float32, rewards float64, flags bool, env_id int32): fresh copies,
    or with ``copy=False`` read-only views of the pool's buffers that the next ``step``/``reset``
    (synchronous) or the recv after next (asynchronous) overwrites. Stepping runs without the GIL;
    environments wrapped from Python take it back, so their steps run one at a time.
    """

    metadata = {"autoreset_mode": "next_step"}

    def __init__(self, impl):
        self._impl = impl
        self.num_envs = impl.num_envs
        self.batch_size = impl.batch_size
        self.num_threads = impl.num_threads
        self.copy = impl.copy
        self.single_observation_space = spaces._wrap(impl.single_observation_space)
        self.single_action_space = spaces._wrap(impl.single_action_space)
        self.observation_space = _batch_space(self.single_observation_space, self.num_envs)
        self.action_space = _batch_space(self.single_action_space, self.num_envs)
        # Bound C++ methods: no Python frame per step.
        self.step = impl.step
        self.send = impl.send
        self.recv = impl.recv
        self.async_reset = impl.async_reset
        self.closed = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        return self._impl.reset(seed, options)

    @property
    def unwrapped(self):
        return self

    def close(self):
        if not self.closed:
            self._impl.close()
            self.closed = True

    def __del__(self):
        if getattr(self, "closed", True) is False:
            self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return (f"VectorEnv({self.single_observation_space} -> {self.single_action_space}, num_envs={self.num_envs}, "
                f"batch_size={self.batch_size}, num_threads={self.num_threads})")


class GymnasiumEnv(Env):
    """A Python ``gymnasium.Env`` behind spire's ``Env`` interface (``from_gymnasium``).
    ``reset(seed=...)`` passes the seed to the Python environment; ``state``/``set_state`` raise
    (the state lives in Python); ``clone()`` is ``copy.deepcopy`` of the Python environment."""

    def __init__(self, env):
        super().__init__(_rl.from_gymnasium(env))

    @property
    def gymnasium_env(self):
        return self._env.gymnasium_env


def from_gymnasium(env) -> "GymnasiumEnv":
    """A spire ``Env`` stepping the Python Gymnasium environment ``env`` (Box observations; Box or
    Discrete actions: other spaces raise ValueError). Its time limit stays ``env``'s own."""
    return GymnasiumEnv(env)


def make_vec(id: str | Sequence[Callable], num_envs: int | None = None, *, batch_size: int | None = None,
             num_threads: int = 0, max_episode_steps: int | None = None, copy: bool = True,
             **env_kwargs) -> VectorEnv:
    """A ``VectorEnv`` of ``num_envs`` copies of ``spire.rl.make(id, max_episode_steps, **env_kwargs)``,
    or of the Python Gymnasium environments that a list of factories returns (as
    ``gymnasium.vector.SyncVectorEnv(factories)``; ``num_envs`` defaults to their number).

    ``batch_size`` (default ``num_envs``): how many results ``recv()`` returns. ``num_threads``:
    threads stepping environments, the caller's included (0: one per hardware thread, at most one
    per environment). ``copy=False`` returns read-only views of the pool's buffers."""
    if isinstance(id, str):
        if num_envs is None:
            raise TypeError("make_vec: num_envs is required with an environment id")
        from . import make
        proto = make(id, max_episode_steps, **env_kwargs)
        impls = [proto._env] * int(num_envs)  # the pool clones each
        impl = _rl.VectorEnv.from_envs(impls, int(batch_size or 0), int(num_threads), bool(copy))
        return VectorEnv(impl)
    factories = list(id)
    if not factories or not all(callable(f) for f in factories):
        raise TypeError("make_vec: pass an environment id (str) or a non-empty list of callables returning "
                        "gymnasium environments")
    if num_envs is not None and num_envs != len(factories):
        raise ValueError(f"make_vec: num_envs={num_envs} but {len(factories)} factories were given")
    if max_episode_steps is not None or env_kwargs:
        raise TypeError("make_vec: max_episode_steps and environment keywords apply to an id; "
                        "configure the environments in the factories")
    impl = _rl.VectorEnv.from_gymnasium([f() for f in factories], int(batch_size or 0), int(num_threads), bool(copy))
    return VectorEnv(impl)
