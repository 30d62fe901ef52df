// Players of games: a Bot chooses the move for the player to move (OpenSpiel's Bot). Matches play
// bots against each other with colours alternated, reproducibly from a seed.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reinforcement/games/game.h"

namespace spire::rl {

class Bot {
 public:
  virtual ~Bot() = default;
  virtual std::string name() const = 0;
  // The move for state.current_player() (state is not terminal).
  virtual int step(const Game& state) = 0;
  // Every move of the game, by any player, after it was chosen (a bot that keeps a search tree
  // advances it here); state_before is the state the move was made in.
  virtual void inform_action(const Game& /*state_before*/, int /*player*/, int /*action*/) {}
  // A new game starts.
  virtual void restart() {}
};

// Sees each move once played: the states before and after it, and the action (its text is
// before.action_to_string(action), which names the mover).
using MoveObserver = std::function<void(const Game& before, int action, const Game& after)>;
// One game from `start` (the initial state when null); bots[p] plays player p. Returns the final
// state (its returns() and history()).
std::unique_ptr<Game> play_game(const std::string& game, std::vector<Bot*> bots, const Game* start = nullptr,
                                const MoveObserver& on_move = {});

struct MatchResult {
  int games = 0;
  // From bot 0's view, over all games (it plays first in even games, second in odd ones).
  int wins = 0, draws = 0, losses = 0;
  std::vector<std::string> histories;  // each game's serialize()
  double score() const { return games ? (wins + 0.5 * draws) / games : 0.0; }
};
// `games` games between two bots, colours alternated (bot 0 first in game 0).
MatchResult play_match(const std::string& game, Bot& bot0, Bot& bot1, int games);

}  // namespace spire::rl
