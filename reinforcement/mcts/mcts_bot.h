// A player that searches: an MCTS over one tree (B = 1) that keeps the subtree under every move
// played (inform_action advances it), as OpenSpiel's MCTSBot with tree reuse.
#pragma once
#include <memory>
#include <string>

#include "reinforcement/games/bot.h"
#include "reinforcement/mcts/search.h"

namespace spire::rl {

class MCTSBot final : public Bot {
 public:
  MCTSBot(SearchConfig config, std::shared_ptr<Evaluator> evaluator, std::string name = "mcts");
  std::string name() const override { return name_; }
  int step(const Game& state) override;
  void inform_action(const Game& state_before, int player, int action) override;
  void restart() override;
  // The last search's result (its policy, visits, values).
  const SearchResult& last_result() const { return last_; }
  MCTS& search() { return mcts_; }

 private:
  MCTS mcts_;
  std::string name_;
  SearchResult last_;
};

}  // namespace spire::rl
