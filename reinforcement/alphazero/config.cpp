#include "reinforcement/alphazero/config.h"

#include <algorithm>
#include <sstream>

#include "engine/core/error.h"
#include "engine/data/job_file.h"
#include "reinforcement/games/game.h"

namespace spire::rl::alphazero {

using data::JobSection;
using detail::join;

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
  Config c;
  JobSection top = JobSection::parse(text, where);
  top.string("algorithm", c.algorithm, {"alphazero"});
  int64_t seed = 0;
  top.integer("seed", seed, 0);
  c.seed = uint64_t(seed);

  JobSection game = top.table("game");
  game.string("name", c.game, registered_games());
  game.finish();

  JobSection net = top.table("network");
  net.integer("blocks", c.network.blocks, 0, 64);
  net.integer("channels", c.network.channels, 1, 4096);
  net.integer("value_hidden", c.network.value_hidden, 1, 65536);
  net.boolean("batch_norm", c.network.batch_norm);
  net.finish();

  JobSection mcts = top.table("mcts");
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

  JobSection sp = top.table("selfplay");
  sp.integer("games", c.selfplay.games, 1, 65536);
  sp.integer("games_per_iteration", c.selfplay.games_per_iteration, 1);
  sp.integer("temperature_moves", c.selfplay.temperature_moves, 0);
  sp.number("temperature", c.selfplay.temperature, 0, 1e300, true);
  sp.boolean("augment", c.selfplay.augment);
  sp.finish();

  JobSection tr = top.table("train");
  tr.integer("iterations", c.train.iterations, 0);
  tr.integer("steps_per_iteration", c.train.steps_per_iteration, 0);
  tr.integer("batch_size", c.train.batch_size, 1);
  tr.number("lr", c.train.lr, 0, 1e300, true);
  tr.number("weight_decay", c.train.weight_decay, 0, 1e300);
  tr.integer("buffer_capacity", c.train.buffer_capacity, 1);
  tr.integer("min_buffer", c.train.min_buffer, 0);
  tr.finish();

  JobSection ev = top.table("evaluation");
  ev.integer("every", c.evaluation.every, 0);
  ev.integer("games", c.evaluation.games, 1);
  ev.integers("opponents", c.evaluation.opponents, 1);
  ev.integer("simulations", c.evaluation.simulations, 0);
  ev.integer("rollouts", c.evaluation.rollouts, 1);
  ev.finish();

  JobSection ck = top.table("checkpoint");
  ck.integer("every", c.checkpoint.every, 0);
  ck.string("dir", c.checkpoint.dir);
  ck.finish();

  top.finish();
  c.validate();
  return c;
}

std::string job_algorithm(const std::string& text, const std::string& where) {
  JobSection root = JobSection::parse(text, where);
  std::string algorithm = "alphazero";
  root.string("algorithm", algorithm);
  return algorithm;
}

Config load_config(const std::string& path) {
  return parse_config(JobSection::read(path), path);
}

std::string Config::to_toml() const {
  auto str = data::toml_string;
  auto num = data::toml_number;
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
