// Bots that need no search tree: a uniformly random player, a perfect (or depth-limited) player by
// negamax, and a human at a terminal.
#pragma once
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "reinforcement/envs/np_random.h"
#include "reinforcement/games/bot.h"

namespace spire::rl {

// Uniform over the legal actions (OpenSpiel's uniform_random bot), reproducible from its seed.
class RandomBot final : public Bot {
 public:
  explicit RandomBot(uint64_t seed) : rng_(seed) {}
  std::string name() const override { return "random"; }
  int step(const Game& state) override;

 private:
  Generator rng_;
  std::vector<int> legal_;
};

// Negamax with alpha-beta pruning and a transposition table (keyed by Game::position_key) for
// two-player zero-sum games; among the optimal moves it picks uniformly (from its seed). Scores
// prefer faster wins and slower losses: a result k plies away counts 1 point less per ply.
//
// depth_limit 0 searches to the end of the game: exact, and the table keeps every position searched
// (exact values or alpha-beta bounds) across moves and games, so tic-tac-toe is searched once. A
// game too large for that (Connect Four) makes step() throw once the table passes max_positions;
// give such games a depth limit, beyond which a position counts as a draw (so the bot then only
// sees wins and losses within its horizon).
class MinimaxBot final : public Bot {
 public:
  explicit MinimaxBot(uint64_t seed, int depth_limit = 0, int64_t max_positions = 4'000'000);
  std::string name() const override;
  int step(const Game& state) override;

  // Every optimal action at `state` (ascending), as step() chooses among.
  std::vector<int> best_actions(const Game& state);
  // The value of `state` for `player` with best play (win/draw/loss games): +1 a forced win, -1 a
  // forced loss, 0 a draw or, under a depth limit, nothing decided within the horizon. A terminal
  // state gives its return.
  double value(const Game& state, int player);
  // Positions in the transposition table.
  int64_t table_size() const { return static_cast<int64_t>(table_.size()); }
  int depth_limit() const { return depth_limit_; }

 private:
  enum class Bound : uint8_t { kExact, kLower, kUpper };
  struct Entry {
    int score;
    int depth;  // the depth searched below the position (kUnlimited when to the end)
    Bound bound;
  };
  int search(const Game& state, int depth, int alpha, int beta);
  int child_score(const Game& child, int mover, int depth, int alpha, int beta);
  // Scores of every legal action at `state` (exact within the horizon), with the actions.
  void score_actions(const Game& state, std::vector<int>& actions, std::vector<int>& scores);
  void check_game(const Game& state) const;

  Generator rng_;
  int depth_limit_;
  int64_t max_positions_;
  std::unordered_map<uint64_t, Entry> table_;
  std::string table_game_;  // the game the table holds positions of
};

// A person at a terminal: shows the board and the legal moves, reads a move (its number or its
// action_to_string text), and asks again on anything else. Input ending throws ValueError.
class HumanBot final : public Bot {
 public:
  using ReadLine = std::function<std::optional<std::string>()>;  // nullopt at the end of input
  using Write = std::function<void(const std::string&)>;
  HumanBot(std::istream& in, std::ostream& out);
  HumanBot(ReadLine read_line, Write write);
  std::string name() const override { return "human"; }
  int step(const Game& state) override;
  // The action `text` names at `state` (a number or an action string), or nullopt.
  static std::optional<int> parse_move(const Game& state, const std::string& text);

 private:
  ReadLine read_line_;
  Write write_;
};

}  // namespace spire::rl
