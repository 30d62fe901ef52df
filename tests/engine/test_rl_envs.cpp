// spire::rl environments: NumPy's generator (values printed by NumPy 2.x), one CartPole step by hand
// from Gymnasium's equations, Pendulum's cost and clipping, termination thresholds, time limits, and
// errors. tests/python/test_rl_envs.py compares whole trajectories against Gymnasium itself.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "tests/common/expect_error.h"
#include "reinforcement/envs/classic_control.h"
#include "reinforcement/envs/env.h"
#include "reinforcement/envs/np_random.h"

using namespace spire;
using namespace spire::rl;

namespace {
constexpr double kPi = std::numbers::pi;
std::vector<double> vec(std::initializer_list<double> v) { return v; }
}  // namespace

TEST(RlNpRandom, SeedSequenceMatchesNumPy) {
  // np.random.SeedSequence(0).generate_state(4, np.uint64)
  auto s = SeedSequence::from_seed(0).generate_state_u64(4);
  EXPECT_EQ(s, (std::vector<uint64_t>{0xdb2cd7e7b0f478beULL, 0xabf4641a2c71ba49ULL, 0x20c6ed6d9d7b8d41ULL,
                                      0x2c4099de223c39d4ULL}));
  // A seed of two 32-bit words: np.random.SeedSequence(2**40 + 5)
  auto t = SeedSequence::from_seed((1ULL << 40) + 5).generate_state_u64(4);
  EXPECT_EQ(t, (std::vector<uint64_t>{0xdae41755e08a170bULL, 0x8415abe87ecdcb2cULL, 0x2525c5b44b9118d0ULL,
                                      0x42c2793f3392bed3ULL}));
}

TEST(RlNpRandom, PCG64AndUniformMatchNumPy) {
  // np.random.PCG64(np.random.SeedSequence(42)).random_raw(3)
  PCG64 bits(SeedSequence::from_seed(42));
  EXPECT_EQ(bits.next64(), 0xc621fbcd16d92688ULL);
  EXPECT_EQ(bits.next64(), 0x705a5661a791ffc1ULL);
  EXPECT_EQ(bits.next64(), 0xdbcd12c26eda1624ULL);
  // g = np.random.default_rng(42); g.random(), g.uniform(-0.05, 0.05)
  Generator g(42);
  EXPECT_EQ(g.random(), 0.7739560485559633);
  EXPECT_EQ(g.uniform(-0.05, 0.05), -0.006112156024794771);
}

TEST(RlEnvs, ResetReproducesGymnasiumsDocumentedState) {
  // gymnasium's CartPole docstring: reset(seed=123, options={"low": -0.1, "high": 0.1})
  auto env = make("CartPole-v1");
  auto r = env->reset(123, {{"low", -0.1}, {"high", 0.1}});
  const float want[4] = {0.03647037f, -0.0892358f, -0.05592803f, -0.06312564f};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(r.obs[i], want[i], 1e-8);
  auto again = env->reset(123, {{"low", -0.1}, {"high", 0.1}});
  EXPECT_EQ(r.obs, again.obs);
}

TEST(RlEnvs, CartPoleStepByHand) {
  auto env = make("CartPole-v1");
  env->reset(0);
  const double x = 0.01, x_dot = -0.02, th = 0.03, th_dot = 0.04;
  env->set_state(vec({x, x_dot, th, th_dot}));
  auto r = env->step(1);  // push right: F = +10 N
  // Barto, Sutton & Anderson's cart-pole, as in gymnasium: g = 9.8, mc = 1, mp = 0.1, l = 0.5, tau = 0.02
  const double g = 9.8, mc = 1.0, mp = 0.1, l = 0.5, F = 10.0, tau = 0.02;
  const double temp = (F + mp * l * th_dot * th_dot * std::sin(th)) / (mc + mp);
  const double thacc = (g * std::sin(th) - std::cos(th) * temp) /
                       (l * (4.0 / 3.0 - mp * std::cos(th) * std::cos(th) / (mc + mp)));
  const double xacc = temp - mp * l * thacc * std::cos(th) / (mc + mp);
  auto s = env->state();
  EXPECT_NEAR(s[0], x + tau * x_dot, 1e-15);
  EXPECT_NEAR(s[1], x_dot + tau * xacc, 1e-14);
  EXPECT_NEAR(s[2], th + tau * th_dot, 1e-15);
  EXPECT_NEAR(s[3], th_dot + tau * thacc, 1e-14);
  EXPECT_LT(thacc, 0);  // pushing the cart right tips the pole back left
  EXPECT_EQ(r.reward, 1.0);
  EXPECT_FALSE(r.terminated);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.obs[i], static_cast<float>(s[i]));
}

TEST(RlEnvs, CartPoleTerminationThresholds) {
  const double theta_max = 12 * 2 * kPi / 360;
  auto env = make("CartPole-v1");
  env->reset(0);
  // x moves by tau * x_dot = 0.002 per step: from 2.399 it crosses 2.4 on the first step.
  env->set_state(vec({2.399, 0.1, 0, 0}));
  EXPECT_TRUE(env->step(1).terminated);
  env->set_state(vec({2.3, 0.1, 0, 0}));
  EXPECT_FALSE(env->step(1).terminated);
  env->set_state(vec({0, 0, theta_max - 1e-4, 0.01}));  // theta += 0.0002 > 12 degrees
  auto r = env->step(0);
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 1.0);
  EXPECT_EQ(env->step(0).reward, 0.0);  // stepping past the end: Gymnasium gives 0
  env->set_state(vec({0, 0, -(theta_max - 1e-4), -0.01}));
  EXPECT_TRUE(env->step(1).terminated);
}

TEST(RlEnvs, PendulumCostsAndClipping) {
  auto env = make("Pendulum-v1");
  env->reset(0);
  // Upright and still, no torque: no cost, and it stays (sin 0 = 0).
  env->set_state(vec({0, 0}));
  const float zero[1] = {0};
  auto r = env->step(zero);
  EXPECT_EQ(r.reward, 0.0);
  EXPECT_EQ(env->state(), vec({0, 0}));
  // Hanging down: angle_normalize(pi) = -pi, cost pi^2.
  env->set_state(vec({kPi, 0}));
  EXPECT_NEAR(env->step(zero).reward, -kPi * kPi, 1e-12);
  EXPECT_NEAR(PendulumEnv::angle_normalize(3 * kPi / 2), -kPi / 2, 1e-12);
  EXPECT_NEAR(PendulumEnv::angle_normalize(-3 * kPi / 2), kPi / 2, 1e-12);
  // Torque 5 is clipped to 2: the same motion and cost as torque 2 (0.001 * 2^2 in float32).
  const float five[1] = {5}, two[1] = {2};
  env->set_state(vec({0, 0}));
  auto a = env->step(five);
  auto sa = env->state();
  env->set_state(vec({0, 0}));
  auto b = env->step(two);
  EXPECT_EQ(sa, env->state());
  EXPECT_EQ(a.reward, b.reward);
  EXPECT_NEAR(a.reward, -0.004, 1e-9);
  EXPECT_NEAR(sa[1], 3.0 * 2 * 0.05, 1e-7);  // theta_dot += 3 / (m l^2) * u * dt
  // Speed clip at 8 rad/s.
  env->set_state(vec({kPi / 2, 7.9}));
  env->step(two);
  EXPECT_EQ(env->state()[1], 8.0);
  EXPECT_NEAR(env->state()[0], kPi / 2 + 8.0 * 0.05, 1e-15);
  EXPECT_FALSE(r.terminated);
}

TEST(RlEnvs, MountainCarGoalAndWall) {
  auto env = make("MountainCar-v0");
  env->reset(0);
  env->set_state(vec({0.49, 0.02}));
  auto r = env->step(2);
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, -1.0);
  // At the left wall moving left: clipped to -1.2 and stopped.
  env->set_state(vec({-1.19, -0.05}));
  env->step(0);
  EXPECT_EQ(env->state(), vec({-1.2, 0.0}));
  // Speed limit 0.07.
  env->set_state(vec({-0.5, 0.0699}));
  env->step(2);
  EXPECT_EQ(env->state()[1], 0.07);

  auto cont = make("MountainCarContinuous-v0");
  cont->reset(0);
  cont->set_state(vec({0.44, 0.03}));
  const float push[1] = {0.5f};
  auto c = cont->step(push);
  EXPECT_TRUE(c.terminated);
  EXPECT_NEAR(c.reward, 100.0 - 0.1 * 0.25, 1e-12);
  // Out-of-range actions: the force is clipped to 1, the cost uses the action as given.
  cont->set_state(vec({-0.5, 0.0}));
  const float big[1] = {3.0f};
  EXPECT_NEAR(cont->step(big).reward, -0.9, 1e-12);
}

TEST(RlEnvs, AcrobotRestsAndTerminatesWhenRaised) {
  auto env = make("Acrobot-v1");
  env->reset(0);
  env->set_state(vec({0, 0, 0, 0}));
  auto r = env->step(1);  // no torque, hanging down: stays (up to cos(-pi/2) ~ 6e-17)
  for (double v : env->state()) EXPECT_NEAR(v, 0.0, 1e-12);
  EXPECT_EQ(r.reward, -1.0);
  EXPECT_FALSE(r.terminated);
  // Both links straight up: -cos(t1) - cos(t1 + t2) = 2 > 1.
  env->set_state(vec({kPi, 0, 0, 0}));
  r = env->step(1);
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 0.0);
  // Angles wrap into [-pi, pi]; speeds are bounded by 4 pi and 9 pi.
  env->set_state(vec({0, 0, 100, -100}));
  env->step(1);
  auto s = env->state();
  EXPECT_LE(std::abs(s[0]), kPi);
  EXPECT_LE(std::abs(s[1]), kPi);
  EXPECT_LE(std::abs(s[2]), 4 * kPi);
  EXPECT_LE(std::abs(s[3]), 9 * kPi);
}

TEST(RlEnvs, TimeLimitsAreGymnasiums) {
  const std::pair<const char*, int> limits[] = {{"CartPole-v1", 500}, {"Acrobot-v1", 500}, {"MountainCar-v0", 200},
                                                {"MountainCarContinuous-v0", 999}, {"Pendulum-v1", 200}};
  for (auto [id, limit] : limits) {
    auto env = make(id);
    EXPECT_EQ(env->max_episode_steps(), limit) << id;
    env->reset(1);
    auto rest = std::vector<double>(env->state().size(), 0.0);
    const float zero[1] = {0};
    int steps = 0;
    for (;;) {
      env->set_state(rest);  // a state that never terminates; the counter is left alone
      auto r = env->action_space().is_discrete() ? env->step(int64_t{1}) : env->step(zero);
      ++steps;
      ASSERT_FALSE(r.terminated) << id;
      if (r.truncated) break;
      ASSERT_LT(steps, limit) << id;
    }
    EXPECT_EQ(steps, limit) << id;
    env->reset();
    EXPECT_EQ(env->elapsed_steps(), 0);
  }
  auto unlimited = make("Pendulum-v1", 0);
  unlimited->reset(0);
  const float zero[1] = {0};
  for (int i = 0; i < 1000; ++i) ASSERT_FALSE(unlimited->step(zero).truncated);
}

TEST(RlEnvs, ErrorsNameWhatIsAllowed) {
  expect_error_naming<spire::ValueError>([] { make("CartPole-v0"); }, {"CartPole-v0", "CartPole-v1", "Acrobot-v1", "Pendulum-v1"});
  auto env = make("CartPole-v1");
  expect_error_naming<spire::ValueError>([&] { env->step(0); }, {"reset"});
  env->reset(0);
  expect_error_naming<spire::ValueError>([&] { env->step(2); }, {"action 2", "Discrete(2)", "0 to 1"});
  expect_error_naming<spire::ValueError>([&] { env->step(-1); }, {"action -1", "0 to 1"});
  const float f[1] = {0};
  expect_error_naming<spire::ValueError>([&] { env->step(f); }, {"Discrete(2)", "integer"});
  auto pend = make("Pendulum-v1");
  pend->reset(0);
  expect_error_naming<spire::ValueError>([&] { pend->step(int64_t{1}); }, {"Box(-2, 2, (1,), float32)", "float"});
  const float two[2] = {0, 0};
  expect_error_naming<spire::ShapeError>([&] { pend->step(two); }, {"2 elements", "needs 1"});
  expect_error_naming<spire::ValueError>([&] { pend->reset(0, {{"low", 1.0}}); }, {"unknown option 'low'", "x_init, y_init"});
  expect_error_naming<spire::ValueError>([&] { env->reset(0, {{"low", 1.0}, {"high", 0.0}}); }, {"lower bound"});
  expect_error_naming<spire::ShapeError>([&] { env->set_state(vec({1, 2})); }, {"2 values", "has 4"});
}

TEST(RlEnvs, CloneContinuesIdentically) {
  auto env = make("Acrobot-v1");
  env->reset(5);
  for (int i = 0; i < 10; ++i) env->step(i % 3);
  auto copy = env->clone();
  for (int i = 0; i < 50; ++i) {
    auto a = env->step(i % 3), b = copy->step(i % 3);
    ASSERT_EQ(a.obs, b.obs);
  }
  EXPECT_EQ(env->reset().obs, copy->reset().obs);  // the generator was copied too
}

TEST(RlSpaces, ContainsAndSample) {
  auto d = Space::discrete(3, -1);
  EXPECT_TRUE(d.contains(-1));
  EXPECT_TRUE(d.contains(1));
  EXPECT_FALSE(d.contains(2));
  d.seed(0);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 3000; ++i) ++counts[d.sample_discrete() + 1];
  for (int c : counts) EXPECT_NEAR(c, 1000, 150);
  auto b = make("CartPole-v1")->observation_space();
  EXPECT_EQ(b.to_string(), "Box([-4.8 -inf -0.418879 -inf], [4.8 inf 0.418879 inf], (4,), float32)");
  b.seed(1);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(b.contains(b.sample_box()));
  const float out[4] = {5, 0, 0, 0};
  EXPECT_FALSE(b.contains(out));
  const float short_[2] = {0, 0};
  EXPECT_FALSE(b.contains(short_));
}
