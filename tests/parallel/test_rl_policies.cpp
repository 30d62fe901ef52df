// Reinforcement-learning dataflow on 1, 2 and 4 ranks: trajectories and parameters as MPI
// messages, the synchronous policies giving the single-process run's parameters bit for bit (each
// rank computes that reference alone, on a communicator of its own), the environments of one actor
// spread over ranks, and the asynchronous policy ending cleanly at its budget on every rank.
#include <gtest/gtest.h>

#include "engine/parallel/runtime.h"
#include "reinforcement/agents/job.h"
#include "engine/parallel/self_communicator.h"
#include "reinforcement/dataflow/channels.h"
#include "reinforcement/dataflow/trainer.h"
#include "tests/common/rl_probe_algorithm.h"
#include "tests/common/rl_settings.h"
#include "tests/common/same_bits.h"

using namespace spire;
using namespace spire::rl;
using namespace spire::rl::dataflow;
using spire::rl::fixtures::ProbeAlgorithm;
using spire::rl::fixtures::ProbeLearner;

namespace {

parallel::Communicator& W() { return parallel::world(); }

// actors x envs environments, `updates` rounds of `steps` steps each.
RunSettings run_of(int64_t actors, int64_t envs, int64_t updates, int64_t steps) {
  return fixtures::cartpole_run(actors, envs, 11, actors * envs * steps * updates);
}

// The learner's weights after a run of `policy` on `comm` (empty on ranks without the learner).
std::vector<double> run_probe(const RunSettings& run, int64_t steps, const std::string& policy,
                              std::shared_ptr<parallel::Communicator> comm) {
  Trainer t(std::make_shared<ProbeAlgorithm>(run, steps), fixtures::unevaluated(run, policy), std::move(comm));
  Summary s = t.train();
  if (!t.is_learner()) return {};
  EXPECT_EQ(s.stop_reason, "budget");
  EXPECT_EQ(s.env_steps, run.total_steps);
  return static_cast<ProbeLearner*>(t.learner())->weights();
}

}  // namespace

TEST(RlMessages, TrajectoriesAndParametersCrossRanksWhole) {
  if (W().size() < 2 || W().rank() > 1) return;
  Trajectory t;
  t.actor = 3, t.version = 7, t.env_steps = 12;
  t.add("obs", from_vector(std::vector<float>{1.5f, -2, 3, 4, 5, 6}, {1, 2, 3}));
  t.add("actions", from_vector(std::vector<int64_t>{4, -9}, {1, 2}));
  t.add("values", from_vector(std::vector<double>{0.25, 1e-300}, {1, 2}));
  t.add("empty", zeros({0, 2}));
  t.add("last", from_vector(std::vector<float>{7, 8}, {2}), 0);
  t.episodes.returns = {500, 9.5};
  t.episodes.lengths = {500, 10};
  if (W().rank() == 0) {
    send_message(W(), to_message(t, kStopRequest), 1, 9);
    Parameters p;
    p.version = 4, p.env_steps = 99;
    p.tensors = {from_vector(std::vector<float>{1, 2, 3}, {3}), from_vector(std::vector<double>{5}, {1, 1})};
    send_message(W(), to_message(p, kStop), 1, 10);
    return;
  }
  MessageReceiver receiver(W(), 0, 9);
  std::optional<Message> m;
  while (!(m = receiver.poll())) {
  }
  int64_t flags = 0;
  Trajectory got = trajectory_from(*m, &flags);
  EXPECT_EQ(flags, kStopRequest);
  EXPECT_EQ(got.actor, 3);
  EXPECT_EQ(got.version, 7);
  EXPECT_EQ(got.env_steps, 12);
  ASSERT_EQ(got.fields.size(), t.fields.size());
  for (size_t i = 0; i < t.fields.size(); ++i) {
    EXPECT_EQ(got.fields[i].name, t.fields[i].name);
    EXPECT_EQ(got.fields[i].env_axis, t.fields[i].env_axis);
    EXPECT_EQ(got.fields[i].value.dtype(), t.fields[i].value.dtype());
    EXPECT_EQ(got.fields[i].value.shape(), t.fields[i].value.shape());
    EXPECT_EQ(got.fields[i].value.to_vector(), t.fields[i].value.to_vector());
  }
  EXPECT_EQ(got.episodes.returns, t.episodes.returns);
  EXPECT_EQ(got.episodes.lengths, t.episodes.lengths);
  Parameters p = parameters_from(recv_message(W(), 0, 10), &flags);
  EXPECT_EQ(flags, kStop);
  EXPECT_EQ(p.version, 4);
  EXPECT_EQ(p.env_steps, 99);
  ASSERT_EQ(p.tensors.size(), 2u);
  EXPECT_EQ(p.tensors[1].shape(), (Shape{1, 1}));
  EXPECT_EQ(p.tensors[1].to_vector(), (std::vector<double>{5}));
}

// Four actors of three environments: on one rank, two ranks (two actors each) or four (one each),
// the learner ends with the same bits.
TEST(RlPolicies, MultiActorSingleLearnerEqualsSingleProcessBitForBit) {
  RunSettings run = run_of(4, 3, 5, 6);
  std::vector<double> reference = run_probe(run, 6, "single_process", parallel::SelfCommunicator::create());
  std::vector<double> got = run_probe(run, 6, "multi_actor_single_learner", parallel::world_ptr());
  if (W().rank() == 0) EXPECT_EQ(got, reference);
  else EXPECT_TRUE(got.empty());
}

// One actor whose five environments live on every rank gives the single-process run's bits.
TEST(RlPolicies, SingleActorLearnerMultiEnvEqualsSingleProcessBitForBit) {
  RunSettings run = run_of(1, 5, 4, 7);
  std::vector<double> reference = run_probe(run, 7, "single_process", parallel::SelfCommunicator::create());
  std::vector<double> got = run_probe(run, 7, "single_actor_learner_multi_env", parallel::world_ptr());
  if (W().rank() == 0) EXPECT_EQ(got, reference);
}

// The asynchronous learner takes whatever has arrived; every rank leaves train() once the budget
// is spent (no message left in flight, no rank left waiting).
TEST(RlPolicies, AsyncMultiActorSingleLearnerStopsOnEveryRank) {
  const int64_t actors = std::max(1, W().size() - 1) * 2;
  RunSettings run = run_of(actors, 2, 10, 8);
  Trainer t(std::make_shared<ProbeAlgorithm>(run, 8), fixtures::unevaluated(run, "async_multi_actor_single_learner"),
            parallel::world_ptr());
  Summary s = t.train();
  if (t.is_learner()) {
    EXPECT_EQ(s.stop_reason, "budget");
    EXPECT_GE(s.env_steps, run.total_steps);
    EXPECT_GE(s.updates, run.total_steps / (actors * 16));
  }
  W().barrier();
}

namespace {

// The learner's state after a run of the job under `policy` on `comm` (empty off the learner's rank).
optim::StateDict run_job(const std::string& text, const std::string& policy,
                         std::shared_ptr<parallel::Communicator> comm) {
  rl::agents::Job job = rl::agents::parse_job(text, "test job", policy);
  Trainer t(job.instance, job.settings, std::move(comm));
  t.train();
  return t.is_learner() ? t.learner()->state_dict() : optim::StateDict();
}

// Four actors of two environments each (a global environment index seeds each), three updates.
const char* kPpoJob = R"(algorithm = "ppo"
seed = 5
[env]
id = "CartPole-v1"
envs_per_actor = 2
[actors]
count = 4
[run]
total_steps = 192
[evaluation]
episodes = 0
[ppo]
n_steps = 8
batch_size = 16
n_epochs = 2
)";

const char* kDqnJob = R"(algorithm = "dqn"
seed = 6
[env]
id = "CartPole-v1"
envs_per_actor = 1
[actors]
count = 4
[run]
total_steps = 320
[evaluation]
episodes = 0
[dqn]
learning_starts = 32
train_freq = 16
gradient_steps = 4
batch_size = 16
target_update_interval = 64
n_step = 3
prioritized = true
dueling = true
)";

}  // namespace

// The issue's check: the same job under any synchronous policy, on 1, 2 or 4 ranks, gives the
// learner the same parameters (and optimizer state, replay buffer, generators), bit for bit.
TEST(RlPolicies, PpoAndDqnAreBitwiseEqualUnderEverySynchronousPolicy) {
  for (const char* job : {kPpoJob, kDqnJob}) {
    optim::StateDict reference = run_job(job, "single_process", parallel::SelfCommunicator::create());
    optim::StateDict got = run_job(job, "multi_actor_single_learner", parallel::world_ptr());
    if (W().rank() == 0) fixtures::expect_same_state(got, reference);
  }
  // One actor whose environments are spread over the ranks.
  std::string one = std::string(kPpoJob);
  one.replace(one.find("envs_per_actor = 2"), 18, "envs_per_actor = 8");
  one.replace(one.find("count = 4"), 9, "count = 1");
  optim::StateDict reference = run_job(one, "single_process", parallel::SelfCommunicator::create());
  optim::StateDict got = run_job(one, "single_actor_learner_multi_env", parallel::world_ptr());
  if (W().rank() == 0) fixtures::expect_same_state(got, reference);
}
