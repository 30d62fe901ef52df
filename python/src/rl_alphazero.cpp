// spire._C._rl: AlphaZero (reinforcement/alphazero): the policy-value network, its batched leaf
// evaluator, and a training run. Training and matches run in C++ without the GIL; a Python callback
// takes it back once per iteration.
#include "common.h"

#include "engine/train/logs.h"
#include "reinforcement/alphazero/alphazero.h"
#include "reinforcement/alphazero/network_evaluator.h"

namespace spire::python {
namespace {

namespace az = rl::alphazero;

py::list ladder_list(const std::vector<az::LadderRung>& rungs) {
  py::list out;
  for (auto& r : rungs) {
    py::dict d;
    d["opponent_simulations"] = r.opponent_simulations;
    d["games"] = r.result.games;
    d["wins"] = r.result.wins;
    d["draws"] = r.result.draws;
    d["losses"] = r.result.losses;
    d["histories"] = r.result.histories;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_rl_alphazero(py::module_& rl) {
  py::class_<az::PolicyValueNet, nn::Module, std::shared_ptr<az::PolicyValueNet>>(
      rl, "PolicyValueNet", py::dynamic_attr(),
      "AlphaZero's residual policy-value network; net(x) -> (logits [n, A], value [n]) for x [n, C, H, W]")
      .def(py::init([](const std::string& game, int64_t blocks, int64_t channels, int64_t value_hidden,
                       bool batch_norm, uint64_t seed) {
             auto g = rl::make_game(game);
             spire::Generator gen(seed);
             return std::make_shared<az::PolicyValueNet>(
                 g->observation_shape(), g->num_actions(),
                 az::NetworkConfig{.blocks = blocks, .channels = channels, .value_hidden = value_hidden,
                                   .batch_norm = batch_norm},
                 gen);
           }),
           py::arg("game"), py::kw_only(), py::arg("blocks") = 2, py::arg("channels") = 32,
           py::arg("value_hidden") = 64, py::arg("batch_norm") = true, py::arg("seed") = 0)
      .def("forward", [](az::PolicyValueNet& n, py::handle x) {
        Tensors out = n(Tensors{to_tensor(x)});
        return py::make_tuple(out[0], out[1]);
      }, py::arg("x"))
      .def_property_readonly("observation_shape", [](const az::PolicyValueNet& n) {
        return py::tuple(py::cast(n.observation_shape()));
      })
      .def_property_readonly("num_actions", &az::PolicyValueNet::num_actions);

  // A subclass of spire.rl.Evaluator (bound in rl_mcts.cpp, before this), so MCTS takes it.
  py::class_<az::NetworkEvaluator, rl::Evaluator, std::shared_ptr<az::NetworkEvaluator>>(
      rl, "NetworkEvaluator",
      "Leaf evaluation by a PolicyValueNet: every leaf of a simulation step in one batch, softmax over the "
      "legal actions")
      .def(py::init([](std::shared_ptr<az::PolicyValueNet> net) { return std::make_shared<az::NetworkEvaluator>(net); }),
           py::arg("network"))
      .def_property_readonly("network", &az::NetworkEvaluator::network)
      .def("evaluate_states", [](az::NetworkEvaluator& e, const std::vector<const rl::Game*>& states) {
        // What search receives for these leaves: priors [n, A] and values [n].
        const int64_t n = int64_t(states.size()), A = e.network()->num_actions();
        py::array_t<float> priors({n, A}), values(n);
        std::vector<int> trees(states.size(), 0);
        std::vector<rl::Generator*> rngs(states.size(), nullptr);
        rl::Leaves leaves;
        leaves.states = states;
        leaves.trees = trees;
        leaves.rngs = rngs;
        leaves.num_actions = int(A);
        leaves.priors = std::span<float>(priors.mutable_data(), size_t(n * A));
        leaves.values = std::span<float>(values.mutable_data(), size_t(n));
        {
          py::gil_scoped_release release;
          e.evaluate(leaves);
        }
        return py::make_tuple(priors, values);
      }, py::arg("states"), "The priors [n, A] and values [n] search would get for these states");

  py::class_<az::AlphaZero, std::shared_ptr<az::AlphaZero>>(rl, "AlphaZero")
      .def(py::init([](const std::string& text, const std::string& where) {
             return std::make_shared<az::AlphaZero>(az::parse_config(text, where));
           }),
           py::arg("toml"), py::arg("where") = "config")
      .def_static("from_file", [](const std::string& path) { return std::make_shared<az::AlphaZero>(az::load_config(path)); },
                  py::arg("path"))
      .def_static("load", [](const std::string& path) { return std::shared_ptr<az::AlphaZero>(az::AlphaZero::load(path)); },
                  py::arg("path"))
      .def("load_state", &az::AlphaZero::load_state, py::arg("path"), py::call_guard<py::gil_scoped_release>())
      .def("save", &az::AlphaZero::save, py::arg("path"), py::call_guard<py::gil_scoped_release>())
      .def("train", [](az::AlphaZero& a, int64_t iterations, py::object callback, py::object progress) {
        az::AlphaZero::Callback cb = logs_callback(callback);
        a.progress = line_callback(progress);
        struct Reset {
          az::AlphaZero& a;
          ~Reset() { a.progress = nullptr; }
        } reset{a};
        py::gil_scoped_release release;
        a.train(iterations, cb);
      }, py::arg("iterations") = -1, py::arg("callback") = py::none(), py::arg("progress") = py::none())
      .def("evaluate", [](az::AlphaZero& a, std::vector<int> opponents, int games, int simulations) {
        std::vector<az::LadderRung> r;
        {
          py::gil_scoped_release release;
          r = a.evaluate(opponents, games, simulations);
        }
        return ladder_list(r);
      }, py::arg("opponents"), py::arg("games"), py::arg("simulations") = 0)
      .def("bot", &az::AlphaZero::bot, py::arg("simulations") = 0)
      .def("value", &az::AlphaZero::value, py::arg("state"))
      .def_property_readonly("network", &az::AlphaZero::network)
      .def_property_readonly("config_toml", [](const az::AlphaZero& a) { return a.config().to_toml(); })
      .def_property_readonly("iterations_done", &az::AlphaZero::iterations_done)
      .def_property_readonly("learner_steps", &az::AlphaZero::learner_steps)
      .def_property_readonly("buffer_size", [](const az::AlphaZero& a) { return a.buffer().size(); })
      .def_property_readonly("history", [](const az::AlphaZero& a) {
        py::list out;
        for (auto& l : a.history()) out.append(logs_dict(l));
        return out;
      })
      .def_readwrite("history_path", &az::AlphaZero::history_path);

  rl.def("alphazero_load_network", [](const std::string& path) {
    auto [config, net] = az::load_network(path);
    return py::make_tuple(config.to_toml(), net);
  }, py::arg("path"));
  rl.def("alphazero_check_config", [](const std::string& text, const std::string& where) {
    return az::parse_config(text, where).to_toml();
  }, py::arg("toml"), py::arg("where") = "config");
}

}  // namespace spire::python
