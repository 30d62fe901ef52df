// Batched Monte Carlo tree search: B trees searched together, one leaf per tree per simulation
// step, all leaves evaluated in one Evaluator call. Selection rules (UCT, PUCT, Gumbel, and what
// users register) and evaluators (random rollouts, networks, Python callables) are pluggable.
//
//   MCTS mcts(config, std::make_shared<RandomRollout>());
//   auto results = mcts.search(roots);          // roots: B game states
//   game.apply_action(results[0].action);
//   mcts.advance(0, results[0].action);         // keep the subtree under the move played
//
// Assumes zero-sum games of one or two players: a value is negated where the player to move
// changes. Reproducible: tree b draws only from its own generator, Generator(config.seed + b), so
// tree b of a batch searches exactly as a single search seeded config.seed + b, with any thread
// count. An evaluator whose leaves are independent (Evaluator::independent_leaves(), random
// rollouts) lets each tree run all its simulations in one task: the same draws and results, without
// a synchronisation per step. docs/rl_search.md describes the layout, rules and solver.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reinforcement/mcts/evaluator.h"
#include "reinforcement/mcts/tree.h"

namespace spire::rl {

struct SearchConfig {
  int simulations = 100;
  std::string selection = "puct";  // "uct" | "puct" | "gumbel" | a registered rule
  // UCT: Q + c_uct * sqrt(ln N / n) (OpenSpiel's uct_c; unvisited children first, in random order).
  double c_uct = 2.0;
  // PUCT (AlphaZero's pseudocode): Q + c(N) * P * sqrt(N) / (1 + n), c(N) = c_init + log((N + c_base + 1) / c_base);
  // unvisited children have Q = fpu (first-play urgency; 0 is AlphaZero's).
  double c_puct_init = 1.25, c_puct_base = 19652, fpu = 0.0;
  // Gumbel MuZero (mctx's gumbel_muzero_policy): Gumbel-Top-k and sequential halving at the root.
  int gumbel_max_considered = 16;
  double gumbel_scale = 1.0, gumbel_maxvisit_init = 50.0, gumbel_value_scale = 0.1;
  // Root noise (AlphaZero): prior <- (1 - fraction) * prior + fraction * Dirichlet(alpha); alpha 0 is off.
  double dirichlet_alpha = 0.0, dirichlet_fraction = 0.25;
  // MCTS-Solver: proven wins, losses and draws are backed up; a solved root stops the search.
  bool solver = false;
  // Keep the subtree under the move played (advance()); off: every search starts from a fresh root.
  bool reuse = true;
  // Nodes per tree; 0: simulations + 1 (+ what a reused subtree holds).
  int64_t max_nodes = 0;
  // Final move: 0 plays the most visited (ties: highest mean value, then lowest action); > 0 samples
  // visits^(1/temperature) (AlphaZero's early-game exploration).
  double temperature = 0.0;
  uint64_t seed = 0;
  // Threads across trees (0: the engine's thread count); batches of fewer than 8 trees stay on the
  // calling thread (a whole search per tree with independent leaves: from 2 trees on).
  int threads = 0;
};

struct SearchResult {
  int action = -1;              // the move to play
  std::vector<float> policy;    // [A] the training target: visit fractions (Gumbel: its improved policy)
  std::vector<int32_t> visits;  // [A] root child visits
  std::vector<float> q;         // [A] root child mean values, view of the player to move (NaN unvisited)
  double value = 0;             // the root's mean value, view of the player to move
  Proven proven = Proven::kUnknown;  // solver: the outcome for the player to move at the root
  int simulations = 0;          // simulations run (fewer when the solver proved the root)
};

// The base finish's parts, for rules that override finish: visits and q of the root's children.
void fill_root_statistics(const Tree& tree, int64_t b, SearchResult& out);
// OpenSpiel's final move (its best_child key): a proven win first, then the most visited, then the
// highest value sum, then the lowest action; proven losses last (with the solver on).
int most_visited_action(const Tree& tree, int64_t b, bool solver);

// A selection rule. One instance per tree: it may keep per-search state (Gumbel's halving).
class SelectionRule {
 public:
  virtual ~SelectionRule() = default;
  // Before the simulations of one search of tree b: the root is expanded and its noise applied.
  virtual void begin(const Tree& tree, int64_t b, const SearchConfig& config, Generator& rng) {}
  // The action to descend from `node` (expanded, not terminal) in simulation `simulation`.
  virtual int select(const Tree& tree, int64_t b, int32_t node, int simulation, const SearchConfig& config,
                     Generator& rng) = 0;
  // Writes action and policy after the simulations (the base: the most visited move and visit fractions,
  // honouring config.temperature and the solver's proven wins).
  virtual void finish(const Tree& tree, int64_t b, const SearchConfig& config, Generator& rng, SearchResult& out);
};

using SelectionFactory = std::function<std::unique_ptr<SelectionRule>()>;
// "uct", "puct", "gumbel" are built in; a user's rule joins under its own name.
void register_selection(const std::string& name, SelectionFactory factory);
std::vector<std::string> registered_selections();
// A new rule by name; an unknown name throws ValueError listing registered_selections().
std::unique_ptr<SelectionRule> make_selection(const std::string& name);

// A proven outcome as a value in [-1, 1] (win 1, draw 0, loss -1), the value the solver's rules give
// a proven child (OpenSpiel's outcome).
inline double proven_value(Proven p) { return static_cast<double>(static_cast<int>(p)); }

class MCTS {
 public:
  MCTS(SearchConfig config, std::shared_ptr<Evaluator> evaluator);
  ~MCTS();
  // One search per root (B = roots.size(), fixed after the first call). With config.reuse, tree b
  // continues from its advanced subtree when that subtree's state is roots[b]'s (same history).
  std::vector<SearchResult> search(std::span<const Game* const> roots);
  // The move `action` was played in game b: its subtree becomes the root of the next search.
  void advance(int64_t b, int action);
  void clear(int64_t b);
  const Tree& tree() const;
  const SearchConfig& config() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spire::rl
