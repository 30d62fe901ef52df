"""spire.rl.AlphaZero and NetworkEvaluator: the bindings against independent computations (NumPy
softmax of the network's own logits, the job-file parser's errors, a save/load round trip that must
continue bit for bit), and `spire rl` from the command line."""
import subprocess

import numpy as np
import pytest

import spire
import spire.rl
from spire.rl import AlphaZero, NetworkEvaluator, PolicyValueNet


def tiny(seed=3, **over):
    c = {
        "seed": seed,
        "game": {"name": "tic_tac_toe"},
        "network": {"blocks": 1, "channels": 8, "value_hidden": 16},
        "mcts": {"simulations": 10},
        "selfplay": {"games": 6, "games_per_iteration": 6, "temperature_moves": 2},
        "train": {"iterations": 2, "steps_per_iteration": 5, "batch_size": 16, "lr": 0.003,
                  "buffer_capacity": 400},
        "evaluation": {"every": 0, "games": 2, "opponents": [4]},
    }
    for k, v in over.items():
        c.setdefault(k, {}).update(v)
    return c


def test_network_evaluator_is_a_softmax_of_the_logits_over_legal_moves():
    net = PolicyValueNet("connect_four", blocks=1, channels=8, value_hidden=8, seed=1)
    ev = NetworkEvaluator(net)
    assert ev.network is net
    g = spire.rl.make_game("connect_four")
    for a in [3, 3, 3, 3, 3, 3, 0]:  # column 3 full: illegal
        g.apply_action(a)
    net.eval()
    with spire.no_grad():
        logits, value = net(spire.tensor(g.observation()[None]))
    logits = logits.numpy()[0].astype(np.float64)
    assert logits.shape == (7,) and value.shape == (1,)
    legal = g.legal_mask()
    e = np.where(legal, np.exp(logits - logits[legal].max()), 0.0)
    expected = e / e.sum()
    priors, values = ev.evaluate_states([g, spire.rl.make_game("connect_four")])
    assert priors.shape == (2, 7) and values.shape == (2,)
    np.testing.assert_allclose(priors[0], expected, atol=1e-6)
    assert priors[0][3] == 0
    np.testing.assert_allclose(values[0], value.numpy()[0], atol=1e-6)
    assert abs(value.numpy()[0]) <= 1


def test_search_with_the_network_evaluator_equals_search_with_the_same_net_in_python():
    net = PolicyValueNet("tic_tac_toe", blocks=1, channels=8, value_hidden=8, seed=2)
    net.eval()

    def by_hand(obs, legal):  # the network's forward from Python, the softmax in NumPy
        with spire.no_grad():
            logits, value = net(spire.tensor(obs))
        z = np.where(legal, logits.numpy().astype(np.float64), -np.inf)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        return (p / p.sum(axis=1, keepdims=True)).astype(np.float32), value.numpy()

    games = [spire.rl.make_game("tic_tac_toe") for _ in range(3)]
    games[1].apply_action(4)
    games[2].apply_action(0)
    games[2].apply_action(8)
    a = spire.rl.MCTS(simulations=30, selection="puct", evaluator=NetworkEvaluator(net), seed=5).search(games)
    b = spire.rl.MCTS(simulations=30, selection="puct", evaluator=by_hand, seed=5).search(games)
    for x, y in zip(a, b):
        assert x.action == y.action
        np.testing.assert_array_equal(x.visits, y.visits)
        assert abs(x.value - y.value) < 1e-5


def test_train_callback_history_and_value_range():
    az = AlphaZero(tiny())
    seen = []
    logs = az.train(callback=lambda it, logs: seen.append((it, logs["loss"])))
    assert [it for it, _ in seen] == [0, 1] and len(logs) == 2 and az.iterations_done == 2
    assert all(np.isfinite(loss) for _, loss in seen)
    assert logs[0]["games"] == 6
    # A callback returning False stops after that iteration.
    az.train(iterations=3, callback=lambda it, logs: False)
    assert az.iterations_done == 3
    v = az.value(spire.rl.make_game("tic_tac_toe"))
    assert -1 <= v <= 1
    assert isinstance(az.network, spire.nn.Module)
    assert az.config["mcts"]["simulations"] == 10 and az.config["train"]["batch_size"] == 16


def test_save_load_continues_bit_for_bit(tmp_path):
    whole = AlphaZero(tiny(train={"iterations": 3}))
    whole.train(history=tmp_path / "history.h5")
    import h5py
    with h5py.File(tmp_path / "history.h5") as f:
        np.testing.assert_array_equal(f["epoch"][:], [0, 1, 2])
        np.testing.assert_array_equal(f["loss"][:], [h["loss"] for h in whole.history])
    part = AlphaZero(tiny(train={"iterations": 3}))
    part.train(iterations=2)
    part.save(tmp_path / "run.h5")
    resumed = AlphaZero.load(tmp_path / "run.h5")
    assert resumed.iterations_done == 2
    resumed.train()
    for (k, a), (k2, b) in zip(whole.network.state_dict().items(), resumed.network.state_dict().items()):
        assert k == k2
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert whole.history[-1]["loss"] == resumed.history[-1]["loss"]
    config, net = spire.rl.load_network(tmp_path / "run.h5")
    assert config["game"]["name"] == "tic_tac_toe"


def test_bot_plays_matches_and_the_ladder_counts_every_game():
    az = AlphaZero(tiny())
    result = spire.rl.play_match("tic_tac_toe", az.bot(simulations=8), spire.rl.RandomBot(seed=0), 4)
    assert result.wins + result.draws + result.losses == 4
    ladder = az.evaluate(opponents=[2, 4], games=4)
    assert [r["opponent_simulations"] for r in ladder] == [2, 4]
    for r in ladder:
        assert r["wins"] + r["draws"] + r["losses"] == 4 and len(r["histories"]) == 4


@pytest.mark.parametrize("over, words", [
    ({"mcts": {"simulations": 0}}, ["mcts.simulations", ">= 1"]),
    ({"mcts": {"selection": "ucb"}}, ["mcts.selection", "puct, gumbel"]),
    ({"train": {"learning_rate": 0.1}}, ["unknown key learning_rate", "[train]", "lr"]),
    ({"game": {"name": "go"}}, ["game.name", "connect_four", "tic_tac_toe"]),
])
def test_config_errors_name_the_key(over, words):
    with pytest.raises(spire.ConfigError) as e:
        AlphaZero(tiny(**over))
    for w in words:
        assert w in str(e.value)


def test_cli_train_resume_and_play(tmp_path, spire_cli):
    job = tmp_path / "job.toml"
    text = ('algorithm = "alphazero"\nseed = 1\n[game]\nname = "tic_tac_toe"\n[network]\nblocks = 1\nchannels = 8\n'
            '[mcts]\nsimulations = 8\n[selfplay]\ngames = 4\ngames_per_iteration = 4\n'
            '[train]\niterations = 1\nsteps_per_iteration = 2\nbatch_size = 8\n')
    job.write_text(text)
    cli = spire_cli
    out = tmp_path / "run"
    r = subprocess.run([cli, "rl", "train", str(job), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "iteration 1:" in r.stdout and (out / "checkpoint.h5").exists() and (out / "history.csv").exists()
    # A second run into the same folder must ask for --resume; with it, training goes on.
    r = subprocess.run([cli, "rl", "train", str(job), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode != 0 and "--resume" in r.stderr
    job.write_text(text.replace("iterations = 1", "iterations = 2"))
    r = subprocess.run([cli, "rl", "train", str(job), "-o", str(out), "--resume"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "iteration 2:" in r.stdout and "iteration 1:" not in r.stdout
    assert len((out / "history.csv").read_text().strip().splitlines()) == 3  # header + 2 iterations
    ckpt = out / "checkpoint.h5"
    r = subprocess.run([cli, "rl", "play", "--game", "tic_tac_toe", "--players", f"alphazero:{ckpt}:8", "random",
                        "--games", "2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("result:") == 2 and "wins" in r.stdout
    r = subprocess.run([cli, "rl", "play", "--game", "tic_tac_toe", "--players", "alpha", "random"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and "unknown player 'alpha'" in r.stderr and "minimax[:depth]" in r.stderr
    r = subprocess.run([cli, "rl", "train", str(job).replace("job", "nojob")], capture_output=True, text=True)
    assert r.returncode != 0
