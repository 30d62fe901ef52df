#include "reinforcement/mcts/tree.h"

#include <algorithm>

#include "engine/core/error.h"

namespace spire::rl {

Tree::Tree(int64_t batch_, int64_t capacity_, int64_t num_actions_)
    : batch(batch_), capacity(capacity_), num_actions(num_actions_) {
  SPIRE_CHECK(batch > 0 && capacity > 0 && num_actions > 0, ValueError, "Tree: batch (", batch, "), capacity (",
              capacity, ") and num_actions (", num_actions, ") must be positive");
  const auto nodes = static_cast<size_t>(batch * capacity), edges = nodes * static_cast<size_t>(num_actions);
  parent.assign(nodes, kNone);
  action_from_parent.assign(nodes, kNone);
  visits.assign(nodes, 0);
  value_sum.assign(nodes, 0.0);
  raw_value.assign(nodes, 0.0f);
  to_play.assign(nodes, 0);
  expanded.assign(nodes, 0);
  proven.assign(nodes, Proven::kUnknown);
  state.resize(nodes);
  children.assign(edges, kNone);
  prior.assign(edges, 0.0f);
  legal.assign(edges, 0);
  num_nodes.assign(static_cast<size_t>(batch), 0);
}

void Tree::clear(int64_t b) { num_nodes[b] = 0; }

namespace {
// Moves each tree's rows from stride `from` to stride `to` (to > from), last tree first so nothing is
// overwritten before it moved; `row` elements per node. Rows left behind are dead: add_node
// initialises a row when it hands it out.
template <class T>
void restride(std::vector<T>& v, int64_t batch, int64_t from, int64_t to, int64_t row, const T& fill) {
  v.resize(static_cast<size_t>(batch * to * row));
  for (int64_t b = batch - 1; b >= 0; --b) {
    auto src = v.begin() + b * from * row, dst = v.begin() + b * to * row;
    std::move_backward(src, src + from * row, dst + from * row);
    std::fill(dst + from * row, dst + to * row, fill);
  }
}
}  // namespace

void Tree::reserve(int64_t cap) {
  if (cap <= capacity) return;
  restride(parent, batch, capacity, cap, 1, kNone);
  restride(action_from_parent, batch, capacity, cap, 1, kNone);
  restride(visits, batch, capacity, cap, 1, 0);
  restride(value_sum, batch, capacity, cap, 1, 0.0);
  restride(raw_value, batch, capacity, cap, 1, 0.0f);
  restride(to_play, batch, capacity, cap, 1, int8_t{0});
  restride(expanded, batch, capacity, cap, 1, uint8_t{0});
  restride(proven, batch, capacity, cap, 1, Proven::kUnknown);
  std::vector<std::unique_ptr<Game>> moved(static_cast<size_t>(batch * cap));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t n = 0; n < capacity; ++n) moved[b * cap + n] = std::move(state[b * capacity + n]);
  state = std::move(moved);
  restride(children, batch, capacity, cap, num_actions, kNone);
  restride(prior, batch, capacity, cap, num_actions, 0.0f);
  restride(legal, batch, capacity, cap, num_actions, uint8_t{0});
  capacity = cap;
}

int32_t Tree::add_node(int64_t b, int32_t parent_node, int32_t action) {
  if (num_nodes[b] >= capacity) return kNone;
  const int32_t n = num_nodes[b]++;
  const int64_t i = node(b, n);
  parent[i] = parent_node;
  action_from_parent[i] = action;
  visits[i] = 0;
  value_sum[i] = 0;
  raw_value[i] = 0;
  to_play[i] = 0;
  expanded[i] = 0;
  proven[i] = Proven::kUnknown;
  const int64_t e = edge(b, n, 0);
  std::fill_n(children.begin() + e, num_actions, kNone);
  std::fill_n(prior.begin() + e, num_actions, 0.0f);
  std::fill_n(legal.begin() + e, num_actions, uint8_t{0});
  if (parent_node != kNone) children[edge(b, parent_node, action)] = n;
  return n;
}

}  // namespace spire::rl
