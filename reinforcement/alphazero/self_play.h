// Self-play: `games` games at once, all moved by ONE batched search (one tree per game, their leaves
// evaluated by the network in one call per simulation step), with root Dirichlet noise, moves
// sampled from the visit counts for the first temperature_moves moves, and subtree reuse. Each
// finished game gives one sample per move: the observation, search's policy and the final outcome
// from the view of the player who moved; with augment, also the left-right mirror image of each.
//
// An iteration plays games_per_iteration games from fresh starts, with generators seeded from
// (seed, iteration): nothing carries over from one iteration to the next but the network, so a run
// resumed from a checkpoint plays the same games.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "reinforcement/alphazero/config.h"
#include "reinforcement/alphazero/network.h"
#include "reinforcement/alphazero/replay_buffer.h"
#include "reinforcement/mcts/search.h"

namespace spire::rl::alphazero {

// A 64-bit seed from a run's seed and a path of counters (SplitMix64 steps): independent streams
// for every iteration, game slot and search.
uint64_t derive_seed(uint64_t seed, std::initializer_list<uint64_t> path);

// The search settings of the agent: self-play (noise, exploration) or play (neither).
SearchConfig agent_search_config(const MctsSettings& mcts, bool self_play, int simulations = 0);

// The left-right mirror of a board game (observation planes [C, H, W]; actions the W columns or the
// H W cells row-major). has_mirror is false for other layouts.
bool has_mirror(const Game& game);
void mirror_observation(std::span<const float> in, std::span<float> out, const std::vector<int64_t>& shape);
int mirror_action(int action, const std::vector<int64_t>& shape, int num_actions);

struct SelfPlayStats {
  int games = 0, moves = 0;
  int first_player_wins = 0, draws = 0, second_player_wins = 0;
  int64_t samples = 0;  // added to the buffer (mirror images included)
};

// Plays one iteration's games and adds their samples to `buffer`.
SelfPlayStats self_play(const Config& config, const std::shared_ptr<PolicyValueNet>& net, int64_t iteration,
                        ReplayBuffer& buffer);

}  // namespace spire::rl::alphazero
