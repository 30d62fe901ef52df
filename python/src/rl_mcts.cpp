// spire._C._rl: batched MCTS (reinforcement/mcts). Searches run in C++ without the GIL; a Python
// evaluator takes it back once per simulation step, for the leaves of every tree together, and sees
// NumPy arrays: observations [n, *shape] float32 and legal masks [n, A] bool.
#include "common.h"
#include "reinforcement/games/bot.h"
#include "reinforcement/mcts/evaluator.h"
#include "reinforcement/mcts/mcts_bot.h"
#include "reinforcement/mcts/search.h"

namespace spire::python {
namespace {
using rl::Evaluator;
using rl::Game;
using rl::Leaves;

// The inputs a Python evaluator sees: observations and legal masks of the leaves.
std::pair<py::array_t<float>, py::array_t<bool>> leaf_arrays(const Leaves& l) {
  const auto n = static_cast<py::ssize_t>(l.states.size());
  std::vector<py::ssize_t> shape{n};
  for (int64_t d : l.states[0]->observation_shape()) shape.push_back(d);
  py::array_t<float> obs(shape);
  const int64_t size = l.states[0]->observation_size();
  py::array_t<bool> legal({n, static_cast<py::ssize_t>(l.num_actions)});
  for (py::ssize_t i = 0; i < n; ++i) {
    l.states[i]->observation(std::span<float>(obs.mutable_data() + i * size, static_cast<size_t>(size)));
    l.states[i]->legal_mask(std::span<uint8_t>(reinterpret_cast<uint8_t*>(legal.mutable_data()) + i * l.num_actions,
                                               static_cast<size_t>(l.num_actions)));
  }
  return {obs, legal};
}

void copy_priors(py::handle out, const Leaves& l, const char* who) {
  auto p = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(out);
  const auto n = static_cast<py::ssize_t>(l.states.size());
  SPIRE_CHECK(p && p.ndim() == 2 && p.shape(0) == n && p.shape(1) == l.num_actions, ShapeError, who,
              " must return priors of shape (", n, ", ", l.num_actions, ") (leaves, actions), got ",
              p ? py::str(py::tuple(py::cast(std::vector<py::ssize_t>(p.shape(), p.shape() + p.ndim())))).cast<std::string>()
                : type_name(out));
  std::copy(p.data(), p.data() + n * l.num_actions, l.priors.begin());
}

void copy_values(py::handle out, const Leaves& l, const char* who) {
  auto v = py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(out);
  const auto n = static_cast<py::ssize_t>(l.states.size());
  SPIRE_CHECK(v && v.size() == n && (v.ndim() == 1 || (v.ndim() == 2 && v.shape(1) == 1)), ShapeError, who,
              " must return values of shape (", n, ",) (one per leaf), got ",
              v ? py::str(py::tuple(py::cast(std::vector<py::ssize_t>(v.shape(), v.shape() + v.ndim())))).cast<std::string>()
                : type_name(out));
  std::copy(v.data(), v.data() + n, l.values.begin());
}

// evaluator(obs, legal) -> (priors, values).
std::shared_ptr<Evaluator> python_evaluator(py::function fn) {
  return std::make_shared<rl::FunctionEvaluator>([fn](const Leaves& l) {
    py::gil_scoped_acquire gil;
    auto [obs, legal] = leaf_arrays(l);
    py::object out = fn(obs, legal);
    SPIRE_CHECK(py::isinstance<py::tuple>(out) && py::len(out) == 2, ValueError,
                "the evaluator must return a tuple (priors [n, A], values [n]), got ", type_name(out));
    copy_priors(out[py::int_(0)], l, "the evaluator");
    copy_values(out[py::int_(1)], l, "the evaluator");
  });
}

// prior(obs, legal) -> priors and value(obs, legal) -> values, either missing: a missing value comes
// from `base` (random rollouts by default), a missing prior is uniform.
std::shared_ptr<Evaluator> split_evaluator(py::object prior, py::object value, std::shared_ptr<Evaluator> base) {
  return std::make_shared<rl::FunctionEvaluator>([prior, value, base](const Leaves& l) {
    if (value.is_none()) {
      base->evaluate(l);
    } else {
      std::fill(l.priors.begin(), l.priors.end(), 1.0f);
    }
    py::gil_scoped_acquire gil;
    auto [obs, legal] = leaf_arrays(l);
    if (!prior.is_none()) copy_priors(prior(obs, legal), l, "prior");
    if (!value.is_none()) copy_values(value(obs, legal), l, "value");
  });
}

py::object proven_object(rl::Proven p) {
  return p == rl::Proven::kUnknown ? py::none() : py::object(py::int_(static_cast<int>(p)));
}

template <class T>
py::array_t<T> to_array(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

std::vector<const Game*> roots_of(const std::vector<Game*>& games) { return {games.begin(), games.end()}; }
}  // namespace

void bind_rl_mcts(py::module_& rl) {
  py::class_<rl::SearchConfig>(rl, "SearchConfig", "MCTS settings (reinforcement/mcts/search.h)")
      .def(py::init<>())
      .def_readwrite("simulations", &rl::SearchConfig::simulations)
      .def_readwrite("selection", &rl::SearchConfig::selection)
      .def_readwrite("c_uct", &rl::SearchConfig::c_uct)
      .def_readwrite("c_puct_init", &rl::SearchConfig::c_puct_init)
      .def_readwrite("c_puct_base", &rl::SearchConfig::c_puct_base)
      .def_readwrite("fpu", &rl::SearchConfig::fpu)
      .def_readwrite("gumbel_max_considered", &rl::SearchConfig::gumbel_max_considered)
      .def_readwrite("gumbel_scale", &rl::SearchConfig::gumbel_scale)
      .def_readwrite("gumbel_maxvisit_init", &rl::SearchConfig::gumbel_maxvisit_init)
      .def_readwrite("gumbel_value_scale", &rl::SearchConfig::gumbel_value_scale)
      .def_readwrite("dirichlet_alpha", &rl::SearchConfig::dirichlet_alpha)
      .def_readwrite("dirichlet_fraction", &rl::SearchConfig::dirichlet_fraction)
      .def_readwrite("solver", &rl::SearchConfig::solver)
      .def_readwrite("reuse", &rl::SearchConfig::reuse)
      .def_readwrite("max_nodes", &rl::SearchConfig::max_nodes)
      .def_readwrite("temperature", &rl::SearchConfig::temperature)
      .def_readwrite("seed", &rl::SearchConfig::seed)
      .def_readwrite("threads", &rl::SearchConfig::threads);

  py::class_<rl::SearchResult>(rl, "SearchResult", "One tree's search: the move, its policy target and statistics")
      .def_readonly("action", &rl::SearchResult::action)
      .def_property_readonly("policy", [](const rl::SearchResult& r) { return to_array(r.policy); })
      .def_property_readonly("visits", [](const rl::SearchResult& r) { return to_array(r.visits); })
      .def_property_readonly("q", [](const rl::SearchResult& r) { return to_array(r.q); })
      .def_readonly("value", &rl::SearchResult::value)
      .def_property_readonly("proven", [](const rl::SearchResult& r) { return proven_object(r.proven); })
      .def_readonly("simulations", &rl::SearchResult::simulations)
      .def("__repr__", [](const rl::SearchResult& r) {
        std::string proven = r.proven == rl::Proven::kUnknown ? "None" : std::to_string(static_cast<int>(r.proven));
        return detail::cat("SearchResult(action=", r.action, ", value=", r.value, ", proven=", proven,
                           ", simulations=", r.simulations, ")");
      });

  py::class_<Evaluator, std::shared_ptr<Evaluator>>(rl, "Evaluator", "Priors and values for the leaves of a search");
  py::class_<rl::RandomRollout, Evaluator, std::shared_ptr<rl::RandomRollout>>(rl, "RandomRollout")
      .def(py::init<int>(), py::arg("rollouts") = 1);
  rl.def("make_evaluator", &rl::make_evaluator, py::arg("name"), py::arg("options") = rl::EvaluatorOptions{});
  rl.def("registered_evaluators", &rl::registered_evaluators);
  rl.def("registered_selections", &rl::registered_selections);
  rl.def("python_evaluator", &python_evaluator, py::arg("fn"));
  rl.def("split_evaluator", &split_evaluator, py::arg("prior"), py::arg("value"), py::arg("base"));

  py::class_<rl::MCTS>(rl, "MCTS")
      .def(py::init<rl::SearchConfig, std::shared_ptr<Evaluator>>(), py::arg("config"), py::arg("evaluator"))
      .def("search", [](rl::MCTS& m, const std::vector<Game*>& games) {
        auto roots = roots_of(games);
        py::gil_scoped_release release;
        return m.search(roots);
      }, py::arg("games"))
      .def("advance", &rl::MCTS::advance, py::arg("b"), py::arg("action"))
      .def("clear", &rl::MCTS::clear, py::arg("b"))
      .def_property_readonly("config", &rl::MCTS::config)
      .def("root_visits", [](const rl::MCTS& m, int64_t b) {
        const rl::Tree& t = m.tree();
        SPIRE_CHECK(b >= 0 && b < t.batch, ValueError, "root_visits: tree ", b, " is out of range [0, ", t.batch, ")");
        return t.num_nodes[b] > 0 ? t.visits[t.node(b, 0)] : 0;
      }, py::arg("b"))
      .def("num_nodes", [](const rl::MCTS& m, int64_t b) {
        const rl::Tree& t = m.tree();
        SPIRE_CHECK(b >= 0 && b < t.batch, ValueError, "num_nodes: tree ", b, " is out of range [0, ", t.batch, ")");
        return t.num_nodes[b];
      }, py::arg("b"));

  py::class_<rl::MCTSBot, rl::Bot>(rl, "MCTSBot")
      .def(py::init<rl::SearchConfig, std::shared_ptr<Evaluator>, std::string>(), py::arg("config"),
           py::arg("evaluator"), py::arg("name") = "mcts")
      .def_property_readonly("last_result", &rl::MCTSBot::last_result);
}

}  // namespace spire::python
