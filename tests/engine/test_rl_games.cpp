// spire::rl games and bots. The bitboard games are checked against plain grid implementations written
// here (every step of thousands of random games), board texts against strings printed by OpenSpiel
// (tests/python/test_rl_games.py compares whole games against pyspiel itself), and MinimaxBot against
// an exhaustive minimax without pruning or tables over every reachable tic-tac-toe position.
#include <gtest/gtest.h>

#include <array>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <unordered_set>

#include "engine/core/error.h"
#include "tests/common/expect_error.h"
#include "reinforcement/games/bot.h"
#include "reinforcement/games/bots.h"
#include "reinforcement/games/connect_four.h"
#include "reinforcement/games/game.h"
#include "reinforcement/games/tic_tac_toe.h"

using namespace spire;
using namespace spire::rl;

namespace {

// A reference implementation on a plain grid: rows x columns cells, 0 empty, 1 player 0, 2 player 1.
// Connect Four drops into a column; tic-tac-toe (gravity off) places on a cell.
struct GridGame {
  int rows, columns, line;
  bool gravity;
  std::vector<int> cell;  // row 0 at the top
  int moves = 0, winner = -1;

  GridGame(int r, int c, int l, bool g) : rows(r), columns(c), line(l), gravity(g), cell(r * c, 0) {}
  int at(int r, int c) const { return cell[r * columns + c]; }
  bool full() const { return moves == rows * columns; }
  bool terminal() const { return winner >= 0 || full(); }
  int player() const { return terminal() ? Game::kTerminal : moves % 2; }
  std::vector<int> legal() const {
    std::vector<int> out;
    if (terminal()) return out;
    if (gravity) {
      for (int c = 0; c < columns; ++c)
        if (at(0, c) == 0) out.push_back(c);
    } else {
      for (int i = 0; i < rows * columns; ++i)
        if (cell[i] == 0) out.push_back(i);
    }
    return out;
  }
  void play(int action) {
    int r = 0, c = 0;
    if (gravity) {
      c = action;
      r = rows - 1;
      while (at(r, c) != 0) --r;
    } else {
      r = action / columns;
      c = action % columns;
    }
    const int p = moves % 2;
    cell[r * columns + c] = p + 1;
    ++moves;
    // Every line through every cell, in four directions.
    for (int r0 = 0; r0 < rows; ++r0)
      for (int c0 = 0; c0 < columns; ++c0)
        for (auto [dr, dc] : {std::pair{0, 1}, {1, 0}, {1, 1}, {1, -1}}) {
          int n = 0;
          for (int k = 0; k < line; ++k) {
            int rr = r0 + k * dr, cc = c0 + k * dc;
            if (rr < 0 || rr >= rows || cc < 0 || cc >= columns || at(rr, cc) != p + 1) break;
            ++n;
          }
          if (n == line) winner = p;
        }
  }
  std::vector<double> returns() const {
    if (winner < 0) return {0, 0};
    return winner == 0 ? std::vector<double>{1, -1} : std::vector<double>{-1, 1};
  }
  // OpenSpiel's text: rows top first; Connect Four ends every row with a newline.
  std::string text() const {
    std::string s;
    for (int r = 0; r < rows; ++r) {
      if (r && !gravity) s += '\n';
      for (int c = 0; c < columns; ++c) s += ".xo"[at(r, c)];
      if (gravity) s += '\n';
    }
    return s;
  }
};

// Random games in both implementations, compared after every move; returns how many ended drawn.
int compare_random_games(const std::string& name, GridGame fresh, int games, uint32_t seed) {
  std::mt19937 rng(seed);
  int draws = 0;
  std::vector<int> into;
  for (int g = 0; g < games; ++g) {
    auto game = make_game(name);
    GridGame ref = fresh;
    while (true) {
      const auto legal = ref.legal();
      EXPECT_EQ(game->legal_actions(), legal);
      game->legal_actions_into(into);
      EXPECT_EQ(into, legal);
      std::vector<uint8_t> mask(static_cast<size_t>(game->num_actions()));
      game->legal_mask(mask);
      for (int a = 0; a < game->num_actions(); ++a) {
        const bool is_legal = std::count(legal.begin(), legal.end(), a) > 0;
        EXPECT_EQ(mask[static_cast<size_t>(a)], is_legal);
        EXPECT_EQ(game->is_legal(a), is_legal);
      }
      EXPECT_EQ(game->current_player(), ref.player());
      EXPECT_EQ(game->is_terminal(), ref.terminal());
      EXPECT_EQ(game->returns(), ref.returns());
      EXPECT_EQ(game->player_return(0), ref.returns()[0]);
      EXPECT_EQ(game->player_return(1), ref.returns()[1]);
      EXPECT_EQ(game->to_string(), ref.text());
      if (ref.terminal()) break;
      int a = legal[std::uniform_int_distribution<size_t>(0, legal.size() - 1)(rng)];
      game->apply_action(a);
      ref.play(a);
    }
    if (ref.winner < 0) ++draws;
    if (::testing::Test::HasFailure()) break;
  }
  return draws;
}

// Every position reachable from `state` (keys), the state included.
void reachable(const Game& state, std::unordered_set<uint64_t>& seen) {
  if (!seen.insert(state.position_key()).second) return;
  for (int a : state.legal_actions()) {
    auto child = state.clone();
    child->apply_action(a);
    reachable(*child, seen);
  }
}

// Exhaustive minimax without pruning or tables: (outcome for the player to move, plies to the end)
// under "win soonest, lose latest".
struct Outcome {
  int result;  // +1 win, 0 draw, -1 loss for the player to move
  int plies;
};
bool better(Outcome a, Outcome b) {  // a preferable to b for the player to move
  if (a.result != b.result) return a.result > b.result;
  if (a.result > 0) return a.plies < b.plies;
  if (a.result < 0) return a.plies > b.plies;
  return false;
}
Outcome reference_minimax(const Game& state) {
  Outcome best{-2, 0};
  for (int a : state.legal_actions()) {
    auto child = state.clone();
    child->apply_action(a);
    Outcome o;
    if (child->is_terminal()) {
      o = {static_cast<int>(child->returns()[static_cast<size_t>(state.current_player())]), 1};
    } else {
      Outcome c = reference_minimax(*child);
      o = {-c.result, c.plies + 1};
    }
    if (best.result == -2 || better(o, best)) best = o;
  }
  return best;
}
std::vector<int> reference_best_actions(const Game& state) {
  std::vector<std::pair<Outcome, int>> scored;
  for (int a : state.legal_actions()) {
    auto child = state.clone();
    child->apply_action(a);
    if (child->is_terminal()) {
      scored.push_back({{static_cast<int>(child->returns()[static_cast<size_t>(state.current_player())]), 1}, a});
    } else {
      Outcome c = reference_minimax(*child);
      scored.push_back({{-c.result, c.plies + 1}, a});
    }
  }
  Outcome best = scored[0].first;
  for (auto& [o, a] : scored)
    if (better(o, best)) best = o;
  std::vector<int> out;
  for (auto& [o, a] : scored)
    if (!better(best, o)) out.push_back(a);
  return out;
}

std::unique_ptr<Game> after(const std::string& name, std::initializer_list<int> moves) {
  auto g = make_game(name);
  for (int a : moves) g->apply_action(a);
  return g;
}

// Plays a fixed list of moves, in order, whatever the position.
class ScriptedBot final : public Bot {
 public:
  explicit ScriptedBot(std::vector<int> moves) : moves_(std::move(moves)) {}
  std::string name() const override { return "scripted"; }
  int step(const Game&) override { return moves_[next_++ % moves_.size()]; }
  void restart() override { ++restarts; }
  void inform_action(const Game& before, int player, int action) override {
    heard.push_back({before.move_number(), player, action});
  }
  int restarts = 0;
  std::vector<std::array<int, 3>> heard;

 private:
  std::vector<int> moves_;
  size_t next_ = 0;
};

// A user's game: Nim with one pile of 5, take 1 or 2 (action 0 takes 1), taking the last wins.
class Nim final : public Game {
 public:
  std::string name() const override { return "test_nim"; }
  int num_players() const override { return 2; }
  int num_actions() const override { return 2; }
  std::vector<int64_t> observation_shape() const override { return {1}; }
  int current_player() const override { return pile_ == 0 ? kTerminal : move_number() % 2; }
  bool is_terminal() const override { return pile_ == 0; }
  std::vector<int> legal_actions() const override {
    if (pile_ == 0) return {};
    return pile_ >= 2 ? std::vector<int>{0, 1} : std::vector<int>{0};
  }
  std::vector<double> returns() const override {
    if (pile_) return {0, 0};
    const int last = (move_number() - 1) % 2;
    return last == 0 ? std::vector<double>{1, -1} : std::vector<double>{-1, 1};
  }
  std::unique_ptr<Game> clone() const override { return std::make_unique<Nim>(*this); }
  std::string to_string() const override { return "pile " + std::to_string(pile_); }
  void observation(std::span<float> out) const override { out[0] = static_cast<float>(pile_); }

 protected:
  void do_apply_action(int action) override { pile_ -= action + 1; }

 private:
  int pile_ = 5;
};

}  // namespace

TEST(RlGames, TicTacToeMatchesAGridReference) {
  compare_random_games("tic_tac_toe", GridGame(3, 3, 3, false), 1000, 1);
}

TEST(RlGames, ConnectFourMatchesAGridReference) {
  int draws = compare_random_games("connect_four", GridGame(6, 7, 4, true), 1500, 2);
  EXPECT_GT(draws, 0) << "no drawn game: the full-board rule went unchecked";
}

TEST(RlGames, OpenSpielBoardTextAndActionStrings) {
  // Printed by pyspiel: str(state) and state.action_to_string(state.current_player(), a).
  auto t = after("tic_tac_toe", {3, 4, 2});
  EXPECT_EQ(t->to_string(), "..x\nxo.\n...");
  EXPECT_EQ(t->action_to_string(2), "o(0,2)");
  EXPECT_EQ(make_game("tic_tac_toe")->to_string(), "...\n...\n...");
  auto c = after("connect_four", {3, 3, 4, 4, 5, 5});
  EXPECT_EQ(c->to_string(), ".......\n.......\n.......\n.......\n...ooo.\n...xxx.\n");
  EXPECT_EQ(c->action_to_string(6), "x6");
  EXPECT_EQ(c->current_player(), 0);
}

TEST(RlGames, ConnectFourWinsInEveryDirection) {
  auto horizontal = after("connect_four", {0, 0, 1, 1, 2, 2, 3});
  EXPECT_TRUE(horizontal->is_terminal());
  EXPECT_EQ(horizontal->returns(), (std::vector<double>{1, -1}));
  EXPECT_EQ(horizontal->current_player(), Game::kTerminal);
  auto vertical = after("connect_four", {0, 1, 0, 1, 0, 1, 6, 1});
  EXPECT_EQ(vertical->returns(), (std::vector<double>{-1, 1}));
  // x on (col 0,row 0), (1,1), (2,2), (3,3)
  auto diagonal = after("connect_four", {0, 1, 1, 2, 2, 3, 2, 3, 3, 6, 3});
  EXPECT_EQ(diagonal->returns(), (std::vector<double>{1, -1}));
  // x on (6,0), (5,1), (4,2), (3,3)
  auto anti = after("connect_four", {6, 5, 5, 4, 4, 3, 4, 3, 3, 0, 3});
  EXPECT_EQ(anti->returns(), (std::vector<double>{1, -1}));
  // Three and a gap, and lines broken across columns' edges, do not win.
  auto none = after("connect_four", {0, 6, 1, 6, 2, 5, 4});
  EXPECT_FALSE(none->is_terminal());
  // A full board without four in a row (a random game found by OpenSpiel): a draw.
  auto draw = deserialize_game("connect_four", "4 3 6 0 1 4 5 5 1 1 5 0 1 6 0 1 5 5 1 0 4 6 3 2 6 6 0 4 6 5 2 0 4 2 4 2 2 2 3 3 3 3");
  EXPECT_TRUE(draw->is_terminal());
  EXPECT_EQ(draw->returns(), (std::vector<double>{0, 0}));
  EXPECT_EQ(draw->to_string(), "oxooxox\nxoxxxoo\noxoooxx\nxooxxxo\noxxxooo\noxooxxx\n");
  EXPECT_TRUE(draw->legal_actions().empty());
}

TEST(RlGames, ObservationIsFromTheMoversView) {
  auto t = after("tic_tac_toe", {4, 0});  // x centre, o corner; x to move
  auto obs = t->observation();
  ASSERT_EQ(obs.size(), 27u);
  EXPECT_EQ(t->observation_shape(), (std::vector<int64_t>{3, 3, 3}));
  for (int c = 0; c < 9; ++c) {
    EXPECT_EQ(obs[c], c == 4);
    EXPECT_EQ(obs[9 + c], c == 0);
    EXPECT_EQ(obs[18 + c], c != 0 && c != 4);
  }
  t->apply_action(8);  // o to move: the planes swap
  obs = t->observation();
  EXPECT_EQ(obs[0], 1);
  EXPECT_EQ(obs[9 + 4], 1);
  EXPECT_EQ(obs[9 + 8], 1);
  auto c = after("connect_four", {3, 4, 3});  // o to move
  obs = c->observation();
  ASSERT_EQ(static_cast<int64_t>(obs.size()), c->observation_size());
  EXPECT_EQ(c->observation_size(), 126);
  // [plane][row][column], row 0 at the bottom: o has (0,4); x has (0,3) and (1,3).
  EXPECT_EQ(obs[0 * 7 + 4], 1);
  EXPECT_EQ(obs[42 + 0 * 7 + 3], 1);
  EXPECT_EQ(obs[42 + 1 * 7 + 3], 1);
  float total = 0;
  for (float v : obs) total += v;
  EXPECT_EQ(total, 42);  // every cell in exactly one plane
  std::vector<float> small(5);
  expect_error_naming<ShapeError>([&] { c->observation(small); }, {"126", "5"});
}

TEST(RlGames, SerializeRoundTripAndCloneIndependence) {
  std::mt19937 rng(3);
  for (const std::string name : {"tic_tac_toe", "connect_four"}) {
    for (int g = 0; g < 50; ++g) {
      auto game = make_game(name);
      int stop = std::uniform_int_distribution<int>(0, 20)(rng);
      while (!game->is_terminal() && game->move_number() < stop) {
        auto legal = game->legal_actions();
        game->apply_action(legal[rng() % legal.size()]);
      }
      auto copy = deserialize_game(name, game->serialize());
      EXPECT_EQ(copy->history(), game->history());
      EXPECT_EQ(copy->to_string(), game->to_string());
      EXPECT_EQ(copy->position_key(), game->position_key());
      if (game->is_terminal()) continue;
      auto before = game->to_string();
      auto clone = game->clone();
      clone->apply_action(clone->legal_actions()[0]);
      EXPECT_EQ(game->to_string(), before);
      EXPECT_EQ(game->move_number() + 1, clone->move_number());
    }
  }
  EXPECT_EQ(after("connect_four", {4, 0, 1})->serialize(), "4 0 1");
  EXPECT_EQ(deserialize_game("tic_tac_toe", "")->move_number(), 0);
  EXPECT_EQ(deserialize_game("tic_tac_toe", " 4\n0  8 ")->serialize(), "4 0 8");
}

// copy_from (the in-place copy search pools its states with) against deserialize_game's replay of
// the history; copy_state falls back to clone() for another game or one without copy_from.
TEST(RlGames, CopyFromEqualsAReplayAndReusesTheState) {
  std::mt19937 rng(5);
  for (const std::string name : {"tic_tac_toe", "connect_four"}) {
    auto target = make_game(name);
    for (int g = 0; g < 50; ++g) {
      auto game = make_game(name);
      const int stop = std::uniform_int_distribution<int>(0, 30)(rng);
      while (!game->is_terminal() && game->move_number() < stop) {
        auto legal = game->legal_actions();
        game->apply_legal_action(legal[rng() % legal.size()]);
      }
      const Game* before = target.get();
      ASSERT_TRUE(target->copy_from(*game));
      copy_state(target, *game);
      EXPECT_EQ(target.get(), before);  // in place: no new object
      auto replay = deserialize_game(name, game->serialize());
      EXPECT_EQ(target->history(), replay->history());
      EXPECT_EQ(target->to_string(), replay->to_string());
      EXPECT_EQ(target->position_key(), replay->position_key());
      EXPECT_EQ(target->current_player(), replay->current_player());
      EXPECT_EQ(target->returns(), replay->returns());
    }
  }
  auto ttt = make_game("tic_tac_toe");
  auto c4 = after("connect_four", {3});
  EXPECT_FALSE(ttt->copy_from(*c4));  // another game: unchanged
  EXPECT_EQ(ttt->move_number(), 0);
  copy_state(ttt, *c4);
  EXPECT_EQ(ttt->name(), "connect_four");
  EXPECT_EQ(ttt->serialize(), "3");
  std::unique_ptr<Game> nim = std::make_unique<Nim>(), other = std::make_unique<Nim>();
  other->apply_action(1);
  EXPECT_FALSE(nim->copy_from(*other));  // the default: no in-place copy
  copy_state(nim, *other);
  EXPECT_EQ(nim->to_string(), "pile 3");
}

TEST(RlGames, ErrorsNameWhatIsAllowed) {
  auto t = after("tic_tac_toe", {4});
  expect_error_naming<ValueError>([&] { t->apply_action(4); }, {"action 4", "illegal", "0, 1, 2, 3, 5, 6, 7, 8"});
  expect_error_naming<ValueError>([&] { t->apply_action(9); }, {"action 9", "legal actions"});
  expect_error_naming<ValueError>([&] { t->apply_action(-1); }, {"action -1"});
  auto over = after("tic_tac_toe", {0, 3, 1, 4, 2});
  expect_error_naming<ValueError>([&] { over->apply_action(8); }, {"over", "0 3 1 4 2"});
  expect_error_naming<ValueError>([] { make_game("chess"); }, {"chess", "connect_four", "tic_tac_toe"});
  expect_error_naming<ValueError>([] { deserialize_game("tic_tac_toe", "4 x 8"); }, {"move 1", "'x'"});
  expect_error_naming<ValueError>([] { deserialize_game("tic_tac_toe", "4 4"); }, {"move 1", "illegal"});
  expect_error_naming<ValueError>([] { deserialize_game("connect_four", "3 3 3 3 3 3 3"); }, {"move 6", "0, 1, 2, 4, 5, 6"});
  expect_error_naming<ValueError>([] { deserialize_game("go", "1"); }, {"go", "registered games"});
  std::vector<uint8_t> mask(3);
  expect_error_naming<ShapeError>([&] { t->legal_mask(mask); }, {"3", "9"});
}

TEST(RlGames, AUserGameJoinsTheRegistry) {
  register_game("test_nim", [] { return std::make_unique<Nim>(); });
  auto names = registered_games();
  EXPECT_NE(std::find(names.begin(), names.end(), "test_nim"), names.end());
  auto nim = deserialize_game("test_nim", "1 1");  // 5 -> 3 -> 1
  EXPECT_EQ(nim->to_string(), "pile 1");
  std::vector<uint8_t> mask(2);
  nim->legal_mask(mask);  // the base class's default
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 0}));
  expect_error_naming<ValueError>([&] { nim->apply_action(1); }, {"test_nim", "legal actions: 0"});
  // From 5, taking 2 leaves a multiple of 3: a win for the first player, by that move only.
  MinimaxBot bot(0);
  auto start = make_game("test_nim");
  EXPECT_EQ(bot.value(*start, 0), 1);
  EXPECT_EQ(bot.best_actions(*start), (std::vector<int>{1}));
  expect_error_naming<ValueError>([] { register_game("", [] { return std::make_unique<Nim>(); }); }, {"name"});
}

TEST(RlGames, TicTacToeHas5478ReachablePositions) {
  std::unordered_set<uint64_t> seen;
  reachable(*make_game("tic_tac_toe"), seen);
  EXPECT_EQ(seen.size(), 5478u);
}

TEST(RlMinimax, AgreesWithExhaustiveMinimaxEverywhere) {
  MinimaxBot bot(0);
  auto empty = make_game("tic_tac_toe");
  EXPECT_EQ(bot.value(*empty, 0), 0);  // tic-tac-toe is a draw
  EXPECT_EQ(bot.value(*empty, 1), 0);
  // Every non-terminal position reachable: the same optimal moves and values as the reference.
  std::vector<std::unique_ptr<Game>> stack;
  std::set<uint64_t> seen;
  stack.push_back(make_game("tic_tac_toe"));
  int positions = 0;
  while (!stack.empty()) {
    auto s = std::move(stack.back());
    stack.pop_back();
    if (s->is_terminal() || !seen.insert(s->position_key()).second) continue;
    ++positions;
    // The exhaustive reference is slow near the empty board: check those positions' values only.
    if (s->move_number() >= 2) {
      EXPECT_EQ(bot.best_actions(*s), reference_best_actions(*s)) << s->serialize();
      EXPECT_EQ(bot.value(*s, s->current_player()), reference_minimax(*s).result) << s->serialize();
    }
    for (int a : s->legal_actions()) {
      auto c = s->clone();
      c->apply_action(a);
      stack.push_back(std::move(c));
    }
  }
  EXPECT_EQ(positions, 4520);  // 5478 less the 958 terminal positions
  EXPECT_EQ(bot.best_actions(*empty), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8}));  // all draw
}

TEST(RlMinimax, TicTacToeWinsNowAndBlocks) {
  MinimaxBot bot(0);
  // x (0, 1) to move against o (3, 4): 2 wins at once; blocking o at 5 would also win, later.
  auto won = after("tic_tac_toe", {0, 3, 1, 4});
  EXPECT_EQ(bot.value(*won, 0), 1);
  EXPECT_EQ(bot.value(*won, 1), -1);
  EXPECT_EQ(bot.best_actions(*won), (std::vector<int>{2}));
  // o must block at 2 or lose.
  auto block = after("tic_tac_toe", {0, 4, 1});
  EXPECT_EQ(bot.best_actions(*block), (std::vector<int>{2}));
}

TEST(RlMinimax, NeverLosesToRandomAndDrawsItself) {
  MinimaxBot perfect(1);
  RandomBot random(2);
  auto vs_random = play_match("tic_tac_toe", perfect, random, 1000);  // 500 on each side
  EXPECT_EQ(vs_random.games, 1000);
  EXPECT_EQ(vs_random.losses, 0);
  EXPECT_GT(vs_random.wins, 750);
  MinimaxBot other(3);
  auto self = play_match("tic_tac_toe", perfect, other, 50);
  EXPECT_EQ(self.draws, 50);
}

TEST(RlMinimax, ConnectFourWithADepthLimit) {
  MinimaxBot shallow(0, 4);
  EXPECT_EQ(shallow.name(), "minimax(depth 4)");
  // x to move with three in the bottom row (columns 3, 4, 5): 2 or 6 wins at once.
  auto win = after("connect_four", {3, 3, 4, 4, 5, 5});
  EXPECT_EQ(shallow.best_actions(*win), (std::vector<int>{2, 6}));
  // o to move must block x's open three (2 and 6 both threaten; none saves): a forced loss.
  auto lost = after("connect_four", {3, 3, 4, 4, 5});
  EXPECT_EQ(shallow.value(*lost, 1), -1);
  // x has 2, 3, 4 in the bottom row with 1 and 5 open: o to move has lost.
  auto threat = after("connect_four", {2, 0, 3, 0, 4});
  EXPECT_EQ(shallow.value(*threat, 1), -1);
  // x has 1, 2, 3 with 0 taken: o must block at 4.
  auto single = after("connect_four", {1, 0, 2, 6, 3});
  EXPECT_EQ(shallow.best_actions(*single), (std::vector<int>{4}));
  // Without a depth limit Connect Four is too large: a clear error, not an endless search.
  MinimaxBot exact(0, 0, 10'000);
  expect_error_naming<ValueError>([&] { exact.step(*make_game("connect_four")); }, {"too large", "depth limit"});
  expect_error_naming<ValueError>([] { MinimaxBot(0, -1); }, {"depth_limit"});
}

TEST(RlBots, RandomBotIsUniformAndReproducible) {
  RandomBot a(7), b(7);
  auto game = after("tic_tac_toe", {4});
  std::map<int, int> counts;
  for (int i = 0; i < 8000; ++i) {
    int x = a.step(*game);
    EXPECT_EQ(x, b.step(*game));
    ++counts[x];
  }
  EXPECT_EQ(counts.size(), 8u);
  EXPECT_EQ(counts.count(4), 0u);
  for (auto [action, n] : counts) EXPECT_NEAR(n, 1000, 120) << action;  // ~3.7 standard deviations
}

TEST(RlBots, MatchesAlternateColoursAndInformEveryBot) {
  // x plays 0 1 2 3 and o plays 0 1 2 on top: x's bottom row wins at move 7.
  ScriptedBot x({0, 1, 2, 3}), o({0, 1, 2, 3});
  auto final_state = play_game("connect_four", {&x, &o});
  EXPECT_EQ(final_state->serialize(), "0 0 1 1 2 2 3");
  EXPECT_EQ(final_state->returns()[0], 1);
  EXPECT_EQ(x.restarts, 1);
  EXPECT_EQ(x.heard.size(), static_cast<size_t>(final_state->move_number()));
  for (size_t i = 0; i < x.heard.size(); ++i) {
    EXPECT_EQ(x.heard[i][0], static_cast<int>(i));
    EXPECT_EQ(x.heard[i][1], static_cast<int>(i % 2));
    EXPECT_EQ(x.heard[i][2], final_state->history()[i]);
  }
  EXPECT_EQ(x.heard, o.heard);

  RandomBot r0(1), r1(2);
  auto m = play_match("connect_four", r0, r1, 20);
  EXPECT_EQ(m.games, 20);
  EXPECT_EQ(m.wins + m.draws + m.losses, 20);
  EXPECT_EQ(m.histories.size(), 20u);
  EXPECT_DOUBLE_EQ(m.score(), (m.wins + 0.5 * m.draws) / 20);
  // Same seeds, same games.
  RandomBot s0(1), s1(2);
  EXPECT_EQ(play_match("connect_four", s0, s1, 20).histories, m.histories);
  // Colours alternate: bot 0 plays first in even games. A minimax bot against a random one wins
  // tic-tac-toe from both sides; replaying a history gives bot 0's seat its result.
  MinimaxBot p(0);
  RandomBot q(5);
  auto mq = play_match("tic_tac_toe", p, q, 6);
  for (int g = 0; g < 6; ++g) {
    auto end = deserialize_game("tic_tac_toe", mq.histories[static_cast<size_t>(g)]);
    EXPECT_GE(end->returns()[g % 2], 0);
  }
}

TEST(RlBots, PlayGameChecksItsArguments) {
  RandomBot a(0), b(1);
  expect_error_naming<ValueError>([&] { play_game("tic_tac_toe", {&a}); }, {"2 bots", "got 1"});
  expect_error_naming<ValueError>([&] { play_game("tic_tac_toe", {&a, nullptr}); }, {"player 1", "missing"});
  auto c4 = make_game("connect_four");
  expect_error_naming<ValueError>([&] { play_game("tic_tac_toe", {&a, &b}, c4.get()); }, {"connect_four"});
  ScriptedBot bad({4});
  expect_error_naming<ValueError>([&] { play_game("tic_tac_toe", {&bad, &bad}); }, {"scripted", "player 1", "illegal"});
  // From a given start: the game continues from there.
  auto start = after("tic_tac_toe", {0, 3, 1, 4});
  MinimaxBot p(0);
  auto end = play_game("tic_tac_toe", {&p, &b}, start.get());
  EXPECT_EQ(end->serialize().substr(0, 7), "0 3 1 4");
  EXPECT_EQ(end->returns()[0], 1);
  EXPECT_EQ(start->move_number(), 4);  // untouched
  expect_error_naming<ValueError>([&] { play_match("tic_tac_toe", a, b, -1); }, {"games", "-1"});
}

TEST(RlBots, PlayGameShowsEveryMoveToItsObserver) {
  RandomBot a(3), b(4);
  std::vector<std::string> seen;
  auto end = play_game("connect_four", {&a, &b}, nullptr, [&](const Game& before, int action, const Game& after) {
    // `after` is `before` with the action played, whatever the bots did in between.
    auto replay = before.clone();
    replay->apply_action(action);
    EXPECT_EQ(replay->serialize(), after.serialize());
    seen.push_back(before.action_to_string(action));
  });
  ASSERT_EQ(seen.size(), end->history().size());
  EXPECT_EQ(seen[0], "x" + std::to_string(end->history()[0]));  // named by the mover, player 0
  EXPECT_EQ(seen[1], "o" + std::to_string(end->history()[1]));
}

TEST(RlBots, HumanBotReadsMovesAndAsksAgain) {
  auto game = after("tic_tac_toe", {4});
  std::istringstream in("\nseven\n4\n9\no(0,2)\n");
  std::ostringstream out;
  HumanBot human(in, out);
  EXPECT_EQ(human.step(*game), 2);
  const std::string shown = out.str();
  EXPECT_NE(shown.find("...\n.x.\n..."), std::string::npos) << shown;
  EXPECT_NE(shown.find("'seven' is not a legal move"), std::string::npos) << shown;
  EXPECT_NE(shown.find("'4' is not a legal move"), std::string::npos) << shown;
  EXPECT_NE(shown.find("0 (o(0,0))"), std::string::npos) << shown;
  std::istringstream number("  7 \n");
  HumanBot by_number(number, out);
  EXPECT_EQ(by_number.step(*game), 7);
  std::istringstream empty("");
  HumanBot silent(empty, out);
  expect_error_naming<ValueError>([&] { silent.step(*game); }, {"input ended"});
}
