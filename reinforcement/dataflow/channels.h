// The edges of a run's graph. Each channel has one end on the learner's rank and the other in every
// actor; an actor on the learner's rank talks through an in-process queue, an actor elsewhere
// through MPI messages (messages.h), and neither end knows which.
//
// Trajectories (actors -> learner): receive() hands the learner at most one trajectory per actor,
// in actor order, so that a learner keeping per-environment state (n-step returns) sees each
// environment's steps in order. Parameters (learner -> actors): the learner publishes; each rank
// keeps the newest in one slot that its actor threads read (a rank's relay thread receives them
// from the learner's rank).
//
// Shutdown: the learner publishes with kStop; each actor then says goodbye (kBye) and ends, and
// the learner drains until every actor has, so that no message is left in flight. An actor that
// wants the run to end (it caught SIGINT) sets kStopRequest on its trajectory.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "engine/parallel/communicator.h"
#include "reinforcement/dataflow/messages.h"
#include "reinforcement/dataflow/policy.h"

namespace spire::rl::dataflow {

enum Flag : int64_t { kStopRequest = 1, kBye = 2, kStop = 4 };

class TrajectoryChannel {
 public:
  TrajectoryChannel(std::shared_ptr<parallel::Communicator> comm, const Placement& placement);
  // Actor side, from the actor's thread.
  void send(const Trajectory& t, int64_t flags = 0);
  void bye(int64_t actor);
  // A local actor failed: the learner's receive() rethrows it, naming the actor.
  void fail(int64_t actor, std::exception_ptr error);

  // Learner side: waits until at least `min_actors` actors have a trajectory waiting, then returns
  // one per such actor, in actor order. `flags` collects the received messages' flags.
  std::vector<Trajectory> receive(size_t min_actors, int64_t& flags);
  // Learner side, after publishing kStop: waits for every actor's goodbye, dropping trajectories.
  void drain();

 private:
  struct Arrival {
    Trajectory trajectory;
    int64_t flags = 0;
  };
  // Moves what has arrived (queue and MPI) into waiting_; returns whether anything did.
  bool collect(int64_t& flags);
  void wait_a_little(int& spins);
  std::shared_ptr<parallel::Communicator> comm_;
  Placement placement_;
  std::vector<std::deque<Trajectory>> waiting_;  // per actor
  std::vector<uint8_t> gone_;                    // per actor: said goodbye
  std::vector<std::unique_ptr<MessageReceiver>> remote_;  // per actor (null for local ones)
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<std::pair<int64_t, Arrival>> local_;  // (actor, arrival)
  std::exception_ptr error_;
  int64_t failed_actor_ = -1;
};

class ParameterChannel {
 public:
  struct Latest {
    std::shared_ptr<const Parameters> parameters;
    int64_t flags = 0;
  };
  ParameterChannel(std::shared_ptr<parallel::Communicator> comm, const Placement& placement);
  // Learner side: to every actor.
  void publish(const Parameters& p, int64_t flags = 0);
  // Actor side: the newest parameters newer than version `after` (after = -1: any), waiting for
  // them when `wait`; without waiting, nothing when none newer has come. kStop always returns.
  std::optional<Latest> newest(int64_t after, bool wait);
  // A rank that hosts actors but not the learner: receives the learner's messages into the local
  // slot until kStop.
  void relay();
  // Ends this rank's actors (after their rollout) without telling other ranks: for a failing run.
  void stop_local();

 private:
  void store(std::shared_ptr<const Parameters> p, int64_t flags);
  std::shared_ptr<parallel::Communicator> comm_;
  Placement placement_;
  std::mutex mutex_;
  std::condition_variable changed_;
  Latest latest_;
};

// MPI tags of a run's messages; a trajectory's tag is kTrajectoryTag + its actor.
constexpr int kParameterTag = 1, kEnvironmentTag = 2, kTrajectoryTag = 100;

}  // namespace spire::rl::dataflow
