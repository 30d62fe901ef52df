// Tic-tac-toe with OpenSpiel's rules, numbering and board text: cells 0..8 row by row (action = cell),
// player 0 plays x and moves first, three in a row wins, a full board draws.
#pragma once
#include <array>
#include <cstdint>

#include "reinforcement/games/game.h"

namespace spire::rl {

class TicTacToe final : public Game {
 public:
  static constexpr int kCells = 9;

  std::string name() const override { return "tic_tac_toe"; }
  int num_players() const override { return 2; }
  int num_actions() const override { return kCells; }
  std::vector<int64_t> observation_shape() const override { return {3, 3, 3}; }

  int current_player() const override { return is_terminal() ? kTerminal : mover(); }
  bool is_terminal() const override { return winner_ >= 0 || filled() == kFull; }
  std::vector<int> legal_actions() const override;
  void legal_actions_into(std::vector<int>& out) const override;
  void legal_mask(std::span<uint8_t> mask) const override;
  std::vector<double> returns() const override;
  double player_return(int player) const override { return winner_ < 0 ? 0.0 : winner_ == player ? 1.0 : -1.0; }

  std::unique_ptr<Game> clone() const override { return std::make_unique<TicTacToe>(*this); }
  bool copy_from(const Game& other) override { return assign_if_same(*this, other); }
  // OpenSpiel's ToString: "x.o\n...\n..." (no final newline).
  std::string to_string() const override;
  // OpenSpiel's ActionToString for the player to move: "x(1,2)" (row, column).
  std::string action_to_string(int action) const override;
  void observation(std::span<float> out) const override;
  uint64_t position_key() const override { return boards_[0] | uint64_t{boards_[1]} << kCells; }

  // Each player's pieces as a cell bitmask (bit i = cell i).
  uint16_t pieces(int player) const { return boards_[player]; }
  // The winning player, or -1 while nobody has three in a row.
  int winner() const { return winner_; }

 protected:
  void do_apply_action(int action) override;
  bool action_is_legal(int action) const override { return !((filled() >> action) & 1); }

 private:
  static constexpr uint16_t kFull = (1 << kCells) - 1;
  uint16_t filled() const { return boards_[0] | boards_[1]; }
  // Whose turn it is by piece count (also defined at terminal states, for observation()).
  int mover() const { return __builtin_popcount(filled()) & 1; }

  std::array<uint16_t, 2> boards_{};
  int8_t winner_ = -1;
};

}  // namespace spire::rl
