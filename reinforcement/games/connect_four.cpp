#include "reinforcement/games/connect_four.h"

#include "engine/core/error.h"

namespace spire::rl {

bool ConnectFour::has_four(uint64_t b) {
  // Shifts: 1 up a column, 7 along a row, 8 and 6 along the two diagonals.
  for (int s : {1, 7, 8, 6}) {
    const uint64_t pairs = b & (b >> s);
    if (pairs & (pairs >> (2 * s))) return true;
  }
  return false;
}

void ConnectFour::legal_actions_into(std::vector<int>& out) const {
  out.clear();
  if (is_terminal()) return;
  for (int c = 0; c < kColumns; ++c)
    if (!(occupied_ & top(c))) out.push_back(c);
}

std::vector<int> ConnectFour::legal_actions() const {
  std::vector<int> out;
  out.reserve(kColumns);
  legal_actions_into(out);
  return out;
}

void ConnectFour::legal_mask(std::span<uint8_t> mask) const {
  SPIRE_CHECK(mask.size() == kColumns, ShapeError, "connect_four.legal_mask: the mask has ", mask.size(),
              " entries; the game has ", kColumns, " actions");
  const bool over = is_terminal();
  for (int c = 0; c < kColumns; ++c) mask[c] = !over && !(occupied_ & top(c));
}

std::vector<double> ConnectFour::returns() const {
  if (winner_ < 0) return {0.0, 0.0};
  return winner_ == 0 ? std::vector<double>{1.0, -1.0} : std::vector<double>{-1.0, 1.0};
}

void ConnectFour::do_apply_action(int action) {
  const int p = mover();
  // Adding the column's bottom bit to its occupied cells carries into the lowest empty one.
  const uint64_t filled = occupied_ | (occupied_ + bottom(action));
  boards_[p] |= filled ^ occupied_;
  occupied_ = filled;
  ++moves_;
  if (has_four(boards_[p])) winner_ = static_cast<int8_t>(p);
}

std::string ConnectFour::to_string() const {
  std::string s;
  s.reserve((kColumns + 1) * kRows);
  for (int r = kRows - 1; r >= 0; --r) {
    for (int c = 0; c < kColumns; ++c) {
      const uint64_t bit = uint64_t{1} << (7 * c + r);
      s += boards_[0] & bit ? 'x' : boards_[1] & bit ? 'o' : '.';
    }
    s += '\n';
  }
  return s;
}

std::string ConnectFour::action_to_string(int action) const {
  SPIRE_CHECK(action >= 0 && action < kColumns, ValueError, "connect_four: action ", action,
              " is out of range (0 to 6)");
  return detail::cat(mover() ? 'o' : 'x', action);
}

void ConnectFour::observation(std::span<float> out) const {
  SPIRE_CHECK(out.size() == 3 * kCells, ShapeError, "connect_four.observation: the buffer has ", out.size(),
              " floats; the observation has 126 (3 x 6 x 7)");
  const uint64_t mine = boards_[mover()], theirs = boards_[1 - mover()];
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kColumns; ++c) {
      const uint64_t bit = uint64_t{1} << (7 * c + r);
      const int i = r * kColumns + c;
      out[i] = (mine & bit) != 0;
      out[kCells + i] = (theirs & bit) != 0;
      out[2 * kCells + i] = !(occupied_ & bit);
    }
}

}  // namespace spire::rl
