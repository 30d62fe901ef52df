"""Validation: AlphaZero learns Connect Four within the run.

An agent is trained from scratch by self-play (examples/alphazero/connect_four.toml's settings),
then plays 200 games against MCTS with random rollouts (UCT, one random playout per leaf) at the
same number of simulations per move, colours alternated (100 games each as first and second player).
Checks (the issue's):
  * wins / games >= 0.8 (wins alone: a draw counts as not won);
  * the network's value of the empty board, from the first player's view, is > 0 (Connect Four is a
    first-player win with perfect play).
Prints `figure:` lines for the report. Budget: well under 30 minutes on two cores.
"""
import os
import sys
import time
import tomllib

import spire
import spire.rl

HERE = os.path.dirname(os.path.abspath(__file__))
JOB = os.path.join(HERE, "..", "..", "examples", "alphazero", "connect_four.toml")
GAMES = 200
MIN_WIN_RATE = 0.8


def main() -> int:
    with open(JOB, "rb") as f:
        config = tomllib.load(f)
    config["evaluation"]["every"] = 0  # the final match below is the evaluation
    config.pop("checkpoint", None)
    simulations = config["mcts"]["simulations"]

    t0 = time.perf_counter()
    az = spire.rl.AlphaZero(config)
    az.train(progress=lambda line: print(line, flush=True))
    train_s = time.perf_counter() - t0

    t1 = time.perf_counter()
    rung = az.evaluate(opponents=[simulations], games=GAMES, simulations=simulations)[0]
    eval_s = time.perf_counter() - t1
    wins, draws, losses = rung["wins"], rung["draws"], rung["losses"]
    assert wins + draws + losses == GAMES
    # Per colour (the agent moves first in even-numbered games).
    first = second = 0
    for g, moves in enumerate(rung["histories"]):
        end = spire.rl.deserialize_game("connect_four", moves)
        r = end.returns()
        won = r[g % 2] > r[1 - g % 2]
        if g % 2 == 0:
            first += won
        else:
            second += won
    value = az.value(spire.rl.make_game("connect_four"))
    win_rate = wins / GAMES

    print(f"figure: alphazero connect_four training, {config['train']['iterations']} iterations of "
          f"{config['selfplay']['games_per_iteration']} self-play games at {simulations} simulations: "
          f"{train_s:.0f} s")
    print(f"figure: alphazero vs mcts (random rollouts), {simulations} simulations each, {GAMES} games: "
          f"{wins} wins, {draws} draws, {losses} losses (as first player {first}/{GAMES // 2} won, "
          f"as second {second}/{GAMES // 2}); evaluation {eval_s:.0f} s")
    print(f"figure: alphazero win rate vs mcts at equal simulations = {win_rate:.3f} (required >= {MIN_WIN_RATE})")
    print(f"figure: alphazero value of the empty connect_four board (first player's view) = {value:.4f} "
          f"(required > 0)")
    ok = True
    if win_rate < MIN_WIN_RATE:
        print(f"FAILED: win rate {win_rate:.3f} < {MIN_WIN_RATE}")
        ok = False
    if not value > 0:
        print(f"FAILED: the value of the empty board {value:.4f} does not favour the first player")
        ok = False
    print("alphazero_connect_four:", "PASSED" if ok else "FAILED", f"in {time.perf_counter() - t0:.0f} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
