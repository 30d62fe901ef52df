"""AlphaZero (C++, reinforcement/alphazero): self-play with a batched MCTS and a policy-value network,
a replay buffer, a learner and an evaluation ladder against MCTS with random rollouts.

    az = spire.rl.AlphaZero("examples/alphazero/tic_tac_toe.toml")     # or a dict of the same tables
    az.train(iterations=5, callback=lambda it, logs: print(it, logs["loss"]))
    az.evaluate(opponents=[25, 100], games=20)    # [{"opponent_simulations": 25, "wins": ..., ...}, ...]
    bot = az.bot(simulations=100)                 # a spire.rl.Bot for play_game / play_match
    az.network                                    # the PolicyValueNet (a spire.nn.Module)
    az.save("run.h5"); az = spire.rl.AlphaZero.load("run.h5")

A dict config has the job file's layout: {"seed": 0, "game": {"name": "connect_four"},
"network": {"blocks": 2}, "mcts": {...}, "selfplay": {...}, "train": {...}, "evaluation": {...},
"checkpoint": {...}}; unknown keys and bad values raise spire.ConfigError naming them. Training runs in
C++ without the GIL; the callback (iteration, logs) is called after each iteration and stops training
by returning False.

``NetworkEvaluator(net)`` is an evaluator for ``spire.rl.MCTS``: the leaves of each simulation step
are stacked and the network runs once on them (no gradients, eval mode), priors are the softmax of
the logits over the legal actions.
"""
from __future__ import annotations

import os
import tomllib
from typing import Any, Callable, Mapping

from .._C import _rl
from ._toml import to_toml as _to_toml

PolicyValueNet = _rl.PolicyValueNet
NetworkEvaluator = _rl.NetworkEvaluator

__all__ = ["AlphaZero", "PolicyValueNet", "NetworkEvaluator", "load_network"]


class AlphaZero:
    """An AlphaZero run from a job file (a path) or a dict of its tables."""

    def __init__(self, config: "str | os.PathLike | Mapping[str, Any]" = None, *, _impl=None):
        if _impl is not None:
            self._impl = _impl
        elif isinstance(config, Mapping):
            self._impl = _rl.AlphaZero(_to_toml(config, "AlphaZero config"), "config")
        elif isinstance(config, (str, os.PathLike)):
            self._impl = _rl.AlphaZero.from_file(os.fspath(config))
        else:
            raise TypeError(f"AlphaZero: config must be a dict or the path of a TOML job file, got "
                            f"{type(config).__name__}")

    def train(self, iterations: int | None = None,
              callback: Callable[[int, dict], bool | None] | None = None,
              progress: Callable[[str], None] | None = None,
              history: "str | os.PathLike | None" = None) -> list[dict]:
        """Runs ``iterations`` more iterations (None: until the config's train.iterations are done).
        callback(iteration, logs) after each one may return False to stop; progress(line) gets a
        line of text per iteration; history names a file each iteration's logs are appended to
        (CSV, or HDF5 for .h5/.hdf5). Returns the logs of the iterations run by this call."""
        if iterations is not None and iterations < 0:
            raise ValueError(f"AlphaZero.train: iterations must be >= 0 or None, got {iterations}")
        before = len(self._impl.history)
        self._impl.history_path = "" if history is None else os.fspath(history)
        self._impl.train(-1 if iterations is None else iterations, callback, progress)
        return self._impl.history[before:]

    def evaluate(self, opponents: list[int] | None = None, games: int | None = None,
                 simulations: int | None = None) -> list[dict]:
        """The evaluation ladder: ``games`` games (colours alternated) against MCTS with random
        rollouts of each number of simulations in ``opponents`` (defaults: the config's
        evaluation table). Each rung: opponent_simulations, games, wins, draws, losses, histories."""
        cfg = self.config["evaluation"]
        return self._impl.evaluate(list(cfg["opponents"] if opponents is None else opponents),
                                   cfg["games"] if games is None else games, simulations or 0)

    def bot(self, simulations: int | None = None):
        """A spire.rl.Bot that searches with the network (no noise, the most visited move)."""
        return self._impl.bot(simulations or 0)

    def value(self, state) -> float:
        """The network's value of ``state`` for the player to move, in [-1, 1]."""
        return self._impl.value(state)

    @property
    def network(self):
        return self._impl.network

    @property
    def config(self) -> dict:
        """The full configuration (defaults filled in), as a dict of the job file's tables."""
        return tomllib.loads(self._impl.config_toml)

    @property
    def history(self) -> list[dict]:
        """Every iteration's logs (losses, self-play results, ladder results, times)."""
        return self._impl.history

    @property
    def iterations_done(self) -> int:
        return self._impl.iterations_done

    @property
    def buffer_size(self) -> int:
        return self._impl.buffer_size

    def save(self, path: "str | os.PathLike") -> None:
        """The whole run (network, optimizer, replay buffer, generators, counters, config) in one
        checkpoint file, written atomically; AlphaZero.load continues it with the same bits."""
        self._impl.save(os.fspath(path))

    @classmethod
    def load(cls, path: "str | os.PathLike") -> "AlphaZero":
        return cls(_impl=_rl.AlphaZero.load(os.fspath(path)))

    def __repr__(self) -> str:
        c = self.config
        return (f"AlphaZero(game={c['game']['name']!r}, iterations_done={self.iterations_done}, "
                f"buffer_size={self.buffer_size})")


def load_network(path: "str | os.PathLike") -> tuple[dict, PolicyValueNet]:
    """The configuration (a dict) and the trained network of an AlphaZero checkpoint."""
    text, net = _rl.alphazero_load_network(os.fspath(path))
    return tomllib.loads(text), net
