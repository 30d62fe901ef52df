// `spire rl`: reinforcement learning from the command line.
//   spire rl train job.toml [-o DIR] [--resume]   train the agent a job file describes; the job's
//                                                 `algorithm` picks the trainer from a registry
//   spire rl play --game connect_four --players A B [--games N] [--seed S]
//       players: human, random, minimax[:depth], mcts[:simulations],
//                alphazero:CHECKPOINT[:simulations]
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "cli/command.h"
#include "engine/core/error.h"
#include "reinforcement/alphazero/alphazero.h"
#include "reinforcement/games/bots.h"
#include "reinforcement/mcts/evaluator.h"
#include "reinforcement/mcts/mcts_bot.h"

namespace spire::cli {
namespace {

namespace fs = std::filesystem;

struct TrainOptions {
  std::string job, out;
  bool resume = false;
};

// The trainers of `spire rl train`, by the job file's `algorithm` (DQN, PPO and the like join here).
using Trainer = std::function<int(const std::string& job_text, const TrainOptions& options)>;
std::map<std::string, Trainer>& trainers() {
  static std::map<std::string, Trainer> all;
  return all;
}

int train_alphazero(const std::string& text, const TrainOptions& o) {
  using namespace rl::alphazero;
  Config config = parse_config(text, o.job);
  // The output folder: -o, else the job's checkpoint.dir, else the job file's name beside it.
  std::string out = !o.out.empty() ? o.out
                    : !config.checkpoint.dir.empty() ? config.checkpoint.dir
                                                     : fs::path(o.job).replace_extension("").string();
  config.checkpoint.dir = out;
  fs::create_directories(out);
  const std::string checkpoint = (fs::path(out) / "checkpoint.h5").string();
  SPIRE_CHECK(o.resume || !fs::exists(checkpoint), ValueError, "rl train: ", checkpoint,
              " exists; pass --resume to continue that run, or choose another folder with -o");
  AlphaZero run(config);
  if (o.resume) {
    SPIRE_CHECK(fs::exists(checkpoint), ValueError, "rl train --resume: no checkpoint at ", checkpoint);
    run.load_state(checkpoint);
    std::cout << "resuming " << checkpoint << " after iteration " << run.iterations_done() << "\n";
  }
  run.history_path = (fs::path(out) / "history.csv").string();
  run.progress = [](const std::string& line) { std::cout << line << std::endl; };
  std::cout << "alphazero on " << config.game << ": " << config.train.iterations << " iterations of "
            << config.selfplay.games_per_iteration << " self-play games (" << config.mcts.simulations
            << " simulations per move), writing to " << out << "\n";
  run.train();
  std::cout << "done: " << run.iterations_done() << " iterations, checkpoint " << checkpoint << ", history "
            << run.history_path << "\n";
  return 0;
}

int train(const TrainOptions& o) {
  std::ifstream f(o.job, std::ios::binary);
  SPIRE_CHECK(f.good(), IOError, "rl train: cannot read the job file ", o.job);
  std::stringstream s;
  s << f.rdbuf();
  std::string algorithm = rl::alphazero::job_algorithm(s.str(), o.job);
  auto it = trainers().find(algorithm);
  if (it == trainers().end()) {
    std::string known;
    for (auto& [name, _] : trainers()) known += (known.empty() ? "" : ", ") + name;
    throw ConfigError(detail::cat(o.job, ": algorithm \"", algorithm, "\" is not one `spire rl train` knows; allowed: ",
                                  known));
  }
  return it->second(s.str(), o);
}

// "name[:arg]" -> (name, arg)
std::pair<std::string, std::string> split_spec(const std::string& spec) {
  size_t c = spec.find(':');
  return c == std::string::npos ? std::pair{spec, std::string()} : std::pair{spec.substr(0, c), spec.substr(c + 1)};
}

int parse_count(const std::string& text, const std::string& spec, const char* what) {
  try {
    size_t used = 0;
    int v = std::stoi(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw ValueError(detail::cat("rl play: in player '", spec, "', ", what, " must be a non-negative integer, got '",
                               text, "'"));
}

const char* kPlayers = "human, random, minimax[:depth], mcts[:simulations], alphazero:CHECKPOINT[:simulations]";

std::unique_ptr<rl::Bot> make_player(const std::string& spec, const std::string& game, uint64_t seed) {
  auto [name, arg] = split_spec(spec);
  if (name == "human") return std::make_unique<rl::HumanBot>(std::cin, std::cout);
  if (name == "random") return std::make_unique<rl::RandomBot>(seed);
  if (name == "minimax") {
    int depth = arg.empty() ? (game == "connect_four" ? 8 : 0) : parse_count(arg, spec, "the depth");
    return std::make_unique<rl::MinimaxBot>(seed, depth);
  }
  if (name == "mcts") {
    rl::SearchConfig c;
    c.simulations = arg.empty() ? 1000 : parse_count(arg, spec, "the simulations");
    c.selection = "uct";
    c.seed = seed;
    return std::make_unique<rl::MCTSBot>(c, std::make_shared<rl::RandomRollout>());
  }
  if (name == "alphazero") {
    // The checkpoint path may itself hold ':'; a last ":<digits>" is the simulations.
    std::string path = arg;
    int simulations = 0;
    size_t c = arg.rfind(':');
    if (c != std::string::npos && c + 1 < arg.size() &&
        arg.find_first_not_of("0123456789", c + 1) == std::string::npos) {
      simulations = parse_count(arg.substr(c + 1), spec, "the simulations");
      path = arg.substr(0, c);
    }
    SPIRE_CHECK(!path.empty(), ValueError, "rl play: player 'alphazero' needs a checkpoint: alphazero:CHECKPOINT");
    auto [config, net] = rl::alphazero::load_network(path);
    SPIRE_CHECK(config.game == game, ValueError, "rl play: ", path, " was trained on ", config.game, ", not ", game);
    config.seed = seed;
    return rl::alphazero::make_bot(config, net, simulations);
  }
  throw ValueError(detail::cat("rl play: unknown player '", spec, "'; allowed: ", kPlayers));
}

int play(const std::string& game, const std::vector<std::string>& players, int games, uint64_t seed) {
  std::vector<std::unique_ptr<rl::Bot>> bots;
  for (size_t i = 0; i < players.size(); ++i) bots.push_back(make_player(players[i], game, seed + i));
  int score[3] = {0, 0, 0};  // player A's wins, draws, losses
  for (int g = 0; g < games; ++g) {
    // Colours alternate: A moves first in even games.
    const int a = g % 2;
    std::vector<rl::Bot*> seat{bots[size_t(a)].get(), bots[size_t(1 - a)].get()};
    std::vector<std::string> names{players[size_t(a)], players[size_t(1 - a)]};
    std::cout << "game " << g + 1 << ": " << names[0] << " (player 0) vs " << names[1] << " (player 1)\n";
    if (names[0] != "human") std::cout << rl::make_game(game)->to_string() << "\n";  // else HumanBot shows it
    auto state = rl::play_game(game, seat, nullptr, [&](const rl::Game& before, int action, const rl::Game& after) {
      std::cout << names[size_t(before.current_player())] << " plays " << before.action_to_string(action) << "\n";
      // A human to move next sees the board in HumanBot's prompt.
      if (after.is_terminal() || names[size_t(after.current_player())] != "human")
        std::cout << after.to_string() << "\n";
    });
    std::vector<double> r = state->returns();
    if (r[0] == r[1]) std::cout << "result: draw\n";
    else std::cout << "result: " << names[r[0] > r[1] ? 0 : 1] << " (player " << (r[0] > r[1] ? 0 : 1) << ") wins\n";
    const double mine = r[size_t(a)], theirs = r[size_t(1 - a)];
    ++score[mine > theirs ? 0 : mine == theirs ? 1 : 2];
  }
  if (games > 1)
    std::cout << players[0] << " against " << players[1] << ": " << score[0] << " wins, " << score[1] << " draws, "
              << score[2] << " losses\n";
  return 0;
}

struct Registrar {
  Registrar() { trainers()["alphazero"] = train_alphazero; }
} registrar;

SPIRE_CLI_COMMAND(60, [](CLI::App& app) -> std::function<int()> {
  auto* cmd = app.add_subcommand("rl", "reinforcement learning: train agents from job files, play games");
  cmd->require_subcommand(1);
  auto o = std::make_shared<TrainOptions>();
  auto* tr = cmd->add_subcommand("train", "train the agent a TOML job file describes (algorithm = \"alphazero\")");
  tr->add_option("job", o->job, "the job file (.toml)")->required()->check(CLI::ExistingFile);
  tr->add_option("-o,--out", o->out, "folder for the checkpoint and history (default: the job's checkpoint.dir)");
  tr->add_flag("--resume", o->resume, "continue the run saved in the folder's checkpoint.h5");

  auto game = std::make_shared<std::string>("connect_four");
  auto players = std::make_shared<std::vector<std::string>>();
  auto games = std::make_shared<int>(1);
  auto seed = std::make_shared<uint64_t>(0);
  auto* pl = cmd->add_subcommand("play", "play a game between two players, printing the board after every move");
  pl->add_option("--game", *game, "the game (tic_tac_toe, connect_four)");
  pl->add_option("--players", *players, std::string("the two players: ") + kPlayers)->required()->expected(2);
  pl->add_option("--games", *games, "games to play, colours alternated")->check(CLI::PositiveNumber);
  pl->add_option("--seed", *seed, "seed of the random and search players");
  return [=]() -> int {
    if (tr->parsed()) return train(*o);
    rl::make_game(*game);  // an unknown game fails here, naming the known ones
    return play(*game, *players, *games, *seed);
  };
});

}  // namespace
}  // namespace spire::cli
