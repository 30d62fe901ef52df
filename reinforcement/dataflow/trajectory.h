// What flows along a run's channels: trajectories from actors to the learner, parameters from the
// learner to the actors. Both are plain tensors with a little bookkeeping, so a channel can carry
// them through a queue in one process or as messages between MPI ranks without knowing the
// algorithm.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::rl::dataflow {

// One named field of a trajectory. Time-major fields are [T, N, ...] (T steps of the actor's N
// environments: env_axis 1); per-environment fields such as the observation to bootstrap from are
// [N, ...] (env_axis 0). Fields of several actors are joined along env_axis, in actor order.
struct Field {
  std::string name;
  Tensor value;
  int env_axis = 1;
};

// Episodes that ended inside a trajectory (terminated or truncated), for statistics.
struct Episodes {
  std::vector<double> returns;
  std::vector<int64_t> lengths;
  void append(const Episodes& other);
};

struct Trajectory {
  int64_t actor = 0;      // the index of the actor that collected it
  int64_t version = 0;    // the version of the parameters it acted with
  int64_t env_steps = 0;  // environment steps it took (every environment's, reset steps included)
  std::vector<Field> fields;
  Episodes episodes;

  // The field's tensor; ValueError naming the field and the ones present when missing.
  const Tensor& operator[](const std::string& name) const;
  bool has(const std::string& name) const;
  void add(std::string name, Tensor value, int env_axis = 1) {
    fields.push_back({std::move(name), std::move(value), env_axis});
  }
};

// The trajectories of several actors as one, as if one actor had stepped all their environments:
// fields joined along their env_axis in the given order (all must have the same fields, in the
// same order, with the same T), env_steps summed, episodes appended, version the oldest, actor
// the first one's. One trajectory is returned as is.
Trajectory join(std::vector<Trajectory> parts);

// What actors act with: the learner's tensors (a network's parameters, in a fixed order), the
// version (the number of updates that made them) and the learner's count of environment steps
// (exploration schedules read it).
struct Parameters {
  int64_t version = 0;
  int64_t env_steps = 0;
  std::vector<Tensor> tensors;
};

}  // namespace spire::rl::dataflow
