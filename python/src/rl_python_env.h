// rl::Env over a Python Gymnasium environment, so that any gymnasium.Env (Box observations, Box or
// Discrete actions) steps wherever a spire environment does: spire.rl.from_gymnasium(env), and
// inside the vector pool. Every call into Python takes the GIL, so a pool's threads step such
// environments one at a time.
#pragma once
#include <optional>

#include "common.h"
#include "reinforcement/envs/env.h"

namespace spire::python {

class GymnasiumEnv : public rl::Env {
 public:
  // Reads and converts env's spaces; other spaces than Box and Discrete raise ValueError. The time
  // limit stays the Python environment's own (max_episode_steps here is 0). Needs the GIL.
  static std::unique_ptr<GymnasiumEnv> wrap(py::object env);
  ~GymnasiumEnv() override;

  // Wrapped environments keep their state in Python: there is none to read or write here.
  std::vector<double> state() const override;
  // copy.deepcopy of the Python environment, with this one's step counter.
  std::unique_ptr<Env> clone() const override;
  py::object python_env() const;

 protected:
  // Env::reset reseeds spire's generator, which the Python environment never reads: the seed is
  // passed on to its reset(seed=...) instead.
  void on_reset_seed(std::optional<uint64_t> seed) override { next_seed_ = seed; }
  void do_reset(rl::Generator& rng, const rl::ResetOptions& options, std::span<float> obs) override;
  rl::Transition do_step(int64_t discrete, std::span<const float> box, std::span<float> obs) override;
  void do_set_state(std::span<const double> state) override;
  void write_observation(std::span<float> obs) const override;
  size_t state_size() const override;

 private:
  GymnasiumEnv(std::string id, rl::Space observation_space, rl::Space action_space, py::object env);
  GymnasiumEnv(const GymnasiumEnv& other);
  void copy_observation(py::handle obs, std::span<float> out, const char* who);

  py::object* env_;  // owned; released with the GIL held
  std::optional<uint64_t> next_seed_;
  std::vector<float> last_obs_;
};

}  // namespace spire::python
