"""spire.rl games against OpenSpiel (pyspiel, the reference, from PyPI), and the bots and matches.

Random games are played in both implementations with the same actions; after every move the legal
actions, the player to move, terminality, returns and OpenSpiel's board text must agree.
"""
import copy
import io
import pickle
import threading
import time

import numpy as np
import pyspiel
import pytest

import spire.rl as rl

GAMES = ["tic_tac_toe", "connect_four"]


@pytest.mark.parametrize("name", GAMES)
def test_random_games_match_openspiel(name):
    rng = np.random.default_rng(0)
    reference_game = pyspiel.load_game(name)
    outcomes = set()
    for _ in range(300):
        ours, ref = rl.make_game(name), reference_game.new_initial_state()
        while True:
            assert ours.legal_actions() == ref.legal_actions()
            assert ours.current_player() == ref.current_player()
            assert ours.is_terminal() == ref.is_terminal()
            assert ours.returns() == ref.returns()
            assert str(ours) == str(ref)
            np.testing.assert_array_equal(ours.legal_mask(), np.array(ref.legal_actions_mask(), bool)
                                          if not ref.is_terminal() else np.zeros(ours.num_actions, bool))
            if ref.is_terminal():
                break
            action = int(rng.choice(ref.legal_actions()))
            assert ours.action_to_string(action) == ref.action_to_string(ref.current_player(), action)
            ours.apply_action(action)
            ref.apply_action(action)
        outcomes.add(tuple(ref.returns()))
        assert ours.history() == ref.history()
    assert {(1.0, -1.0), (-1.0, 1.0)} <= outcomes  # both players won some games


def test_game_properties_and_observation():
    g = rl.make_game("connect_four")
    ref = pyspiel.load_game("connect_four")
    assert (g.name, g.num_players, g.num_actions) == ("connect_four", ref.num_players(), ref.num_distinct_actions())
    assert g.observation_shape == tuple(ref.observation_tensor_shape())
    for a in [3, 4, 3]:
        g.apply_action(a)
    obs = g.observation()
    assert obs.dtype == np.float32 and obs.shape == (3, 6, 7)
    # o to move: plane 0 is o's pieces, plane 1 x's, plane 2 the empty cells (row 0 at the bottom).
    assert obs[0].sum() == 1 and obs[0, 0, 4] == 1
    assert obs[1].sum() == 2 and obs[1, 0, 3] == obs[1, 1, 3] == 1
    np.testing.assert_array_equal(obs.sum(axis=0), np.ones((6, 7)))
    t = rl.make_game("tic_tac_toe")
    assert t.observation_shape == (3, 3, 3) and t.observation()[2].sum() == 9


def test_copies_are_independent_and_round_trip():
    g = rl.deserialize_game("tic_tac_toe", "4 0 8")
    assert g.serialize() == "4 0 8" and g.history() == [4, 0, 8]
    for other in (g.clone(), copy.copy(g), copy.deepcopy(g), pickle.loads(pickle.dumps(g))):
        assert str(other) == str(g) and other.history() == g.history()
        other.apply_action(1)
        assert g.history() == [4, 0, 8]
    assert "tic_tac_toe" in repr(g) and "4 0 8" in repr(g)
    assert set(rl.registered_games()) >= {"tic_tac_toe", "connect_four"}
    g.apply_action(np.int64(2))  # NumPy ints are actions too
    assert g.is_legal(1) and not g.is_legal(2) and not g.is_legal(99)


def test_errors_name_what_is_allowed():
    g = rl.make_game("tic_tac_toe")
    g.apply_action(4)
    with pytest.raises(ValueError, match=r"action 4 is illegal.*0, 1, 2, 3, 5, 6, 7, 8"):
        g.apply_action(4)
    with pytest.raises(ValueError, match="action 9"):
        g.apply_action(9)
    with pytest.raises(TypeError, match="int"):
        g.apply_action(1.0)
    with pytest.raises(ValueError, match="unknown game 'chess'.*connect_four"):
        rl.make_game("chess")
    with pytest.raises(ValueError, match="move 1 is 'b'"):
        rl.deserialize_game("connect_four", "3 b")
    with pytest.raises(ValueError, match="move 6.*illegal"):
        rl.deserialize_game("connect_four", "3 3 3 3 3 3 3")


def test_minimax_against_random_and_itself():
    result = rl.play_match("tic_tac_toe", rl.MinimaxBot(seed=0), rl.RandomBot(seed=1), 200)
    assert (result.games, result.losses) == (200, 0)
    assert result.wins + result.draws == 200 and len(result.histories) == 200
    assert result.score == pytest.approx((result.wins + 0.5 * result.draws) / 200)
    assert rl.play_match("tic_tac_toe", rl.MinimaxBot(2), rl.MinimaxBot(3), 20).draws == 20
    bot = rl.MinimaxBot(0)
    assert bot.value(rl.make_game("tic_tac_toe"), 0) == 0
    assert bot.best_actions(rl.deserialize_game("tic_tac_toe", "0 4 1")) == [2]
    # Same seeds, same games.
    again = rl.play_match("tic_tac_toe", rl.MinimaxBot(seed=0), rl.RandomBot(seed=1), 200)
    assert again.histories == result.histories


class LowestBot(rl.Bot):
    """Plays the lowest legal action and records what it hears."""

    def __init__(self):
        super().__init__()
        self.heard, self.restarts = [], 0

    def step(self, state):
        return state.legal_actions()[0]

    def inform_action(self, state, player, action):
        self.heard.append((state.move_number(), player, action))

    def restart(self):
        self.restarts += 1


def test_a_python_bot_plays_in_matches():
    mine = LowestBot()
    result = rl.play_match("connect_four", mine, rl.RandomBot(seed=4), 6)
    assert result.games == 6 and mine.restarts == 6
    assert mine.name() == "LowestBot"
    # Every move of the last game, heard in order, with its player.
    last = rl.deserialize_game("connect_four", result.histories[-1])
    tail = mine.heard[-last.move_number():]
    assert [a for _, _, a in tail] == last.history()
    assert [p for _, p, _ in tail] == [i % 2 for i in range(last.move_number())]
    # In even games the Python bot moved first: its moves are the lowest legal columns.
    first = rl.deserialize_game("connect_four", "")
    for i, a in enumerate(result.histories[0].split()):
        if i % 2 == 0:
            assert int(a) == first.legal_actions()[0]
        first.apply_action(int(a))
    end = rl.play_game("tic_tac_toe", [LowestBot(), LowestBot()])
    assert end.serialize() == "0 1 2 3 4 5 6"  # x completes the diagonal 2-4-6
    assert end.returns() == [1.0, -1.0]


def test_bot_errors_reach_python():
    class Bad(rl.Bot):
        def step(self, state):
            return 99

    class Broken(rl.Bot):
        def step(self, state):
            raise RuntimeError("broken bot")

    with pytest.raises(ValueError, match="Bad.*illegal"):
        rl.play_game("tic_tac_toe", [Bad(), rl.RandomBot(0)])
    with pytest.raises(RuntimeError, match="broken bot"):
        rl.play_match("tic_tac_toe", Broken(), rl.RandomBot(0), 2)
    with pytest.raises(ValueError, match="2 bots"):
        rl.play_game("tic_tac_toe", [rl.RandomBot(0)])


def test_play_game_from_a_start_state():
    start = rl.deserialize_game("tic_tac_toe", "0 3 1 4")
    end = rl.play_game("tic_tac_toe", [rl.MinimaxBot(0), rl.RandomBot(0)], start=start)
    assert end.serialize() == "0 3 1 4 2" and start.move_number() == 4


def test_play_game_shows_every_move():
    moves = []

    def on_move(before, action, after):
        assert after.serialize() == (before.serialize() + " " + str(action)).strip()
        moves.append(before.action_to_string(action))

    end = rl.play_game("connect_four", [rl.RandomBot(1), rl.RandomBot(2)], on_move=on_move)
    assert moves == [("x" if i % 2 == 0 else "o") + str(a) for i, a in enumerate(end.history())]


def test_human_bot_reads_and_asks_again():
    state = rl.deserialize_game("tic_tac_toe", "4")
    out = io.StringIO()
    human = rl.HumanBot(input=io.StringIO("nine\n4\n8\n"), output=out)
    assert human.step(state) == 8
    text = out.getvalue()
    assert "...\n.x.\n..." in text and "'nine' is not a legal move" in text and "'4' is not" in text
    with pytest.raises(ValueError, match="input ended"):
        rl.HumanBot(input=io.StringIO(""), output=io.StringIO()).step(state)


def test_match_releases_the_gil():
    # While a C++-only match runs in another thread, this thread keeps running: no pause between
    # its iterations comes near the match's length (holding the GIL would stall it throughout).
    def match():
        rl.play_match("connect_four", rl.RandomBot(0), rl.RandomBot(1), 150_000)

    start = time.perf_counter()
    match()
    length = time.perf_counter() - start
    assert length > 0.05
    stamps = []
    worker = threading.Thread(target=match)
    worker.start()
    while worker.is_alive():
        stamps.append(time.perf_counter())
    worker.join()
    assert len(stamps) > 2 and np.diff(stamps).max() < length / 2


class Nim:
    """One pile; take 1 or 2 (actions 0 and 1); whoever takes the last wins."""

    num_players, num_actions, observation_shape = 2, 2, (1,)

    def __init__(self, pile=7):
        self.pile, self.moves = pile, 0

    def current_player(self):
        return rl.Game.TERMINAL if self.pile == 0 else self.moves % 2

    def is_terminal(self):
        return self.pile == 0

    def legal_actions(self):
        return [] if self.pile == 0 else [0, 1] if self.pile >= 2 else [0]

    def returns(self):
        if self.pile:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.moves % 2 == 1 else [-1.0, 1.0]

    def apply_action(self, action):
        self.pile -= action + 1
        self.moves += 1

    def clone(self):
        other = Nim(self.pile)
        other.moves = self.moves
        return other

    def observation(self):
        return [self.pile]

    def __str__(self):
        return f"pile {self.pile}"


def test_a_python_game_plays_with_the_cpp_bots():
    rl.register_game("test_py_nim", Nim)
    assert "test_py_nim" in rl.registered_games()
    g = rl.make_game("test_py_nim")
    assert (g.name, g.num_players, g.num_actions, g.observation_shape) == ("test_py_nim", 2, 2, (1,))
    g.apply_action(1)
    assert str(g) == "pile 5" and g.history() == [1] and g.current_player() == 1
    c = g.clone()
    c.apply_action(0)
    assert str(g) == "pile 5" and str(c) == "pile 4" and c.history() == [1, 0]
    assert g.observation().tolist() == [5.0]
    with pytest.raises(ValueError, match="action 5 is illegal.*0, 1"):
        g.apply_action(5)
    # Multiples of 3 lose for the player to move: from 7, take 1.
    bot = rl.MinimaxBot(0)
    start = rl.make_game("test_py_nim")
    assert bot.value(start, 0) == 1 and bot.best_actions(start) == [0]
    result = rl.play_match("test_py_nim", rl.MinimaxBot(1), rl.RandomBot(2), 20)
    assert result.losses == 0
    for history in result.histories[::2]:  # it wins every game it starts
        assert rl.deserialize_game("test_py_nim", history).returns() == [1.0, -1.0]
    assert rl.deserialize_game("test_py_nim", "0 0 0").serialize() == "0 0 0"
    with pytest.raises(TypeError, match="callable"):
        rl.register_game("bad", 3)
    rl.register_game("test_py_broken", lambda: object())
    with pytest.raises(ValueError, match="has no 'current_player'"):
        rl.make_game("test_py_broken")
