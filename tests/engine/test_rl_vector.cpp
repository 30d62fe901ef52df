// spire::rl::VectorEnv against single environments stepped by hand with the same seeds and actions
// (Gymnasium's next-step autoreset written out here), bit for bit, synchronous and asynchronous,
// on one thread and several; and its errors. tests/python/test_rl_vector.py compares against
// gymnasium.vector.SyncVectorEnv itself.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "engine/core/error.h"
#include "tests/common/expect_error.h"
#include "reinforcement/envs/env.h"
#include "reinforcement/envs/vector_env.h"

using namespace spire;
using namespace spire::rl;

namespace {
const std::vector<std::string> kIds = {"CartPole-v1", "Acrobot-v1", "MountainCar-v0", "MountainCarContinuous-v0",
                                       "Pendulum-v1"};

// One environment with Gymnasium's next-step autoreset, the reference for one row of the pool.
struct Reference {
  std::unique_ptr<Env> env;
  bool ended = false;
  std::vector<float> obs;
  double reward = 0;
  bool terminated = false, truncated = false;

  Reference(const std::string& id, uint64_t seed) : env(make(id)) {
    obs = env->reset(seed).obs;
  }
  void step(int64_t discrete, std::span<const float> box) {
    if (ended) {
      obs = env->reset().obs;
      reward = 0;
      terminated = truncated = false;
    } else {
      auto r = env->action_space().is_discrete() ? env->step(discrete) : env->step(box);
      obs = r.obs;
      reward = r.reward;
      terminated = r.terminated;
      truncated = r.truncated;
    }
    ended = terminated || truncated;
  }
};

// Actions that depend only on the environment and its step count; continuous ones reach beyond
// the bounds (the dynamics clip them).
struct Actions {
  Generator rng;
  explicit Actions(uint64_t seed) : rng(seed) {}
  int64_t discrete(const Space& s) { return s.start() + rng.below(s.n()); }
  float box(const Space& s) { return static_cast<float>(rng.uniform(1.5 * s.low()[0], 1.5 * s.high()[0])); }
};

void expect_row(const VectorBatch& b, int64_t row, const Reference& ref, int64_t obs_dim, const std::string& what) {
  ASSERT_EQ(std::memcmp(b.obs.data() + row * obs_dim, ref.obs.data(), obs_dim * sizeof(float)), 0) << what;
  ASSERT_EQ(b.rewards[row], ref.reward) << what;
  ASSERT_EQ(static_cast<bool>(b.terminated[row]), ref.terminated) << what;
  ASSERT_EQ(static_cast<bool>(b.truncated[row]), ref.truncated) << what;
}
}  // namespace

TEST(RlVector, SyncPoolEqualsSingleEnvironments) {
  const int64_t n = 5, steps = 1050;  // past every time limit (200 to 999 steps) and many terminations
  for (const auto& id : kIds) {
    for (int64_t threads : {1, 3}) {
      VectorEnv pool(id, n, {.num_threads = threads});
      EXPECT_EQ(pool.num_threads(), threads);
      std::vector<Reference> refs;
      for (int64_t i = 0; i < n; ++i) refs.emplace_back(id, 100 + i);
      auto b = pool.reset(100);
      for (int64_t i = 0; i < n; ++i) expect_row(b, i, refs[i], pool.obs_dim(), id + " reset");
      Actions gen(7);
      const Space& as = pool.single_action_space();
      int64_t episodes = 0;
      for (int64_t t = 0; t < steps; ++t) {
        std::vector<int64_t> ints(n);
        std::vector<float> floats(n);
        for (int64_t i = 0; i < n; ++i) as.is_discrete() ? void(ints[i] = gen.discrete(as)) : void(floats[i] = gen.box(as));
        b = as.is_discrete() ? pool.step(std::span<const int64_t>(ints)) : pool.step(std::span<const float>(floats));
        for (int64_t i = 0; i < n; ++i) {
          refs[i].step(ints[i], std::span<const float>(&floats[i], 1));
          expect_row(b, i, refs[i], pool.obs_dim(), id + " step " + std::to_string(t) + " env " + std::to_string(i));
          EXPECT_EQ(b.env_id[i], i);
          episodes += refs[i].ended;
        }
      }
      EXPECT_GE(episodes, n) << id << ": every environment should end at least once";
    }
  }
}

TEST(RlVector, AsyncPoolEqualsSingleEnvironments) {
  const int64_t n = 6, per_env = 300;
  for (const auto& id : kIds) {
    for (auto [threads, batch] : {std::pair<int64_t, int64_t>{1, 2}, {3, 2}, {2, 4}, {3, 6}}) {
      VectorEnv pool(id, n, {.batch_size = batch, .num_threads = threads});
      const Space& as = pool.single_action_space();
      std::vector<Reference> refs;
      std::vector<Actions> gens;
      for (int64_t i = 0; i < n; ++i) {
        refs.emplace_back(id, 40 + i);
        gens.emplace_back(1000 + i);
      }
      std::vector<int64_t> steps_done(n, 0);
      std::vector<bool> got_reset(n, false);
      pool.async_reset(40);
      // Every received environment is sent its next action, so n results are always on their way.
      for (int64_t k = 0; k < per_env * n / batch; ++k) {
        auto b = pool.recv();
        ASSERT_EQ(b.size, batch);
        std::vector<int32_t> ids;
        std::vector<int64_t> ints;
        std::vector<float> floats;
        for (int64_t r = 0; r < b.size; ++r) {
          const int32_t e = b.env_id[r];
          expect_row(b, r, refs[e], pool.obs_dim(), id + " env " + std::to_string(e) + " step " + std::to_string(steps_done[e]));
          if (got_reset[e]) ++steps_done[e];
          got_reset[e] = true;
          int64_t a = 0;
          float f = 0;
          as.is_discrete() ? void(a = gens[e].discrete(as)) : void(f = gens[e].box(as));
          refs[e].step(a, std::span<const float>(&f, 1));
          ids.push_back(e);
          ints.push_back(a);
          floats.push_back(f);
        }
        if (as.is_discrete()) pool.send(std::span<const int64_t>(ints), ids);
        else pool.send(std::span<const float>(floats), ids);
      }
      int64_t total = 0;
      for (int64_t i = 0; i < n; ++i) total += steps_done[i];
      EXPECT_GE(total, per_env * n - n) << id;
      if (threads == 1)  // one thread runs the queue in order: every environment advances
        for (int64_t i = 0; i < n; ++i) EXPECT_GE(steps_done[i], per_env - 1) << id << " env " << i;
      pool.reset(0);  // drains whatever is still running
    }
  }
}

TEST(RlVector, ResetSeedsEachEnvironmentWithSeedPlusIndex) {
  VectorEnv pool("CartPole-v1", 3, {.num_threads = 2});
  auto b = pool.reset(9);
  for (int64_t i = 0; i < 3; ++i) {
    auto ref = make("CartPole-v1")->reset(9 + i).obs;
    EXPECT_EQ(std::memcmp(b.obs.data() + i * 4, ref.data(), 4 * sizeof(float)), 0);
    EXPECT_EQ(b.rewards[i], 0.0);
  }
  // Options reach every environment, as gymnasium's vector reset(options=...).
  b = pool.reset(9, {{"low", -0.01}, {"high", 0.01}});
  for (float x : b.obs) EXPECT_LE(std::abs(x), 0.01f);
}

TEST(RlVector, Errors) {
  expect_error_naming<ValueError>([] { VectorEnv("CartPole-v1", 0); }, {"num_envs", ">= 1"});
  expect_error_naming<ValueError>([] { VectorEnv("CartPole-v1", 4, {.batch_size = 5}); }, {"batch_size", "[1, num_envs=4]"});
  expect_error_naming<ValueError>([] { VectorEnv("CartPole-v1", 4, {.num_threads = -1}); }, {"num_threads"});
  expect_error_naming<ValueError>([] { VectorEnv("Nope-v0", 2); }, {"unknown environment id", "CartPole-v1"});
  std::vector<std::unique_ptr<Env>> mixed;
  mixed.push_back(make("CartPole-v1"));
  mixed.push_back(make("Acrobot-v1"));
  expect_error_naming<ValueError>([&] { VectorEnv(std::move(mixed)); }, {"share their spaces", "Discrete(3)"});

  VectorEnv pool("CartPole-v1", 4, {.batch_size = 2, .num_threads = 2});
  std::vector<int64_t> four = {0, 1, 0, 1}, three = {0, 1, 0}, bad = {0, 1, 2, 0};
  std::vector<float> floats = {0, 0, 0, 0};
  expect_error_naming<ValueError>([&] { pool.step(std::span<const int64_t>(four)); }, {"reset()"});
  pool.reset(0);
  expect_error_naming<ShapeError>([&] { pool.step(std::span<const int64_t>(three)); }, {"3 actions", "4 environments"});
  expect_error_naming<ValueError>([&] { pool.step(std::span<const int64_t>(bad)); }, {"actions[2] = 2", "Discrete(2)", "0 to 1"});
  expect_error_naming<ValueError>([&] { pool.step(std::span<const float>(floats)); }, {"Discrete(2)", "integer"});
  expect_error_naming<ValueError>([&] { pool.recv(); }, {"batch_size=2", "send()"});

  pool.async_reset(0);
  auto b = pool.recv();
  std::vector<int32_t> ids = {b.env_id[0], b.env_id[1]};
  std::vector<int64_t> two = {0, 1};
  // The two environments not received yet are still busy.
  std::vector<int32_t> busy;
  for (int32_t e = 0; e < 4; ++e) if (e != ids[0] && e != ids[1]) busy.push_back(e);
  expect_error_naming<ValueError>([&] { pool.send(std::span<const int64_t>(two), busy); }, {"still running", "recv()"});
  std::vector<int32_t> out = {ids[0], 7};
  expect_error_naming<ValueError>([&] { pool.send(std::span<const int64_t>(two), out); }, {"env_id 7", "[0, 4)"});
  std::vector<int32_t> twice = {ids[0], ids[0]};
  expect_error_naming<ValueError>([&] { pool.send(std::span<const int64_t>(two), twice); }, {"more than once"});
  expect_error_naming<ShapeError>([&] { pool.send(std::span<const int64_t>(three), ids); }, {"3 actions", "2 environments"});
  pool.send(std::span<const int64_t>(two), ids);  // the failed sends left the pool usable
  EXPECT_EQ(pool.recv().size, 2);
  EXPECT_EQ(pool.recv().size, 2);
  expect_error_naming<ValueError>([&] { pool.recv(); }, {"only 0"});
  pool.close();
  expect_error_naming<ValueError>([&] { pool.reset(0); }, {"closed"});

  VectorEnv box("Pendulum-v1", 2, {.num_threads = 1});
  box.reset(0);
  std::vector<float> one = {0.5f};
  std::vector<int64_t> ints = {0, 0};
  expect_error_naming<ShapeError>([&] { box.step(std::span<const float>(one)); }, {"1 floats", "need 2", "[2, 1]"});
  expect_error_naming<ValueError>([&] { box.step(std::span<const int64_t>(ints)); }, {"Box(-2, 2, (1,), float32)", "float32"});
}
