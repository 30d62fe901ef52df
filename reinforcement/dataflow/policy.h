// Distribution policies: where a run's fragments go. A policy maps the fixed graph of a job
// (`actors` actors of `envs_per_actor` environments, one learner) onto the ranks of the world
// communicator and says whether the learner waits for every actor (synchronous) or takes whatever
// has arrived (asynchronous). The runtime (trainer.h) turns each edge into an in-process queue
// when both ends share a rank and into MPI messages when they do not. Algorithms never see this.
//
//   single_process                    everything on one rank; actors on threads; synchronous
//   multi_actor_single_learner        actors in contiguous blocks over all ranks, the learner on
//                                     rank 0; trajectories gathered, parameters sent back; synchronous
//   async_multi_actor_single_learner  the learner alone on rank 0, actors over the other ranks (on
//                                     threads of rank 0 when there is one rank); the learner updates
//                                     with whatever trajectories have arrived and never waits for
//                                     stragglers; actors act with the newest parameters they have
//   single_actor_learner_multi_env    one actor and the learner on rank 0; the actor's environments
//                                     spread over all ranks (stepped where they live); synchronous
//
// Every synchronous policy gives the learner the same trajectories in the same order, so the same
// job gives the same parameters, bit for bit, under each of them and on any number of ranks.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reinforcement/dataflow/fragment.h"

namespace spire::rl::dataflow {

struct Placement {
  int learner_rank = 0;
  std::vector<int> actor_rank;  // the rank of each actor
  bool synchronous = true;
  // Actor 0's environments spread over the ranks: env_rank[j] is where its environment j lives
  // (empty: every actor's environments live with the actor).
  std::vector<int> env_rank;

  // The actors a rank hosts, in index order.
  std::vector<int64_t> actors_on(int rank) const;
  // "learner on rank 0; actors: 0-1 on rank 0, 2-3 on rank 1; synchronous" (and where spread
  // environments live), for progress output.
  std::string describe() const;
};

class DistributionPolicy {
 public:
  virtual ~DistributionPolicy() = default;
  virtual std::string name() const = 0;
  // The placement on `world_size` ranks; ConfigError naming the policy, the job's actors and the
  // ranks when the run does not fit it.
  virtual Placement place(const RunSettings& run, int world_size) const = 0;
};

using PolicyFactory = std::function<std::unique_ptr<DistributionPolicy>()>;
// ConfigError naming the registered policies when `name` is not one.
std::unique_ptr<DistributionPolicy> make_policy(const std::string& name);
void register_policy(const std::string& name, PolicyFactory factory);
std::vector<std::string> registered_policies();

}  // namespace spire::rl::dataflow
