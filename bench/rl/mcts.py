"""MCTS simulations per second: spire's MCTS (one tree through MCTSBot, and B = 16 / 64 trees
searched together) against OpenSpiel's MCTSBot in C++ (pyspiel.MCTSBot) and in Python
(open_spiel.python.algorithms.mcts.MCTSBot), on tic-tac-toe and Connect Four. Prints a markdown
table.

    PYTHONPATH=<dir with spire> python3 bench/rl/mcts.py [--reps 5] [--sims 1000,100] [--threads 0]

Same settings everywhere: UCT with c = 2, one uniformly random rollout per leaf, the solver on
(OpenSpiel's default), the same simulations per move, full games from the initial state with the
search playing both sides, a fresh tree for every move (OpenSpiel keeps none; spire's subtree
reuse is off here). A simulation is one that ran: a solved root stops early in both, so the
figures count root visits (OpenSpiel's explore_count, spire's SearchResult.simulations), not
simulations * moves. Each figure is the median of --reps runs; a run builds its bot (not timed)
and plays games with it for about --seconds, restarting it between games as play_match does. The
batched rows play B games at once (a finished game restarts in its slot), on --threads threads
(0: the engine's default).
"""
import argparse
import datetime
import os
import platform
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as os_mcts

import spire.rl as rl

UCT_C = 2.0


class SpireBot:
    """spire's MCTSBot playing both sides, restarted between games (as play_match does)."""

    def __init__(self, game, sims, seed):
        self.game = game
        self.bot = rl.MCTSBot(simulations=sims, selection="uct", c_uct=UCT_C, solver=True, reuse=False, seed=seed)

    def play(self):
        """One game; returns the simulations run."""
        self.bot.restart()
        state = rl.make_game(self.game)
        total = 0
        while not state.is_terminal():
            action = self.bot.step(state)
            total += self.bot.last_result.simulations
            self.bot.inform_action(state, state.current_player(), action)
            state.apply_action(action)
        return total


class SpireBatch:
    """B games searched together; a finished game restarts in its slot."""

    def __init__(self, game, sims, batch, seed, threads):
        self.game = game
        self.mcts = rl.MCTS(simulations=sims, selection="uct", c_uct=UCT_C, solver=True, reuse=False, seed=seed,
                            threads=threads)
        self.games = [rl.make_game(game) for _ in range(batch)]

    def play(self):
        """One search step of every game; returns the simulations run."""
        total = 0
        for b, r in enumerate(self.mcts.search(self.games)):
            total += r.simulations
            self.games[b].apply_action(r.action)
            if self.games[b].is_terminal():
                self.games[b] = rl.make_game(self.game)
        return total


class OpenSpielCpp:
    """pyspiel.MCTSBot (C++), one bot for every game (it keeps no tree between searches)."""

    def __init__(self, game, sims, seed):
        self.game = pyspiel.load_game(game)
        self.bot = pyspiel.MCTSBot(self.game, pyspiel.RandomRolloutEvaluator(1, seed), UCT_C, sims, 1000, True, seed,
                                   False)

    def play(self):
        state = self.game.new_initial_state()
        total = 0
        while not state.is_terminal():
            root = self.bot.mcts_search(state)
            total += root.explore_count
            state.apply_action(root.best_child().action)
        return total


class OpenSpielPython(OpenSpielCpp):
    """open_spiel.python.algorithms.mcts.MCTSBot, one bot for every game."""

    def __init__(self, game, sims, seed):
        self.game = pyspiel.load_game(game)
        rs = np.random.RandomState(seed)
        self.bot = os_mcts.MCTSBot(self.game, UCT_C, sims, os_mcts.RandomRolloutEvaluator(1, rs), solve=True,
                                   random_state=rs)


def rate(make, reps, seconds):
    """Median over reps of simulations per second; a rep makes a player with make(seed) and calls its
    play() for about `seconds` (construction not timed)."""
    rates = []
    for seed in range(reps):
        player = make(seed)
        sims, t0 = 0, time.perf_counter()
        while True:
            sims += player.play()
            elapsed = time.perf_counter() - t0
            if elapsed >= seconds:
                break
        rates.append(sims / elapsed)
    return statistics.median(rates)


def fmt(x):
    return f"{x / 1e3:,.0f}k" if x >= 1e4 else f"{x / 1e3:,.1f}k"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--sims", default="1000,100")
    p.add_argument("--games", default="tic_tac_toe,connect_four")
    p.add_argument("--seconds", type=float, default=0.5, help="minimum length of one run")
    p.add_argument("--threads", type=int, default=0, help="threads of the batched searches (0: default)")
    p.add_argument("--python-seconds", type=float, default=0.5, help="run length for OpenSpiel's Python bot")
    args = p.parse_args()

    print(f"MCTS simulations/s, {datetime.date.today()}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} CPUs; UCT c={UCT_C}, 1 random rollout, solver on, no tree reuse; "
          f"median of {args.reps} runs")
    print(f"Reproduce: PYTHONPATH=<dir with spire> python3 bench/rl/mcts.py --reps {args.reps} --sims {args.sims} "
          f"--threads {args.threads}")
    print()
    print("| game | sims/move | spire B=1 (MCTSBot) | spire B=16 | spire B=64 | OpenSpiel C++ | OpenSpiel Python "
          "| B=1 / C++ | B=64 / C++ |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for game in args.games.split(","):
        for sims in (int(s) for s in args.sims.split(",")):
            one = rate(lambda s: SpireBot(game, sims, s), args.reps, args.seconds)
            b16 = rate(lambda s: SpireBatch(game, sims, 16, s, args.threads), args.reps, args.seconds)
            b64 = rate(lambda s: SpireBatch(game, sims, 64, s, args.threads), args.reps, args.seconds)
            cpp = rate(lambda s: OpenSpielCpp(game, sims, s), args.reps, args.seconds)
            py = rate(lambda s: OpenSpielPython(game, sims, s), args.reps, args.python_seconds)
            print(f"| {game} | {sims} | {fmt(one)} | {fmt(b16)} | {fmt(b64)} | {fmt(cpp)} | {fmt(py)} "
                  f"| {one / cpp:.2f}x | {b64 / cpp:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
