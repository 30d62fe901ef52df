#include "reinforcement/games/game.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "engine/core/error.h"
#include "reinforcement/common/named_registry.h"
#include "reinforcement/games/connect_four.h"
#include "reinforcement/games/tic_tac_toe.h"

namespace spire::rl {

namespace {
// "0, 1, 5" for messages.
std::string list_actions(const std::vector<int>& actions) {
  std::ostringstream s;
  for (size_t i = 0; i < actions.size(); ++i) s << (i ? ", " : "") << actions[i];
  return s.str();
}
}  // namespace

void Game::legal_mask(std::span<uint8_t> mask) const {
  SPIRE_CHECK(static_cast<int>(mask.size()) == num_actions(), ShapeError, name(), ".legal_mask: the mask has ",
              mask.size(), " entries; the game has ", num_actions(), " actions");
  std::fill(mask.begin(), mask.end(), uint8_t{0});
  for (int a : legal_actions()) mask[static_cast<size_t>(a)] = 1;
}

bool Game::action_is_legal(int action) const {
  std::vector<uint8_t> mask(static_cast<size_t>(num_actions()));
  legal_mask(mask);
  return mask[static_cast<size_t>(action)] != 0;
}

bool Game::is_legal(int action) const {
  return action >= 0 && action < num_actions() && !is_terminal() && action_is_legal(action);
}

void Game::apply_action(int action) {
  if (!is_legal(action)) {
    SPIRE_CHECK(!is_terminal(), ValueError, name(), ": the game is over (after moves \"", serialize(),
                "\"); no action is legal, got ", action);
    throw ValueError(detail::cat(name(), ": action ", action, " is illegal for player ", current_player(),
                                 "; legal actions: ", list_actions(legal_actions())));
  }
  do_apply_action(action);
  history_.push_back(action);
}

void copy_state(std::unique_ptr<Game>& to, const Game& from) {
  if (!to || !to->copy_from(from)) to = from.clone();
}

std::string Game::serialize() const {
  std::string s;
  for (size_t i = 0; i < history_.size(); ++i) {
    if (i) s += ' ';
    s += std::to_string(history_[i]);
  }
  return s;
}

std::vector<float> Game::observation() const {
  std::vector<float> out(static_cast<size_t>(observation_size()));
  observation(out);
  return out;
}

int64_t Game::observation_size() const {
  int64_t n = 1;
  for (int64_t d : observation_shape()) n *= d;
  return n;
}

uint64_t Game::position_key() const {
  return std::hash<std::string>{}(to_string()) * 31 + static_cast<uint64_t>(current_player() + 8);
}

namespace {
using GameFactory = std::function<std::unique_ptr<Game>()>;
NamedRegistry<GameFactory>& registry() {
  static NamedRegistry<GameFactory> r("game", {{"tic_tac_toe", [] { return std::make_unique<TicTacToe>(); }},
                                               {"connect_four", [] { return std::make_unique<ConnectFour>(); }}});
  return r;
}
}  // namespace

std::unique_ptr<Game> make_game(const std::string& name) {
  auto game = registry().find(name)();
  SPIRE_CHECK(game, ValueError, "the factory of game '", name, "' returned no game");
  return game;
}

void register_game(const std::string& name, std::function<std::unique_ptr<Game>()> factory) {
  registry().add(name, std::move(factory));
}

std::vector<std::string> registered_games() { return registry().names(); }

std::unique_ptr<Game> deserialize_game(const std::string& name, const std::string& text) {
  auto game = make_game(name);
  std::istringstream in(text);
  std::string token;
  int move = 0;
  while (in >> token) {
    int action = 0;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), action);
    SPIRE_CHECK(ec == std::errc() && end == token.data() + token.size(), ValueError, "deserialize_game('", name,
                "'): move ", move, " is '", token, "', not an action number; expected actions separated by spaces (\"4 0 8\")");
    try {
      game->apply_action(action);
    } catch (const ValueError& e) {
      throw ValueError(detail::cat("deserialize_game('", name, "'): move ", move, ": ", e.what()));
    }
    ++move;
  }
  return game;
}

}  // namespace spire::rl
