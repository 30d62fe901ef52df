#include "reinforcement/dataflow/policy.h"

#include "engine/core/error.h"
#include "reinforcement/common/named_registry.h"

namespace spire::rl::dataflow {
namespace {

// Actors [0, actors) in contiguous blocks over ranks [first, first + ranks), as even as possible,
// so that gathering rank by rank keeps actor order.
std::vector<int> blocks(int64_t actors, int first, int ranks) {
  std::vector<int> rank_of(static_cast<size_t>(actors));
  for (int64_t a = 0; a < actors; ++a) rank_of[size_t(a)] = first + int(a * ranks / actors);
  return rank_of;
}

class SingleProcess final : public DistributionPolicy {
 public:
  std::string name() const override { return "single_process"; }
  Placement place(const RunSettings& run, int world_size) const override {
    SPIRE_CHECK(world_size == 1, ConfigError, "policy single_process runs on one rank, but the job has ", world_size,
                " ranks; choose multi_actor_single_learner, async_multi_actor_single_learner or "
                "single_actor_learner_multi_env to use them");
    Placement p;
    p.actor_rank.assign(size_t(run.actors), 0);
    return p;
  }
};

class MultiActorSingleLearner final : public DistributionPolicy {
 public:
  std::string name() const override { return "multi_actor_single_learner"; }
  Placement place(const RunSettings& run, int world_size) const override {
    SPIRE_CHECK(run.actors >= world_size, ConfigError, "policy multi_actor_single_learner puts at least one actor on "
                "each rank, but the job has ", run.actors, " actors for ", world_size, " ranks; set actors.count >= ",
                world_size);
    Placement p;
    p.actor_rank = blocks(run.actors, 0, world_size);
    return p;
  }
};

class AsyncMultiActorSingleLearner final : public DistributionPolicy {
 public:
  std::string name() const override { return "async_multi_actor_single_learner"; }
  Placement place(const RunSettings& run, int world_size) const override {
    Placement p;
    p.synchronous = false;
    if (world_size == 1) {
      p.actor_rank.assign(size_t(run.actors), 0);
      return p;
    }
    SPIRE_CHECK(run.actors >= world_size - 1, ConfigError, "policy async_multi_actor_single_learner keeps rank 0 for "
                "the learner and puts at least one actor on each other rank, but the job has ", run.actors,
                " actors for ", world_size - 1, " actor ranks; set actors.count >= ", world_size - 1);
    p.actor_rank = blocks(run.actors, 1, world_size - 1);
    return p;
  }
};

class SingleActorLearnerMultiEnv final : public DistributionPolicy {
 public:
  std::string name() const override { return "single_actor_learner_multi_env"; }
  Placement place(const RunSettings& run, int world_size) const override {
    SPIRE_CHECK(run.actors == 1, ConfigError, "policy single_actor_learner_multi_env has one actor, but the job has ",
                run.actors, "; set actors.count = 1");
    SPIRE_CHECK(run.envs_per_actor >= world_size, ConfigError, "policy single_actor_learner_multi_env puts at least "
                "one environment on each rank, but the job has ", run.envs_per_actor, " environments for ", world_size,
                " ranks; set env.envs_per_actor >= ", world_size);
    Placement p;
    p.actor_rank = {0};
    if (world_size > 1) p.env_rank = blocks(run.envs_per_actor, 0, world_size);
    return p;
  }
};

NamedRegistry<PolicyFactory>& registry() {
  static NamedRegistry<PolicyFactory> r(
      "distribution policy",
      {{"single_process", [] { return std::make_unique<SingleProcess>(); }},
       {"multi_actor_single_learner", [] { return std::make_unique<MultiActorSingleLearner>(); }},
       {"async_multi_actor_single_learner", [] { return std::make_unique<AsyncMultiActorSingleLearner>(); }},
       {"single_actor_learner_multi_env", [] { return std::make_unique<SingleActorLearnerMultiEnv>(); }}});
  return r;
}

}  // namespace

std::vector<int64_t> Placement::actors_on(int rank) const {
  std::vector<int64_t> out;
  for (size_t a = 0; a < actor_rank.size(); ++a)
    if (actor_rank[a] == rank) out.push_back(int64_t(a));
  return out;
}

namespace {

// "what: 0-1 on rank 0, 2-3 on rank 1" for a non-decreasing rank per item.
std::string ranges_by_rank(const char* what, const std::vector<int>& rank_of) {
  std::string s = std::string(what) + ":";
  for (size_t i = 0; i < rank_of.size();) {
    size_t j = i;
    while (j + 1 < rank_of.size() && rank_of[j + 1] == rank_of[i]) ++j;
    s += detail::cat(i ? ", " : " ", i, j > i ? "-" + std::to_string(j) : "", " on rank ", rank_of[i]);
    i = j + 1;
  }
  return s;
}

}  // namespace

std::string Placement::describe() const {
  std::string s = detail::cat("learner on rank ", learner_rank, "; ", ranges_by_rank("actors", actor_rank));
  if (!env_rank.empty()) s += "; " + ranges_by_rank("actor 0's environments", env_rank);
  return s + (synchronous ? "; synchronous" : "; asynchronous");
}

std::unique_ptr<DistributionPolicy> make_policy(const std::string& name) {
  PolicyFactory factory;
  try {
    factory = registry().find(name);
  } catch (const ValueError& e) {
    throw ConfigError(e.what());
  }
  return factory();
}

void register_policy(const std::string& name, PolicyFactory factory) { registry().add(name, std::move(factory)); }

std::vector<std::string> registered_policies() { return registry().names(); }

}  // namespace spire::rl::dataflow
