#include "reinforcement/alphazero/arena.h"

#include "engine/core/error.h"
#include "reinforcement/alphazero/network_evaluator.h"
#include "reinforcement/alphazero/self_play.h"
#include "reinforcement/mcts/search.h"

namespace spire::rl::alphazero {

MatchResult play_against_mcts(const Config& config, const std::shared_ptr<PolicyValueNet>& net,
                              const ArenaOptions& options) {
  SPIRE_CHECK(options.games >= 1, ValueError, "play_against_mcts: games must be >= 1, got ", options.games);
  auto agent_eval = std::make_shared<NetworkEvaluator>(net);
  auto rollout_eval = std::make_shared<RandomRollout>(options.opponent_rollouts);
  SearchConfig agent = agent_search_config(config.mcts, false, options.agent_simulations);
  agent.reuse = false;  // the batch changes every move: each search starts from its own root
  SearchConfig opponent;
  opponent.simulations = options.opponent_simulations;
  opponent.selection = "uct";
  opponent.reuse = false;

  std::vector<std::unique_ptr<Game>> games;
  for (int g = 0; g < options.games; ++g) games.push_back(make_game(config.game));
  for (int ply = 0;; ++ply) {
    // Each side searches, in one batch, the games where it is to move.
    for (int side = 0; side < 2; ++side) {
      std::vector<int> mine;
      for (int g = 0; g < options.games; ++g) {
        if (games[size_t(g)]->is_terminal()) continue;
        const int agent_player = g % 2;  // the agent moves first in even games
        if ((games[size_t(g)]->current_player() == agent_player) == (side == 0)) mine.push_back(g);
      }
      if (mine.empty()) continue;
      SearchConfig sc = side == 0 ? agent : opponent;
      sc.seed = derive_seed(options.seed, {uint64_t(ply), uint64_t(side)});
      MCTS mcts(sc, side == 0 ? std::shared_ptr<Evaluator>(agent_eval) : std::shared_ptr<Evaluator>(rollout_eval));
      std::vector<const Game*> roots;
      for (int g : mine) roots.push_back(games[size_t(g)].get());
      std::vector<SearchResult> results = mcts.search(roots);
      for (size_t k = 0; k < mine.size(); ++k) games[size_t(mine[k])]->apply_action(results[k].action);
    }
    bool all_over = true;
    for (auto& g : games) all_over = all_over && g->is_terminal();
    if (all_over) break;
  }
  MatchResult m;
  for (int g = 0; g < options.games; ++g) {
    const std::vector<double> r = games[size_t(g)]->returns();
    const int me = g % 2;
    ++m.games;
    if (r[size_t(me)] > r[size_t(1 - me)]) ++m.wins;
    else if (r[size_t(me)] < r[size_t(1 - me)]) ++m.losses;
    else ++m.draws;
    m.histories.push_back(games[size_t(g)]->serialize());
  }
  return m;
}

std::vector<LadderRung> evaluation_ladder(const Config& config, const std::shared_ptr<PolicyValueNet>& net,
                                          int64_t iteration) {
  std::vector<LadderRung> out;
  for (size_t i = 0; i < config.evaluation.opponents.size(); ++i) {
    ArenaOptions o;
    o.games = config.evaluation.games;
    o.agent_simulations = config.evaluation.simulations > 0 ? config.evaluation.simulations : config.mcts.simulations;
    o.opponent_simulations = config.evaluation.opponents[i];
    o.opponent_rollouts = config.evaluation.rollouts;
    o.seed = derive_seed(config.seed, {3, uint64_t(iteration), uint64_t(i)});
    out.push_back({o.opponent_simulations, play_against_mcts(config, net, o)});
  }
  return out;
}

}  // namespace spire::rl::alphazero
