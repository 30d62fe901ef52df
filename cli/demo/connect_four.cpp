// Step: AlphaZero-lite on Connect Four: a small policy-value network trained by self-play (30
// iterations, about a minute on two cores), then one game against MCTS with random rollouts at the
// same number of simulations. A fixed number of iterations, not a time budget: the same game on
// every machine.
#include <chrono>
#include <cmath>

#include "cli/demo/demo.h"
#include "reinforcement/alphazero/alphazero.h"
#include "reinforcement/mcts/evaluator.h"
#include "reinforcement/mcts/mcts_bot.h"

namespace spire::cli::demo {
namespace {

SPIRE_DEMO_STEP(200, "alphazero", "AlphaZero-lite learns Connect Four, then plays MCTS", [](Context& c) {
  using namespace rl::alphazero;
  Config config;
  config.game = "connect_four";
  config.seed = 7;
  config.network = {.blocks = 1, .channels = 32, .value_hidden = 32, .batch_norm = true};
  config.mcts.simulations = 40;
  config.selfplay.games = 48;
  config.selfplay.games_per_iteration = 48;
  config.selfplay.temperature_moves = 8;
  config.train = {.iterations = 30, .steps_per_iteration = 40, .batch_size = 128, .lr = 2e-3, .weight_decay = 1e-4,
                  .buffer_capacity = 40000};
  AlphaZero run(config);
  c.out << "  self-play: " << config.selfplay.games << " games at once in one batched search, "
        << config.mcts.simulations << " simulations per move; " << config.train.iterations << " iterations\n";
  auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  run.progress = [&](const std::string& line) { c.out << "  " << line << "\n"; };
  run.train();
  c.figure("training iterations", double(run.iterations_done()));
  c.figure("training time", elapsed(), "s");
  auto empty = rl::make_game("connect_four");
  c.figure("value of the empty board (first player's view)", run.value(*empty));

  rl::SearchConfig mcts;
  mcts.simulations = config.mcts.simulations;
  mcts.selection = "uct";
  mcts.seed = 1;
  rl::MCTSBot opponent(mcts, std::make_shared<rl::RandomRollout>(), "mcts");
  auto agent = run.bot();
  c.out << "  alphazero (x, first) against mcts with random rollouts (o), " << mcts.simulations
        << " simulations each:\n";
  auto state = rl::play_game("connect_four", {agent.get(), &opponent});
  std::string board = state->to_string();
  for (size_t i = 0, j; i < board.size(); i = j + 1) {
    j = board.find('\n', i);
    if (j == std::string::npos) j = board.size();
    c.out << "    " << board.substr(i, j - i) << "\n";
  }
  std::vector<double> r = state->returns();
  c.out << "  moves: " << state->serialize() << "\n  result: "
        << (r[0] > r[1] ? "alphazero wins" : r[0] < r[1] ? "mcts wins" : "draw") << "\n";
  c.figure("alphazero's result (1 win, 0 draw, -1 loss)", r[0]);
});

}  // namespace
}  // namespace spire::cli::demo
