"""Monte Carlo tree search over batches of games (C++, reinforcement/mcts).

    mcts = spire.rl.MCTS(simulations=400, selection="uct", solver=True, seed=0)
    [result] = mcts.search([game])                  # one tree per game; B games search together
    game.apply_action(result.action)
    mcts.advance(0, result.action)                  # keep the subtree under the move played

Selection rules: ``"uct"`` (OpenSpiel's MCTSBot), ``"puct"`` (AlphaZero), ``"gumbel"`` (Gumbel
MuZero), and rules registered in C++ (``registered_selections()``). Evaluators: a registered name
(``"random_rollout"``, with ``evaluator_options={"rollouts": "4"}``), an ``Evaluator`` object, or a
Python callable ``evaluator(obs, legal) -> (priors, values)`` that gets the leaves of every tree at
once: ``obs`` float32 ``[n, *observation_shape]`` (the mover's view), ``legal`` bool ``[n, A]``;
it returns priors ``[n, A]`` (any non-negative weights; illegal ones are dropped) and values ``[n]``
(the expected return of the player to move). ``prior=`` and ``value=`` give the two halves
separately; a missing value comes from ``evaluator`` (random rollouts by default), a missing prior
is uniform.

Every other keyword is a ``SearchConfig`` field (``c_uct``, ``c_puct_init``, ``c_puct_base``,
``fpu``, ``gumbel_*``, ``dirichlet_alpha``, ``dirichlet_fraction``, ``solver``, ``reuse``,
``max_nodes``, ``temperature``, ``threads``); an unknown keyword raises TypeError. Searches are
reproducible: tree b draws from ``seed + b``, whatever the thread count.
"""
from __future__ import annotations

from .._C import _rl

SearchConfig = _rl.SearchConfig
SearchResult = _rl.SearchResult
Evaluator = _rl.Evaluator
RandomRollout = _rl.RandomRollout

__all__ = ["MCTS", "MCTSBot", "SearchConfig", "SearchResult", "Evaluator", "RandomRollout", "make_evaluator",
           "registered_evaluators", "registered_selections"]

_FIELDS = ("simulations", "selection", "c_uct", "c_puct_init", "c_puct_base", "fpu", "gumbel_max_considered",
           "gumbel_scale", "gumbel_maxvisit_init", "gumbel_value_scale", "dirichlet_alpha", "dirichlet_fraction",
           "solver", "reuse", "max_nodes", "temperature", "seed", "threads")


def registered_selections() -> list[str]:
    """The selection rules by name: "uct", "puct", "gumbel" and those registered in C++."""
    return list(_rl.registered_selections())


def registered_evaluators() -> list[str]:
    """The evaluators by name: "random_rollout" and those registered in C++."""
    return list(_rl.registered_evaluators())


def make_evaluator(name: str, options: dict | None = None) -> Evaluator:
    """A registered evaluator built from its options (``{"rollouts": 4}``; values are passed as
    strings). Unknown names or options raise ValueError naming the allowed ones."""
    return _rl.make_evaluator(name, {str(k): str(v) for k, v in (options or {}).items()})


def _config(who: str, kwargs: dict) -> SearchConfig:
    config = SearchConfig()
    for key, value in kwargs.items():
        if key not in _FIELDS:
            raise TypeError(f"{who}: unknown keyword '{key}'; allowed: evaluator, evaluator_options, prior, value, "
                            + ", ".join(_FIELDS))
        setattr(config, key, value)
    return config


def _evaluator(evaluator, evaluator_options, prior, value) -> Evaluator:
    for name, fn in (("prior", prior), ("value", value)):
        if fn is not None and not callable(fn):
            raise TypeError(f"MCTS: {name} must be a callable (obs, legal) -> array, got {type(fn).__name__}")
    if isinstance(evaluator, str):
        base = make_evaluator(evaluator, evaluator_options)
    elif evaluator_options:
        raise ValueError("MCTS: evaluator_options go with an evaluator given by name")
    elif isinstance(evaluator, Evaluator):
        base = evaluator
    elif callable(evaluator):
        if prior is not None or value is not None:
            raise ValueError("MCTS: give either a callable evaluator or prior=/value=, not both")
        return _rl.python_evaluator(evaluator)
    else:
        raise TypeError("MCTS: evaluator must be a registered name, an Evaluator or a callable "
                        f"(obs, legal) -> (priors, values), got {type(evaluator).__name__}")
    if prior is None and value is None:
        return base
    return _rl.split_evaluator(prior, value, base)


class MCTS:
    """Batched MCTS: ``search(games)`` searches one tree per game, all leaves of a simulation step
    evaluated together. See the module's documentation for the keywords."""

    def __init__(self, simulations: int = 100, selection: str = "puct", evaluator="random_rollout", *,
                 evaluator_options: dict | None = None, prior=None, value=None, seed: int = 0, **config):
        cfg = _config("MCTS", dict(simulations=simulations, selection=selection, seed=seed, **config))
        self._mcts = _rl.MCTS(cfg, _evaluator(evaluator, evaluator_options, prior, value))

    def search(self, games) -> list:
        """One result per game (the same number of games at every call): ``action``, ``policy``
        (the training target, float32 [A]), ``visits`` (int32 [A]), ``q`` (float32 [A], NaN where
        unvisited), ``value`` (the root's, for the player to move), ``proven`` (1 win, 0 draw,
        -1 loss for the player to move, None when unproven) and ``simulations``."""
        return self._mcts.search(list(games))

    def advance(self, b: int, action: int) -> None:
        """The move ``action`` was played in game b: its subtree is the next search's root."""
        self._mcts.advance(b, action)

    def clear(self, b: int) -> None:
        """Forgets tree b (its next search starts afresh)."""
        self._mcts.clear(b)

    def root_visits(self, b: int) -> int:
        return self._mcts.root_visits(b)

    def num_nodes(self, b: int) -> int:
        return self._mcts.num_nodes(b)

    @property
    def config(self) -> SearchConfig:
        return self._mcts.config


class MCTSBot(_rl.MCTSBot):
    """A Bot that searches one tree and keeps the subtree under every move played (for
    ``play_game``/``play_match``); ``last_result`` holds its last search. Keywords as ``MCTS``
    (the default rule is UCT, OpenSpiel's MCTSBot)."""

    def __init__(self, simulations: int = 100, selection: str = "uct", evaluator="random_rollout", *,
                 evaluator_options: dict | None = None, prior=None, value=None, seed: int = 0, name: str = "mcts",
                 **config):
        cfg = _config("MCTSBot", dict(simulations=simulations, selection=selection, seed=seed, **config))
        super().__init__(cfg, _evaluator(evaluator, evaluator_options, prior, value), name)
