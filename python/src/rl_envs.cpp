// spire._C._rl: Gymnasium-style environments and spaces (reinforcement/envs). Observations are
// NumPy float32 arrays; actions are Python/NumPy ints (Discrete) or float32 array-likes (Box).
#include <pybind11/functional.h>

#include "common.h"
#include "rl_convert.h"
#include "reinforcement/envs/classic_control.h"
#include "reinforcement/envs/env.h"

namespace spire::python {
namespace {
using rl::Env;
using rl::Space;

py::array_t<float> to_numpy(const std::vector<float>& v, const std::vector<int64_t>& shape) {
  std::vector<py::ssize_t> dims(shape.begin(), shape.end());
  py::array_t<float> a(dims);
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

// A Box action as float32 values (Gymnasium's action dtype), shape checked against the space.
std::vector<float> box_action(const Env& env, py::handle a) {
  auto arr = py::array_t<float, py::array::forcecast>::ensure(a);
  SPIRE_CHECK(arr, DTypeError, env.id(), ".step: the action must be an array-like of floats for ",
              env.action_space().to_string(), ", got ", type_name(a));
  const auto& shape = env.action_space().shape();
  bool same = arr.ndim() == static_cast<py::ssize_t>(shape.size());
  for (size_t i = 0; same && i < shape.size(); ++i) same = arr.shape(i) == shape[i];
  // A scalar stands for a one-element action, as NumPy broadcasting lets Gymnasium take it.
  SPIRE_CHECK(same || (arr.ndim() == 0 && env.action_space().size() == 1), ShapeError, env.id(),
              ".step: the action has shape ", py::str(py::tuple(py::cast(std::vector<py::ssize_t>(arr.shape(), arr.shape() + arr.ndim())))).cast<std::string>(),
              "; ", env.action_space().to_string(), " needs ", py::str(py::tuple(py::cast(shape))).cast<std::string>());
  return std::vector<float>(arr.data(), arr.data() + arr.size());
}

int64_t discrete_action(const Env& env, py::handle a) {
  if (py::isinstance<py::array>(a) && py::cast<py::array>(a).ndim() == 0) a = a.attr("item")();
  SPIRE_CHECK(!py::isinstance<py::float_>(a) && py::hasattr(a, "__index__"), DTypeError, env.id(),
              ".step: the action must be an int in ", env.action_space().to_string(), ", got ", type_name(a));
  return py::cast<int64_t>(py::reinterpret_steal<py::int_>(PyNumber_Index(a.ptr())));
}

py::tuple step(Env& env, py::handle action) {
  std::vector<float> obs(static_cast<size_t>(env.observation_space().size()));
  rl::Transition t;
  if (env.action_space().is_discrete()) {
    int64_t a = discrete_action(env, action);
    t = env.step_into(a, obs);
  } else {
    auto a = box_action(env, action);
    t = env.step_into(std::span<const float>(a), obs);
  }
  return py::make_tuple(to_numpy(obs, env.observation_space().shape()), t.reward, t.terminated, t.truncated, py::dict());
}
}  // namespace

void bind_rl(py::module_& m) {
  auto rl = m.def_submodule("_rl", "Gymnasium-style environments (reinforcement/envs)");

  py::class_<Space>(rl, "Space")
      .def_property_readonly("is_box", &Space::is_box)
      .def_property_readonly("is_discrete", &Space::is_discrete)
      .def_property_readonly("low", [](const Space& s) { return to_numpy(s.low(), s.shape()); })
      .def_property_readonly("high", [](const Space& s) { return to_numpy(s.high(), s.shape()); })
      .def_property_readonly("shape", [](const Space& s) {
        return s.is_box() ? py::tuple(py::cast(s.shape())) : py::tuple();
      })
      .def_property_readonly("n", &Space::n)
      .def_property_readonly("start", &Space::start)
      .def("seed", [](Space& s, py::handle seed) { s.seed(to_seed(seed, "Space.seed")); }, py::arg("seed") = py::none())
      .def("sample", [](Space& s) -> py::object {
        if (s.is_discrete()) return py::int_(s.sample_discrete());
        return to_numpy(s.sample_box(), s.shape());
      })
      .def("contains", [](const Space& s, py::handle x) -> bool {
        if (s.is_discrete()) {
          if (py::isinstance<py::array>(x) && py::cast<py::array>(x).ndim() == 0) x = x.attr("item")();
          if (py::isinstance<py::float_>(x) || py::isinstance<py::bool_>(x) || !py::hasattr(x, "__index__")) return false;
          return s.contains(py::cast<int64_t>(py::reinterpret_steal<py::int_>(PyNumber_Index(x.ptr()))));
        }
        auto arr = py::array_t<float, py::array::forcecast>::ensure(x);
        if (!arr || arr.ndim() != static_cast<py::ssize_t>(s.shape().size())) return false;
        for (size_t i = 0; i < s.shape().size(); ++i) if (arr.shape(i) != s.shape()[i]) return false;
        return s.contains(std::span<const float>(arr.data(), static_cast<size_t>(arr.size())));
      })
      .def("__repr__", &Space::to_string);
  rl.def("box", [](py::array_t<float, py::array::forcecast> low, py::array_t<float, py::array::forcecast> high) {
    SPIRE_CHECK(low.ndim() == high.ndim(), ShapeError, "Box: low has ", low.ndim(), " dimensions and high ", high.ndim());
    std::vector<int64_t> shape(low.shape(), low.shape() + low.ndim());
    for (py::ssize_t i = 0; i < low.ndim(); ++i)
      SPIRE_CHECK(low.shape(i) == high.shape(i), ShapeError, "Box: low and high differ in shape at dimension ", i);
    return Space::box(std::vector<float>(low.data(), low.data() + low.size()),
                      std::vector<float>(high.data(), high.data() + high.size()), shape);
  }, py::arg("low"), py::arg("high"));
  rl.def("discrete", &Space::discrete, py::arg("n"), py::arg("start") = 0);

  py::class_<Env>(rl, "Env")
      .def("reset", [](Env& env, py::handle seed, py::handle options) {
        auto r = env.reset(to_seed(seed, env.id() + ".reset"), to_options(options, env.id() + ".reset"));
        return py::make_tuple(to_numpy(r.obs, env.observation_space().shape()), py::dict());
      }, py::kw_only(), py::arg("seed") = py::none(), py::arg("options") = py::none())
      .def("step", &step, py::arg("action"))
      .def_property_readonly("id", &Env::id)
      .def_property_readonly("observation_space", py::overload_cast<>(&Env::observation_space), py::return_value_policy::reference_internal)
      .def_property_readonly("action_space", py::overload_cast<>(&Env::action_space), py::return_value_policy::reference_internal)
      .def_property("max_episode_steps", &Env::max_episode_steps, &Env::set_max_episode_steps)
      .def_property_readonly("elapsed_steps", &Env::elapsed_steps)
      .def_property_readonly("state", [](const Env& env) { return env.state(); })
      .def("set_state", [](Env& env, const std::vector<double>& s) { env.set_state(s); }, py::arg("state"))
      .def("clone", &Env::clone)
      .def("__repr__", [](const Env& env) { return "<" + env.id() + ">"; });

  py::class_<rl::CartPoleEnv, Env>(rl, "CartPoleEnv").def(py::init<bool>(), py::arg("sutton_barto_reward") = false);
  py::class_<rl::AcrobotEnv, Env>(rl, "AcrobotEnv").def(py::init<>());
  py::class_<rl::MountainCarEnv, Env>(rl, "MountainCarEnv").def(py::init<double>(), py::arg("goal_velocity") = 0.0);
  py::class_<rl::ContinuousMountainCarEnv, Env>(rl, "ContinuousMountainCarEnv")
      .def(py::init<double>(), py::arg("goal_velocity") = 0.0);
  py::class_<rl::PendulumEnv, Env>(rl, "PendulumEnv").def(py::init<double>(), py::arg("g") = 10.0);

  rl.def("make", [](const std::string& id, std::optional<int64_t> max_episode_steps) {
    return rl::make(id, max_episode_steps ? *max_episode_steps : -1);
  }, py::arg("id"), py::arg("max_episode_steps") = py::none());
  rl.def("registered_ids", &rl::registered_ids);

  bind_rl_vector(rl);
  bind_rl_games(rl);
  bind_rl_mcts(rl);
  bind_rl_alphazero(rl);
  bind_rl_agents(rl);
}

}  // namespace spire::python
