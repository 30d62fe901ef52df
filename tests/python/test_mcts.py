"""spire.rl.MCTS from Python: the built-in random-rollout evaluator against OpenSpiel's solver on
its test positions, Python callables as the evaluator (checked against a negamax written here),
separate prior=/value= callables, MCTSBot in matches, reuse, reproducibility and errors."""
import functools

import numpy as np
import pyspiel
import pytest

import spire.rl as rl


def ttt(*moves):
    g = rl.make_game("tic_tac_toe")
    for a in moves:
        g.apply_action(a)
    return g


LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


@functools.lru_cache(maxsize=None)
def negamax(mine: int, theirs: int) -> int:
    """The value of a tic-tac-toe position for the player to move (bitmasks of the cells)."""
    if any(all(theirs >> c & 1 for c in line) for line in LINES):
        return -1
    empty = [c for c in range(9) if not (mine | theirs) >> c & 1]
    if not empty:
        return 0
    return max(-negamax(theirs, mine | 1 << c) for c in empty)


def exact_values(obs):
    """Values from the observation planes (mover's pieces, opponent's pieces)."""
    out = np.empty(len(obs), np.float32)
    for i, o in enumerate(obs):
        mine = sum(1 << c for c in range(9) if o[0].flat[c])
        theirs = sum(1 << c for c in range(9) if o[1].flat[c])
        out[i] = negamax(mine, theirs)
    return out


def openspiel_outcome(moves):
    """OpenSpiel's solved value of the position for the player to move (its C++ MCTSBot)."""
    game = pyspiel.load_game("tic_tac_toe")
    state = game.new_initial_state()
    for a in moves:
        state.apply_action(a)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(20, 1), 2 ** 0.5, 10000, 1000, True, 42, False)
    root = bot.mcts_search(state)
    return root.outcome[state.current_player()], root.best_child().action


@pytest.mark.parametrize("moves", [(4, 0, 8), (4, 0, 8, 1, 2), (1, 8)])
def test_random_rollout_solves_openspiels_positions(moves):
    mcts = rl.MCTS(simulations=10000, selection="uct", evaluator="random_rollout",
                   evaluator_options={"rollouts": 20}, c_uct=2 ** 0.5, solver=True, seed=42)
    [r] = mcts.search([ttt(*moves)])
    outcome, action = openspiel_outcome(moves)
    assert r.proven == outcome
    assert r.simulations < 10000
    if outcome == 1:  # the winning move is the only one
        assert r.action == action == 2
    if outcome == 0:
        assert r.action in (2, 6)


def test_python_evaluator_sees_every_tree_and_plays_exactly():
    calls = []

    def evaluator(obs, legal):
        assert obs.dtype == np.float32 and obs.shape[1:] == (3, 3, 3)
        assert legal.dtype == np.bool_ and legal.shape == (len(obs), 9)
        calls.append(len(obs))
        return legal.astype(np.float32), exact_values(obs)

    positions = [ttt(8, 6, 0), ttt(2), ttt(0, 4, 8)]
    mcts = rl.MCTS(simulations=32, selection="gumbel", evaluator=evaluator, gumbel_scale=0.0, seed=3)
    results = mcts.search(positions)
    assert len(calls) == 33 and max(calls) == 3  # the roots, then one call per simulation step
    for g, r in zip(positions, results):
        mover_value = negamax(*[sum(1 << c for c in range(9) if o.flat[c]) for o in g.observation()[:2]])
        child = g.clone()
        child.apply_action(r.action)
        assert -negamax(*[sum(1 << c for c in range(9) if o.flat[c]) for o in child.observation()[:2]]) == mover_value
        assert r.policy.sum() == pytest.approx(1.0, abs=1e-5)
        assert np.all(r.policy[~g.legal_mask()] == 0)


def test_separate_prior_and_value_callables():
    g = rl.make_game("tic_tac_toe")
    # A constant zero value and no terminal state within reach: every mean is exactly zero.
    mcts = rl.MCTS(simulations=20, selection="puct", value=lambda obs, legal: np.zeros(len(obs)), seed=0)
    [r] = mcts.search([g])
    assert r.value == 0 and np.all(r.q[r.visits > 0] == 0)
    assert r.visits.sum() == 20
    # A prior on one move only: PUCT spends the search there.
    def prior(obs, legal):
        p = np.zeros(legal.shape, np.float32)
        p[:, 7] = 1
        return p * legal + 1e-3 * legal
    mcts = rl.MCTS(simulations=50, selection="puct", prior=prior, value=lambda o, l: np.zeros(len(o)), seed=0)
    [r] = mcts.search([g])
    assert r.action == 7 and r.visits[7] > 40
    # prior= alone: values come from random rollouts (nonzero means appear).
    mcts = rl.MCTS(simulations=200, selection="puct", prior=lambda o, l: l.astype(np.float32), seed=0)
    [r] = mcts.search([g])
    assert np.any(r.q[r.visits > 0] != 0)


def test_mctsbot_in_matches():
    bot = rl.MCTSBot(simulations=1000, solver=True, seed=0)
    m = rl.play_match("tic_tac_toe", bot, rl.RandomBot(seed=1), 60)
    assert m.losses == 0 and m.wins > 40
    m = rl.play_match("tic_tac_toe", bot, rl.MinimaxBot(seed=2), 10)
    assert m.draws == 10
    # The last search was at a solved root (a reused, proven subtree): no simulation needed.
    assert bot.last_result.proven is not None and bot.last_result.simulations == 0


def test_reuse_keeps_the_subtree_and_seeds_reproduce():
    g = rl.make_game("connect_four")
    mcts = rl.MCTS(simulations=300, selection="uct", solver=True, seed=5)
    [r] = mcts.search([g])
    kept = int(r.visits[r.action])
    mcts.advance(0, r.action)
    assert mcts.root_visits(0) == kept
    g.apply_action(r.action)
    [r2] = mcts.search([g])
    assert mcts.root_visits(0) == kept + 300
    again = rl.MCTS(simulations=300, selection="uct", solver=True, seed=5)
    [s] = again.search([rl.make_game("connect_four")])
    assert s.action == r.action and np.array_equal(s.visits, r.visits)
    threaded = rl.MCTS(simulations=50, selection="puct", seed=1, threads=2)
    single = rl.MCTS(simulations=50, selection="puct", seed=1, threads=1)
    games = [rl.make_game("connect_four") for _ in range(8)]
    for a, b in zip(threaded.search(games), single.search(games)):
        assert np.array_equal(a.visits, b.visits) and a.value == b.value
    # A Python evaluator (batched steps, the trees' selection spread over threads) likewise.
    def evaluator(obs, legal):
        return legal * (1.0 + obs[:, 0].sum(axis=(1, 2))[:, None]), obs[:, 1].mean(axis=(1, 2)) - 0.1
    results = [rl.MCTS(simulations=40, evaluator=evaluator, dirichlet_alpha=0.3, seed=2, threads=t).search(games)
               for t in (1, 2)]
    for a, b in zip(*results):
        assert np.array_equal(a.visits, b.visits) and a.value == b.value


def test_errors_name_what_is_allowed():
    with pytest.raises(TypeError, match="unknown keyword 'c_put'"):
        rl.MCTS(c_put=1.0)
    with pytest.raises(ValueError, match="registered selection rules: .*uct"):
        rl.MCTS(selection="ucb")
    with pytest.raises(ValueError, match="random_rollout"):
        rl.MCTS(evaluator="rollouts")
    with pytest.raises(ValueError, match="allowed: rollouts"):
        rl.MCTS(evaluator_options={"n": 2})
    with pytest.raises(ValueError, match=r"priors of shape \(1, 9\)"):
        rl.MCTS(evaluator=lambda o, l: (np.zeros(3), np.zeros(1))).search([rl.make_game("tic_tac_toe")])
    with pytest.raises(ValueError, match="is over"):
        rl.MCTS().search([ttt(0, 3, 1, 4, 2)])
    assert {"uct", "puct", "gumbel"} <= set(rl.registered_selections())
    assert "random_rollout" in rl.registered_evaluators()
