"""spire.rl.PPO / A2C / DQN / Agent and `spire rl train` for the algorithms written as fragments:
runs against their own definitions (the history's step counts, the evaluation against episodes
played here with the agent's own predict), the job file's errors, save and resume, and a run
stopped by SIGINT that ends cleanly with its files written."""
import os
import shutil
import signal
import subprocess
import sys

import h5py
import numpy as np
import pytest

import spire
import spire.rl


def test_registries_list_the_algorithms_and_policies():
    assert {"ppo", "a2c", "dqn"} <= set(spire.rl.algorithms())
    assert set(spire.rl.policies()) == {"single_process", "multi_actor_single_learner",
                                        "async_multi_actor_single_learner", "single_actor_learner_multi_env"}


def test_ppo_trains_and_its_evaluation_matches_episodes_played_here():
    agent = spire.rl.PPO("CartPole-v1", seed=1, total_steps=2048, envs_per_actor=4, n_steps=64, batch_size=64,
                         n_epochs=2, eval_episodes=4, eval_envs=2, learner_threads=1)
    seen = []
    summary = agent.train(callback=lambda update, logs: seen.append(logs["env_steps"]) or True)
    assert summary["stop_reason"] == "budget" and summary["env_steps"] == 2048 and summary["updates"] == 8
    assert seen == [256.0 * (i + 1) for i in range(8)]
    assert [h["env_steps"] for h in agent.history] == seen
    assert {"loss", "entropy", "episode_return", "eval_return", "fps"} <= set(agent.history[0])
    # The evaluator against episodes played here, each environment seeded as it seeds them.
    ev = agent.evaluate(episodes=2, envs=2, seed=7)
    mine = []
    for i in range(2):
        env = spire.rl.make("CartPole-v1")
        obs, _ = env.reset(seed=7 + i)
        total, done = 0.0, False
        while not done:
            obs, r, term, trunc, _ = env.step(int(agent.predict(obs)))
            total += r
            done = term or trunc
        mine.append(total)
    assert sorted(ev["returns"]) == sorted(mine)
    assert agent.predict(np.zeros((3, 4), np.float32)).shape == (3,)


def test_a_callback_stops_and_save_resume_continues(tmp_path):
    job = {"algorithm": "a2c", "seed": 2, "env": {"id": "CartPole-v1", "envs_per_actor": 2},
           "run": {"total_steps": 400}, "evaluation": {"episodes": 0}, "a2c": {"n_steps": 5}}
    agent = spire.rl.Agent(job)
    s = agent.train(callback=lambda update, logs: update < 9)
    assert s["stop_reason"] == "callback" and s["updates"] == 10 and s["env_steps"] == 100
    agent.save(tmp_path / "a.h5")
    again = spire.rl.Agent(job)
    again.resume(tmp_path / "a.h5")
    assert again.env_steps == 100 and again.updates == 10
    loaded = spire.rl.Agent.load(tmp_path / "a.h5")  # the job comes from the checkpoint
    assert loaded.algorithm == "a2c" and loaded.env_steps == 100
    obs = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_array_equal(again.predict(obs), agent.predict(obs))
    np.testing.assert_array_equal(loaded.predict(obs), agent.predict(obs))
    s = again.train()
    assert s["stop_reason"] == "budget" and s["env_steps"] == 400 and s["updates"] == 40


@pytest.mark.parametrize("job, words", [
    ({"algorithm": "sarsa"}, ["algorithm", "sarsa", "ppo", "dqn"]),
    ({"algorithm": "ppo", "policy": "everywhere"}, ["policy", "everywhere", "single_process"]),
    ({"algorithm": "ppo", "env": {"id": "Pong-v5"}}, ["env.id", "Pong-v5", "CartPole-v1"]),
    ({"algorithm": "ppo", "ppo": {"n_stpes": 8}}, ["unknown key n_stpes", "[ppo]", "n_steps"]),
    ({"algorithm": "ppo", "dqn": {"lr": 1e-3}}, ["unknown key dqn", "top level"]),
    ({"algorithm": "ppo", "run": {"total_steps": 0}}, ["run.total_steps", ">= 1"]),
    ({"algorithm": "dqn", "env": {"id": "Pendulum-v1"}}, ["Discrete", "Box"]),
])
def test_job_errors_name_the_key(job, words):
    with pytest.raises(spire.ConfigError) as e:
        spire.rl.Agent(job)
    for w in words:
        assert w in str(e.value)


JOB = """algorithm = "ppo"
seed = 0
[env]
id = "CartPole-v1"
envs_per_actor = 2
[run]
total_steps = {steps}
log_every = 1
[evaluation]
episodes = 2
envs = 2
[ppo]
n_steps = 16
batch_size = 32
n_epochs = 1
"""


def test_cli_trains_resumes_and_stops_on_sigint(tmp_path, spire_cli):
    job = tmp_path / "job.toml"
    job.write_text(JOB.format(steps=320))
    out = tmp_path / "run"
    r = subprocess.run([spire_cli, "rl", "train", str(job), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "ppo update 10  steps 320/320" in r.stdout and "stopped (budget)" in r.stdout
    assert len((out / "history.csv").read_text().strip().splitlines()) == 11
    r = subprocess.run([spire_cli, "rl", "train", str(job), "-o", str(out)], capture_output=True, text=True)
    assert r.returncode != 0 and "--resume" in r.stderr
    job.write_text(JOB.format(steps=640))
    r = subprocess.run([spire_cli, "rl", "train", str(job), "-o", str(out), "--resume"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert "ppo update 20  steps 640/640" in r.stdout and "update 10 " not in r.stdout
    assert len((out / "history.csv").read_text().strip().splitlines()) == 21
    # The trained agent evaluated from its checkpoint: the same episodes as Agent.evaluate plays.
    r = subprocess.run([spire_cli, "rl", "evaluate", str(out / "checkpoint.h5"), "--episodes", "4", "--envs", "2",
                        "--seed", "3"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ev = spire.rl.Agent.load(out / "checkpoint.h5").evaluate(episodes=4, envs=2, seed=3)
    assert f"after 640 environment steps: return {ev['mean_return']:g}" in r.stdout, r.stdout
    r = subprocess.run([spire_cli, "rl", "evaluate", str(job)], capture_output=True, text=True)
    assert r.returncode != 0 and "not an HDF5 file" in r.stderr
    r = subprocess.run([spire_cli, "rl", "train", str(job), "--policy", "nowhere"], capture_output=True, text=True)
    assert r.returncode != 0 and "nowhere" in r.stderr and "multi_actor_single_learner" in r.stderr

    # Ctrl-C: the run finishes its update, writes its files and exits 0.
    job.write_text(JOB.format(steps=10**9))
    out2 = tmp_path / "long"
    p = subprocess.Popen([spire_cli, "rl", "train", str(job), "-o", str(out2)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    assert "ppo on CartPole-v1" in p.stdout.readline()
    p.stdout.readline()  # the first update has happened
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 0, stderr
    assert "stopped (interrupted)" in stdout
    assert (out2 / "checkpoint.h5").exists() and (out2 / "history.h5").exists()


_MPI_JOB = r"""
import sys
import numpy as np
import spire.rl
job = {"algorithm": "ppo", "seed": 4, "env": {"id": "CartPole-v1", "envs_per_actor": 2}, "actors": {"count": 2},
       "run": {"total_steps": 256}, "evaluation": {"episodes": 0}, "ppo": {"n_steps": 16, "batch_size": 32, "n_epochs": 2}}
agent = spire.rl.Agent(job, policy=sys.argv[1])
summary = agent.train()
if agent.is_learner:
    agent.save(sys.argv[2])
    print("learner", summary["stop_reason"], summary["updates"])
"""


def test_agent_under_mpirun_learns_what_one_process_learns(tmp_path):
    """Python under mpirun -n 2: every rank builds the same Agent; the learner's rank ends with the
    single-process run's state (networks, optimizer, generator), bit for bit."""
    mpirun = shutil.which("mpirun")
    assert mpirun is not None, "mpirun is not on PATH: tools/install-deps installs openmpi-bin"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               PYTHONPATH=os.pathsep.join(p for p in sys.path if p), SPIRE_COLLECTIVE_TIMEOUT="60")
    one = tmp_path / "one.h5"
    r = subprocess.run([sys.executable, "-c", _MPI_JOB, "single_process", str(one)], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    two = tmp_path / "two.h5"
    r = subprocess.run([mpirun, "-n", "2", "--oversubscribe", sys.executable, "-c", _MPI_JOB,
                        "multi_actor_single_learner", str(two)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.count("learner budget 4") == 1, r.stdout
    with h5py.File(one, "r") as a, h5py.File(two, "r") as b:
        keys = list(a["state/learner"])
        assert keys == list(b["state/learner"]) and any(k.startswith("network.") for k in keys)
        for k in keys:
            np.testing.assert_array_equal(b["state/learner"][k][()], a["state/learner"][k][()], err_msg=k)
