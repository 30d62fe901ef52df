#include "reinforcement/games/tic_tac_toe.h"

#include <array>

#include "engine/core/error.h"

namespace spire::rl {

namespace {
constexpr uint16_t kLines[8] = {0007, 0070, 0700, 0111, 0222, 0444, 0421, 0124};
constexpr char kSymbol[2] = {'x', 'o'};

// Whether a set of cells (bit i = cell i) holds three in a row, for every set: one lookup per move.
constexpr std::array<bool, 1 << TicTacToe::kCells> kHasLine = [] {
  std::array<bool, 1 << TicTacToe::kCells> table{};
  for (int pieces = 0; pieces < (1 << TicTacToe::kCells); ++pieces)
    for (uint16_t line : kLines) table[pieces] = table[pieces] || (pieces & line) == line;
  return table;
}();
}  // namespace

void TicTacToe::legal_actions_into(std::vector<int>& out) const {
  out.clear();
  if (is_terminal()) return;
  const uint16_t f = filled();
  for (int c = 0; c < kCells; ++c)
    if (!((f >> c) & 1)) out.push_back(c);
}

std::vector<int> TicTacToe::legal_actions() const {
  std::vector<int> out;
  out.reserve(kCells);
  legal_actions_into(out);
  return out;
}

void TicTacToe::legal_mask(std::span<uint8_t> mask) const {
  SPIRE_CHECK(mask.size() == kCells, ShapeError, "tic_tac_toe.legal_mask: the mask has ", mask.size(),
              " entries; the game has ", kCells, " actions");
  const bool over = is_terminal();
  const uint16_t f = filled();
  for (int c = 0; c < kCells; ++c) mask[c] = !over && !((f >> c) & 1);
}

std::vector<double> TicTacToe::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

void TicTacToe::do_apply_action(int action) {
  const int p = mover();
  boards_[p] |= static_cast<uint16_t>(1 << action);
  if (kHasLine[boards_[p]]) winner_ = static_cast<int8_t>(p);
}

std::string TicTacToe::to_string() const {
  std::string s;
  for (int c = 0; c < kCells; ++c) {
    if (c && c % 3 == 0) s += '\n';
    s += (boards_[0] >> c) & 1 ? 'x' : (boards_[1] >> c) & 1 ? 'o' : '.';
  }
  return s;
}

std::string TicTacToe::action_to_string(int action) const {
  SPIRE_CHECK(action >= 0 && action < kCells, ValueError, "tic_tac_toe: action ", action,
              " is out of range (0 to 8)");
  return detail::cat(kSymbol[mover()], '(', action / 3, ',', action % 3, ')');
}

void TicTacToe::observation(std::span<float> out) const {
  SPIRE_CHECK(out.size() == 3 * kCells, ShapeError, "tic_tac_toe.observation: the buffer has ", out.size(),
              " floats; the observation has 27 (3 x 3 x 3)");
  const int me = mover();
  for (int c = 0; c < kCells; ++c) {
    const bool mine = (boards_[me] >> c) & 1, theirs = (boards_[1 - me] >> c) & 1;
    out[c] = mine;
    out[kCells + c] = theirs;
    out[2 * kCells + c] = !mine && !theirs;
  }
}

}  // namespace spire::rl
