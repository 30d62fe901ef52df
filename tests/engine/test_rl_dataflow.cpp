// The dataflow runtime (reinforcement/dataflow) on one rank, driven by the probe algorithm of
// tests/common/rl_probe_algorithm.h: placements and their errors, join(), the single-process run
// against the same fragments driven by a plain loop, the asynchronous policy's shutdown, the
// evaluator against episodes played one by one, files, resume, failures and SIGINT. The multi-rank
// policies are tested under mpirun in tests/parallel/test_rl_policies.cpp.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "engine/nn/checkpoint.h"
#include "engine/ops/shape.h"
#include "engine/parallel/self_communicator.h"
#include "tests/common/expect_error.h"
#include "reinforcement/dataflow/evaluator.h"
#include "reinforcement/dataflow/trainer.h"
#include "tests/common/rl_fragment_loop.h"
#include "tests/common/rl_probe_algorithm.h"
#include "tests/common/rl_settings.h"

using namespace spire;
using namespace spire::rl;
using namespace spire::rl::dataflow;
using spire::rl::fixtures::ProbeAlgorithm;
using spire::rl::fixtures::FaultyProbe;
using spire::rl::fixtures::ProbeLearner;

namespace {

// CartPole runs of the probe algorithm: seed 3 unless given.
RunSettings probe_run(int64_t actors, int64_t envs, int64_t total_steps, uint64_t seed = 3) {
  return fixtures::cartpole_run(actors, envs, seed, total_steps);
}

std::vector<double> weights_of(Trainer& t) { return static_cast<ProbeLearner*>(t.learner())->weights(); }

std::filesystem::path fresh_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("spire_rl_dataflow_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

}  // namespace

TEST(RlPlacement, EachPolicyPlacesTheGraph) {
  RunSettings run = probe_run(4, 3, 100);
  Placement p = make_policy("multi_actor_single_learner")->place(run, 2);
  EXPECT_EQ(p.actor_rank, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_TRUE(p.synchronous);
  EXPECT_EQ(p.actors_on(1), (std::vector<int64_t>{2, 3}));
  p = make_policy("multi_actor_single_learner")->place(run, 4);
  EXPECT_EQ(p.actor_rank, (std::vector<int>{0, 1, 2, 3}));
  p = make_policy("async_multi_actor_single_learner")->place(run, 3);
  EXPECT_EQ(p.actor_rank, (std::vector<int>{1, 1, 2, 2}));
  EXPECT_FALSE(p.synchronous);
  p = make_policy("async_multi_actor_single_learner")->place(run, 1);
  EXPECT_EQ(p.actor_rank, (std::vector<int>{0, 0, 0, 0}));
  p = make_policy("single_process")->place(run, 1);
  EXPECT_EQ(p.actor_rank, (std::vector<int>{0, 0, 0, 0}));
  EXPECT_TRUE(p.env_rank.empty());
  RunSettings one = probe_run(1, 5, 100);
  p = make_policy("single_actor_learner_multi_env")->place(one, 2);
  EXPECT_EQ(p.actor_rank, (std::vector<int>{0}));
  EXPECT_EQ(p.env_rank, (std::vector<int>{0, 0, 0, 1, 1}));
  EXPECT_EQ(p.describe(), "learner on rank 0; actors: 0 on rank 0; actor 0's environments: 0-2 on rank 0, 3-4 on "
                          "rank 1; synchronous");
  p = make_policy("async_multi_actor_single_learner")->place(run, 3);
  EXPECT_EQ(p.describe(), "learner on rank 0; actors: 0-1 on rank 1, 2-3 on rank 2; asynchronous");
}

TEST(RlPlacement, ImpossiblePlacementsAreNamed) {
  expect_error_naming<ConfigError>([] { make_policy("single_process")->place(probe_run(1, 2, 10), 2); },
                                   {"single_process", "2 ranks"});
  expect_error_naming<ConfigError>([] { make_policy("multi_actor_single_learner")->place(probe_run(2, 2, 10), 4); },
                                   {"2 actors", "4 ranks", "actors.count >= 4"});
  expect_error_naming<ConfigError>([] { make_policy("async_multi_actor_single_learner")->place(probe_run(1, 2, 10), 3); },
                                   {"rank 0", "actors.count >= 2"});
  expect_error_naming<ConfigError>([] { make_policy("single_actor_learner_multi_env")->place(probe_run(2, 2, 10), 1); },
                                   {"one actor", "actors.count = 1"});
  expect_error_naming<ConfigError>([] { make_policy("single_actor_learner_multi_env")->place(probe_run(1, 2, 10), 3); },
                                   {"2 environments", "3 ranks"});
  expect_error_naming<ConfigError>([] { make_policy("round_robin"); },
                                   {"round_robin", "single_process", "multi_actor_single_learner"});
}

TEST(RlTrajectory, JoinConcatenatesAlongEachFieldsEnvAxis) {
  Trajectory a, b;
  a.actor = 0, a.version = 5, a.env_steps = 6;
  b.actor = 1, b.version = 4, b.env_steps = 4;
  a.add("x", from_vector(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3}));  // T=2, N=3
  b.add("x", from_vector(std::vector<float>{7, 8}, {2, 1}));              // T=2, N=1
  a.add("last", from_vector(std::vector<float>{1, 2, 3}, {3}), 0);
  b.add("last", from_vector(std::vector<float>{9}, {1}), 0);
  a.episodes.returns = {10};
  a.episodes.lengths = {10};
  b.episodes.returns = {20, 30};
  b.episodes.lengths = {20, 30};
  Trajectory j = join({a, b});
  EXPECT_EQ(j["x"].shape(), (Shape{2, 4}));
  EXPECT_EQ(j["x"].to_vector(), (std::vector<double>{1, 2, 3, 7, 4, 5, 6, 8}));
  EXPECT_EQ(j["last"].to_vector(), (std::vector<double>{1, 2, 3, 9}));
  EXPECT_EQ(j.env_steps, 10);
  EXPECT_EQ(j.version, 4);
  EXPECT_EQ(j.episodes.returns, (std::vector<double>{10, 20, 30}));
  expect_error_naming<ValueError>([&] { (void)j["y"]; }, {"\"y\"", "x, last"});
  Trajectory c = b;
  c.fields[0].name = "z";
  expect_error_naming<ValueError>([&] { join({a, c}); }, {"\"z\"", "\"x\""});
}

// The single-process policy runs the fragments exactly as a plain loop over the same actors and
// learner would: same parameters, bit for bit, whatever the threads.
TEST(RlTrainer, SingleProcessEqualsThePlainLoop) {
  RunSettings run = probe_run(2, 3, 2 * 3 * 5 * 4);  // 4 updates of 5 steps
  fixtures::FragmentLoop loop(std::make_unique<ProbeAlgorithm>(run, 5), run);
  for (int u = 0; u < 4; ++u) loop.iterate();
  const auto expected = static_cast<ProbeLearner&>(*loop.learner).weights();

  Trainer trainer(std::make_shared<ProbeAlgorithm>(run, 5), fixtures::unevaluated(run, "single_process"),
                  parallel::SelfCommunicator::create());
  Summary s = trainer.train();
  EXPECT_EQ(s.updates, 4);
  EXPECT_EQ(s.env_steps, 120);
  EXPECT_EQ(s.stop_reason, "budget");
  EXPECT_EQ(weights_of(trainer), expected);
  ASSERT_EQ(trainer.history().size(), 4u);
  EXPECT_EQ(trainer.history()[3].at("env_steps"), 120);

  // More environment threads change nothing.
  TrainerSettings threaded = fixtures::unevaluated(run, "single_process");
  threaded.env_threads = 3;
  Trainer again(std::make_shared<ProbeAlgorithm>(run, 5), threaded, parallel::SelfCommunicator::create());
  again.train();
  EXPECT_EQ(weights_of(again), expected);
}

TEST(RlTrainer, AsynchronousPolicyOnOneRankRunsToItsBudgetAndStops) {
  RunSettings run = probe_run(3, 2, 600);
  Trainer trainer(std::make_shared<ProbeAlgorithm>(run, 10),
                  fixtures::unevaluated(run, "async_multi_actor_single_learner"),
                  parallel::SelfCommunicator::create());
  Summary s = trainer.train();
  EXPECT_EQ(s.stop_reason, "budget");
  EXPECT_GE(s.env_steps, 600);
  // Each update takes one rollout (20 steps) from each actor that has one waiting: at least one.
  EXPECT_GE(s.updates, 600 / 60);
  EXPECT_LE(s.updates, 600 / 20);
  for (const auto& logs : trainer.history()) EXPECT_EQ(std::fmod(logs.at("env_steps"), 20.0), 0.0);
}

// Episodes run one at a time with Env, seeded as the evaluator seeds its environments.
TEST(RlEvaluator, MatchesEpisodesPlayedOneByOne) {
  auto policy = [](const Tensor& obs) {  // push the cart towards the pole's lean
    const int64_t n = obs.shape(0);
    std::vector<int64_t> a(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) a[size_t(i)] = obs.data<float>()[i * 4 + 2] > 0 ? 1 : 0;
    return from_vector(a, {n});
  };
  Evaluation e = evaluate(policy, "CartPole-v1", -1, 7, 3, 50);
  ASSERT_EQ(e.returns.size(), 7u);
  std::vector<double> expected;
  for (int64_t i = 0; i < 3; ++i) {
    auto env = make("CartPole-v1");
    std::vector<float> obs = env->reset(50 + uint64_t(i)).obs;
    for (int64_t k = 0; k < (i == 0 ? 3 : 2); ++k) {  // 7 = 3 + 2 + 2 episodes
      if (k > 0) obs = env->reset().obs;
      double ret = 0;
      for (;;) {
        StepResult r = env->step(policy(from_vector(obs, {1, 4})).data<int64_t>()[0]);
        ret += r.reward;
        obs = r.obs;
        if (r.terminated || r.truncated) break;
      }
      expected.push_back(ret);
    }
  }
  std::vector<double> got = e.returns;
  std::sort(got.begin(), got.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(got, expected);
  double mean = 0;
  for (double r : expected) mean += r / 7;
  EXPECT_NEAR(e.mean_return(), mean, 1e-9);
}

TEST(RlTrainer, WritesHistoryAndCheckpointsAndResumes) {
  const auto dir = fresh_dir("files");
  RunSettings run = probe_run(1, 2, 2 * 4 * 6);  // 6 updates of 4 steps
  TrainerSettings s = fixtures::unevaluated(run, "single_process");
  s.checkpoint.dir = dir.string();
  s.checkpoint.every = 2;
  s.evaluation.episodes = 3;
  s.evaluation.envs = 3;
  s.evaluation.every_steps = 16;
  std::vector<std::string> lines;
  Trainer first(std::make_shared<ProbeAlgorithm>(run, 4), s, parallel::SelfCommunicator::create());
  first.progress = [&](const std::string& l) { lines.push_back(l); };
  first.callback = [](int64_t update, const train::Logs&) { return update < 2; };  // stop after the third
  Summary a = first.train();
  EXPECT_EQ(a.stop_reason, "callback");
  EXPECT_EQ(a.updates, 3);
  ASSERT_TRUE(a.evaluation.has_value());
  EXPECT_FALSE(lines.empty());
  // Evaluations after 16 steps (update 2) and at the end (update 3).
  EXPECT_TRUE(std::isnan(first.history()[0].at("eval_return")));
  EXPECT_FALSE(std::isnan(first.history()[1].at("eval_return")));
  EXPECT_FALSE(std::isnan(first.history()[2].at("eval_return")));
  std::ifstream csv(dir / "history.csv");
  int rows = 0;
  for (std::string line; std::getline(csv, line);) ++rows;
  EXPECT_EQ(rows, 1 + 3);
  nn::CheckpointData data = nn::read_checkpoint((dir / "checkpoint.h5").string());
  EXPECT_EQ(data.epoch, 3);
  EXPECT_EQ(data.step, 24);

  Trainer second(std::make_shared<ProbeAlgorithm>(run, 4), s, parallel::SelfCommunicator::create());
  second.resume((dir / "checkpoint.h5").string());
  EXPECT_EQ(weights_of(second), weights_of(first));
  Summary b = second.train();
  EXPECT_EQ(b.stop_reason, "budget");
  EXPECT_EQ(b.updates, 6);
  EXPECT_EQ(b.env_steps, 48);
  std::ifstream csv2(dir / "history.csv");
  rows = 0;
  for (std::string line; std::getline(csv2, line);) ++rows;
  EXPECT_EQ(rows, 1 + 6);
  std::filesystem::remove_all(dir);
}

TEST(RlTrainer, AFailingActorEndsTheRunWithItsError) {
  for (const char* policy : {"single_process", "async_multi_actor_single_learner"}) {
    RunSettings run = probe_run(2, 2, int64_t(1) << 40);  // only the failure can end it
    Trainer t(std::make_shared<FaultyProbe>(run, FaultyProbe::Fault::Raise), fixtures::unevaluated(run, policy),
              parallel::SelfCommunicator::create());
    expect_error_naming<ValueError>([&] { t.train(); }, {"deliberate failure in actor 1"});
  }
}

TEST(RlTrainer, SigintStopsCleanlyWithFilesWritten) {
  const auto dir = fresh_dir("sigint");
  RunSettings run = probe_run(1, 2, 1000000);
  TrainerSettings s = fixtures::unevaluated(run, "single_process");
  s.checkpoint.dir = dir.string();
  Trainer t(std::make_shared<ProbeAlgorithm>(run, 4), s, parallel::SelfCommunicator::create());
  t.callback = [](int64_t update, const train::Logs&) {
    if (update == 2) std::raise(SIGINT);  // as Ctrl-C would
    return true;
  };
  Summary sum = t.train();
  EXPECT_EQ(sum.stop_reason, "interrupted");
  EXPECT_EQ(sum.updates, 3);
  EXPECT_EQ(nn::read_checkpoint((dir / "checkpoint.h5").string()).epoch, 3);
  std::filesystem::remove_all(dir);
}
