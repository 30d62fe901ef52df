// Matches between the agent (search guided by the network, no noise, the most visited move) and
// MCTS with random rollouts, all games of a match played at once: each side's moves in the games
// where it is to move come from one batched search. Colours alternate: the agent moves first in
// even-numbered games. The evaluation ladder is one match per opponent strength.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "reinforcement/alphazero/config.h"
#include "reinforcement/alphazero/network.h"
#include "reinforcement/games/bot.h"

namespace spire::rl::alphazero {

struct ArenaOptions {
  int games = 20;
  int agent_simulations = 50;
  int opponent_simulations = 50;
  int opponent_rollouts = 1;
  uint64_t seed = 0;
};

// From the agent's view (MatchResult's bot 0), with every game's history.
MatchResult play_against_mcts(const Config& config, const std::shared_ptr<PolicyValueNet>& net,
                              const ArenaOptions& options);

struct LadderRung {
  int opponent_simulations = 0;
  MatchResult result;
};
// One match per config.evaluation.opponents entry, seeded from (config.seed, iteration, rung).
std::vector<LadderRung> evaluation_ladder(const Config& config, const std::shared_ptr<PolicyValueNet>& net,
                                          int64_t iteration);

}  // namespace spire::rl::alphazero
