#include "reinforcement/mcts/search.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "engine/core/error.h"
#include "reinforcement/mcts/draws.h"
#include "reinforcement/mcts/parallel.h"

namespace spire::rl {

namespace {
Proven opposite(Proven p) { return p == Proven::kUnknown ? p : static_cast<Proven>(-static_cast<int>(p)); }

// `p` where `keep`, else 0, without a branch: which actions are legal is a coin flip to the branch
// predictor, and compilers keep a branch for the plain conditional.
float keep_or_zero(float p, bool keep) {
  return std::bit_cast<float>(std::bit_cast<uint32_t>(p) & (0u - static_cast<uint32_t>(keep)));
}

void check_config(const SearchConfig& c) {
  SPIRE_CHECK(c.simulations >= 0, ValueError, "MCTS: simulations must be >= 0, got ", c.simulations);
  SPIRE_CHECK(c.c_uct >= 0 && c.c_puct_init >= 0 && c.c_puct_base > 0, ValueError,
              "MCTS: c_uct and c_puct_init must be >= 0 and c_puct_base > 0, got ", c.c_uct, ", ", c.c_puct_init,
              ", ", c.c_puct_base);
  SPIRE_CHECK(c.gumbel_max_considered >= 1, ValueError, "MCTS: gumbel_max_considered must be >= 1, got ",
              c.gumbel_max_considered);
  SPIRE_CHECK(c.gumbel_scale >= 0 && c.gumbel_maxvisit_init >= 0 && c.gumbel_value_scale > 0, ValueError,
              "MCTS: gumbel_scale and gumbel_maxvisit_init must be >= 0 and gumbel_value_scale > 0");
  SPIRE_CHECK(c.dirichlet_alpha >= 0 && std::isfinite(c.dirichlet_alpha), ValueError,
              "MCTS: dirichlet_alpha must be >= 0 (0: no noise), got ", c.dirichlet_alpha);
  SPIRE_CHECK(c.dirichlet_fraction >= 0 && c.dirichlet_fraction <= 1, ValueError,
              "MCTS: dirichlet_fraction must be in [0, 1], got ", c.dirichlet_fraction);
  SPIRE_CHECK(c.max_nodes >= 0 && c.max_nodes <= INT32_MAX, ValueError,
              "MCTS: max_nodes must be >= 0 (0: as many as the simulations need), got ", c.max_nodes);
  SPIRE_CHECK(c.temperature >= 0 && std::isfinite(c.temperature), ValueError,
              "MCTS: temperature must be >= 0 (0: the most visited move), got ", c.temperature);
  SPIRE_CHECK(c.threads >= 0, ValueError, "MCTS: threads must be >= 0 (0: the engine's count), got ", c.threads);
}
}  // namespace

struct MCTS::Impl {
  SearchConfig config;
  std::shared_ptr<Evaluator> evaluator;
  Tree tree;
  std::string game;
  double min_return = -1, max_return = 1;
  // One tree's generator on a cache line of its own: trees on different threads draw all the time,
  // and generators sharing a line would bounce it between the cores (false sharing).
  struct alignas(64) TreeGenerator : Generator {
    using Generator::Generator;
  };
  std::vector<TreeGenerator> rngs;                      // [B]
  std::vector<std::unique_ptr<SelectionRule>> rules;    // [B]
  std::vector<float> clean_prior;                       // [B, A] the root's priors before its noise
  std::vector<uint8_t> noised;                          // [B] the root carries noise
  // Per simulation step.
  std::vector<int32_t> leaf;
  std::vector<int64_t> slot;  // leaf b's row in the evaluator's batch, -1 when terminal
  std::vector<uint8_t> active;
  std::vector<int> simulations;
  std::vector<const Game*> leaf_states;
  std::vector<int> leaf_trees;
  std::vector<Generator*> leaf_rngs;
  std::vector<float> priors, values;
  std::vector<int32_t> remap;
  std::vector<double> noise;

  int64_t batch() const { return tree.batch; }
  int64_t A() const { return tree.num_actions; }

  // The player who moved into node n (the root's: its player to move's opponent, or itself alone).
  int mover(int64_t b, int32_t n) const {
    const int32_t p = tree.parent[tree.node(b, n)];
    if (p != Tree::kNone) return tree.to_play[tree.node(b, p)];
    const int me = tree.to_play[tree.node(b, 0)];
    return tree.num_players == 1 ? me : 1 - me;
  }

  void create(std::span<const Game* const> roots) {
    const Game& g = *roots[0];
    const int players = g.num_players();
    SPIRE_CHECK(players == 1 || players == 2, ValueError, "MCTS: games of one or two players are searched; ",
                g.name(), " has ", players);
    const auto B = static_cast<int64_t>(roots.size());
    const int64_t capacity = config.max_nodes > 0 ? config.max_nodes : config.simulations + 1;
    tree = Tree(B, capacity, g.num_actions());
    tree.num_players = players;
    game = g.name();
    min_return = g.min_return();
    max_return = g.max_return();
    rngs.clear();
    rules.clear();
    for (int64_t b = 0; b < B; ++b) {
      rngs.emplace_back(config.seed + static_cast<uint64_t>(b));
      rules.push_back(make_selection(config.selection));
    }
    clean_prior.assign(static_cast<size_t>(B * A()), 0.0f);
    noised.assign(static_cast<size_t>(B), 0);
  }

  void check_roots(std::span<const Game* const> roots) const {
    for (size_t b = 0; b < roots.size(); ++b) {
      SPIRE_CHECK(roots[b], ValueError, "MCTS.search: root ", b, " is null");
      SPIRE_CHECK(!roots[b]->is_terminal(), ValueError, "MCTS.search: game ", b, " is over (after moves \"",
                  roots[b]->serialize(), "\"); search needs a state with a player to move");
      if (tree.batch > 0) {
        SPIRE_CHECK(roots[b]->name() == game && roots[b]->num_actions() == A(), ValueError, "MCTS.search: game ", b,
                    " is ", roots[b]->name(), "; this search plays ", game);
      } else {
        SPIRE_CHECK(roots[b]->name() == roots[0]->name() && roots[b]->num_actions() == roots[0]->num_actions(),
                    ValueError, "MCTS.search: every root must be the same game; root 0 is ", roots[0]->name(),
                    ", root ", b, " is ", roots[b]->name());
      }
    }
  }

  void clear(int64_t b) {
    tree.clear(b);
    noised[b] = 0;
  }

  // Starts tree b at roots[b], unless its reused subtree is already there.
  void plant(int64_t b, const Game& root) {
    if (tree.num_nodes[b] > 0) {
      const Game& kept = *tree.state[tree.node(b, 0)];
      if (config.reuse && kept.name() == root.name() && kept.history() == root.history()) return;
      clear(b);
    }
    const int32_t n = tree.add_node(b, Tree::kNone, Tree::kNone);
    copy_state(tree.state[tree.node(b, n)], root);
    tree.to_play[tree.node(b, n)] = static_cast<int8_t>(root.current_player());
  }

  // Descends tree b by its rule to the node this simulation evaluates: a new child (its state made
  // here) or a terminal node. kNone when the tree is full.
  int32_t descend(int64_t b, int simulation) {
    int32_t n = 0;
    for (;;) {
      const int64_t i = tree.node(b, n);
      if (tree.to_play[i] == Game::kTerminal) return n;
      const int a = rules[b]->select(tree, b, n, simulation, config, rngs[b]);
      SPIRE_CHECK(a >= 0 && a < A() && tree.legal[tree.edge(b, n, a)], ValueError, "selection rule '",
                  config.selection, "' chose action ", a, ", which is not legal at its node");
      const int32_t c = tree.children[tree.edge(b, n, a)];
      if (c != Tree::kNone) {
        n = c;
        continue;
      }
      const int32_t created = tree.add_node(b, n, a);
      if (created == Tree::kNone) return Tree::kNone;
      const int64_t ci = tree.node(b, created);
      std::unique_ptr<Game>& state = tree.state[ci];
      copy_state(state, *tree.state[i]);
      state->apply_legal_action(a);  // legal: checked above
      if (state->is_terminal()) {
        const double r = state->player_return(tree.to_play[i]);
        tree.to_play[ci] = Game::kTerminal;
        tree.raw_value[ci] = static_cast<float>(r);
        if (config.solver)
          tree.proven[ci] = r == max_return ? Proven::kWin : r == min_return ? Proven::kLoss
                                                        : r == 0          ? Proven::kDraw
                                                                          : Proven::kUnknown;
      } else {
        tree.to_play[ci] = static_cast<int8_t>(state->current_player());
      }
      return created;
    }
  }

  static void check_prior(std::span<const float> prior) {
    const auto nan = std::find_if(prior.begin(), prior.end(), [](float p) { return std::isnan(p); });
    SPIRE_CHECK(nan == prior.end(), ValueError, "the evaluator returned a NaN prior (action ", nan - prior.begin(), ")");
  }

  // Writes the evaluator's prior (legal, normalised) and value at node n.
  void expand(int64_t b, int32_t n, std::span<const float> prior, float value) {
    const int64_t i = tree.node(b, n), e = tree.edge(b, n, 0);
    std::span<uint8_t> legal(tree.legal.data() + e, static_cast<size_t>(A()));
    tree.state[i]->legal_mask(legal);
    check_prior(prior);
    // Through a local pointer: the compiler cannot tell that writing a prior leaves tree.prior's own
    // data pointer alone, and would reload it on every action.
    float* out = tree.prior.data() + e;
    double sum = 0;
    for (int64_t a = 0; a < A(); ++a) {
      out[a] = keep_or_zero(prior[a], (legal[a] != 0) & (prior[a] > 0));
      sum += out[a];
    }
    if (sum > 0 && std::isfinite(sum)) {
      for (int64_t a = 0; a < A(); ++a) out[a] = static_cast<float>(out[a] / sum);
    } else {  // no weight on a legal action: uniform
      int count = 0;
      for (int64_t a = 0; a < A(); ++a) count += legal[a];
      for (int64_t a = 0; a < A(); ++a) out[a] = legal[a] ? 1.0f / count : 0.0f;
    }
    SPIRE_CHECK(std::isfinite(value), ValueError, "the evaluator returned a non-finite value (", value, ")");
    tree.raw_value[i] = static_cast<float>(tree.to_mover_view(value));
    tree.expanded[i] = 1;
  }

  // MCTS-Solver (OpenSpiel's): node n is proven when a child is a proven win for its player to move,
  // or every legal child is proven (then the best of them).
  bool prove(int64_t b, int32_t n) {
    const int64_t e = tree.edge(b, n, 0);
    // Local pointers: the compiler cannot tell that nothing here writes the vectors' data pointers.
    const uint8_t* legal = tree.legal.data() + e;
    const int32_t* children = tree.children.data() + e;
    const Proven* proven = tree.proven.data() + tree.node(b, 0);
    double best = -2;
    bool all = true;
    for (int64_t a = 0; a < A(); ++a) {
      if (!legal[a]) continue;
      const int32_t c = children[a];
      const Proven p = c == Tree::kNone ? Proven::kUnknown : proven[c];
      if (p == Proven::kUnknown) {
        all = false;
      } else {
        best = std::max(best, proven_value(p));
      }
    }
    if (best == -2 || (!all && best != proven_value(Proven::kWin))) return false;
    const auto outcome = static_cast<Proven>(static_cast<int>(best));
    tree.proven[tree.node(b, n)] = tree.num_players == 1 ? outcome : opposite(outcome);
    return true;
  }

  // Adds the leaf's value to every node on its path, each from the view of the player who moved into it.
  void backup(int64_t b, int32_t leaf_node) {
    const int64_t li = tree.node(b, leaf_node);
    const double v = tree.raw_value[li];
    const int leaf_mover = mover(b, leaf_node);
    bool solved = config.solver && tree.proven[li] != Proven::kUnknown;
    for (int32_t n = leaf_node; n != Tree::kNone;) {
      const int64_t i = tree.node(b, n);
      tree.value_sum[i] += mover(b, n) == leaf_mover ? v : -v;
      ++tree.visits[i];
      if (solved && n != leaf_node) solved = prove(b, n);
      n = tree.parent[i];
    }
  }

  // One Evaluator call for the nodes in leaf[b] (b active, the node not terminal).
  void evaluate_leaves(int threads) {
    leaf_states.clear();
    leaf_trees.clear();
    leaf_rngs.clear();
    for (int64_t b = 0; b < batch(); ++b) {
      slot[b] = -1;
      if (!active[b] || leaf[b] == Tree::kNone) continue;
      const int64_t i = tree.node(b, leaf[b]);
      if (tree.to_play[i] == Game::kTerminal) continue;
      slot[b] = static_cast<int64_t>(leaf_states.size());
      leaf_states.push_back(tree.state[i].get());
      leaf_trees.push_back(static_cast<int>(b));
      leaf_rngs.push_back(&rngs[b]);
    }
    const size_t n = leaf_states.size();
    if (n == 0) return;
    priors.assign(n * static_cast<size_t>(A()), 0.0f);
    values.assign(n, 0.0f);
    Leaves leaves;
    leaves.states = leaf_states;
    leaves.trees = leaf_trees;
    leaves.rngs = leaf_rngs;
    leaves.num_actions = static_cast<int>(A());
    leaves.threads = threads;
    leaves.priors = priors;
    leaves.values = values;
    evaluator->evaluate(leaves);
  }

  void expand_and_backup(int64_t b) {
    if (slot[b] >= 0)
      expand(b, leaf[b], std::span<const float>(priors).subspan(static_cast<size_t>(slot[b] * A()), A()),
             values[static_cast<size_t>(slot[b])]);
    backup(b, leaf[b]);
  }

  // AlphaZero's root noise: prior <- (1 - fraction) prior + fraction Dirichlet(alpha), over the
  // legal actions, drawn afresh for each search (from the clean prior when the root was noised before).
  void add_noise(int64_t b) {
    const int64_t e = tree.edge(b, 0, 0);
    float* prior = tree.prior.data() + e;
    float* clean = clean_prior.data() + b * A();
    if (noised[b]) std::copy(clean, clean + A(), prior);
    std::copy(prior, prior + A(), clean);
    noised[b] = 1;
    int k = 0;
    for (int64_t a = 0; a < A(); ++a) k += tree.legal[e + a];
    noise.resize(static_cast<size_t>(k));
    dirichlet_draw(rngs[b], config.dirichlet_alpha, noise);
    const double f = config.dirichlet_fraction;
    for (int64_t a = 0, j = 0; a < A(); ++a)
      if (tree.legal[e + a]) prior[a] = static_cast<float>((1 - f) * prior[a] + f * noise[static_cast<size_t>(j++)]);
  }

  // All simulations of tree b, its leaves evaluated one by one (an evaluator with independent leaves):
  // the draws and results of the batched steps, with no synchronisation between trees.
  // Its own leaf buffers and simulation count: memory that threads on other trees do not write.
  void search_tree(int64_t b) {
    std::vector<float> prior_buffer(static_cast<size_t>(A()));
    std::span<float> prior(prior_buffer);
    float value_buffer = 0;
    std::span<float> value(&value_buffer, 1);
    const int tree_index = static_cast<int>(b);
    Generator* rng = &rngs[b];
    int done = 0;
    for (int s = 0; s < config.simulations && active[b]; ++s) {
      const int32_t n = descend(b, s);
      if (n == Tree::kNone) break;  // full
      const int64_t i = tree.node(b, n);
      if (tree.to_play[i] != Game::kTerminal) {
        const Game* state = tree.state[i].get();
        std::fill(prior.begin(), prior.end(), 0.0f);
        value[0] = 0;
        Leaves leaves;
        leaves.states = std::span<const Game* const>(&state, 1);
        leaves.trees = std::span<const int>(&tree_index, 1);
        leaves.rngs = std::span<Generator* const>(&rng, 1);
        leaves.num_actions = static_cast<int>(A());
        leaves.priors = prior;
        leaves.values = value;
        evaluator->evaluate(leaves);
        expand(b, n, prior, value[0]);
      }
      backup(b, n);
      ++done;
      if (config.solver && tree.proven[tree.node(b, 0)] != Proven::kUnknown) break;
    }
    simulations[b] = done;
  }

  void compact(int64_t b, int32_t keep_root) {
    const int32_t N = tree.num_nodes[b];
    remap.assign(static_cast<size_t>(N), Tree::kNone);
    // A parent is always created before its children, so one pass in index order finds the subtree
    // and ranks it; copying in that order moves each node to an index no larger than its own.
    int32_t kept = 0;
    for (int32_t x = keep_root; x < N; ++x) {
      const int32_t p = tree.parent[tree.node(b, x)];
      if (x == keep_root || (p != Tree::kNone && remap[p] != Tree::kNone)) remap[x] = kept++;
    }
    for (int32_t x = 0; x < N; ++x) {
      const int64_t from = tree.node(b, x);
      if (remap[x] == Tree::kNone) continue;
      const int64_t to = tree.node(b, remap[x]);
      const bool root = x == keep_root;
      tree.parent[to] = root ? Tree::kNone : remap[tree.parent[from]];
      tree.action_from_parent[to] = root ? Tree::kNone : tree.action_from_parent[from];
      tree.visits[to] = tree.visits[from];
      tree.value_sum[to] = tree.value_sum[from];
      tree.raw_value[to] = tree.raw_value[from];
      tree.to_play[to] = tree.to_play[from];
      tree.expanded[to] = tree.expanded[from];
      tree.proven[to] = tree.proven[from];
      // A swap: slot `to` holds a dropped or already moved state, which joins the pool.
      std::swap(tree.state[to], tree.state[from]);
      const int64_t ef = tree.edge(b, x, 0), et = tree.edge(b, remap[x], 0);
      for (int64_t a = 0; a < A(); ++a) {
        const int32_t c = tree.children[ef + a];
        tree.children[et + a] = c == Tree::kNone ? Tree::kNone : remap[c];
        tree.prior[et + a] = tree.prior[ef + a];
        tree.legal[et + a] = tree.legal[ef + a];
      }
    }
    tree.num_nodes[b] = kept;
  }
};

MCTS::MCTS(SearchConfig config, std::shared_ptr<Evaluator> evaluator) : impl_(std::make_unique<Impl>()) {
  check_config(config);
  SPIRE_CHECK(evaluator, ValueError, "MCTS: the evaluator is null");
  make_selection(config.selection);  // an unknown rule fails here, naming the registered ones
  impl_->config = std::move(config);
  impl_->evaluator = std::move(evaluator);
}

MCTS::~MCTS() = default;

const Tree& MCTS::tree() const { return impl_->tree; }
const SearchConfig& MCTS::config() const { return impl_->config; }

std::vector<SearchResult> MCTS::search(std::span<const Game* const> roots) {
  Impl& m = *impl_;
  const SearchConfig& config = m.config;
  SPIRE_CHECK(!roots.empty(), ValueError, "MCTS.search: no roots (pass one game per tree)");
  SPIRE_CHECK(m.tree.batch == 0 || static_cast<int64_t>(roots.size()) == m.tree.batch, ValueError,
              "MCTS.search: this search has ", m.tree.batch, " trees; got ", roots.size(), " roots");
  m.check_roots(roots);
  if (m.tree.batch == 0) m.create(roots);
  const int64_t B = m.batch();
  const int threads = search_threads(config.threads, B);

  int32_t most = 0;
  for (int64_t b = 0; b < B; ++b) {
    m.plant(b, *roots[b]);
    most = std::max(most, m.tree.num_nodes[b]);
  }
  if (config.max_nodes == 0) {
    const int64_t need = static_cast<int64_t>(most) + config.simulations + 1;
    if (need > m.tree.capacity) m.tree.reserve(std::max(need, m.tree.capacity + m.tree.capacity / 2));
  }

  m.leaf.assign(static_cast<size_t>(B), Tree::kNone);
  m.slot.assign(static_cast<size_t>(B), -1);
  m.active.assign(static_cast<size_t>(B), 0);
  m.simulations.assign(static_cast<size_t>(B), 0);

  // Roots not evaluated yet (fresh, not reused) are evaluated together first.
  for (int64_t b = 0; b < B; ++b) {
    m.active[b] = !m.tree.expanded[m.tree.node(b, 0)];
    m.leaf[b] = 0;
  }
  // The steps around the simulations are light: on this thread (a parallel region costs more).
  m.evaluate_leaves(threads);
  for (int64_t b = 0; b < B; ++b) {
    if (m.active[b]) m.expand_and_backup(b);
    if (config.dirichlet_alpha > 0) m.add_noise(b);
    m.rules[b]->begin(m.tree, b, config, m.rngs[b]);
    m.active[b] = !(config.solver && m.tree.proven[m.tree.node(b, 0)] != Proven::kUnknown);
  }

  if (m.evaluator->independent_leaves()) {
    // A whole search per task: worth a thread from two trees on.
    const int tree_threads = search_threads(config.threads, B, 1);
    parallel_over(B, tree_threads, [&](int64_t b) { m.search_tree(b); });
  }
  for (int s = 0; s < config.simulations && !m.evaluator->independent_leaves(); ++s) {
    if (std::none_of(m.active.begin(), m.active.end(), [](uint8_t a) { return a != 0; })) break;
    parallel_over(B, threads, [&](int64_t b) {
      if (!m.active[b]) return;
      m.leaf[b] = m.descend(b, s);
      if (m.leaf[b] == Tree::kNone) m.active[b] = 0;  // full: this tree's search ends here
    });
    m.evaluate_leaves(threads);
    parallel_over(B, threads, [&](int64_t b) {
      if (!m.active[b]) return;
      m.expand_and_backup(b);
      ++m.simulations[b];
      if (config.solver && m.tree.proven[m.tree.node(b, 0)] != Proven::kUnknown) m.active[b] = 0;
    });
  }

  std::vector<SearchResult> results(static_cast<size_t>(B));
  parallel_over(B, 1, [&](int64_t b) {
    SearchResult& r = results[b];
    m.rules[b]->finish(m.tree, b, config, m.rngs[b], r);
    r.value = m.tree.to_mover_view(m.tree.q(b, 0)) + 0.0;  // + 0.0: no negative zero
    const Proven p = m.tree.proven[m.tree.node(b, 0)];
    r.proven = m.tree.num_players == 1 ? p : opposite(p);
    r.simulations = m.simulations[b];
  });
  return results;
}

void MCTS::advance(int64_t b, int action) {
  Impl& m = *impl_;
  if (m.tree.batch == 0) return;  // nothing searched yet
  SPIRE_CHECK(b >= 0 && b < m.tree.batch, ValueError, "MCTS.advance: tree ", b, " is out of range [0, ",
              m.tree.batch, ")");
  SPIRE_CHECK(action >= 0 && action < m.A(), ValueError, "MCTS.advance: action ", action, " is out of range [0, ",
              m.A(), ")");
  if (!m.config.reuse || m.tree.num_nodes[b] == 0) return m.clear(b);
  SPIRE_CHECK(m.tree.legal[m.tree.edge(b, 0, action)] || !m.tree.expanded[m.tree.node(b, 0)], ValueError,
              "MCTS.advance: action ", action, " is not legal at tree ", b, "'s root");
  const int32_t c = m.tree.child(b, 0, action);
  if (c == Tree::kNone) return m.clear(b);
  m.compact(b, c);
  m.noised[b] = 0;
}

void MCTS::clear(int64_t b) {
  Impl& m = *impl_;
  if (m.tree.batch == 0) return;
  SPIRE_CHECK(b >= 0 && b < m.tree.batch, ValueError, "MCTS.clear: tree ", b, " is out of range [0, ",
              m.tree.batch, ")");
  m.clear(b);
}

}  // namespace spire::rl
