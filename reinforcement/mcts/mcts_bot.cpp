#include "reinforcement/mcts/mcts_bot.h"

namespace spire::rl {

MCTSBot::MCTSBot(SearchConfig config, std::shared_ptr<Evaluator> evaluator, std::string name)
    : mcts_(std::move(config), std::move(evaluator)), name_(std::move(name)) {}

int MCTSBot::step(const Game& state) {
  const Game* roots[1] = {&state};
  last_ = std::move(mcts_.search(roots)[0]);
  return last_.action;
}

void MCTSBot::inform_action(const Game&, int, int action) { mcts_.advance(0, action); }

void MCTSBot::restart() { mcts_.clear(0); }

}  // namespace spire::rl
