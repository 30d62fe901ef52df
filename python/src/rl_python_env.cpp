#include "rl_python_env.h"

#include <algorithm>

#include "engine/core/error.h"

namespace spire::python {
namespace {
using rl::Space;

// A gymnasium space as a spire one: Box with a floating dtype (bounds to float32) or Discrete.
Space convert_space(py::handle space, const char* which) {
  auto spaces = py::module_::import("gymnasium.spaces");
  if (py::isinstance(space, spaces.attr("Discrete")))
    return Space::discrete(py::cast<int64_t>(space.attr("n")), py::cast<int64_t>(space.attr("start")));
  if (py::isinstance(space, spaces.attr("Box"))) {
    auto kind = py::cast<std::string>(py::dtype::from_args(space.attr("dtype")).attr("kind"));
    SPIRE_CHECK(kind == "f", ValueError, "from_gymnasium: the ", which, " space ", py::str(space).cast<std::string>(),
                " has a non-floating dtype; spire's Box holds float32 (allowed: Box with a float dtype, Discrete)");
    auto low = py::array_t<float, py::array::forcecast | py::array::c_style>::ensure(space.attr("low"));
    auto high = py::array_t<float, py::array::forcecast | py::array::c_style>::ensure(space.attr("high"));
    auto shape = py::cast<std::vector<int64_t>>(space.attr("shape"));
    return Space::box(std::vector<float>(low.data(), low.data() + low.size()),
                      std::vector<float>(high.data(), high.data() + high.size()), shape);
  }
  SPIRE_CHECK(false, ValueError, "from_gymnasium: the ", which, " space is ", py::str(space).cast<std::string>(),
              "; spire environments take Box observations and Box or Discrete actions");
  return Space::discrete(1);
}

std::string env_id(py::handle env) {
  py::object spec = py::getattr(env, "spec", py::none());
  if (!spec.is_none() && !py::getattr(spec, "id", py::none()).is_none()) return py::cast<std::string>(spec.attr("id"));
  return type_name(env);
}
}  // namespace

GymnasiumEnv::GymnasiumEnv(std::string id, Space observation_space, Space action_space, py::object env)
    : Env(std::move(id), std::move(observation_space), std::move(action_space)),
      env_(new py::object(std::move(env))),
      last_obs_(static_cast<size_t>(this->observation_space().size()), 0.0f) {}

GymnasiumEnv::GymnasiumEnv(const GymnasiumEnv& other)
    : Env(other), env_(nullptr), next_seed_(other.next_seed_), last_obs_(other.last_obs_) {
  py::gil_scoped_acquire gil;
  env_ = new py::object(py::module_::import("copy").attr("deepcopy")(*other.env_));
}

std::unique_ptr<GymnasiumEnv> GymnasiumEnv::wrap(py::object env) {
  SPIRE_CHECK(py::hasattr(env, "reset") && py::hasattr(env, "step") && py::hasattr(env, "observation_space") &&
                  py::hasattr(env, "action_space"),
              DTypeError, "from_gymnasium: expected a gymnasium.Env (reset, step, observation_space, action_space), got ",
              type_name(env));
  auto obs = convert_space(env.attr("observation_space"), "observation");
  SPIRE_CHECK(obs.is_box(), ValueError, "from_gymnasium: the observation space is ", obs.to_string(),
              "; spire environments take Box observations (and Box or Discrete actions)");
  auto act = convert_space(env.attr("action_space"), "action");
  std::string id = env_id(env);
  return std::unique_ptr<GymnasiumEnv>(new GymnasiumEnv(id, std::move(obs), std::move(act), std::move(env)));
}

GymnasiumEnv::~GymnasiumEnv() {
  if (!env_) return;
  if (Py_IsInitialized()) {
    py::gil_scoped_acquire gil;
    delete env_;
  }
  // At interpreter exit the object goes with the interpreter.
}

py::object GymnasiumEnv::python_env() const { return *env_; }

std::vector<double> GymnasiumEnv::state() const {
  SPIRE_CHECK(false, ValueError, id(), ": state() is not available for a wrapped Gymnasium environment (its state lives "
              "in Python; use clone() to copy it, or read the Python environment)");
  return {};
}

size_t GymnasiumEnv::state_size() const {
  SPIRE_CHECK(false, ValueError, id(), ": set_state() is not available for a wrapped Gymnasium environment (its state "
              "lives in Python; use clone() to copy it)");
  return 0;
}

void GymnasiumEnv::do_set_state(std::span<const double>) { state_size(); }

std::unique_ptr<rl::Env> GymnasiumEnv::clone() const { return std::unique_ptr<rl::Env>(new GymnasiumEnv(*this)); }

void GymnasiumEnv::copy_observation(py::handle obs, std::span<float> out, const char* who) {
  auto a = py::array_t<float, py::array::forcecast | py::array::c_style>::ensure(obs);
  SPIRE_CHECK(a && static_cast<size_t>(a.size()) == out.size(), ShapeError, id(), ".", who,
              ": the Python environment returned an observation of ", a ? a.size() : 0, " values; ",
              observation_space().to_string(), " has ", out.size());
  std::copy(a.data(), a.data() + a.size(), out.begin());
  std::copy(out.begin(), out.end(), last_obs_.begin());
}

void GymnasiumEnv::do_reset(rl::Generator&, const rl::ResetOptions& options, std::span<float> obs) {
  py::gil_scoped_acquire gil;
  py::object seed = next_seed_ ? py::object(py::int_(*next_seed_)) : py::object(py::none());
  next_seed_.reset();
  py::object opts = py::none();
  if (!options.empty()) opts = py::cast(options);
  py::object r = env_->attr("reset")(py::arg("seed") = seed, py::arg("options") = opts);
  SPIRE_CHECK(py::isinstance<py::tuple>(r) && py::len(r) == 2, ValueError, id(),
              ".reset: the Python environment must return (obs, info), as Gymnasium 1.0");
  copy_observation(r[py::int_(0)], obs, "reset");
}

rl::Transition GymnasiumEnv::do_step(int64_t discrete, std::span<const float> box, std::span<float> obs) {
  py::gil_scoped_acquire gil;
  py::object action;
  if (action_space().is_discrete()) {
    action = py::int_(discrete);
  } else {
    const auto& shape = action_space().shape();
    py::array_t<float> a(std::vector<py::ssize_t>(shape.begin(), shape.end()));
    std::copy(box.begin(), box.end(), a.mutable_data());
    action = std::move(a);
  }
  py::object r = env_->attr("step")(action);
  SPIRE_CHECK(py::isinstance<py::tuple>(r) && py::len(r) == 5, ValueError, id(),
              ".step: the Python environment must return (obs, reward, terminated, truncated, info), as Gymnasium 1.0");
  py::tuple t = r;
  copy_observation(t[0], obs, "step");
  rl::Transition out;
  out.reward = py::cast<double>(t[1]);
  out.terminated = py::cast<bool>(t[2]);
  out.truncated = py::cast<bool>(t[3]);
  return out;
}

void GymnasiumEnv::write_observation(std::span<float> obs) const { std::copy(last_obs_.begin(), last_obs_.end(), obs.begin()); }

}  // namespace spire::python
