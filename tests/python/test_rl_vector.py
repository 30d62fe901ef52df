"""spire.rl.make_vec and from_gymnasium against Gymnasium 1.0 itself: SyncVectorEnv (next-step
autoreset) step for step, single gymnasium environments for the asynchronous pool, and spire's
CartPole against gymnasium's through the adapter."""
import gymnasium as gym
import numpy as np
import pytest

import spire.rl as rl

IDS = ["CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0", "Pendulum-v1"]


def random_actions(space, rng, n):
    """n actions for one environment each, continuous ones reaching past the bounds (clipped by the dynamics)."""
    if isinstance(space, gym.spaces.Discrete):
        return rng.integers(space.start, space.start + space.n, size=n).astype(np.int64)
    return rng.uniform(1.5 * space.low, 1.5 * space.high, size=(n, *space.shape)).astype(np.float32)


@pytest.mark.parametrize("env_id,steps", [("CartPole-v1", 3000)] + [(i, 1100) for i in IDS[1:]])
@pytest.mark.parametrize("threads", [1, 2])
def test_sync_pool_equals_gymnasium_sync_vector_env(env_id, steps, threads):
    n = 6
    assert gym.__version__ == "1.0.0"  # whose SyncVectorEnv has only the next-step autoreset
    ref = gym.vector.SyncVectorEnv([lambda: gym.make(env_id)] * n)
    pool = rl.make_vec(env_id, n, num_threads=threads)
    assert pool.num_threads == threads
    ref_obs, _ = ref.reset(seed=11)
    obs, info = pool.reset(seed=11)
    assert info == {}
    np.testing.assert_array_equal(obs, ref_obs)
    rng = np.random.default_rng(5)
    ends = 0
    for t in range(steps):
        a = random_actions(ref.single_action_space, rng, n)
        r_obs, r_rew, r_term, r_trunc, _ = ref.step(a)
        obs, rew, term, trunc, info = pool.step(a)
        assert obs.dtype == np.float32 and rew.dtype == np.float64 and term.dtype == np.bool_
        if env_id == "CartPole-v1":  # bit for bit
            assert obs.tobytes() == r_obs.astype(np.float32).tobytes(), t
        else:  # to 1e-6 (a different libm's sin/cos could move the last bits)
            np.testing.assert_allclose(obs, r_obs, rtol=0, atol=1e-6, err_msg=str(t))
        np.testing.assert_array_equal(rew, r_rew, err_msg=str(t))
        np.testing.assert_array_equal(term, r_term, err_msg=str(t))
        np.testing.assert_array_equal(trunc, r_trunc, err_msg=str(t))
        ends += int(np.sum(term | trunc))
    assert ends >= n  # the autoreset path was taken
    pool.close()


def reference_step(env, state, action):
    """Gymnasium 1.0's next-step autoreset for one environment: (obs, reward, terminated, truncated)."""
    if state["ended"]:
        obs, _ = env.reset()
        out = (obs, 0.0, False, False)
    else:
        obs, rew, term, trunc, _ = env.step(action)
        out = (obs, float(rew), bool(term), bool(trunc))
    state["ended"] = out[2] or out[3]
    return out


@pytest.mark.parametrize("env_id", ["CartPole-v1", "Pendulum-v1"])
@pytest.mark.parametrize("threads,batch", [(1, 3), (2, 3), (2, 6)])
def test_async_pool_equals_single_gymnasium_environments(env_id, threads, batch):
    n, recvs = 6, 400
    refs = [gym.make(env_id) for _ in range(n)]
    states = [{"ended": False} for _ in range(n)]
    expected = [(env.reset(seed=3 + i)[0], 0.0, False, False) for i, env in enumerate(refs)]
    rngs = [np.random.default_rng(100 + i) for i in range(n)]
    pool = rl.make_vec(env_id, n, batch_size=batch, num_threads=threads)
    pool.async_reset(seed=3)
    counts = np.zeros(n, int)
    for _ in range(recvs):
        obs, rew, term, trunc, info = pool.recv()
        ids = info["env_id"]
        assert ids.dtype == np.int32 and len(ids) == batch and len(set(ids.tolist())) == batch
        for row, e in enumerate(ids):
            e_obs, e_rew, e_term, e_trunc = expected[e]
            np.testing.assert_allclose(obs[row], e_obs, rtol=0, atol=1e-6 if env_id != "CartPole-v1" else 0)
            assert (rew[row], term[row], trunc[row]) == (e_rew, e_term, e_trunc)
            counts[e] += 1
        actions = np.concatenate([random_actions(refs[e].action_space, rngs[e], 1) for e in ids])
        for k, e in enumerate(ids):
            expected[e] = reference_step(refs[e], states[e], actions[k])
        pool.send(actions, ids)
    assert counts.sum() == recvs * batch
    if threads == 1:
        assert counts.min() >= recvs * batch // n - 1  # one thread serves the queue in order


def test_gymnasium_adapter_equals_spire_cartpole():
    wrapped = rl.from_gymnasium(gym.make("CartPole-v1"))
    native = rl.make("CartPole-v1")
    assert wrapped.id == "CartPole-v1" and wrapped.max_episode_steps == 0  # gymnasium's own TimeLimit acts
    assert wrapped.action_space == native.action_space and wrapped.observation_space == native.observation_space
    rng = np.random.default_rng(0)
    episodes, seed = 0, 0
    a_obs, _ = wrapped.reset(seed=seed)
    b_obs, _ = native.reset(seed=seed)
    for t in range(3000):
        assert a_obs.tobytes() == b_obs.tobytes(), t
        action = int(rng.integers(2))
        a_obs, a_rew, a_term, a_trunc, _ = wrapped.step(action)
        b_obs, b_rew, b_term, b_trunc, _ = native.step(action)
        assert (a_rew, a_term, a_trunc) == (b_rew, b_term, b_trunc), t
        if a_term or a_trunc:
            episodes += 1
            seed = episodes if episodes % 2 else None  # seeded and unseeded resets alternate
            a_obs, _ = wrapped.reset(seed=seed)
            b_obs, _ = native.reset(seed=seed)
    assert episodes > 10
    # clone is a deep copy: both continue identically and independently.
    twin = wrapped.clone()
    assert twin.gymnasium_env is not wrapped.gymnasium_env
    np.testing.assert_array_equal(twin.step(1)[0], wrapped.step(1)[0])


@pytest.mark.parametrize("threads,batch", [(1, None), (2, None), (2, 2)])
def test_pool_of_gymnasium_environments_equals_native_pool(threads, batch):
    n = 4
    wrapped = rl.make_vec([lambda: gym.make("CartPole-v1")] * n, num_threads=threads, batch_size=batch)
    native = rl.make_vec("CartPole-v1", n, num_threads=1)
    rng = np.random.default_rng(1)
    if batch is None:
        a, _ = wrapped.reset(seed=4)
        b, _ = native.reset(seed=4)
        np.testing.assert_array_equal(a, b)
        for t in range(800):
            act = rng.integers(0, 2, size=n)
            for x, y in zip(wrapped.step(act)[:4], native.step(act)[:4]):
                assert x.tobytes() == y.tobytes(), t
        return
    # Asynchronous: each environment's rows equal the native pool's for the same actions.
    wrapped.async_reset(seed=4)
    native.reset(seed=4)
    history = {e: [] for e in range(n)}
    actions = {e: [] for e in range(n)}
    for _ in range(300):
        obs, rew, term, trunc, info = wrapped.recv()
        act = rng.integers(0, 2, size=batch)
        for row, e in enumerate(info["env_id"]):
            history[e].append((obs[row].tobytes(), rew[row], term[row], trunc[row]))
            actions[e].append(act[row])
        wrapped.send(act, info["env_id"])
    steps = min(len(h) for h in history.values())
    assert steps > 100
    obs, _ = native.reset(seed=4)
    for t in range(steps):
        for e in range(n):
            assert history[e][t][0] == obs[e].tobytes() and history[e][t][1:] == (
                (0.0, False, False) if t == 0 else (rew[e], term[e], trunc[e])), (t, e)
        obs, rew, term, trunc, _ = native.step(np.array([actions[e][t] for e in range(n)]))


def test_views_and_copies():
    copies = rl.make_vec("CartPole-v1", 3, num_threads=1)
    views = rl.make_vec("CartPole-v1", 3, num_threads=1, copy=False)
    c0, _ = copies.reset(seed=0)
    v0, _ = views.reset(seed=0)
    snapshot = v0.copy()
    assert not v0.flags.writeable and c0.flags.writeable
    with pytest.raises(ValueError):
        v0[0, 0] = 1.0
    c1 = copies.step(np.ones(3, np.int64))[0]
    views.step(np.ones(3, np.int64))
    np.testing.assert_array_equal(c0, snapshot)       # a copy keeps its values
    np.testing.assert_array_equal(v0, c1)             # a view shows the next step's
    assert not np.array_equal(v0, snapshot)


def test_spaces():
    pool = rl.make_vec("Pendulum-v1", 5, num_threads=1)
    ref = gym.vector.SyncVectorEnv([lambda: gym.make("Pendulum-v1")] * 5)
    assert pool.num_envs == 5 and pool.batch_size == 5
    assert pool.single_action_space.shape == ref.single_action_space.shape == (1,)
    assert pool.action_space.shape == ref.action_space.shape == (5, 1)
    assert pool.observation_space.shape == ref.observation_space.shape == (5, 3)
    np.testing.assert_array_equal(pool.observation_space.low, ref.observation_space.low)
    cart = rl.make_vec("CartPole-v1", 4, num_threads=1)
    gcart = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 4)
    np.testing.assert_array_equal(cart.action_space.nvec, gcart.action_space.nvec)
    cart.action_space.seed(0)
    a = cart.action_space.sample()
    assert a.shape == (4,) and cart.action_space.contains(a) and not cart.action_space.contains(a + 2)
    # Environment keywords reach every environment, as gymnasium.make_vec's.
    heavy = rl.make_vec("Pendulum-v1", 2, num_threads=1, g=20.0, max_episode_steps=7)
    gheavy = gym.make_vec("Pendulum-v1", 2, vectorization_mode="sync", g=20.0, max_episode_steps=7)
    np.testing.assert_allclose(heavy.reset(seed=2)[0], gheavy.reset(seed=2)[0], atol=1e-6)
    for _ in range(8):
        x, y = heavy.step(np.full((2, 1), 1.5, np.float32)), gheavy.step(np.full((2, 1), 1.5, np.float32))
        np.testing.assert_allclose(x[0], y[0], atol=1e-6)
        np.testing.assert_array_equal(x[3], y[3])


def test_errors():
    with pytest.raises(ValueError, match=r"batch_size must be in \[1, num_envs=4\]"):
        rl.make_vec("CartPole-v1", 4, batch_size=5)
    with pytest.raises(ValueError, match="num_envs must be >= 1"):
        rl.make_vec("CartPole-v1", 0)
    with pytest.raises(ValueError, match="unknown environment id"):
        rl.make_vec("Nope-v0", 2)
    pool = rl.make_vec("CartPole-v1", 4, batch_size=2, num_threads=2)
    with pytest.raises(ValueError, match=r"reset\(\)"):
        pool.step(np.zeros(4, np.int64))
    pool.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions have shape \(3,\); 4 environments need \(4,\)"):
        pool.step(np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="must be integers, got float64"):
        pool.step(np.zeros(4))
    with pytest.raises(ValueError, match=r"actions\[1\] = 2 is outside Discrete\(2\) \(allowed: 0 to 1\)"):
        pool.step(np.array([0, 2, 0, 0]))
    with pytest.raises(ValueError, match="batch_size=2 results"):
        pool.recv()
    pool.async_reset(seed=0)
    _, _, _, _, info = pool.recv()
    busy = [e for e in range(4) if e not in info["env_id"]]
    with pytest.raises(ValueError, match="still running"):
        pool.send(np.zeros(2, np.int64), np.array(busy))
    with pytest.raises(ValueError, match=r"env_id 9 is out of range \[0, 4\)"):
        pool.send(np.zeros(2, np.int64), np.array([info["env_id"][0], 9]))
    with pytest.raises(ValueError, match="more than once"):
        pool.send(np.zeros(2, np.int64), np.array([info["env_id"][0]] * 2))
    pool.send(np.zeros(2, np.int64), info["env_id"])  # still usable after the refusals
    pool.close()
    with pytest.raises(ValueError, match="closed"):
        pool.reset(seed=0)

    box = rl.make_vec("Pendulum-v1", 2, num_threads=1)
    box.reset(seed=0)
    with pytest.raises(ValueError, match=r"actions have shape \(2, 3\); 2 environments x Box.* need \(2, 1\)"):
        box.step(np.zeros((2, 3), np.float32))

    with pytest.raises(ValueError, match="Box observations and Box or Discrete actions"):
        rl.from_gymnasium(gym.make("Blackjack-v1"))  # Tuple observations
    wrapped = rl.from_gymnasium(gym.make("CartPole-v1"))
    with pytest.raises(ValueError, match="not available for a wrapped Gymnasium environment"):
        wrapped.state
    with pytest.raises(ValueError, match="not available for a wrapped Gymnasium environment"):
        wrapped.set_state([0.0, 0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="list of callables"):
        rl.make_vec([1, 2])


class Exploding(gym.Env):
    """CartPole that raises in its third step: the pool's threads must carry the error back."""

    def __init__(self):
        self.inner = gym.make("CartPole-v1")
        self.observation_space, self.action_space = self.inner.observation_space, self.inner.action_space
        self.steps = 0

    def reset(self, *, seed=None, options=None):
        return self.inner.reset(seed=seed, options=options)

    def step(self, action):
        self.steps += 1
        if self.steps == 3:
            raise RuntimeError("boom at step 3")
        return self.inner.step(action)


@pytest.mark.parametrize("threads", [1, 2])
def test_python_errors_reach_the_caller(threads):
    pool = rl.make_vec([Exploding] * 3, num_threads=threads)
    pool.reset(seed=0)
    pool.step(np.zeros(3, np.int64))
    pool.step(np.zeros(3, np.int64))
    with pytest.raises(RuntimeError, match="boom at step 3"):
        pool.step(np.zeros(3, np.int64))
    pool.reset(seed=0)  # the pool recovers with a reset
    pool.close()


def test_reset_with_one_seed_per_environment_equals_gymnasium():
    # Gymnasium's reset(seed=[...]): environment i takes seeds[i]; None continues its generator.
    seeds = [7, None, 2**64 - 1, 0]
    ref = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 4)
    ref.reset(seed=1)
    pool = rl.make_vec("CartPole-v1", 4, num_threads=2)
    pool.reset(seed=1)
    obs, _ = pool.reset(seed=seeds)
    assert obs.tobytes() == ref.reset(seed=seeds)[0].astype(np.float32).tobytes()
    pool.async_reset(seed=(3, 4, 5, 6))
    got = {}
    while len(got) < 4:
        o, _, _, _, info = pool.recv()
        got.update(zip(info["env_id"], o))
    expected = ref.reset(seed=[3, 4, 5, 6])[0].astype(np.float32)
    assert all(got[e].tobytes() == expected[e].tobytes() for e in range(4))
    with pytest.raises(ValueError, match="3 seeds for 4 environments"):
        pool.reset(seed=[1, 2, 3])
    with pytest.raises(ValueError, match=r"seed\[1\]: seed must be in \[0, 2\*\*64\)"):
        pool.reset(seed=[1, -2, 3, 4])
