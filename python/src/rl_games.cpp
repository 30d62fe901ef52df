// spire._C._rl: games for search, bots and matches (reinforcement/games). A Game is the C++ state
// itself (legal_mask and observation come back as NumPy arrays); Python subclasses of Bot play in
// C++ matches through a trampoline that takes the GIL for each call, so matches always release it.
#include "common.h"
#include "reinforcement/games/bot.h"
#include "reinforcement/games/bots.h"
#include "reinforcement/games/game.h"

namespace spire::python {
namespace {
using rl::Bot;
using rl::Game;

// Bot methods overridden in Python. A Python bot sees a copy of the state, so that keeping it
// (or playing on it) cannot touch the game in progress.
class PyBot : public Bot {
 public:
  std::string name() const override {
    py::gil_scoped_acquire gil;
    if (py::function f = py::get_override(static_cast<const Bot*>(this), "name")) return f().cast<std::string>();
    return py::type::of(py::cast(this)).attr("__name__").cast<std::string>();
  }
  int step(const Game& state) override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const Bot*>(this), "step");
    SPIRE_CHECK(f, ValueError, "Bot: a Python bot must define step(self, state) -> action");
    py::object action = f(state.clone());
    SPIRE_CHECK(!py::isinstance<py::bool_>(action) && !py::isinstance<py::float_>(action) &&
                    py::hasattr(action, "__index__"),
                DTypeError, "Bot.step must return an int action, got ", type_name(action));
    return py::reinterpret_steal<py::int_>(PyNumber_Index(action.ptr())).cast<int>();
  }
  void inform_action(const Game& state_before, int player, int action) override {
    py::gil_scoped_acquire gil;
    if (py::function f = py::get_override(static_cast<const Bot*>(this), "inform_action"))
      f(state_before.clone(), player, action);
  }
  void restart() override {
    py::gil_scoped_acquire gil;
    if (py::function f = py::get_override(static_cast<const Bot*>(this), "restart")) f();
  }
};

int to_action(py::handle a, const char* who) {
  if (py::isinstance<py::array>(a) && py::cast<py::array>(a).ndim() == 0) a = a.attr("item")();
  SPIRE_CHECK(!py::isinstance<py::bool_>(a) && !py::isinstance<py::float_>(a) && py::hasattr(a, "__index__"),
              DTypeError, who, ": the action must be an int, got ", type_name(a));
  py::int_ i = py::reinterpret_steal<py::int_>(PyNumber_Index(a.ptr()));
  // Out-of-range ints become -1, which the game rejects naming its legal actions.
  long long v = PyLong_AsLongLong(i.ptr());
  if (v == -1 && PyErr_Occurred()) PyErr_Clear();
  return v < INT32_MIN || v > INT32_MAX ? -1 : static_cast<int>(v);
}

// A game written in Python: an object with num_players, num_actions, observation_shape (attributes)
// and current_player(), is_terminal(), legal_actions(), returns(), apply_action(a), clone(),
// observation(), __str__ (optionally min_return, max_return, action_to_string(a)). Every call takes
// the GIL, so C++ search and matches can play it (at Python's speed).
class PythonGame final : public Game {
 public:
  PythonGame(std::string name, py::object impl) : name_(std::move(name)), impl_(std::move(impl)) {
    auto need = [&](const char* attr) {
      SPIRE_CHECK(py::hasattr(impl_, attr), ValueError, "game '", name_, "': the Python game (", type_name(impl_),
                  ") has no '", attr, "'");
      return impl_.attr(attr);
    };
    for (const char* m : {"current_player", "is_terminal", "legal_actions", "returns", "apply_action", "clone"}) need(m);
    num_players_ = need("num_players").cast<int>();
    num_actions_ = need("num_actions").cast<int>();
    shape_ = need("observation_shape").cast<std::vector<int64_t>>();
    if (py::hasattr(impl_, "min_return")) min_return_ = impl_.attr("min_return").cast<double>();
    if (py::hasattr(impl_, "max_return")) max_return_ = impl_.attr("max_return").cast<double>();
  }
  PythonGame(const PythonGame&) = delete;
  ~PythonGame() override {
    py::gil_scoped_acquire gil;
    impl_ = py::object();
  }

  std::string name() const override { return name_; }
  int num_players() const override { return num_players_; }
  int num_actions() const override { return num_actions_; }
  std::vector<int64_t> observation_shape() const override { return shape_; }
  double min_return() const override { return min_return_; }
  double max_return() const override { return max_return_; }
  int current_player() const override { return call<int>("current_player"); }
  bool is_terminal() const override { return call<bool>("is_terminal"); }
  std::vector<int> legal_actions() const override {
    py::gil_scoped_acquire gil;
    auto actions = impl_.attr("legal_actions")().cast<std::vector<int>>();
    for (int a : actions)
      SPIRE_CHECK(a >= 0 && a < num_actions_, ValueError, "game '", name_, "': legal_actions() gave ", a,
                  ", outside 0 to ", num_actions_ - 1);
    return actions;
  }
  std::vector<double> returns() const override {
    py::gil_scoped_acquire gil;
    auto r = impl_.attr("returns")().cast<std::vector<double>>();
    SPIRE_CHECK(static_cast<int>(r.size()) == num_players_, ValueError, "game '", name_, "': returns() gave ", r.size(),
                " values for ", num_players_, " players");
    return r;
  }
  std::unique_ptr<Game> clone() const override {
    py::gil_scoped_acquire gil;
    return std::unique_ptr<Game>(new PythonGame(*this, impl_.attr("clone")()));
  }
  std::string to_string() const override {
    py::gil_scoped_acquire gil;
    return py::str(impl_).cast<std::string>();
  }
  std::string action_to_string(int action) const override {
    py::gil_scoped_acquire gil;
    if (!py::hasattr(impl_, "action_to_string")) return std::to_string(action);
    return py::str(impl_.attr("action_to_string")(action)).cast<std::string>();
  }
  void observation(std::span<float> out) const override {
    py::gil_scoped_acquire gil;
    auto obs = py::array_t<float, py::array::forcecast>::ensure(impl_.attr("observation")());
    SPIRE_CHECK(obs && obs.size() == static_cast<py::ssize_t>(out.size()), ShapeError, "game '", name_,
                "': observation() must give ", out.size(), " floats (observation_shape)");
    std::copy(obs.data(), obs.data() + obs.size(), out.begin());
  }

 protected:
  void do_apply_action(int action) override {
    py::gil_scoped_acquire gil;
    impl_.attr("apply_action")(action);
  }

 private:
  // A clone: the base class's history, the Python object's clone.
  PythonGame(const PythonGame& other, py::object impl)
      : Game(other), name_(other.name_), impl_(std::move(impl)), num_players_(other.num_players_),
        num_actions_(other.num_actions_), shape_(other.shape_), min_return_(other.min_return_),
        max_return_(other.max_return_) {}
  template <class T>
  T call(const char* method) const {
    py::gil_scoped_acquire gil;
    return impl_.attr(method)().cast<T>();
  }

  std::string name_;
  py::object impl_;
  int num_players_ = 0, num_actions_ = 0;
  std::vector<int64_t> shape_;
  double min_return_ = -1, max_return_ = 1;
};

std::string game_repr(const Game& g) {
  return "<" + g.name() + " game, moves \"" + g.serialize() + "\"" + (g.is_terminal() ? ", over>" : ">");
}
}  // namespace

void bind_rl_games(py::module_& rl) {
  py::class_<Game>(rl, "Game", "A game state (reinforcement/games/game.h); see spire.rl.games")
      .def_property_readonly("name", &Game::name)
      .def_property_readonly("num_players", &Game::num_players)
      .def_property_readonly("num_actions", &Game::num_actions)
      .def_property_readonly("observation_shape", [](const Game& g) { return py::tuple(py::cast(g.observation_shape())); })
      .def_property_readonly("min_return", &Game::min_return)
      .def_property_readonly("max_return", &Game::max_return)
      .def("current_player", &Game::current_player)
      .def("is_terminal", &Game::is_terminal)
      .def("legal_actions", [](const Game& g) { return g.legal_actions(); })
      .def("legal_mask", [](const Game& g) {
        py::array_t<bool> mask(g.num_actions());
        g.legal_mask(std::span<uint8_t>(reinterpret_cast<uint8_t*>(mask.mutable_data()), static_cast<size_t>(g.num_actions())));
        return mask;
      })
      .def("is_legal", [](const Game& g, py::handle a) { return g.is_legal(to_action(a, "is_legal")); }, py::arg("action"))
      .def("apply_action", [](Game& g, py::handle a) { g.apply_action(to_action(a, "apply_action")); }, py::arg("action"))
      .def("returns", &Game::returns)
      .def("history", [](const Game& g) { return g.history(); })
      .def("move_number", &Game::move_number)
      .def("clone", &Game::clone)
      .def("__copy__", &Game::clone)
      .def("__deepcopy__", [](const Game& g, py::handle) { return g.clone(); }, py::arg("memo"))
      .def("serialize", &Game::serialize)
      .def("observation", [](const Game& g) {
        auto shape = g.observation_shape();
        py::array_t<float> out(std::vector<py::ssize_t>(shape.begin(), shape.end()));
        g.observation(std::span<float>(out.mutable_data(), static_cast<size_t>(out.size())));
        return out;
      })
      .def("position_key", &Game::position_key)
      .def("action_to_string", [](const Game& g, py::handle a) { return g.action_to_string(to_action(a, "action_to_string")); },
           py::arg("action"))
      .def("__str__", &Game::to_string)
      .def("__repr__", &game_repr)
      .def(py::pickle([](const Game& g) { return py::make_tuple(g.name(), g.serialize()); },
                      [](const py::tuple& t) {
                        SPIRE_CHECK(t.size() == 2, ValueError, "Game: a pickled game is (name, moves), got ", t.size(), " items");
                        return rl::deserialize_game(t[0].cast<std::string>(), t[1].cast<std::string>());
                      }));

  rl.attr("Game").attr("TERMINAL") = py::int_(Game::kTerminal);

  rl.def("make_game", &rl::make_game, py::arg("name"));
  rl.def("deserialize_game", &rl::deserialize_game, py::arg("name"), py::arg("text"));
  rl.def("registered_games", &rl::registered_games);
  rl.def("register_python_game", [](const std::string& name, py::function factory) {
    // The registry outlives the interpreter: it keeps a reference that is never dropped.
    py::handle f = factory.inc_ref();
    rl::register_game(name, [name, f]() -> std::unique_ptr<Game> {
      py::gil_scoped_acquire gil;
      return std::make_unique<PythonGame>(name, f());
    });
  }, py::arg("name"), py::arg("factory"));

  py::class_<Bot, PyBot>(rl, "Bot", "A player of games; subclass it and define step(state) -> action")
      .def(py::init<>())
      .def("name", &Bot::name)
      .def("step", &Bot::step, py::arg("state"), py::call_guard<py::gil_scoped_release>())
      .def("inform_action", &Bot::inform_action, py::arg("state"), py::arg("player"), py::arg("action"))
      .def("restart", &Bot::restart)
      .def("__repr__", [](const Bot& b) { return "<Bot " + b.name() + ">"; });

  py::class_<rl::RandomBot, Bot>(rl, "RandomBot").def(py::init<uint64_t>(), py::arg("seed"));
  py::class_<rl::MinimaxBot, Bot>(rl, "MinimaxBot")
      .def(py::init<uint64_t, int, int64_t>(), py::arg("seed"), py::arg("depth_limit") = 0,
           py::arg("max_positions") = 4'000'000)
      .def("best_actions", &rl::MinimaxBot::best_actions, py::arg("state"))
      .def("value", &rl::MinimaxBot::value, py::arg("state"), py::arg("player"))
      .def_property_readonly("table_size", &rl::MinimaxBot::table_size)
      .def_property_readonly("depth_limit", &rl::MinimaxBot::depth_limit);
  // Reads and writes through Python's sys.stdin / sys.stdout (looked up at each call, so that
  // redirections and notebooks work), or the given file-like objects.
  py::class_<rl::HumanBot, Bot>(rl, "HumanBot")
      .def(py::init([](py::object input, py::object output) {
             auto read_line = [input]() -> std::optional<std::string> {
               py::gil_scoped_acquire gil;
               py::object in = input.is_none() ? py::module_::import("sys").attr("stdin") : input;
               std::string line = in.attr("readline")().cast<std::string>();
               if (line.empty()) return std::nullopt;
               if (line.back() == '\n') line.pop_back();
               return line;
             };
             auto write = [output](const std::string& s) {
               py::gil_scoped_acquire gil;
               py::object out = output.is_none() ? py::module_::import("sys").attr("stdout") : output;
               out.attr("write")(s);
               if (py::hasattr(out, "flush")) out.attr("flush")();
             };
             return std::make_unique<rl::HumanBot>(read_line, write);
           }),
           py::arg("input") = py::none(), py::arg("output") = py::none());

  py::class_<rl::MatchResult>(rl, "MatchResult")
      .def_readonly("games", &rl::MatchResult::games)
      .def_readonly("wins", &rl::MatchResult::wins)
      .def_readonly("draws", &rl::MatchResult::draws)
      .def_readonly("losses", &rl::MatchResult::losses)
      .def_readonly("histories", &rl::MatchResult::histories)
      .def_property_readonly("score", &rl::MatchResult::score)
      .def("__repr__", [](const rl::MatchResult& r) {
        return detail::cat("MatchResult(games=", r.games, ", wins=", r.wins, ", draws=", r.draws, ", losses=", r.losses,
                           ", score=", r.score(), ")");
      });

  rl.def("play_game", [](const std::string& game, std::vector<Bot*> bots, const Game* start, py::object on_move) {
    rl::MoveObserver observer;
    if (!on_move.is_none())
      observer = [on_move](const Game& before, int action, const Game& after) {
        py::gil_scoped_acquire gil;  // the observer gets copies: the game goes on after it returns
        on_move(py::cast(before.clone()), action, py::cast(after.clone()));
      };
    py::gil_scoped_release release;
    return rl::play_game(game, std::move(bots), start, observer);
  }, py::arg("game"), py::arg("bots"), py::arg("start") = nullptr, py::arg("on_move") = py::none());
  rl.def("play_match", [](const std::string& game, Bot& bot0, Bot& bot1, int games) {
    py::gil_scoped_release release;
    return rl::play_match(game, bot0, bot1, games);
  }, py::arg("game"), py::arg("bot0"), py::arg("bot1"), py::arg("games"));
}

}  // namespace spire::python
