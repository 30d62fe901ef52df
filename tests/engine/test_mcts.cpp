// spire::rl MCTS: OpenSpiel's solver positions and best-child rules, play against a random and a
// perfect player (the games' RandomBot and MinimaxBot), UCT and PUCT choices against the formulas
// computed here, Gumbel MuZero with an exact value, Dirichlet/Gamma/Gumbel draws against their
// moments, batching, threads, reproducibility and subtree reuse.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "tests/common/expect_error.h"
#include "reinforcement/games/bot.h"
#include "reinforcement/games/bots.h"
#include "reinforcement/mcts/draws.h"
#include "reinforcement/mcts/mcts_bot.h"
#include "reinforcement/mcts/search.h"

using namespace spire;
using namespace spire::rl;

// expr throws a Kind whose message names `word`.
#define EXPECT_ERROR(expr, Kind, word) expect_error_naming<Kind>([&] { (void)(expr); }, {word})

namespace {

std::unique_ptr<Game> ttt(std::initializer_list<int> moves) {
  auto g = make_game("tic_tac_toe");
  for (int a : moves) g->apply_action(a);
  return g;
}

SearchConfig uct_config(int simulations, uint64_t seed) {
  SearchConfig c;
  c.selection = "uct";
  c.c_uct = std::sqrt(2.0);  // OpenSpiel's tests use UCT_C = sqrt(2)
  c.simulations = simulations;
  c.solver = true;
  c.seed = seed;
  return c;
}

// OpenSpiel's search_tic_tac_toe_state: 10,000 simulations, 20 rollouts per leaf, the solver on.
SearchResult solve(MCTS& mcts, const Game& state) {
  const Game* roots[1] = {&state};
  return mcts.search(roots)[0];
}

Proven child_proven(const MCTS& mcts, int action) {
  const Tree& t = mcts.tree();
  const int32_t c = t.child(0, 0, action);
  return c == Tree::kNone ? Proven::kUnknown : t.proven[t.node(0, c)];
}

}  // namespace

// mcts_test.py test_solve_draw: after x(1,1) o(0,0) x(2,2) the game is a draw, and only o(0,2) and
// o(2,0) keep it one; every other reply loses.
TEST(MctsSolver, DrawnPositionAndItsOnlyNonLosingReplies) {
  auto state = ttt({4, 0, 8});
  ASSERT_EQ(state->to_string(), "o..\n.x.\n..x");
  MCTS mcts(uct_config(10000, 42), std::make_shared<RandomRollout>(20));
  auto r = solve(mcts, *state);
  EXPECT_EQ(r.proven, Proven::kDraw);
  EXPECT_LT(r.simulations, 10000);  // a solved root stops the search
  for (int a : state->legal_actions()) {
    const Proven p = child_proven(mcts, a);  // view of o, who moves there
    EXPECT_NE(p, Proven::kUnknown) << a;
    EXPECT_NE(p, Proven::kWin) << a;
    EXPECT_EQ(p == Proven::kDraw, a == 2 || a == 6) << a;
  }
  EXPECT_TRUE(r.action == 2 || r.action == 6) << r.action;
  // The independent reference: negamax over the whole game.
  MinimaxBot perfect(0);
  EXPECT_EQ(perfect.value(*state, 1), 0.0);
  EXPECT_EQ(perfect.best_actions(*state), (std::vector<int>{2, 6}));
}

// test_solve_loss: after x(1,1) o(0,0) x(2,2) o(0,1) x(0,2), o loses whatever it plays.
TEST(MctsSolver, LostPosition) {
  auto state = ttt({4, 0, 8, 1, 2});
  ASSERT_EQ(state->to_string(), "oox\n.x.\n..x");
  MCTS mcts(uct_config(10000, 42), std::make_shared<RandomRollout>(20));
  auto r = solve(mcts, *state);
  EXPECT_EQ(r.proven, Proven::kLoss);
  for (int a : state->legal_actions()) EXPECT_EQ(child_proven(mcts, a), Proven::kLoss) << a;
  MinimaxBot perfect(0);
  EXPECT_EQ(perfect.value(*state, 1), -1.0);
}

// test_solve_win: after x(0,1) o(2,2), x wins with x(0,2).
TEST(MctsSolver, WonPositionAndItsWinningMove) {
  auto state = ttt({1, 8});
  ASSERT_EQ(state->to_string(), ".x.\n...\n..o");
  MCTS mcts(uct_config(10000, 42), std::make_shared<RandomRollout>(20));
  auto r = solve(mcts, *state);
  EXPECT_EQ(r.proven, Proven::kWin);
  EXPECT_EQ(r.action, 2);
  EXPECT_EQ(child_proven(mcts, 2), Proven::kWin);
  MinimaxBot perfect(0);
  EXPECT_EQ(perfect.value(*state, 0), 1.0);
}

namespace {
// A root with hand-set children (OpenSpiel's make_node): visits, value sums and outcomes.
struct ChildSpec {
  int action, visits;
  double value_sum;
  Proven proven = Proven::kUnknown;
};
Tree hand_tree(const std::vector<ChildSpec>& children, int num_actions = 9) {
  Tree t(1, 16, num_actions);
  t.add_node(0, Tree::kNone, Tree::kNone);
  int total = 0;
  for (auto& c : children) {
    t.legal[t.edge(0, 0, c.action)] = 1;
    const int32_t n = t.add_node(0, 0, c.action);
    t.visits[t.node(0, n)] = c.visits;
    t.value_sum[t.node(0, n)] = c.value_sum;
    t.proven[t.node(0, n)] = c.proven;
    total += c.visits;
  }
  t.visits[0] = total + 1;
  t.expanded[0] = 1;
  return t;
}
}  // namespace

// mcts_test.py's assertBestChild cases: the final move's key (outcome, visits, value sum).
TEST(MctsSolver, BestChildFollowsOpenSpielsKey) {
  auto best = [](std::vector<ChildSpec> c) { return most_visited_action(hand_tree(c), 0, true); };
  EXPECT_EQ(best({{0, 50, 30}, {1, 40, 40}}), 0);                                  // most visited
  EXPECT_EQ(best({{0, 50, 30}, {1, 40, 40, Proven::kWin}}), 1);                    // win over most visited
  EXPECT_EQ(best({{0, 50, 30}, {1, 40, 40, Proven::kLoss}}), 0);                   // most visited over loss
  EXPECT_EQ(best({{0, 50, 30}, {1, 40, 40, Proven::kDraw}}), 0);                   // most visited over draw
  EXPECT_EQ(best({{0, 50, 30, Proven::kLoss}, {1, 40, 40, Proven::kLoss}}), 0);    // the hardest loss
  EXPECT_EQ(best({{0, 40, 30}, {1, 40, 40}}), 1);                                  // equal visits: value sum
  // Without the solver, outcomes are not looked at.
  EXPECT_EQ(most_visited_action(hand_tree({{0, 50, 30}, {1, 40, 40, Proven::kWin}}), 0, false), 0);
}

// temperature > 0 samples visits^(1 / T); the policy target stays the visit fractions.
TEST(MctsSolver, TemperatureSamplesVisitPowers) {
  Tree t = hand_tree({{0, 10, 0}, {4, 30, 0}, {8, 60, 0}});
  for (double T : {1.0, 0.5}) {
    SearchConfig c;
    c.temperature = T;
    Generator rng(1);
    auto rule = make_selection("puct");
    std::map<int, int> counts;
    const int n = 20000;
    SearchResult r;
    for (int i = 0; i < n; ++i) {
      rule->finish(t, 0, c, rng, r);
      ++counts[r.action];
    }
    EXPECT_FLOAT_EQ(r.policy[8], 0.6f);
    const double w0 = std::pow(10, 1 / T), w4 = std::pow(30, 1 / T), w8 = std::pow(60, 1 / T), sum = w0 + w4 + w8;
    for (auto [a, w] : {std::pair{0, w0}, {4, w4}, {8, w8}}) {
      const double p = w / sum;
      EXPECT_NEAR(counts[a] / double(n), p, 5 * std::sqrt(p * (1 - p) / n)) << T << " " << a;
    }
  }
}

// UCT and PUCT on a hand-built node against the formulas evaluated here.
TEST(MctsSelection, UctAndPuctMatchTheirFormulas) {
  const std::vector<ChildSpec> kids = {{0, 10, 4.0}, {2, 3, 2.5}, {3, 30, 21.0}, {5, 1, -1.0}, {7, 6, 0.5}};
  Tree t = hand_tree(kids);
  const double N = t.visits[0];
  Generator rng(0);
  SearchConfig c;
  for (double c_uct : {0.0, 0.5, 2.0, 8.0}) {
    c.c_uct = c_uct;
    int expect = -1;
    double best = -1e300;
    for (auto& k : kids) {
      double s = k.value_sum / k.visits + c_uct * std::sqrt(std::log(N) / k.visits);
      if (s > best) best = s, expect = k.action;
    }
    EXPECT_EQ(make_selection("uct")->select(t, 0, 0, 0, c, rng), expect) << c_uct;
  }
  // PUCT with priors; action 8 is legal and unvisited (Q = fpu).
  t.legal[t.edge(0, 0, 8)] = 1;
  const std::vector<float> prior = {0.1f, 0, 0.05f, 0.3f, 0, 0.2f, 0, 0.15f, 0.2f};
  for (int a = 0; a < 9; ++a) t.prior[t.edge(0, 0, a)] = prior[a];
  for (double init : {0.5, 1.25, 4.0})
    for (double fpu : {-1.0, 0.0, 1.0}) {
      c.c_puct_init = init;
      c.fpu = fpu;
      const double cn = init + std::log((N + c.c_puct_base + 1) / c.c_puct_base);
      int expect = -1;
      double best = -1e300;
      for (int a = 0; a < 9; ++a) {
        if (!t.legal[t.edge(0, 0, a)]) continue;
        const int32_t ch = t.child(0, 0, a);
        const double n = ch == Tree::kNone ? 0 : t.visits[t.node(0, ch)];
        const double q = n > 0 ? t.value_sum[t.node(0, ch)] / n : fpu;
        const double s = q + cn * prior[a] * std::sqrt(N) / (1 + n);
        if (s > best) best = s, expect = a;
      }
      EXPECT_EQ(make_selection("puct")->select(t, 0, 0, 0, c, rng), expect) << init << " " << fpu;
    }
  // UCT tries every unvisited child before any visited one, each of them in some order.
  std::set<int> seen;
  for (uint64_t s = 0; s < 64; ++s) {
    Generator r(s);
    seen.insert(make_selection("uct")->select(t, 0, 0, 0, c, r));
  }
  EXPECT_EQ(seen, (std::set<int>{8}));
}

namespace {
MatchResult mcts_match(Bot& opponent, int games, int simulations, uint64_t seed) {
  MCTSBot bot(uct_config(simulations, seed), std::make_shared<RandomRollout>(1));
  return play_match("tic_tac_toe", bot, opponent, games);
}
}  // namespace

TEST(MctsPlay, NoLossAgainstARandomPlayerOnEitherSide) {
  RandomBot random(7);
  auto m = mcts_match(random, 1000, 1000, 1);
  EXPECT_EQ(m.games, 1000);
  EXPECT_EQ(m.losses, 0);
  EXPECT_GT(m.wins, 800);
}

TEST(MctsPlay, OnlyDrawsAgainstAPerfectPlayer) {
  MinimaxBot perfect(3);
  auto m = mcts_match(perfect, 40, 1000, 2);
  EXPECT_EQ(m.draws, 40) << m.wins << " wins, " << m.losses << " losses";
}

TEST(MctsPlay, SameSeedSameGames) {
  RandomBot r1(5), r2(5);
  auto a = mcts_match(r1, 20, 100, 9);
  auto b = mcts_match(r2, 20, 100, 9);
  EXPECT_EQ(a.histories, b.histories);
  RandomBot r3(5);
  auto c = mcts_match(r3, 20, 100, 10);
  EXPECT_NE(a.histories, c.histories);  // the seed matters
}

namespace {
std::vector<std::unique_ptr<Game>> openings(const std::string& game, int count, uint64_t seed) {
  std::vector<std::unique_ptr<Game>> out;
  Generator rng(seed);
  for (int i = 0; i < count; ++i) {
    auto g = make_game(game);
    for (int k = rng.below(4); k > 0 && !g->is_terminal(); --k) {
      auto legal = g->legal_actions();
      auto next = g->clone();
      next->apply_action(legal[rng.below(static_cast<int64_t>(legal.size()))]);
      if (next->is_terminal()) break;
      g = std::move(next);
    }
    out.push_back(std::move(g));
  }
  return out;
}
std::vector<const Game*> pointers(const std::vector<std::unique_ptr<Game>>& games) {
  std::vector<const Game*> p;
  for (auto& g : games) p.push_back(g.get());
  return p;
}
void expect_same(const SearchResult& a, const SearchResult& b, const std::string& what) {
  EXPECT_EQ(a.action, b.action) << what;
  EXPECT_EQ(a.visits, b.visits) << what;
  EXPECT_EQ(a.policy, b.policy) << what;
  EXPECT_EQ(a.value, b.value) << what;
  EXPECT_EQ(a.simulations, b.simulations) << what;
}
}  // namespace

// Tree b of a batch is the single search seeded seed + b, for every rule and any thread count.
TEST(MctsBatch, BatchedTreesEqualSingleSearchesWhateverTheThreads) {
  for (std::string rule : {"uct", "puct", "gumbel"})
    for (std::string game : {"tic_tac_toe", "connect_four"}) {
      auto games = openings(game, 12, 3);
      SearchConfig c;
      c.selection = rule;
      c.simulations = 60;
      c.solver = rule == "uct";
      c.dirichlet_alpha = rule == "puct" ? 0.5 : 0.0;
      c.seed = 100;
      c.threads = 1;
      MCTS one_thread(c, std::make_shared<RandomRollout>(2));
      auto batched = one_thread.search(pointers(games));
      c.threads = 3;
      MCTS three(c, std::make_shared<RandomRollout>(2));
      auto threaded = three.search(pointers(games));
      for (size_t b = 0; b < games.size(); ++b) {
        expect_same(batched[b], threaded[b], rule + " " + game + " threads, tree " + std::to_string(b));
        SearchConfig s = c;
        s.seed = c.seed + b;
        s.threads = 1;
        MCTS single(s, std::make_shared<RandomRollout>(2));
        const Game* root[1] = {games[b].get()};
        expect_same(batched[b], single.search(root)[0], rule + " " + game + " single, tree " + std::to_string(b));
      }
    }
}

// Random rollouts search tree by tree (their leaves are independent); the same evaluator behind a
// FunctionEvaluator goes through the batched steps: the same draws, the same results.
TEST(MctsBatch, TreeByTreeEqualsBatchedSteps) {
  auto games = openings("connect_four", 9, 2);
  auto rollout = std::make_shared<RandomRollout>(1);
  auto wrapped = std::make_shared<FunctionEvaluator>([rollout](const Leaves& l) { rollout->evaluate(l); });
  ASSERT_TRUE(rollout->independent_leaves());
  ASSERT_FALSE(wrapped->independent_leaves());
  for (std::string rule : {"uct", "puct"}) {
    SearchConfig c = uct_config(200, 8);
    c.selection = rule;
    c.threads = 2;
    MCTS a(c, rollout), b(c, wrapped);
    for (int move = 0; move < 3; ++move) {
      auto ra = a.search(pointers(games)), rb = b.search(pointers(games));
      for (size_t i = 0; i < games.size(); ++i) {
        expect_same(ra[i], rb[i], rule + " tree " + std::to_string(i));
        if (move == 2) continue;
        a.advance(static_cast<int64_t>(i), ra[i].action);
        b.advance(static_cast<int64_t>(i), ra[i].action);
      }
      if (move == 2) break;
      for (size_t i = 0; i < games.size(); ++i)
        if (!games[i]->is_terminal()) games[i]->apply_action(ra[i].action);
    }
  }
}

// The leaves of all trees reach the evaluator in one call per simulation step.
TEST(MctsBatch, OneEvaluatorCallPerStep) {
  auto games = openings("connect_four", 5, 1);
  int calls = 0;
  size_t most = 0;
  auto eval = std::make_shared<FunctionEvaluator>([&](const Leaves& l) {
    ++calls;
    most = std::max(most, l.states.size());
    for (size_t i = 0; i < l.states.size(); ++i) {
      EXPECT_EQ(l.trees[i] >= 0 && l.trees[i] < 5, true);
      l.values[i] = 0;
    }
  });
  SearchConfig c;
  c.simulations = 20;
  MCTS mcts(c, eval);
  auto r = mcts.search(pointers(games));
  EXPECT_EQ(calls, 21);  // the roots, then one per simulation
  EXPECT_EQ(most, 5u);
  for (auto& x : r) EXPECT_EQ(x.simulations, 20);
}

namespace {
// The exact value of a tic-tac-toe position for the player to move (negamax), with a uniform prior.
std::shared_ptr<Evaluator> exact_evaluator(std::shared_ptr<MinimaxBot> perfect) {
  return std::make_shared<FunctionEvaluator>([perfect](const Leaves& l) {
    for (size_t i = 0; i < l.states.size(); ++i) {
      for (int a = 0; a < l.num_actions; ++a) l.priors[i * l.num_actions + a] = 1;
      l.values[i] = static_cast<float>(perfect->value(*l.states[i], l.states[i]->current_player()));
    }
  });
}
}  // namespace

// Gumbel MuZero with the exact value: without the Gumbel perturbation (gumbel_scale 0, greedy
// halving) it plays optimally; with it, its improved policy still moves mass onto the optimal moves
// (compared with the uniform prior) and sums to one over the legal moves. (With the perturbation a
// suboptimal move is played now and then: mean Q under a small search is not the exact value.)
TEST(MctsGumbel, ExactValuePlaysOptimally) {
  auto perfect = std::make_shared<MinimaxBot>(0);
  SearchConfig c;
  c.selection = "gumbel";
  c.simulations = 32;
  c.seed = 4;
  SearchConfig greedy = c;
  greedy.gumbel_scale = 0;
  MCTS sampled(c, exact_evaluator(perfect)), exact(greedy, exact_evaluator(perfect));
  int positions = 0;
  for (auto& g : openings("tic_tac_toe", 60, 11)) {
    // The optimal moves keep the position's value (a slower forced win is as good as a faster one).
    const int me = g->current_player();
    const double value = perfect->value(*g, me);
    const auto legal = g->legal_actions();
    std::vector<int> best;
    for (int a : legal) {
      auto child = g->clone();
      child->apply_action(a);
      if (perfect->value(*child, me) == value) best.push_back(a);
    }
    if (best.size() == legal.size()) continue;  // every move is as good: nothing to tell apart
    ++positions;
    const Game* root[1] = {g.get()};
    exact.clear(0);
    auto e = exact.search(root)[0];
    EXPECT_NE(std::find(best.begin(), best.end(), e.action), best.end()) << g->serialize() << " chose " << e.action;
    sampled.clear(0);
    auto r = sampled.search(root)[0];
    double on_best = 0, total = 0;
    for (int a = 0; a < 9; ++a) {
      total += r.policy[a];
      if (!g->is_legal(a)) EXPECT_EQ(r.policy[a], 0.0f);
      if (std::find(best.begin(), best.end(), a) != best.end()) on_best += r.policy[a];
    }
    EXPECT_NEAR(total, 1.0, 1e-5);
    EXPECT_GT(on_best, static_cast<double>(best.size()) / legal.size() + 0.05) << g->serialize();
  }
  EXPECT_GT(positions, 20);
}

// Sequential halving's budget: with 16 simulations and 4 legal moves each considered move gets the
// visits mctx's schedule gives it (get_sequence_of_considered_visits(4, 16): 2 rounds of 4, then 2).
TEST(MctsGumbel, SequentialHalvingVisits) {
  auto g = ttt({0, 1, 2, 4, 3});  // x o x / x o . / . . .: 4 moves left
  ASSERT_EQ(g->legal_actions().size(), 4u);
  SearchConfig c;
  c.selection = "gumbel";
  c.simulations = 16;
  c.gumbel_max_considered = 4;
  auto eval = std::make_shared<FunctionEvaluator>([](const Leaves& l) {
    for (size_t i = 0; i < l.states.size(); ++i) l.values[i] = 0;
  });
  MCTS mcts(c, eval);
  const Game* root[1] = {g.get()};
  auto r = mcts.search(root)[0];
  std::vector<int> visits;
  for (int v : r.visits)
    if (v) visits.push_back(v);
  std::sort(visits.begin(), visits.end());
  // mctx: [0,1,2,3]*2 visits each (8 sims: 2 each), then the best 2 get 4 more each: 2, 2, 6, 6.
  EXPECT_EQ(visits, (std::vector<int>{2, 2, 6, 6}));
}

TEST(MctsDraws, GammaDirichletGumbelMoments) {
  Generator rng(123);
  const int n = 40000;
  for (double shape : {0.3, 1.0, 2.5}) {
    double sum = 0, sq = 0;
    for (int i = 0; i < n; ++i) {
      double x = gamma_draw(rng, shape);
      sum += x, sq += x * x;
    }
    const double mean = sum / n, var = sq / n - mean * mean;
    EXPECT_NEAR(mean, shape, 5 * std::sqrt(shape / n)) << shape;  // Gamma(k): mean k, variance k
    EXPECT_NEAR(var, shape, 0.05 * shape + 0.02) << shape;
  }
  // Symmetric Dirichlet(alpha) over k: mean 1/k, variance (k - 1) / (k^2 (k alpha + 1)).
  const double alpha = 0.3;
  const int k = 4;
  std::vector<double> x(k), sum(k, 0), sq(k, 0);
  for (int i = 0; i < n; ++i) {
    dirichlet_draw(rng, alpha, x);
    double s = 0;
    for (int j = 0; j < k; ++j) sum[j] += x[j], sq[j] += x[j] * x[j], s += x[j];
    ASSERT_NEAR(s, 1.0, 1e-12);
  }
  const double var = (k - 1.0) / (k * k * (k * alpha + 1));
  for (int j = 0; j < k; ++j) {
    const double m = sum[j] / n;
    EXPECT_NEAR(m, 1.0 / k, 5 * std::sqrt(var / n));
    EXPECT_NEAR(sq[j] / n - m * m, var, 0.05 * var);
  }
  // Gumbel(0, 1): mean Euler's gamma, variance pi^2 / 6.
  double gs = 0, gq = 0;
  for (int i = 0; i < n; ++i) {
    double g = gumbel_draw(rng);
    gs += g, gq += g * g;
  }
  const double gm = gs / n;
  EXPECT_NEAR(gm, std::numbers::egamma, 5 * std::sqrt(std::numbers::pi * std::numbers::pi / 6 / n));
  EXPECT_NEAR(gq / n - gm * gm, std::numbers::pi * std::numbers::pi / 6, 0.05);
}

// Root noise mixes a Dirichlet draw into the prior: still a distribution over the legal moves, and
// not the clean prior.
TEST(MctsNoise, RootPriorIsMixedWithDirichletNoise) {
  auto g = ttt({4});
  SearchConfig c;
  c.simulations = 0;
  c.dirichlet_alpha = 0.3;
  c.dirichlet_fraction = 0.25;
  MCTS mcts(c, std::make_shared<RandomRollout>(1));
  const Game* root[1] = {g.get()};
  mcts.search(root);
  const Tree& t = mcts.tree();
  double sum = 0, far = 0;
  for (int a = 0; a < 9; ++a) {
    const float p = t.prior[t.edge(0, 0, a)];
    sum += p;
    if (a == 4) EXPECT_EQ(p, 0.0f);
    else far = std::max(far, std::abs(p - 0.125));
    if (a != 4) EXPECT_GE(p, 0.75 * 0.125 - 1e-6);  // at least (1 - fraction) of the clean prior
  }
  EXPECT_NEAR(sum, 1.0, 1e-6);
  EXPECT_GT(far, 1e-3);
}

// advance() keeps the subtree under the move played: its visits and values, now at the root; the
// next search adds its simulations to them.
TEST(MctsReuse, AdvanceKeepsTheSubtree) {
  auto g = make_game("connect_four");
  SearchConfig c = uct_config(400, 5);
  MCTS mcts(c, std::make_shared<RandomRollout>(1));
  const Game* root[1] = {g.get()};
  auto r = mcts.search(root)[0];
  const Tree& t = mcts.tree();
  const int32_t child = t.child(0, 0, r.action);
  const int32_t kept_visits = t.visits[t.node(0, child)];
  const double kept_sum = t.value_sum[t.node(0, child)];
  std::vector<int32_t> grandchildren(7, 0);
  for (int a = 0; a < 7; ++a) {
    const int32_t gc = t.child(0, child, a);
    if (gc != Tree::kNone) grandchildren[a] = t.visits[t.node(0, gc)];
  }
  mcts.advance(0, r.action);
  EXPECT_EQ(t.visits[t.node(0, 0)], kept_visits);
  EXPECT_EQ(t.value_sum[t.node(0, 0)], kept_sum);
  EXPECT_EQ(t.parent[t.node(0, 0)], Tree::kNone);
  for (int a = 0; a < 7; ++a) {
    const int32_t gc = t.child(0, 0, a);
    EXPECT_EQ(gc == Tree::kNone ? 0 : t.visits[t.node(0, gc)], grandchildren[a]) << a;
  }
  // Every kept node's parent link points at a node whose child it is.
  for (int32_t n = 1; n < t.num_nodes[0]; ++n) {
    const int32_t p = t.parent[t.node(0, n)];
    ASSERT_GE(p, 0);
    EXPECT_EQ(t.child(0, p, t.action_from_parent[t.node(0, n)]), n);
  }
  g->apply_action(r.action);
  auto r2 = mcts.search(root)[0];
  EXPECT_EQ(r2.simulations, 400);
  EXPECT_EQ(t.visits[t.node(0, 0)], kept_visits + 400);
  // A root that is not the advanced subtree's state starts afresh.
  auto other = make_game("connect_four");
  root[0] = other.get();
  mcts.search(root);
  EXPECT_EQ(t.visits[t.node(0, 0)], 401);
}

// Growing the capacity keeps every tree's nodes, edges and states where their indices say.
TEST(MctsTree, ReserveKeepsEveryTree) {
  Tree t(3, 4, 2);
  for (int b = 0; b < 3; ++b) {
    t.add_node(b, Tree::kNone, Tree::kNone);
    t.legal[t.edge(b, 0, 1)] = 1;
    for (int k = 0; k < 2 + b % 2; ++k) {
      const int32_t n = t.add_node(b, 0, 1);
      t.visits[t.node(b, n)] = 100 * b + n;
      t.value_sum[t.node(b, n)] = -b - 0.5 * n;
      t.prior[t.edge(b, n, 0)] = static_cast<float>(b + n);
      t.state[t.node(b, n)] = ttt({b});
    }
  }
  t.reserve(9);
  EXPECT_EQ(t.capacity, 9);
  for (int b = 0; b < 3; ++b) {
    EXPECT_EQ(t.num_nodes[b], 3 + b % 2);
    EXPECT_EQ(t.child(b, 0, 1), t.num_nodes[b] - 1);
    for (int n = 1; n < t.num_nodes[b]; ++n) {
      EXPECT_EQ(t.parent[t.node(b, n)], 0);
      EXPECT_EQ(t.visits[t.node(b, n)], 100 * b + n);
      EXPECT_EQ(t.value_sum[t.node(b, n)], -b - 0.5 * n);
      EXPECT_EQ(t.prior[t.edge(b, n, 0)], static_cast<float>(b + n));
      ASSERT_TRUE(t.state[t.node(b, n)]);
      EXPECT_EQ(t.state[t.node(b, n)]->history(), std::vector<int>{b});
    }
  }
  // The new rows are handed out in order.
  EXPECT_EQ(t.add_node(0, 0, 0), 3);
}

TEST(MctsErrors, NamesWhatIsAllowed) {
  SearchConfig c;
  c.selection = "nope";
  EXPECT_ERROR(MCTS(c, std::make_shared<RandomRollout>(1)), ValueError, "registered selection rules: ");
  EXPECT_ERROR(MCTS(c, std::make_shared<RandomRollout>(1)), ValueError, "gumbel, puct");
  EXPECT_ERROR(make_evaluator("nope"), ValueError, "random_rollout");
  EXPECT_ERROR(make_evaluator("random_rollout", {{"rollout", "2"}}), ValueError, "allowed: rollouts");
  EXPECT_ERROR(make_evaluator("random_rollout", {{"rollouts", "x"}}), ValueError, "integer");
  EXPECT_ERROR(RandomRollout(0), ValueError, "at least 1");
  SearchConfig d;
  d.dirichlet_fraction = 2;
  EXPECT_ERROR(MCTS(d, std::make_shared<RandomRollout>(1)), ValueError, "dirichlet_fraction");
  MCTS m(SearchConfig{}, std::make_shared<RandomRollout>(1));
  auto over = ttt({0, 3, 1, 4, 2});
  const Game* root[1] = {over.get()};
  EXPECT_ERROR(m.search(root), ValueError, "is over");
}

// A rule registered by a user joins the registry and drives the search.
TEST(MctsSelection, UserRuleRegisters) {
  struct FirstLegal : SelectionRule {
    int select(const Tree& t, int64_t b, int32_t node, int, const SearchConfig&, Generator&) override {
      for (int a = 0;; ++a)
        if (t.legal[t.edge(b, node, a)]) return a;
    }
  };
  register_selection("first_legal", [] { return std::make_unique<FirstLegal>(); });
  auto names = registered_selections();
  EXPECT_NE(std::find(names.begin(), names.end(), "first_legal"), names.end());
  SearchConfig c;
  c.selection = "first_legal";
  c.simulations = 5;
  MCTS m(c, std::make_shared<RandomRollout>(1));
  auto g = make_game("tic_tac_toe");
  const Game* root[1] = {g.get()};
  auto r = m.search(root)[0];
  // Five simulations down the leftmost line: one visit each for action 0 at the root.
  EXPECT_EQ(r.visits[0], 5);
  EXPECT_EQ(r.action, 0);
}
