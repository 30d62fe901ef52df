#include "reinforcement/envs/env.h"

#include <functional>

#include "engine/core/error.h"
#include "reinforcement/envs/classic_control.h"

namespace spire::rl {

Generator& Env::np_random() {
  if (!rng_) rng_.emplace(Generator::from_entropy());
  return *rng_;
}

void Env::set_max_episode_steps(int64_t steps) {
  SPIRE_CHECK(steps >= 0, ValueError, id_, ": max_episode_steps must be >= 0 (0: no time limit), got ", steps);
  max_episode_steps_ = steps;
}

void Env::check_obs(std::span<float> obs, const char* who) const {
  SPIRE_CHECK(static_cast<int64_t>(obs.size()) == observation_space_.size(), ShapeError, id_, ".", who,
              ": the observation buffer has ", obs.size(), " floats; ", observation_space_.to_string(), " needs ",
              observation_space_.size());
}

void Env::reset_into(std::span<float> obs, std::optional<uint64_t> seed, const ResetOptions& options) {
  check_obs(obs, "reset");
  if (seed) rng_.emplace(*seed);
  on_reset_seed(seed);
  do_reset(np_random(), options, obs);
  elapsed_steps_ = 0;
  needs_reset_ = false;
}

ResetResult Env::reset(std::optional<uint64_t> seed, const ResetOptions& options) {
  ResetResult r;
  r.obs.resize(static_cast<size_t>(observation_space_.size()));
  reset_into(r.obs, seed, options);
  return r;
}

Transition Env::finish(Transition t) {
  ++elapsed_steps_;
  if (max_episode_steps_ > 0 && elapsed_steps_ >= max_episode_steps_) t.truncated = true;
  return t;
}

Transition Env::step_into(int64_t action, std::span<float> obs) {
  SPIRE_CHECK(!needs_reset_, ValueError, id_, ": call reset() before step()");
  SPIRE_CHECK(action_space_.is_discrete(), ValueError, id_, ": the action space is ", action_space_.to_string(),
              "; pass ", action_space_.size(), " float(s), not the integer ", action);
  SPIRE_CHECK(action_space_.contains(action), ValueError, id_, ": action ", action, " is outside ",
              action_space_.to_string(), " (allowed: ", action_space_.start(), " to ",
              action_space_.start() + action_space_.n() - 1, ")");
  check_obs(obs, "step");
  return finish(do_step(action, {}, obs));
}

Transition Env::step_into(std::span<const float> action, std::span<float> obs) {
  SPIRE_CHECK(!needs_reset_, ValueError, id_, ": call reset() before step()");
  SPIRE_CHECK(action_space_.is_box(), ValueError, id_, ": the action space is ", action_space_.to_string(),
              "; pass one integer (", action_space_.start(), " to ", action_space_.start() + action_space_.n() - 1,
              "), not ", action.size(), " float(s)");
  SPIRE_CHECK(static_cast<int64_t>(action.size()) == action_space_.size(), ShapeError, id_, ": the action has ",
              action.size(), " elements; ", action_space_.to_string(), " needs ", action_space_.size());
  check_obs(obs, "step");
  return finish(do_step(0, action, obs));
}

namespace {
// step() for either kind of action: step_into a fresh observation vector.
template <class Action>
StepResult step_returning(Env& env, Action action, int64_t obs_size) {
  StepResult r;
  r.obs.resize(static_cast<size_t>(obs_size));
  auto t = env.step_into(action, r.obs);
  r.reward = t.reward;
  r.terminated = t.terminated;
  r.truncated = t.truncated;
  return r;
}
}  // namespace

StepResult Env::step(int64_t action) { return step_returning(*this, action, observation_space_.size()); }

StepResult Env::step(std::span<const float> action) {
  return step_returning(*this, action, observation_space_.size());
}

void Env::set_state(std::span<const double> state) {
  SPIRE_CHECK(state.size() == state_size(), ShapeError, id_, ".set_state: got ", state.size(), " values; the state has ",
              state_size());
  do_set_state(state);
  needs_reset_ = false;
}

std::vector<float> Env::observation() const {
  SPIRE_CHECK(!needs_reset_, ValueError, id_, ": call reset() before observation()");
  std::vector<float> obs(static_cast<size_t>(observation_space_.size()));
  write_observation(obs);
  return obs;
}

namespace {
struct Entry {
  std::string id;
  int64_t max_episode_steps;
  std::function<std::unique_ptr<Env>()> make;
};
const std::vector<Entry>& registry() {
  // gymnasium/envs/__init__.py: the ids and their TimeLimit max_episode_steps.
  static const std::vector<Entry> entries = {
      {"CartPole-v1", 500, [] { return std::unique_ptr<Env>(new CartPoleEnv()); }},
      {"Acrobot-v1", 500, [] { return std::unique_ptr<Env>(new AcrobotEnv()); }},
      {"MountainCar-v0", 200, [] { return std::unique_ptr<Env>(new MountainCarEnv()); }},
      {"MountainCarContinuous-v0", 999, [] { return std::unique_ptr<Env>(new ContinuousMountainCarEnv()); }},
      {"Pendulum-v1", 200, [] { return std::unique_ptr<Env>(new PendulumEnv()); }},
  };
  return entries;
}
}  // namespace

std::vector<std::string> registered_ids() {
  std::vector<std::string> ids;
  for (auto& e : registry()) ids.push_back(e.id);
  return ids;
}

std::unique_ptr<Env> make(const std::string& id, int64_t max_episode_steps) {
  for (auto& e : registry()) {
    if (e.id != id) continue;
    auto env = e.make();
    env->set_max_episode_steps(max_episode_steps < 0 ? e.max_episode_steps : max_episode_steps);
    return env;
  }
  std::string known;
  for (auto& e : registry()) known += (known.empty() ? "" : ", ") + e.id;
  SPIRE_CHECK(false, ValueError, "make: unknown environment id '", id, "' (known: ", known, ")");
  return nullptr;
}

}  // namespace spire::rl
