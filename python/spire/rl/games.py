"""Games for search, bots and matches (C++, reinforcement/games).

    game = spire.rl.make_game("connect_four")       # or "tic_tac_toe"
    game.apply_action(3)
    game.legal_actions(), game.legal_mask()          # list of ints, NumPy bool array
    game.current_player(), game.is_terminal(), game.returns()
    game.observation()                               # float32, game.observation_shape, mover's view
    print(game)                                      # OpenSpiel's board text

    result = spire.rl.play_match("tic_tac_toe", spire.rl.MinimaxBot(seed=0), spire.rl.RandomBot(seed=1), 100)
    result.wins, result.draws, result.losses, result.score

Rules, action numbers, player numbers and board text are OpenSpiel's. A state is a ``Game``:
``clone()`` (also ``copy.copy``/``copy.deepcopy``) copies it, ``serialize()`` gives its moves
("3 4 2"), ``deserialize_game(name, text)`` replays them; games pickle. Static facts are properties
(``name``, ``num_players``, ``num_actions``, ``observation_shape``); the state is read by methods,
as in OpenSpiel.

A Python bot subclasses ``Bot`` (call ``super().__init__()``) and defines ``step(self, state)``
returning an action; ``inform_action(state, player, action)``, ``restart()`` and ``name()`` are
optional. Bots see a copy of the state. ``play_game``/``play_match`` run in C++ without the GIL;
each call into a Python bot takes it back, so Python bots work (at Python speed) and C++-only
matches run in parallel with other Python threads.
"""
from __future__ import annotations

from .._C import _rl

Game = _rl.Game
Bot = _rl.Bot
RandomBot = _rl.RandomBot
MinimaxBot = _rl.MinimaxBot
HumanBot = _rl.HumanBot
MatchResult = _rl.MatchResult

__all__ = ["Game", "make_game", "deserialize_game", "registered_games", "Bot", "RandomBot", "MinimaxBot",
           "HumanBot", "MatchResult", "play_game", "play_match", "register_game"]


def make_game(name: str) -> Game:
    """The initial state of a registered game ("tic_tac_toe", "connect_four"). Unknown names raise
    ValueError listing the registered ones."""
    return _rl.make_game(name)


def deserialize_game(name: str, text: str) -> Game:
    """The state reached by replaying ``text`` (a ``serialize()`` string: actions separated by
    spaces) from the initial state; a bad token or an illegal move raises ValueError naming it."""
    return _rl.deserialize_game(name, text)


def registered_games() -> list[str]:
    """The names ``make_game`` knows."""
    return list(_rl.registered_games())


def register_game(name: str, factory) -> None:
    """Registers a game written in Python: ``factory()`` returns its initial state, an object with

    - attributes ``num_players``, ``num_actions``, ``observation_shape`` (read once) and optionally
      ``min_return``, ``max_return`` (default -1 and 1);
    - methods ``current_player()`` (``Game.TERMINAL``, -4, when over), ``is_terminal()``,
      ``legal_actions()`` (ascending), ``returns()`` (one per player), ``apply_action(action)``
      (called with legal actions only), ``clone()`` (an independent copy), ``__str__`` and, for
      networks, ``observation()``; optionally ``action_to_string(action)``.

    ``make_game(name)`` then gives a ``Game`` that bots, matches and search play like the built-in
    ones (history, serialize and legality checks come from ``Game``), at Python's speed. A second
    registration of a name replaces the first.
    """
    if not callable(factory):
        raise TypeError(f"register_game: factory must be callable, got {type(factory).__name__}")
    _rl.register_python_game(name, factory)


def play_game(game: str, bots, start: Game | None = None, on_move=None) -> Game:
    """One game of ``game`` from ``start`` (the initial state when None); ``bots[p]`` plays player p.
    ``on_move(before, action, after)``, when given, sees every move (copies of the states; the text
    of the move is ``before.action_to_string(action)``). Returns the final state (``returns()``,
    ``history()``)."""
    return _rl.play_game(game, list(bots), start, on_move)


def play_match(game: str, bot0: Bot, bot1: Bot, games: int) -> MatchResult:
    """``games`` games with colours alternated (bot0 moves first in even games). The result counts
    wins, draws and losses from bot0's view, with every game's ``serialize()`` in ``histories``."""
    return _rl.play_match(game, bot0, bot1, games)
