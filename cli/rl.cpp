// `spire rl`: reinforcement learning from the command line.
//   spire rl train job.toml [-o DIR] [--resume] [--policy NAME]
//       train the agent a job file describes: alphazero, or an algorithm written as fragments (ppo,
//       a2c, dqn) under a distribution policy (the job's, or --policy), also under mpirun -n N
//   spire rl evaluate CHECKPOINT [--episodes N] [--envs E] [--seed S]
//       the deterministic policy of a trained ppo / a2c / dqn agent on fresh episodes
//   spire rl play --game connect_four --players A B [--games N] [--seed S]
//       players: human, random, minimax[:depth], mcts[:simulations],
//                alphazero:CHECKPOINT[:simulations]
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "engine/core/error.h"
#include "engine/data/job_file.h"
#include "engine/parallel/runtime.h"
#include "engine/train/progress_bar.h"
#include "engine/train/stream.h"
#include "reinforcement/agents/algorithms.h"
#include "reinforcement/agents/job.h"
#include "reinforcement/alphazero/alphazero.h"
#include "reinforcement/games/bots.h"
#include "reinforcement/mcts/evaluator.h"
#include "reinforcement/mcts/mcts_bot.h"

namespace spire::cli {
namespace {

namespace fs = std::filesystem;

struct TrainOptions {
  std::string job, out, policy;
  bool resume = false;
};

// The output folder: -o, else the job's checkpoint.dir, else the job file's name beside it.
std::string output_folder(const TrainOptions& o, const std::string& job_dir) {
  return !o.out.empty() ? o.out : !job_dir.empty() ? job_dir : fs::path(o.job).replace_extension("").string();
}

// The folder's checkpoint, checked against --resume.
std::string checkpoint_in(const std::string& out, const TrainOptions& o) {
  const std::string checkpoint = (fs::path(out) / "checkpoint.h5").string();
  SPIRE_CHECK(o.resume || !fs::exists(checkpoint), ValueError, "rl train: ", checkpoint,
              " exists; pass --resume to continue that run, or choose another folder with -o");
  SPIRE_CHECK(!o.resume || fs::exists(checkpoint), ValueError, "rl train --resume: no checkpoint at ", checkpoint);
  return checkpoint;
}

int train_alphazero(const std::string& text, const TrainOptions& o) {
  using namespace rl::alphazero;
  SPIRE_CHECK(o.policy.empty(), ConfigError, "rl train: --policy applies to the algorithms written as fragments (",
              detail::join(rl::agents::registered_algorithms()), "); alphazero runs in one process");
  Config config = parse_config(text, o.job);
  const std::string out = output_folder(o, config.checkpoint.dir);
  config.checkpoint.dir = out;
  fs::create_directories(out);
  const std::string checkpoint = checkpoint_in(out, o);
  AlphaZero run(config);
  if (o.resume) {
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

// PPO, A2C, DQN and every algorithm written as fragments, under the job's distribution policy;
// the same command under `mpirun -n N`. Only the learner's rank prints.
int train_fragments(const std::string& text, const TrainOptions& o) {
  rl::agents::Job job = rl::agents::parse_job(text, o.job, o.policy);
  const bool printer = parallel::rank() == 0;
  const std::string out = output_folder(o, job.settings.checkpoint.dir);
  job.settings.checkpoint.dir = out;
  const std::string checkpoint = checkpoint_in(out, o);
  rl::dataflow::Trainer trainer(job.instance, job.settings);
  if (o.resume) trainer.resume(checkpoint);
  const rl::dataflow::RunSettings& run = job.settings.run;
  // On a terminal, a bar redrawn after every update under the progress lines; elsewhere the lines.
  const bool terminal = train::Stream::standard_output().is_terminal;
  auto bar = std::make_shared<train::ProgressBar>();
  auto t0 = std::chrono::steady_clock::now();
  const int64_t steps0 = trainer.env_steps();
  if (trainer.is_learner()) {
    trainer.progress = [terminal](const std::string& line) {
      std::cout << (terminal ? "\r\033[K" : "") << line << std::endl;
    };
    if (terminal)
      trainer.callback = [&, bar, drawn = -1.0](int64_t, const train::Logs& logs) mutable {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (seconds - drawn < 0.1) return true;  // ten redraws a second at most
        drawn = seconds;
        const double done = logs.at("env_steps"), rate = (done - double(steps0)) / std::max(seconds, 1e-9);
        std::cout << "\r\033[K" << bar->bar(int64_t(done), run.total_steps) << " " << int64_t(rate)
                  << " steps/s ETA "
                  << train::ProgressBar::format_time(std::max(0.0, double(run.total_steps) - done) / rate)
                  << "  return " << logs.at("episode_return") << std::flush;
        return true;
      };
  }
  if (printer)
    std::cout << job.algorithm << " on " << run.env << ": " << run.total_steps << " environment steps, "
              << run.actors << " actor" << (run.actors > 1 ? "s" : "") << " of " << run.envs_per_actor
              << " environments, policy " << job.settings.policy << " on " << parallel::size() << " rank"
              << (parallel::size() > 1 ? "s" : "") << " (" << trainer.placement().describe() << "), writing to "
              << out << std::endl;
  rl::dataflow::Summary s = trainer.train();
  if (trainer.is_learner()) {
    std::cout << "done: checkpoint " << checkpoint << ", history " << (fs::path(out) / "history.csv").string();
    if (s.evaluation)
      std::cout << "; evaluation return " << s.evaluation->mean_return() << " +/- " << s.evaluation->std_return()
                << " over " << s.evaluation->returns.size() << " episodes";
    std::cout << std::endl;
  }
  return 0;
}

// A trained agent's deterministic policy on fresh episodes, from its run's checkpoint (which holds
// the job: algorithm, environment, network settings).
struct EvaluateOptions {
  std::string checkpoint;
  int64_t episodes = 100, envs = 10;
  uint64_t seed = 0;
};

int evaluate(const EvaluateOptions& o) {
  rl::agents::Job job = rl::agents::job_of_checkpoint(o.checkpoint, "single_process");
  rl::dataflow::Trainer trainer(job.instance, job.settings);
  trainer.resume(o.checkpoint);
  rl::dataflow::Evaluation e = trainer.evaluate(o.episodes, o.envs, o.seed);
  auto [lo, hi] = std::minmax_element(e.returns.begin(), e.returns.end());
  std::cout << job.algorithm << " on " << job.settings.run.env << " after " << trainer.env_steps()
            << " environment steps: return " << e.mean_return() << " +/- " << e.std_return() << " over "
            << e.returns.size() << " episodes (min " << *lo << ", max " << *hi << "), mean length " << e.mean_length()
            << "\n";
  return 0;
}

int train(const TrainOptions& o) {
  const std::string text = data::JobSection::read(o.job);
  const std::string algorithm = rl::alphazero::job_algorithm(text, o.job);
  if (algorithm == "alphazero") return train_alphazero(text, o);
  return train_fragments(text, o);
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

SPIRE_CLI_COMMAND(60, [](CLI::App& app) -> std::function<int()> {
  auto* cmd = app.add_subcommand("rl", "reinforcement learning: train agents from job files, play games");
  cmd->require_subcommand(1);
  auto o = std::make_shared<TrainOptions>();
  auto* tr = cmd->add_subcommand("train", "train the agent a TOML job file describes (algorithm = \"ppo\", \"a2c\", "
                                          "\"dqn\" or \"alphazero\"); also under mpirun -n N");
  tr->add_option("job", o->job, "the job file (.toml)")->required()->check(CLI::ExistingFile);
  tr->add_option("-o,--out", o->out, "folder for the checkpoint and history (default: the job's checkpoint.dir)");
  tr->add_flag("--resume", o->resume, "continue the run saved in the folder's checkpoint.h5");
  tr->add_option("--policy", o->policy,
                 "the distribution policy, overriding the job's: single_process, multi_actor_single_learner, "
                 "async_multi_actor_single_learner, single_actor_learner_multi_env");

  auto ev = std::make_shared<EvaluateOptions>();
  auto* evc = cmd->add_subcommand("evaluate", "play the deterministic policy of a trained agent (ppo, a2c, dqn) "
                                              "from its checkpoint, and print the returns");
  evc->add_option("checkpoint", ev->checkpoint, "the run's checkpoint.h5")->required()->check(CLI::ExistingFile);
  evc->add_option("--episodes", ev->episodes, "episodes to play")->check(CLI::PositiveNumber);
  evc->add_option("--envs", ev->envs, "environments playing them at once")->check(CLI::PositiveNumber);
  evc->add_option("--seed", ev->seed, "environment i is reset with seed + i");

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
    if (evc->parsed()) return evaluate(*ev);
    rl::make_game(*game);  // an unknown game fails here, naming the known ones
    return play(*game, *players, *games, *seed);
  };
});

}  // namespace
}  // namespace spire::cli
