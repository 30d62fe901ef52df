"""Reinforcement learning: Gymnasium-style environments implemented in C++ (reinforcement/envs).

    env = spire.rl.make("CartPole-v1")
    obs, info = env.reset(seed=0)        # the same initial state as gymnasium.make(...).reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

Observations are NumPy float32 arrays; actions are ints (Discrete) or float32 array-likes (Box).
"""
from __future__ import annotations

from .._C import _rl
from . import spaces
from .spaces import Box, Discrete, Space

__all__ = ["make", "registered_ids", "Env", "CartPoleEnv", "AcrobotEnv", "MountainCarEnv",
           "ContinuousMountainCarEnv", "PendulumEnv", "spaces", "Box", "Discrete", "Space"]


class Env:
    """A C++ environment with Gymnasium's API.

    ``reset(*, seed=None, options=None) -> (obs, info)``;
    ``step(action) -> (obs, reward, terminated, truncated, info)``. ``truncated`` comes from the
    time limit (``max_episode_steps``; ``make`` sets Gymnasium's registered one, direct
    construction has none). ``state`` / ``set_state`` read and write the physical state
    (Gymnasium's ``env.unwrapped.state``).
    """

    def __init__(self, impl):
        self._env = impl
        # Bound C++ methods directly: no Python frame per step.
        self.reset = impl.reset
        self.step = impl.step
        self.set_state = impl.set_state
        self.observation_space = spaces._wrap(impl.observation_space)
        self.action_space = spaces._wrap(impl.action_space)

    @property
    def id(self) -> str:
        return self._env.id

    @property
    def max_episode_steps(self) -> int:
        return self._env.max_episode_steps

    @max_episode_steps.setter
    def max_episode_steps(self, steps: int):
        self._env.max_episode_steps = steps

    @property
    def elapsed_steps(self) -> int:
        return self._env.elapsed_steps

    @property
    def state(self):
        return self._env.state

    @property
    def unwrapped(self):
        return self

    def clone(self) -> "Env":
        """An independent copy: same state, step count and generator position."""
        return type(self)._from_impl(self._env.clone())

    @classmethod
    def _from_impl(cls, impl):
        obj = cls.__new__(cls)
        Env.__init__(obj, impl)
        return obj

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"<{type(self).__name__}<{self.id}>>"


class CartPoleEnv(Env):
    def __init__(self, sutton_barto_reward: bool = False):
        super().__init__(_rl.CartPoleEnv(sutton_barto_reward))


class AcrobotEnv(Env):
    def __init__(self):
        super().__init__(_rl.AcrobotEnv())


class MountainCarEnv(Env):
    def __init__(self, goal_velocity: float = 0.0):
        super().__init__(_rl.MountainCarEnv(goal_velocity))


class ContinuousMountainCarEnv(Env):
    def __init__(self, goal_velocity: float = 0.0):
        super().__init__(_rl.ContinuousMountainCarEnv(goal_velocity))


class PendulumEnv(Env):
    def __init__(self, g: float = 10.0):
        super().__init__(_rl.PendulumEnv(g))


def registered_ids() -> list[str]:
    """The ids ``make`` knows."""
    return list(_rl.registered_ids())


_CLASSES = {"CartPole-v1": CartPoleEnv, "Acrobot-v1": AcrobotEnv, "MountainCar-v0": MountainCarEnv,
            "MountainCarContinuous-v0": ContinuousMountainCarEnv, "Pendulum-v1": PendulumEnv}


def make(id: str, max_episode_steps: int | None = None, **kwargs) -> Env:
    """``gymnasium.make(id, **kwargs)``: the environment with its registered time limit
    (``max_episode_steps`` overrides it; 0 removes it). ``kwargs`` go to the environment, as in
    Gymnasium (``sutton_barto_reward``, ``goal_velocity``, ``g``). Unknown ids raise ValueError
    naming the known ones."""
    impl = _rl.make(id, max_episode_steps)  # checks the id
    if not kwargs:
        return _CLASSES[id]._from_impl(impl)
    env = _CLASSES[id](**kwargs)
    env.max_episode_steps = impl.max_episode_steps
    return env


# The vector pool, games, search and AlphaZero live in their own modules; their names join spire.rl.
from . import agents, alphazero, games, mcts, vector  # noqa: E402
from .agents import *  # noqa: E402,F401,F403
from .alphazero import *  # noqa: E402,F401,F403
from .games import *  # noqa: E402,F401,F403
from .mcts import *  # noqa: E402,F401,F403
from .vector import *  # noqa: E402,F401,F403

__all__ += vector.__all__ + games.__all__ + mcts.__all__ + alphazero.__all__ + agents.__all__
