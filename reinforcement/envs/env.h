// The environment interface, with Gymnasium's conventions:
//   reset(seed) -> (obs, info); step(action) -> (obs, reward, terminated, truncated, info)
// terminated: the task's own end (the pole fell, the goal was reached); truncated: the time limit
// (Gymnasium's TimeLimit wrapper, built in here: max_episode_steps, 0 for none). Each environment
// owns its np_random (reset(seed) reseeds it exactly as Gymnasium does; reset() without a seed
// continues its stream, from OS entropy the first time).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reinforcement/envs/np_random.h"
#include "reinforcement/envs/spaces.h"

namespace spire::rl {

// Gymnasium's info dict; the classic-control environments return it empty.
using Info = std::map<std::string, double>;
// reset(options=...): the classic-control keys are "low"/"high" (CartPole, Acrobot, MountainCar*)
// and "x_init"/"y_init" (Pendulum).
using ResetOptions = std::map<std::string, double>;

struct ResetResult {
  std::vector<float> obs;
  Info info;
};
struct StepResult {
  std::vector<float> obs;
  double reward = 0;
  bool terminated = false, truncated = false;
  Info info;
};
// The allocation-free form: the observation goes to a caller's buffer.
struct Transition {
  double reward = 0;
  bool terminated = false, truncated = false;
};

class Env {
 public:
  virtual ~Env() = default;

  ResetResult reset(std::optional<uint64_t> seed = std::nullopt, const ResetOptions& options = {});
  // A Discrete action (an int in the action space) or a Box action (float32, the space's size).
  StepResult step(int64_t action);
  StepResult step(std::span<const float> action);
  // Into obs (observation_space().size() floats).
  void reset_into(std::span<float> obs, std::optional<uint64_t> seed = std::nullopt, const ResetOptions& options = {});
  Transition step_into(int64_t action, std::span<float> obs);
  Transition step_into(std::span<const float> action, std::span<float> obs);

  const std::string& id() const { return id_; }
  const Space& observation_space() const { return observation_space_; }
  const Space& action_space() const { return action_space_; }
  Space& action_space() { return action_space_; }
  Space& observation_space() { return observation_space_; }
  int64_t max_episode_steps() const { return max_episode_steps_; }
  void set_max_episode_steps(int64_t steps);
  int64_t elapsed_steps() const { return elapsed_steps_; }
  Generator& np_random();

  // The physical state (Gymnasium's env.unwrapped.state, as float64), and writing it back: for
  // comparisons against other implementations and for search. set_state leaves the step counter.
  virtual std::vector<double> state() const = 0;
  void set_state(std::span<const double> state);
  virtual std::unique_ptr<Env> clone() const = 0;
  // The observation of the current state.
  std::vector<float> observation() const;

 protected:
  Env(std::string id, Space observation_space, Space action_space)
      : id_(std::move(id)), observation_space_(std::move(observation_space)), action_space_(std::move(action_space)) {}
  Env(const Env&) = default;
  // reset's seed, before do_reset: for an environment whose randomness lives outside spire's
  // generator (a wrapped Python environment), which do_reset's rng would not reach.
  virtual void on_reset_seed(std::optional<uint64_t> seed) {}
  // Draws the initial state from rng and writes the observation.
  virtual void do_reset(Generator& rng, const ResetOptions& options, std::span<float> obs) = 0;
  // One transition from the current state; `discrete` for Discrete action spaces, `box` otherwise
  // (already checked for size; values are passed unclipped, as Gymnasium passes them).
  virtual Transition do_step(int64_t discrete, std::span<const float> box, std::span<float> obs) = 0;
  virtual void do_set_state(std::span<const double> state) = 0;
  virtual void write_observation(std::span<float> obs) const = 0;
  virtual size_t state_size() const = 0;

 private:
  std::string id_;
  Space observation_space_, action_space_;
  int64_t max_episode_steps_ = 0;
  int64_t elapsed_steps_ = 0;
  bool needs_reset_ = true;
  std::optional<Generator> rng_;
  void check_obs(std::span<float> obs, const char* who) const;
  Transition finish(Transition t);
};

// gymnasium.make(id): the environment with its registered time limit (max_episode_steps < 0 keeps
// the registered one, 0 removes it). Unknown ids raise ValueError naming the known ones.
std::unique_ptr<Env> make(const std::string& id, int64_t max_episode_steps = -1);
std::vector<std::string> registered_ids();

}  // namespace spire::rl
