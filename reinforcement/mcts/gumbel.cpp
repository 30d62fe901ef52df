// Gumbel MuZero's selection (Danihelka et al. 2022; mctx's gumbel_muzero_policy): at the root,
// Gumbel-Top-k sampling without replacement and sequential halving over the considered actions;
// below it, the deterministic rule that matches visits to the improved policy. The search's policy
// target is the improved policy softmax(logits + completed Q).
//
// Differences from mctx, where the tree knows more: the legal actions of every node are known (mctx
// knows them only at the root), so interior nodes mask illegal actions too; with subtree reuse the
// halving schedule counts the visits of this search only (a reused root's earlier visits are its
// prior knowledge, as the value network's).
#include <cmath>
#include <limits>

#include "reinforcement/mcts/draws.h"
#include "reinforcement/mcts/search.h"

namespace spire::rl {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// mctx's get_sequence_of_considered_visits: the visit count each simulation gives its root action
// under sequential halving with m considered actions and n simulations.
std::vector<int> considered_visits(int m, int n) {
  std::vector<int> sequence;
  if (m <= 1) {
    for (int i = 0; i < n; ++i) sequence.push_back(i);
    return sequence;
  }
  int log2max = 0;
  while ((1 << log2max) < m) ++log2max;
  std::vector<int> visits(static_cast<size_t>(m), 0);
  int considered = m;
  while (static_cast<int>(sequence.size()) < n) {
    const int extra = std::max(1, n / (log2max * considered));
    for (int k = 0; k < extra; ++k) {
      sequence.insert(sequence.end(), visits.begin(), visits.begin() + considered);
      for (int i = 0; i < considered; ++i) ++visits[i];
    }
    considered = std::max(2, considered / 2);
  }
  sequence.resize(static_cast<size_t>(n));
  return sequence;
}

// mctx's qtransform_completed_by_mix_value at `node`, view of its player to move: visited children
// keep their Q, unvisited ones get the mixed value, rescaled to [0, 1] over the legal actions and
// scaled by (maxvisit_init + max visits) * value_scale. Illegal actions get 0.
void completed_q(const Tree& tree, int64_t b, int32_t node, const SearchConfig& config, std::vector<double>& out) {
  const int64_t A = tree.num_actions, e = tree.edge(b, node, 0);
  out.assign(static_cast<size_t>(A), 0.0);
  double sum_visits = 0, sum_probs = 0, weighted = 0, max_visits = 0;
  for (int64_t a = 0; a < A; ++a) {
    const int32_t c = tree.children[e + a];
    if (!tree.legal[e + a] || c == Tree::kNone || tree.visits[tree.node(b, c)] == 0) continue;
    const double n = tree.visits[tree.node(b, c)];
    const double p = std::max<double>(std::numeric_limits<float>::min(), tree.prior[e + a]);
    sum_visits += n;
    max_visits = std::max(max_visits, n);
    sum_probs += p;
    weighted += p * tree.q(b, c);
  }
  const double raw = tree.raw_value_to_play(b, node);
  const double mixed = sum_visits > 0 ? (raw + sum_visits * (weighted / sum_probs)) / (sum_visits + 1) : raw;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (int64_t a = 0; a < A; ++a) {
    if (!tree.legal[e + a]) continue;
    const int32_t c = tree.children[e + a];
    const bool visited = c != Tree::kNone && tree.visits[tree.node(b, c)] > 0;
    out[a] = visited ? tree.q(b, c) : mixed;
    lo = std::min(lo, out[a]);
    hi = std::max(hi, out[a]);
  }
  const double scale = (config.gumbel_maxvisit_init + max_visits) * config.gumbel_value_scale;
  for (int64_t a = 0; a < A; ++a)
    if (tree.legal[e + a]) out[a] = scale * (out[a] - lo) / std::max(hi - lo, 1e-8);
}

// log(prior) over the legal actions, shifted so that the largest is 0 (illegal: -inf).
void prior_logits(const Tree& tree, int64_t b, int32_t node, std::vector<double>& out) {
  const int64_t A = tree.num_actions, e = tree.edge(b, node, 0);
  out.assign(static_cast<size_t>(A), kNegInf);
  double most = kNegInf;
  for (int64_t a = 0; a < A; ++a)
    if (tree.legal[e + a]) most = std::max(most, out[a] = std::log(std::max<double>(std::numeric_limits<float>::min(), tree.prior[e + a])));
  for (int64_t a = 0; a < A; ++a)
    if (tree.legal[e + a]) out[a] -= most;
}

class Gumbel final : public SelectionRule {
 public:
  void begin(const Tree& tree, int64_t b, const SearchConfig& config, Generator& rng) override {
    const int64_t A = tree.num_actions, e = tree.edge(b, 0, 0);
    gumbel_.assign(static_cast<size_t>(A), kNegInf);
    base_visits_.assign(static_cast<size_t>(A), 0);
    int legal = 0;
    for (int64_t a = 0; a < A; ++a) {
      if (!tree.legal[e + a]) continue;
      ++legal;
      gumbel_[a] = config.gumbel_scale * gumbel_draw(rng);
      const int32_t c = tree.children[e + a];
      if (c != Tree::kNone) base_visits_[a] = tree.visits[tree.node(b, c)];
    }
    sequence_ = considered_visits(std::min(config.gumbel_max_considered, legal), config.simulations);
  }

  int select(const Tree& tree, int64_t b, int32_t node, int simulation, const SearchConfig& config, Generator&) override {
    if (node == 0) {
      const int considered = sequence_.empty() ? 0 : sequence_[std::min<size_t>(simulation, sequence_.size() - 1)];
      return root_choice(tree, b, config, considered);
    }
    // probs - visits / (1 + total visits): the child whose visit share lags its improved policy most.
    const int64_t A = tree.num_actions, e = tree.edge(b, node, 0);
    completed_q(tree, b, node, config, q_);
    prior_logits(tree, b, node, logits_);
    double most = kNegInf, total = 0, sum = 0;
    for (int64_t a = 0; a < A; ++a) {
      if (!tree.legal[e + a]) continue;
      most = std::max(most, logits_[a] += q_[a]);
      const int32_t c = tree.children[e + a];
      if (c != Tree::kNone) total += tree.visits[tree.node(b, c)];
    }
    for (int64_t a = 0; a < A; ++a)
      if (tree.legal[e + a]) sum += (logits_[a] = std::exp(logits_[a] - most));
    int best = -1;
    double best_score = kNegInf;
    for (int64_t a = 0; a < A; ++a) {
      if (!tree.legal[e + a]) continue;
      const int32_t c = tree.children[e + a];
      const double n = c != Tree::kNone ? tree.visits[tree.node(b, c)] : 0;
      const double score = logits_[a] / sum - n / (1 + total);
      if (best < 0 || score > best_score) best = static_cast<int>(a), best_score = score;
    }
    return best;
  }

  void finish(const Tree& tree, int64_t b, const SearchConfig& config, Generator&, SearchResult& out) override {
    fill_root_statistics(tree, b, out);
    const int64_t A = tree.num_actions, e = tree.edge(b, 0, 0);
    // The action: the best score among the most visited (this search's visits).
    int most_visited = 0;
    for (int64_t a = 0; a < A; ++a) most_visited = std::max(most_visited, out.visits[a] - base_visits_[a]);
    out.action = root_choice(tree, b, config, most_visited);
    if (config.solver) {  // a proven win is played whatever the halving preferred
      const int best = most_visited_action(tree, b, true);
      const int32_t c = tree.child(b, 0, best);
      if (c != Tree::kNone && tree.proven[tree.node(b, c)] == Proven::kWin) out.action = best;
    }
    // The policy target: softmax(logits + completed Q).
    completed_q(tree, b, 0, config, q_);
    prior_logits(tree, b, 0, logits_);
    double most = kNegInf, sum = 0;
    for (int64_t a = 0; a < A; ++a)
      if (tree.legal[e + a]) most = std::max(most, logits_[a] += q_[a]);
    out.policy.assign(static_cast<size_t>(A), 0.0f);
    for (int64_t a = 0; a < A; ++a)
      if (tree.legal[e + a]) sum += (logits_[a] = std::exp(logits_[a] - most));
    for (int64_t a = 0; a < A; ++a)
      if (tree.legal[e + a]) out.policy[a] = static_cast<float>(logits_[a] / sum);
  }

 private:
  // mctx's score_considered: gumbel + logits + completed Q among the actions with `considered`
  // visits in this search (the others are out of the halving).
  int root_choice(const Tree& tree, int64_t b, const SearchConfig& config, int considered) {
    const int64_t A = tree.num_actions, e = tree.edge(b, 0, 0);
    completed_q(tree, b, 0, config, q_);
    prior_logits(tree, b, 0, logits_);
    int best = -1, fallback = -1;
    double best_score = kNegInf, fallback_score = kNegInf;
    for (int64_t a = 0; a < A; ++a) {
      if (!tree.legal[e + a]) continue;
      const int32_t c = tree.children[e + a];
      const int visits = (c != Tree::kNone ? tree.visits[tree.node(b, c)] : 0) - base_visits_[a];
      const double score = std::max(-1e9, gumbel_[a] + logits_[a] + q_[a]);
      if (fallback < 0 || score > fallback_score) fallback = static_cast<int>(a), fallback_score = score;
      if (visits == considered && (best < 0 || score > best_score)) best = static_cast<int>(a), best_score = score;
    }
    return best >= 0 ? best : fallback;
  }

  std::vector<double> gumbel_, q_, logits_;
  std::vector<int32_t> base_visits_;
  std::vector<int> sequence_;
};

}  // namespace

std::unique_ptr<SelectionRule> make_gumbel_rule() { return std::make_unique<Gumbel>(); }

}  // namespace spire::rl
