// A batch of B search trees stored as arrays, as mctx stores them: node quantities are [B, N]
// (N = capacity nodes per tree), edge quantities are [B, N, A] (A = the game's action count).
// Node 0 of each tree is its root. Index helpers keep the layout in one place.
//
// Values follow OpenSpiel's convention: a node's value_sum is from the view of the player who moved
// into it (its parent's player to move), so a parent picks the child with the highest mean.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "reinforcement/games/game.h"

namespace spire::rl {

// Solver outcomes, from the view of the player who moved into the node.
enum class Proven : int8_t { kUnknown = 2, kWin = 1, kDraw = 0, kLoss = -1 };

struct Tree {
  static constexpr int32_t kNone = -1;  // no node (no parent, child not expanded)

  int64_t batch = 0, capacity = 0, num_actions = 0;
  // 1 or 2: in two-player games the player who moved into a node is the opponent of its player to
  // move (the root's included), so a value changes sign between the two views.
  int num_players = 2;

  // [B, N]
  std::vector<int32_t> parent;              // kNone at the root
  std::vector<int32_t> action_from_parent;  // kNone at the root
  std::vector<int32_t> visits;
  std::vector<double> value_sum;            // view of the player who moved into the node
  std::vector<float> raw_value;             // the evaluator's (or terminal) value, view of to_play's mover
  std::vector<int8_t> to_play;              // the player to move, Game::kTerminal at the end
  std::vector<uint8_t> expanded;            // children priors written (leaf evaluated)
  std::vector<Proven> proven;               // MCTS-Solver
  // The game at each node, copied from its parent's on creation. Slots past num_nodes keep their
  // old states as a pool: a new node copies into one (Game::copy_from) instead of allocating.
  std::vector<std::unique_ptr<Game>> state;
  // [B, N, A]
  std::vector<int32_t> children;            // node index or kNone
  std::vector<float> prior;                 // normalised over legal actions; 0 on illegal ones
  std::vector<uint8_t> legal;
  // [B]
  std::vector<int32_t> num_nodes;

  Tree() = default;
  Tree(int64_t batch, int64_t capacity, int64_t num_actions);

  int64_t node(int64_t b, int64_t n) const { return b * capacity + n; }
  int64_t edge(int64_t b, int64_t n, int64_t a) const { return (b * capacity + n) * num_actions + a; }
  int32_t child(int64_t b, int64_t n, int64_t a) const { return children[edge(b, n, a)]; }
  // The mean value of node n from the view of the player who moved into it (0 when unvisited).
  double q(int64_t b, int64_t n) const {
    int32_t v = visits[node(b, n)];
    return v > 0 ? value_sum[node(b, n)] / v : 0.0;
  }
  // A value from the view of the player who moved into a node, seen by the player to move there.
  double to_mover_view(double v) const { return num_players == 1 ? v : -v; }
  // Node n's raw value from the view of its player to move (what the evaluator returned).
  double raw_value_to_play(int64_t b, int64_t n) const { return to_mover_view(raw_value[node(b, n)]); }
  // Empties tree b (its root must be expanded again); its states stay, for reuse.
  void clear(int64_t b);
  // Grows the node capacity to at least `capacity`, keeping every tree's nodes and indices.
  void reserve(int64_t capacity);
  // Appends a fresh node (no children, not expanded, unvisited) to tree b; kNone when b is full.
  int32_t add_node(int64_t b, int32_t parent, int32_t action);
};

}  // namespace spire::rl
