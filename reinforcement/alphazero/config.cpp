#include "reinforcement/alphazero/config.h"

// toml++ compiled into this file alone (header-only mode), so the engine needs no extra library.
#define TOML_HEADER_ONLY 1
#include <toml++/toml.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "engine/core/error.h"
#include "reinforcement/games/game.h"

namespace spire::rl::alphazero {
namespace {

std::string join(const std::vector<std::string>& xs) {
  std::string s;
  for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i];
  return s;
}

std::string describe(const toml::node& n) {
  std::ostringstream s;
  if (n.is_string()) s << '"' << n.value<std::string>().value_or("") << '"';
  else if (n.is_table()) s << "a table";
  else if (n.is_array()) s << "an array";
  else if (n.is_boolean()) s << (*n.value<bool>() ? "true" : "false");
  else if (n.is_integer()) s << *n.value<int64_t>();
  else if (n.is_floating_point()) s << *n.value<double>();
  else s << "a date or time";
  return s.str();
}

// The parsed file; a syntax error names the file, line and column.
toml::table parse_toml(const std::string& text, const std::string& where) {
  try {
    return toml::parse(text, where);
  } catch (const toml::parse_error& e) {
    throw ConfigError(detail::cat(where, ":", e.source().begin.line, ":", e.source().begin.column, ": ",
                                  e.description()));
  }
}

// Reads one table: each key is taken once by a typed getter; whatever is left is unknown.
class Section {
 public:
  Section(const toml::table* table, std::string name, const std::string& where)
      : table_(table), name_(std::move(name)), where_(where) {}

  void integer(const char* key, int64_t& out, int64_t low, int64_t high = INT64_MAX) {
    const toml::node* n = take(key);
    if (!n) return;
    auto v = n->value_exact<int64_t>();
    bool ok = v && *v >= low && *v <= high;
    SPIRE_CHECK(ok, ConfigError, where_, ": ", path(key), " must be an integer ", range(double(low), double(high)),
                ", got ", describe(*n));
    out = *v;
  }
  void integer(const char* key, int& out, int64_t low, int64_t high = INT32_MAX) {
    int64_t v = out;
    integer(key, v, low, high);
    out = int(v);
  }
  void number(const char* key, double& out, double low, double high, bool open_low = false) {
    const toml::node* n = take(key);
    if (!n) return;
    std::optional<double> v = n->is_number() ? n->value<double>() : std::nullopt;
    bool ok = v && (open_low ? *v > low : *v >= low) && *v <= high;
    SPIRE_CHECK(ok, ConfigError, where_, ": ", path(key), " must be a number ",
                open_low ? "> " + fmt(low) + (high < 1e300 ? " and <= " + fmt(high) : "") : range(low, high),
                ", got ", describe(*n));
    out = *v;
  }
  void boolean(const char* key, bool& out) {
    const toml::node* n = take(key);
    if (!n) return;
    SPIRE_CHECK(n->is_boolean(), ConfigError, where_, ": ", path(key), " must be true or false, got ", describe(*n));
    out = *n->value<bool>();
  }
  void string(const char* key, std::string& out, const std::vector<std::string>& allowed = {}) {
    const toml::node* n = take(key);
    if (!n) return;
    SPIRE_CHECK(n->is_string(), ConfigError, where_, ": ", path(key), " must be a string",
                allowed.empty() ? "" : " (one of " + join(allowed) + ")", ", got ", describe(*n));
    std::string v = *n->value<std::string>();
    SPIRE_CHECK(allowed.empty() || std::find(allowed.begin(), allowed.end(), v) != allowed.end(), ConfigError,
                where_, ": ", path(key), " must be one of ", join(allowed), ", got \"", v, "\"");
    out = v;
  }
  void integers(const char* key, std::vector<int>& out, int64_t low) {
    const toml::node* n = take(key);
    if (!n) return;
    std::string want = "an array of integers >= " + std::to_string(low);
    SPIRE_CHECK(n->is_array(), ConfigError, where_, ": ", path(key), " must be ", want, ", got ", describe(*n));
    std::vector<int> v;
    for (const toml::node& e : *n->as_array()) {
      auto x = e.value_exact<int64_t>();
      SPIRE_CHECK(x && *x >= low && *x <= INT32_MAX, ConfigError, where_, ": ", path(key), " must be ", want,
                  ", got an element ", describe(e));
      v.push_back(int(*x));
    }
    out = v;
  }
  // A sub-table (empty when absent); a non-table under the name is an error.
  const toml::table* table(const char* key) {
    const toml::node* n = take(key);
    if (!n) return nullptr;
    SPIRE_CHECK(n->is_table(), ConfigError, where_, ": [", key, "] must be a table, got ", describe(*n));
    return n->as_table();
  }
  // Unknown keys: an error naming them and the allowed ones.
  void finish() const {
    if (!table_) return;
    std::vector<std::string> unknown;
    for (auto&& [k, v] : *table_)
      if (std::find(taken_.begin(), taken_.end(), std::string(k.str())) == taken_.end())
        unknown.push_back(std::string(k.str()));
    SPIRE_CHECK(unknown.empty(), ConfigError, where_, ": unknown key", unknown.size() > 1 ? "s " : " ",
                join(unknown), name_.empty() ? " at the top level" : " in [" + name_ + "]",
                "; allowed: ", join(known_));
  }

 private:
  const toml::node* take(const char* key) {
    known_.push_back(key);
    if (!table_) return nullptr;
    const toml::node* n = table_->get(key);
    if (n) taken_.push_back(key);
    return n;
  }
  std::string path(const char* key) const { return name_.empty() ? key : name_ + "." + key; }
  static std::string fmt(double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  }
  static std::string range(double low, double high) {
    if (high >= double(INT32_MAX)) return ">= " + fmt(low);  // no upper bound worth naming
    return "in [" + fmt(low) + ", " + fmt(high) + "]";
  }

  const toml::table* table_;
  std::string name_, where_;
  std::vector<std::string> taken_, known_;
};

}  // namespace

void Config::validate() const {
  SPIRE_CHECK(algorithm == "alphazero", ConfigError, "config: algorithm must be \"alphazero\", got \"", algorithm,
              "\"");
  auto games = registered_games();
  SPIRE_CHECK(std::find(games.begin(), games.end(), game) != games.end(), ConfigError, "config: game.name \"", game,
              "\" is not a registered game; allowed: ", join(games));
  SPIRE_CHECK(network.blocks >= 0 && network.channels >= 1 && network.value_hidden >= 1, ConfigError,
              "config: network.blocks must be >= 0, network.channels and network.value_hidden >= 1");
  SPIRE_CHECK(mcts.simulations >= 1, ConfigError, "config: mcts.simulations must be >= 1, got ", mcts.simulations);
  SPIRE_CHECK(mcts.selection == "puct" || mcts.selection == "gumbel", ConfigError,
              "config: mcts.selection must be one of puct, gumbel, got \"", mcts.selection, "\"");
  SPIRE_CHECK(selfplay.games >= 1 && selfplay.games_per_iteration >= 1, ConfigError,
              "config: selfplay.games and selfplay.games_per_iteration must be >= 1");
  SPIRE_CHECK(train.batch_size >= 1 && train.buffer_capacity >= 1 && train.iterations >= 0 &&
                  train.steps_per_iteration >= 0,
              ConfigError, "config: train.batch_size and train.buffer_capacity must be >= 1, ",
              "train.iterations and train.steps_per_iteration >= 0");
  SPIRE_CHECK(train.lr > 0 && train.weight_decay >= 0, ConfigError,
              "config: train.lr must be > 0 and train.weight_decay >= 0");
  SPIRE_CHECK(evaluation.every >= 0 && evaluation.games >= 1 && evaluation.simulations >= 0 &&
                  evaluation.rollouts >= 1,
              ConfigError, "config: evaluation.every and evaluation.simulations must be >= 0, ",
              "evaluation.games and evaluation.rollouts >= 1");
  for (int s : evaluation.opponents)
    SPIRE_CHECK(s >= 1, ConfigError, "config: evaluation.opponents must be simulations >= 1, got ", s);
  SPIRE_CHECK(checkpoint.every >= 0, ConfigError, "config: checkpoint.every must be >= 0, got ", checkpoint.every);
}

Config parse_config(const std::string& text, const std::string& where) {
  toml::table root = parse_toml(text, where);
  Config c;
  Section top(&root, "", where);
  top.string("algorithm", c.algorithm, {"alphazero"});
  int64_t seed = 0;
  top.integer("seed", seed, 0);
  c.seed = uint64_t(seed);

  Section game(top.table("game"), "game", where);
  game.string("name", c.game, registered_games());
  game.finish();

  Section net(top.table("network"), "network", where);
  net.integer("blocks", c.network.blocks, 0, 64);
  net.integer("channels", c.network.channels, 1, 4096);
  net.integer("value_hidden", c.network.value_hidden, 1, 65536);
  net.boolean("batch_norm", c.network.batch_norm);
  net.finish();

  Section mcts(top.table("mcts"), "mcts", where);
  mcts.integer("simulations", c.mcts.simulations, 1);
  mcts.string("selection", c.mcts.selection, {"puct", "gumbel"});
  mcts.number("c_puct_init", c.mcts.c_puct_init, 0, 1e300, true);
  mcts.number("c_puct_base", c.mcts.c_puct_base, 0, 1e300, true);
  mcts.number("fpu", c.mcts.fpu, -1e300, 1e300);
  mcts.number("dirichlet_alpha", c.mcts.dirichlet_alpha, 0, 1e300);
  mcts.number("dirichlet_fraction", c.mcts.dirichlet_fraction, 0, 1);
  mcts.integer("gumbel_max_considered", c.mcts.gumbel_max_considered, 1);
  mcts.number("gumbel_scale", c.mcts.gumbel_scale, 0, 1e300);
  mcts.boolean("reuse", c.mcts.reuse);
  mcts.finish();

  Section sp(top.table("selfplay"), "selfplay", where);
  sp.integer("games", c.selfplay.games, 1, 65536);
  sp.integer("games_per_iteration", c.selfplay.games_per_iteration, 1);
  sp.integer("temperature_moves", c.selfplay.temperature_moves, 0);
  sp.number("temperature", c.selfplay.temperature, 0, 1e300, true);
  sp.boolean("augment", c.selfplay.augment);
  sp.finish();

  Section tr(top.table("train"), "train", where);
  tr.integer("iterations", c.train.iterations, 0);
  tr.integer("steps_per_iteration", c.train.steps_per_iteration, 0);
  tr.integer("batch_size", c.train.batch_size, 1);
  tr.number("lr", c.train.lr, 0, 1e300, true);
  tr.number("weight_decay", c.train.weight_decay, 0, 1e300);
  tr.integer("buffer_capacity", c.train.buffer_capacity, 1);
  tr.integer("min_buffer", c.train.min_buffer, 0);
  tr.finish();

  Section ev(top.table("evaluation"), "evaluation", where);
  ev.integer("every", c.evaluation.every, 0);
  ev.integer("games", c.evaluation.games, 1);
  ev.integers("opponents", c.evaluation.opponents, 1);
  ev.integer("simulations", c.evaluation.simulations, 0);
  ev.integer("rollouts", c.evaluation.rollouts, 1);
  ev.finish();

  Section ck(top.table("checkpoint"), "checkpoint", where);
  ck.integer("every", c.checkpoint.every, 0);
  ck.string("dir", c.checkpoint.dir);
  ck.finish();

  top.finish();
  c.validate();
  return c;
}

std::string job_algorithm(const std::string& text, const std::string& where) {
  toml::table root = parse_toml(text, where);
  const toml::node* n = root.get("algorithm");
  if (!n) return "alphazero";
  SPIRE_CHECK(n->is_string(), ConfigError, where, ": algorithm must be a string, got ", describe(*n));
  return *n->value<std::string>();
}

Config load_config(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  SPIRE_CHECK(f.good(), IOError, "cannot read the job file ", path);
  std::stringstream s;
  s << f.rdbuf();
  return parse_config(s.str(), path);
}

std::string Config::to_toml() const {
  auto str = [](const std::string& s) {
    std::ostringstream o;
    o << toml::value<std::string>(s);  // quoted and escaped
    return o.str();
  };
  auto num = [](double x) {
    std::ostringstream o;
    o << toml::value<double>(x);
    return o.str();
  };
  auto b = [](bool x) { return std::string(x ? "true" : "false"); };
  std::ostringstream s;
  s << "algorithm = " << str(algorithm) << "\nseed = " << seed << "\n\n[game]\nname = " << str(game) << "\n\n"
    << "[network]\nblocks = " << network.blocks << "\nchannels = " << network.channels
    << "\nvalue_hidden = " << network.value_hidden << "\nbatch_norm = " << b(network.batch_norm) << "\n\n"
    << "[mcts]\nsimulations = " << mcts.simulations << "\nselection = " << str(mcts.selection)
    << "\nc_puct_init = " << num(mcts.c_puct_init) << "\nc_puct_base = " << num(mcts.c_puct_base)
    << "\nfpu = " << num(mcts.fpu) << "\ndirichlet_alpha = " << num(mcts.dirichlet_alpha)
    << "\ndirichlet_fraction = " << num(mcts.dirichlet_fraction)
    << "\ngumbel_max_considered = " << mcts.gumbel_max_considered << "\ngumbel_scale = " << num(mcts.gumbel_scale)
    << "\nreuse = " << b(mcts.reuse) << "\n\n"
    << "[selfplay]\ngames = " << selfplay.games << "\ngames_per_iteration = " << selfplay.games_per_iteration
    << "\ntemperature_moves = " << selfplay.temperature_moves << "\ntemperature = " << num(selfplay.temperature)
    << "\naugment = " << b(selfplay.augment) << "\n\n"
    << "[train]\niterations = " << train.iterations << "\nsteps_per_iteration = " << train.steps_per_iteration
    << "\nbatch_size = " << train.batch_size << "\nlr = " << num(train.lr)
    << "\nweight_decay = " << num(train.weight_decay) << "\nbuffer_capacity = " << train.buffer_capacity
    << "\nmin_buffer = " << train.min_buffer << "\n\n"
    << "[evaluation]\nevery = " << evaluation.every << "\ngames = " << evaluation.games << "\nopponents = [";
  for (size_t i = 0; i < evaluation.opponents.size(); ++i) s << (i ? ", " : "") << evaluation.opponents[i];
  s << "]\nsimulations = " << evaluation.simulations << "\nrollouts = " << evaluation.rollouts << "\n\n"
    << "[checkpoint]\nevery = " << checkpoint.every << "\ndir = " << str(checkpoint.dir) << "\n";
  return s.str();
}

}  // namespace spire::rl::alphazero
