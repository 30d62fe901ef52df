// The base final move, UCT and PUCT, and the registry of selection rules.
#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "reinforcement/common/named_registry.h"
#include "reinforcement/mcts/search.h"

namespace spire::rl {

std::unique_ptr<SelectionRule> make_gumbel_rule();  // gumbel.cpp

void fill_root_statistics(const Tree& tree, int64_t b, SearchResult& out) {
  const int64_t A = tree.num_actions;
  out.visits.assign(static_cast<size_t>(A), 0);
  out.q.assign(static_cast<size_t>(A), std::numeric_limits<float>::quiet_NaN());
  for (int64_t a = 0; a < A; ++a) {
    const int32_t c = tree.child(b, 0, a);
    if (c == Tree::kNone || tree.visits[tree.node(b, c)] == 0) continue;
    out.visits[a] = tree.visits[tree.node(b, c)];
    out.q[a] = static_cast<float>(tree.q(b, c));
  }
}

int most_visited_action(const Tree& tree, int64_t b, bool solver) {
  const int64_t A = tree.num_actions;
  int best = -1;
  double best_outcome = 0, best_sum = 0;
  int32_t best_visits = -1;
  for (int64_t a = 0; a < A; ++a) {
    if (!tree.legal[tree.edge(b, 0, a)]) continue;
    const int32_t c = tree.child(b, 0, a);
    double outcome = 0, sum = 0;
    int32_t visits = 0;
    if (c != Tree::kNone) {
      const int64_t i = tree.node(b, c);
      if (solver && tree.proven[i] != Proven::kUnknown) outcome = proven_value(tree.proven[i]);
      visits = tree.visits[i];
      sum = tree.value_sum[i];
    }
    // OpenSpiel's key (outcome, visits, value sum), compared lexicographically; ties keep the lower action.
    const bool better = best < 0 || outcome > best_outcome ||
                        (outcome == best_outcome && (visits > best_visits || (visits == best_visits && sum > best_sum)));
    if (better) best = static_cast<int>(a), best_outcome = outcome, best_visits = visits, best_sum = sum;
  }
  // No simulation ran: the highest prior.
  if (best_visits == 0 && best_outcome == 0) {
    float p = -1;
    for (int64_t a = 0; a < A; ++a)
      if (tree.legal[tree.edge(b, 0, a)] && tree.prior[tree.edge(b, 0, a)] > p) p = tree.prior[tree.edge(b, 0, a)], best = static_cast<int>(a);
  }
  return best;
}

void SelectionRule::finish(const Tree& tree, int64_t b, const SearchConfig& config, Generator& rng, SearchResult& out) {
  fill_root_statistics(tree, b, out);
  const int64_t A = tree.num_actions;
  out.policy.assign(static_cast<size_t>(A), 0.0f);
  double total = 0;
  for (int32_t v : out.visits) total += v;
  if (total > 0) {
    for (int64_t a = 0; a < A; ++a) out.policy[a] = static_cast<float>(out.visits[a] / total);
  } else {  // no simulation: the prior
    for (int64_t a = 0; a < A; ++a) out.policy[a] = tree.prior[tree.edge(b, 0, a)];
  }
  out.action = most_visited_action(tree, b, config.solver);
  const int32_t chosen = tree.child(b, 0, out.action);
  const bool proven_win = config.solver && chosen != Tree::kNone && tree.proven[tree.node(b, chosen)] == Proven::kWin;
  if (config.temperature > 0 && total > 0 && !proven_win) {
    // visits^(1/T), scaled by the largest so that small temperatures do not overflow.
    double most = 0;
    for (int32_t v : out.visits) most = std::max(most, static_cast<double>(v));
    std::vector<double> w(static_cast<size_t>(A), 0.0);
    double sum = 0;
    for (int64_t a = 0; a < A; ++a)
      if (out.visits[a] > 0) sum += (w[a] = std::exp(std::log(out.visits[a] / most) / config.temperature));
    double u = rng.random() * sum;
    for (int64_t a = 0; a < A; ++a) {
      if (w[a] <= 0) continue;
      out.action = static_cast<int>(a);
      if ((u -= w[a]) < 0) break;
    }
  }
}

namespace {

// Tells the compiler a condition is a coin flip, so that it selects (cmov) rather than branches: a
// mispredicted branch in UCT's loop over the children costs more than the rest of the loop.
inline bool unpredictable(bool condition) { return __builtin_expect_with_probability(condition, true, 0.5); }
// OpenSpiel's MCTSBot: Q + c * sqrt(ln N / n); unvisited children first, in random order; a proven
// child (solver) or a terminal one is worth its outcome.
// 1 / n, n^(-1/2) and sqrt(ln n) for the visit counts most nodes have: UCT's inner loop then has
// no division, square root or logarithm.
struct UctTables {
  static constexpr int32_t kSize = 4096;
  // A child's two entries side by side: one cache line per child rather than two.
  struct Child {
    double inverse, inverse_sqrt;
  };
  Child child[kSize];
  double sqrt_log[kSize];
  UctTables() {
    child[0] = {0, 0};
    sqrt_log[0] = 0;
    for (int32_t i = 1; i < kSize; ++i) {
      child[i] = {1.0 / i, 1.0 / std::sqrt(static_cast<double>(i))};
      sqrt_log[i] = std::sqrt(std::log(static_cast<double>(i)));
    }
  }
};
const UctTables kUct;

class Uct final : public SelectionRule {
 public:
  int select(const Tree& tree, int64_t b, int32_t node, int, const SearchConfig& config, Generator& rng) override {
    const int64_t A = tree.num_actions, e = tree.edge(b, node, 0);
    const uint8_t* legal = tree.legal.data() + e;
    const int32_t* children = tree.children.data() + e;
    // Unvisited children first: counted without a branch per edge (the compiler vectorises it), so
    // that a node at the frontier skips the scores.
    int unvisited = 0;
    for (int64_t a = 0; a < A; ++a) unvisited += legal[a] & (children[a] == Tree::kNone);
    if (unvisited > 0) return random_unvisited(legal, children, A, unvisited, rng);
    // c * sqrt(ln N / n) as c * sqrt(ln N) * n^(-1/2).
    const int32_t N = tree.visits[tree.node(b, node)];
    const double explore = config.c_uct * (N < UctTables::kSize ? kUct.sqrt_log[N] : std::sqrt(std::log(double(N))));
    const int64_t base = tree.node(b, 0);
    const int32_t* visits = tree.visits.data() + base;
    const double* value_sum = tree.value_sum.data() + base;
    const float* raw_value = tree.raw_value.data() + base;
    const int8_t* to_play = tree.to_play.data() + base;
    const Proven* proven = tree.proven.data() + base;
    const bool solver = config.solver;
    int best = -1;
    double best_score = -std::numeric_limits<double>::infinity();
    for (int64_t a = 0; a < A; ++a) {
      const int32_t c = children[a];
      if (c == Tree::kNone) continue;  // illegal: every legal edge has a child by now
      // The formula first, then the overrides: selects the compiler may make without a branch.
      const int32_t n = visits[c];
      double score = n < UctTables::kSize ? value_sum[c] * kUct.child[n].inverse + explore * kUct.child[n].inverse_sqrt
                                          : value_sum[c] / n + explore / std::sqrt(static_cast<double>(n));
      // OpenSpiel: a terminal child is worth its outcome, a proven one (solver) its proof.
      score = to_play[c] == Game::kTerminal ? double{raw_value[c]} : score;
      score = solver && proven[c] != Proven::kUnknown ? proven_value(proven[c]) : score;
      // `if (score > best_score)` as selects (max keeps best_score unless score is greater):
      // compilers keep a branch for the plain if. Scores are never NaN (search stores finite values).
      best = unpredictable(score > best_score) ? static_cast<int>(a) : best;
      best_score = std::max(best_score, score);
    }
    return best >= 0 ? best : first_child(children, A);  // every score -inf: the first, as OpenSpiel
  }

 private:
  static int first_child(const int32_t* children, int64_t A) {
    for (int64_t a = 0;; ++a)
      if (children[a] != Tree::kNone) return static_cast<int>(a);
  }

  // Unvisited children come first, uniformly among them.
  static int random_unvisited(const uint8_t* legal, const int32_t* children, int64_t A, int unvisited,
                              Generator& rng) {
    int64_t k = unvisited > 1 ? rng.below(unvisited) : 0;
    for (int64_t a = 0;; ++a)
      if (legal[a] && children[a] == Tree::kNone && k-- == 0) return static_cast<int>(a);
  }
};

// AlphaZero's pseudocode: Q + c(N) * P * sqrt(N) / (1 + n), c(N) = c_init + log((N + c_base + 1) / c_base);
// unvisited children have Q = fpu; with the solver a proven child is worth its outcome (OpenSpiel's
// puct_value).
class Puct final : public SelectionRule {
 public:
  int select(const Tree& tree, int64_t b, int32_t node, int, const SearchConfig& config, Generator&) override {
    const int64_t A = tree.num_actions, e = tree.edge(b, node, 0);
    const double N = tree.visits[tree.node(b, node)];
    const double c = (config.c_puct_init + std::log((N + config.c_puct_base + 1) / config.c_puct_base)) * std::sqrt(N);
    int best = -1;
    double best_score = -std::numeric_limits<double>::infinity();
    for (int64_t a = 0; a < A; ++a) {
      if (!tree.legal[e + a]) continue;
      const int32_t child = tree.children[e + a];
      double score;
      if (child == Tree::kNone) {
        score = config.fpu + c * tree.prior[e + a];
      } else {
        const int64_t i = tree.node(b, child);
        if (config.solver && tree.proven[i] != Proven::kUnknown) {
          score = proven_value(tree.proven[i]);
        } else {
          const double n = tree.visits[i];
          score = (n > 0 ? tree.value_sum[i] / n : config.fpu) + c * tree.prior[e + a] / (1 + n);
        }
      }
      if (best < 0 || score > best_score) best = static_cast<int>(a), best_score = score;
    }
    return best;
  }
};

NamedRegistry<SelectionFactory>& registry() {
  static NamedRegistry<SelectionFactory> r("selection rule", {{"uct", [] { return std::make_unique<Uct>(); }},
                                                              {"puct", [] { return std::make_unique<Puct>(); }},
                                                              {"gumbel", [] { return make_gumbel_rule(); }}});
  return r;
}
}  // namespace

void register_selection(const std::string& name, SelectionFactory factory) { registry().add(name, std::move(factory)); }

std::vector<std::string> registered_selections() { return registry().names(); }

std::unique_ptr<SelectionRule> make_selection(const std::string& name) {
  auto rule = registry().find(name)();
  SPIRE_CHECK(rule, ValueError, "the factory of selection rule '", name, "' returned no rule");
  return rule;
}

}  // namespace spire::rl
