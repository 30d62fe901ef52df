// Connect Four with OpenSpiel's rules, numbering and board text: 6 rows x 7 columns, action = the
// column to drop a piece in, player 0 plays x and moves first, four in a row (any direction) wins,
// a full board draws.
//
// Bitboards: bit 7 * column + row holds a cell (row 0 at the bottom); the 7th bit of each column is a
// sentinel that stays empty, so that shifting a board never carries a line from one column into
// the next and a win is four shifts and ands.
#pragma once
#include <array>
#include <cstdint>

#include "reinforcement/games/game.h"

namespace spire::rl {

class ConnectFour final : public Game {
 public:
  static constexpr int kRows = 6, kColumns = 7, kCells = kRows * kColumns;

  std::string name() const override { return "connect_four"; }
  int num_players() const override { return 2; }
  int num_actions() const override { return kColumns; }
  std::vector<int64_t> observation_shape() const override { return {3, kRows, kColumns}; }

  int current_player() const override { return is_terminal() ? kTerminal : mover(); }
  bool is_terminal() const override { return winner_ >= 0 || moves_ == kCells; }
  std::vector<int> legal_actions() const override;
  void legal_actions_into(std::vector<int>& out) const override;
  void legal_mask(std::span<uint8_t> mask) const override;
  std::vector<double> returns() const override;
  double player_return(int player) const override { return winner_ < 0 ? 0.0 : winner_ == player ? 1.0 : -1.0; }

  std::unique_ptr<Game> clone() const override { return std::make_unique<ConnectFour>(*this); }
  bool copy_from(const Game& other) override { return assign_if_same(*this, other); }
  // OpenSpiel's ToString: the top row first, every row ending in a newline.
  std::string to_string() const override;
  // OpenSpiel's ActionToString for the player to move: "x3".
  std::string action_to_string(int action) const override;
  // Plane-major [3][row][column] with row 0 at the bottom (OpenSpiel's tensor layout).
  void observation(std::span<float> out) const override;
  // The mover's pieces plus the occupied cells: unique, since in every column the sum stays below
  // the sentinel bit and different heights give disjoint ranges.
  uint64_t position_key() const override { return boards_[mover()] + occupied_; }

  // Each player's bitboard, and the occupied cells (layout above).
  uint64_t pieces(int player) const { return boards_[player]; }
  uint64_t occupied() const { return occupied_; }
  // The winning player, or -1 while nobody has four in a row.
  int winner() const { return winner_; }
  // Whether `pieces` holds four in a row somewhere.
  static bool has_four(uint64_t pieces);

 protected:
  void do_apply_action(int action) override;
  bool action_is_legal(int action) const override { return !(occupied_ & top(action)); }

 private:
  static constexpr uint64_t bottom(int column) { return uint64_t{1} << (7 * column); }
  static constexpr uint64_t top(int column) { return uint64_t{1} << (7 * column + kRows - 1); }
  int mover() const { return moves_ & 1; }

  std::array<uint64_t, 2> boards_{};
  uint64_t occupied_ = 0;
  int8_t moves_ = 0;
  int8_t winner_ = -1;
};

}  // namespace spire::rl
