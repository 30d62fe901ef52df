"""spire.rl environments against Gymnasium (the reference, from PyPI).

For each classic-control environment: reset(seed=...) gives Gymnasium's initial state (spire
reproduces NumPy's SeedSequence -> PCG64 -> uniform), then 10,000 steps with the same actions and
resets (unseeded: both continue their generator streams) must give the same observations (to 1e-6),
rewards and terminated/truncated flags. Half of the episodes start from a state placed near the
goal (written into both environments), so that terminations happen, not only time limits.
"""
import gymnasium as gym  # the reference (tools/install-deps installs 1.0.0, the version matched)
import numpy as np
import pytest

import spire
import spire.rl as rl

STEPS = 10_000


def near_goal(env_id, rng):
    """A state from which random actions often end the episode (None: keep the reset state)."""
    if env_id == "CartPole-v1":
        return [rng.uniform(-2.3, 2.3), rng.uniform(-1, 1), rng.uniform(-0.2, 0.2), rng.uniform(-1, 1)]
    if env_id == "Acrobot-v1":
        return [rng.uniform(2.0, 3.1) * rng.choice([-1, 1]), rng.uniform(-0.5, 0.5), rng.uniform(-2, 2), rng.uniform(-2, 2)]
    if env_id == "MountainCar-v0":
        return [rng.uniform(0.3, 0.5), rng.uniform(0.0, 0.05)]
    if env_id == "MountainCarContinuous-v0":
        return [rng.uniform(0.25, 0.45), rng.uniform(0.0, 0.05)]
    if env_id == "Pendulum-v1":
        return [rng.uniform(-8, 8), rng.uniform(-8, 8)]  # large angles exercise angle_normalize
    raise KeyError(env_id)


def actions(env_id, g, rng):
    if env_id == "CartPole-v1":
        # A balancing controller with 10% random actions in every third episode (so that some
        # episodes reach the time limit), random actions otherwise.
        def act(obs, episode):
            if episode % 3 == 0 and rng.random() > 0.1:
                return int(obs[2] + 0.5 * obs[3] + 0.05 * obs[0] + 0.1 * obs[1] > 0)
            return int(rng.integers(2))
        return act
    if isinstance(g.action_space, gym.spaces.Discrete):
        return lambda obs, episode: int(rng.integers(g.action_space.n))
    high = float(g.action_space.high[0])
    # Mostly inside the bounds; a fifth beyond them, to exercise the clipping.
    return lambda obs, episode: np.array([rng.uniform(-1.25 * high, 1.25 * high)], dtype=np.float32)


ENV_IDS = ["CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_trajectories_match_gymnasium(env_id):
    g, s = gym.make(env_id), rl.make(env_id)
    rng = np.random.default_rng(12345)
    act = actions(env_id, g, rng)

    go, _ = g.reset(seed=7)
    so, _ = s.reset(seed=7)
    assert so.dtype == np.float32 and so.shape == g.observation_space.shape
    np.testing.assert_allclose(so, go, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(np.asarray(s.state), np.asarray(g.unwrapped.state, dtype=np.float64))

    max_diff, episodes, terminations, truncations = 0.0, 1, 0, 0
    for i in range(STEPS):
        a = act(go, episodes)
        go, gr, gterm, gtrunc, _ = g.step(a)
        so, sr, sterm, strunc, _ = s.step(a)
        max_diff = max(max_diff, float(np.max(np.abs(so - go))))
        assert np.allclose(so, go, rtol=0, atol=1e-6), f"step {i}: {so} vs {go}"
        assert sr == gr, f"step {i}: reward {sr!r} vs {gr!r}"
        assert (sterm, strunc) == (gterm, gtrunc), f"step {i}: flags {(sterm, strunc)} vs {(gterm, gtrunc)}"
        if gterm or gtrunc:
            terminations += gterm
            truncations += gtrunc and not gterm
            episodes += 1
            go, _ = g.reset()
            so, _ = s.reset()
            np.testing.assert_allclose(so, go, rtol=0, atol=1e-6)
            if episodes % 2 == 0:
                state = near_goal(env_id, rng)
                g.unwrapped.state = np.array(state, dtype=np.float64)
                s.set_state(state)
    assert truncations > 0
    if env_id != "Pendulum-v1":
        assert terminations > 0
    print(f"{env_id}: {episodes} episodes, {terminations} terminated, max |obs diff| {max_diff:.3g}")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_seeded_reset_states_are_gymnasiums(env_id):
    # Seeds of one and two 32-bit words and the extremes go through SeedSequence as NumPy's do.
    g, s = gym.make(env_id), rl.make(env_id)
    for seed in [0, 1, 42, 2**32 - 1, 2**32, 2**40 + 5, 2**63 + 12345, 2**64 - 1]:
        go, _ = g.reset(seed=seed)
        so, _ = s.reset(seed=seed)
        np.testing.assert_array_equal(so, go)
        np.testing.assert_array_equal(np.asarray(s.state), np.asarray(g.unwrapped.state, dtype=np.float64))
        for _ in range(3):  # unseeded resets continue the same stream
            np.testing.assert_array_equal(s.reset()[0], g.reset()[0])
    if env_id in ("CartPole-v1", "Acrobot-v1", "MountainCar-v0"):
        opts = {"low": -0.2, "high": 0.3}
    elif env_id == "Pendulum-v1":
        opts = {"x_init": 0.5, "y_init": 2.0}
    else:
        opts = {"low": -1.0, "high": 0.2}
    np.testing.assert_array_equal(s.reset(seed=9, options=opts)[0], g.reset(seed=9, options=opts)[0])


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_spaces_match_gymnasium(env_id):
    g, s = gym.make(env_id), rl.make(env_id)
    for gs, ss in [(g.observation_space, s.observation_space), (g.action_space, s.action_space)]:
        if isinstance(gs, gym.spaces.Discrete):
            assert isinstance(ss, rl.Discrete) and ss.n == gs.n and ss.start == gs.start
        else:
            assert isinstance(ss, rl.Box) and ss.shape == gs.shape and ss.dtype == gs.dtype
            np.testing.assert_array_equal(ss.low, gs.low)
            np.testing.assert_array_equal(ss.high, gs.high)
        ss.seed(3)
        for _ in range(200):
            x = ss.sample()
            assert ss.contains(x) and gs.contains(np.asarray(x, dtype=gs.dtype) if ss.shape else x)
    assert s.max_episode_steps == g.spec.max_episode_steps


def test_seeded_resets_repeat_and_differ():
    env = rl.make("CartPole-v1")
    a, _ = env.reset(seed=123)
    b, _ = env.reset(seed=123)
    c, _ = env.reset(seed=124)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # Gymnasium's documented example: reset(seed=123, options={"low": -0.1, "high": 0.1})
    d, _ = env.reset(seed=123, options={"low": -0.1, "high": 0.1})
    np.testing.assert_allclose(d, [0.03647037, -0.0892358, -0.05592803, -0.06312564], atol=1e-8)
    # Seeds beyond 32 bits go through SeedSequence as two words, as NumPy's.
    big = 2**40 + 5
    g = gym.make("Pendulum-v1")
    np.testing.assert_allclose(rl.make("Pendulum-v1").reset(seed=big)[0], g.reset(seed=big)[0], atol=1e-7)


def test_time_limit_and_clone():
    env = rl.make("Pendulum-v1")
    assert env.max_episode_steps == 200
    env.reset(seed=0)
    for i in range(199):
        assert env.step([0.0])[3] is False
    copy = env.clone()
    assert env.step([0.5])[3] is True
    assert copy.step([0.5])[3] is True  # the copy carried the step count
    assert rl.make("Pendulum-v1", max_episode_steps=3).max_episode_steps == 3
    unlimited = rl.PendulumEnv()
    unlimited.reset(seed=0)
    assert not any(unlimited.step([0.0])[3] for _ in range(300))


def test_errors_name_what_is_allowed():
    with pytest.raises(ValueError, match="unknown environment id 'CartPole-v0'.*CartPole-v1.*Pendulum-v1"):
        rl.make("CartPole-v0")
    env = rl.make("CartPole-v1")
    with pytest.raises(ValueError, match="reset"):
        env.step(0)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"action 2 is outside Discrete\(2\) \(allowed: 0 to 1\)"):
        env.step(2)
    with pytest.raises(TypeError, match="int"):
        env.step(0.5)
    pend = rl.make("Pendulum-v1")
    pend.reset(seed=0)
    with pytest.raises(ValueError, match=r"shape \(2,\).*needs \(1,\)"):
        pend.step([0.0, 1.0])
    with pytest.raises(ValueError, match="unknown option 'lo'.*x_init, y_init"):
        pend.reset(options={"lo": 1.0})
    with pytest.raises(ValueError, match="seed must be in"):
        env.reset(seed=-1)
    with pytest.raises(ValueError, match="lower bound"):
        env.reset(options={"low": 1.0, "high": 0.0})


@pytest.mark.parametrize("env_id,kwargs", [
    ("CartPole-v1", {"sutton_barto_reward": True}),
    ("MountainCar-v0", {"goal_velocity": 0.01}),
    ("MountainCarContinuous-v0", {"goal_velocity": 0.01}),
    ("Pendulum-v1", {"g": 9.81}),
])
def test_constructor_options_match_gymnasium(env_id, kwargs):
    g, s = gym.make(env_id, **kwargs), rl.make(env_id, **kwargs)
    assert s.max_episode_steps == g.spec.max_episode_steps
    rng = np.random.default_rng(1)
    act = actions(env_id, g, rng)
    go, _ = g.reset(seed=3)
    so, _ = s.reset(seed=3)
    episodes, terminations = 1, 0
    for i in range(3000):
        a = act(go, 1)
        go, gr, gterm, gtrunc, _ = g.step(a)
        so, sr, sterm, strunc, _ = s.step(a)
        assert np.allclose(so, go, rtol=0, atol=1e-6) and sr == gr and (sterm, strunc) == (gterm, gtrunc), i
        if gterm or gtrunc:
            terminations += gterm
            episodes += 1
            go, _ = g.reset()
            so, _ = s.reset()
            if env_id != "Pendulum-v1":
                state = near_goal(env_id, rng)
                g.unwrapped.state = np.array(state, dtype=np.float64)
                s.set_state(state)
    if env_id != "Pendulum-v1":
        assert terminations > 0
