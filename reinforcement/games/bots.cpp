#include "reinforcement/games/bots.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <iostream>
#include <sstream>

#include "engine/core/error.h"

namespace spire::rl {

int RandomBot::step(const Game& state) {
  state.legal_actions_into(legal_);
  SPIRE_CHECK(!legal_.empty(), ValueError, "RandomBot: no legal action (the ", state.name(), " game is over)");
  return legal_[static_cast<size_t>(rng_.below(static_cast<int64_t>(legal_.size())))];
}

namespace {
// A won game scores kWin, less one per ply until it is reached; scores stay far from kInf.
constexpr int kWin = 1 << 20;
constexpr int kInf = 1 << 30;
constexpr int kUnlimited = INT_MAX;

int sign(int x) { return (x > 0) - (x < 0); }
// One ply further away: a win or loss moves one point towards a draw.
int decay(int x) { return x - sign(x); }
// The undecayed bound b' with decay(x) <= b  <=>  x <= b' (and likewise for >=).
int undecay(int b) { return b + sign(b); }

int terminal_score(const Game& state, int player) {
  const double scale = std::max(std::abs(state.min_return()), std::abs(state.max_return()));
  const double r = state.player_return(player);
  return static_cast<int>(std::lround(scale > 0 ? r / scale * kWin : 0.0));
}
}  // namespace

MinimaxBot::MinimaxBot(uint64_t seed, int depth_limit, int64_t max_positions)
    : rng_(seed), depth_limit_(depth_limit), max_positions_(max_positions) {
  SPIRE_CHECK(depth_limit >= 0, ValueError, "MinimaxBot: depth_limit must be >= 0 (0: search to the end), got ",
              depth_limit);
  SPIRE_CHECK(max_positions > 0, ValueError, "MinimaxBot: max_positions must be > 0, got ", max_positions);
}

std::string MinimaxBot::name() const {
  return depth_limit_ ? "minimax(depth " + std::to_string(depth_limit_) + ")" : "minimax";
}

void MinimaxBot::check_game(const Game& state) const {
  SPIRE_CHECK(state.num_players() == 2, ValueError, "MinimaxBot plays two-player zero-sum games; ", state.name(),
              " has ", state.num_players(), " players");
  SPIRE_CHECK(!state.is_terminal(), ValueError, "MinimaxBot: the ", state.name(), " game is over (after moves \"",
              state.serialize(), "\")");
}

int MinimaxBot::child_score(const Game& child, int mover, int depth, int alpha, int beta) {
  if (child.is_terminal()) return terminal_score(child, mover);
  if (depth != kUnlimited && --depth == 0) return 0;  // the horizon: undecided
  const int a = undecay(alpha), b = undecay(beta);
  const int x = child.current_player() == mover ? search(child, depth, a, b) : -search(child, depth, -b, -a);
  return decay(x);
}

int MinimaxBot::search(const Game& state, int depth, int alpha, int beta) {
  const uint64_t key = state.position_key();
  if (auto it = table_.find(key); it != table_.end() && it->second.depth >= depth) {
    const Entry& e = it->second;
    if (e.bound == Bound::kExact || (e.bound == Bound::kLower && e.score >= beta) ||
        (e.bound == Bound::kUpper && e.score <= alpha))
      return e.score;
  }
  const int alpha0 = alpha, mover = state.current_player();
  int best = -kInf;
  for (int action : state.legal_actions()) {
    auto child = state.clone();
    child->apply_action(action);
    best = std::max(best, child_score(*child, mover, depth, alpha, beta));
    alpha = std::max(alpha, best);
    if (alpha >= beta) break;
  }
  if (static_cast<int64_t>(table_.size()) >= max_positions_) {
    table_.clear();
    SPIRE_CHECK(depth != kUnlimited, ValueError, "MinimaxBot: ", state.name(), " is too large to solve exactly (more than ",
                max_positions_, " positions); give the bot a depth limit");
  }
  const Bound bound = best <= alpha0 ? Bound::kUpper : best >= beta ? Bound::kLower : Bound::kExact;
  table_[key] = Entry{best, depth, bound};
  return best;
}

void MinimaxBot::score_actions(const Game& state, std::vector<int>& actions, std::vector<int>& scores) {
  check_game(state);
  if (table_game_ != state.name()) {
    table_.clear();
    table_game_ = state.name();
  }
  actions = state.legal_actions();
  scores.clear();
  const int mover = state.current_player(), depth = depth_limit_ ? depth_limit_ : kUnlimited;
  for (int action : actions) {
    auto child = state.clone();
    child->apply_action(action);
    scores.push_back(child_score(*child, mover, depth, -kInf, kInf));
  }
}

std::vector<int> MinimaxBot::best_actions(const Game& state) {
  std::vector<int> actions, scores, best;
  score_actions(state, actions, scores);
  const int top = *std::max_element(scores.begin(), scores.end());
  for (size_t i = 0; i < actions.size(); ++i)
    if (scores[i] == top) best.push_back(actions[i]);
  return best;
}

int MinimaxBot::step(const Game& state) {
  auto best = best_actions(state);
  return best[static_cast<size_t>(rng_.below(static_cast<int64_t>(best.size())))];
}

double MinimaxBot::value(const Game& state, int player) {
  SPIRE_CHECK(player >= 0 && player < state.num_players(), ValueError, "MinimaxBot.value: player ", player,
              " is out of range (0 to ", state.num_players() - 1, ")");
  if (state.is_terminal()) return state.returns()[static_cast<size_t>(player)];
  std::vector<int> actions, scores;
  score_actions(state, actions, scores);
  const int top = *std::max_element(scores.begin(), scores.end());
  const double scale = std::max(std::abs(state.min_return()), std::abs(state.max_return()));
  return (player == state.current_player() ? 1 : -1) * sign(top) * scale;
}

HumanBot::HumanBot(std::istream& in, std::ostream& out)
    : read_line_([&in]() -> std::optional<std::string> {
        std::string line;
        if (!std::getline(in, line)) return std::nullopt;
        return line;
      }),
      write_([&out](const std::string& s) { out << s << std::flush; }) {}

HumanBot::HumanBot(ReadLine read_line, Write write) : read_line_(std::move(read_line)), write_(std::move(write)) {
  SPIRE_CHECK(read_line_ && write_, ValueError, "HumanBot: both the reader and the writer must be given");
}

std::optional<int> HumanBot::parse_move(const Game& state, const std::string& text) {
  const auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string::npos) return std::nullopt;
  const std::string word = text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
  for (int a : state.legal_actions())
    if (word == std::to_string(a) || word == state.action_to_string(a)) return a;
  return std::nullopt;
}

int HumanBot::step(const Game& state) {
  std::ostringstream moves;
  for (int a : state.legal_actions()) moves << ' ' << a << " (" << state.action_to_string(a) << ')';
  std::string board = state.to_string();
  if (board.empty() || board.back() != '\n') board += '\n';
  write_(board + "legal moves:" + moves.str() + "\nplayer " + std::to_string(state.current_player()) + ", your move: ");
  while (true) {
    auto line = read_line_();
    SPIRE_CHECK(line, ValueError, "HumanBot: the input ended before player ", state.current_player(), " chose a move");
    if (auto move = parse_move(state, *line)) return *move;
    write_("'" + *line + "' is not a legal move; choose one of:" + moves.str() + "\nyour move: ");
  }
}

}  // namespace spire::rl
