#include "reinforcement/games/bot.h"

#include <algorithm>

#include "engine/core/error.h"

namespace spire::rl {

std::unique_ptr<Game> play_game(const std::string& game, std::vector<Bot*> bots, const Game* start,
                                const MoveObserver& on_move) {
  auto state = start ? start->clone() : make_game(game);
  SPIRE_CHECK(state->name() == game, ValueError, "play_game('", game, "'): the start state is a ", state->name(),
              " game");
  SPIRE_CHECK(static_cast<int>(bots.size()) == state->num_players(), ValueError, "play_game('", game, "'): ",
              state->num_players(), " players need ", state->num_players(), " bots, got ", bots.size());
  // A bot in several seats hears each move once.
  std::vector<Bot*> distinct;
  for (size_t p = 0; p < bots.size(); ++p) {
    SPIRE_CHECK(bots[p], ValueError, "play_game('", game, "'): the bot of player ", p, " is missing");
    if (std::find(distinct.begin(), distinct.end(), bots[p]) == distinct.end()) distinct.push_back(bots[p]);
  }
  for (Bot* bot : distinct) bot->restart();
  while (!state->is_terminal()) {
    const int player = state->current_player();
    Bot& bot = *bots[static_cast<size_t>(player)];
    const int action = bot.step(*state);
    if (!state->is_legal(action)) {
      try {
        state->apply_action(action);  // throws, naming the legal actions
      } catch (const ValueError& e) {
        throw ValueError(detail::cat("play_game: bot '", bot.name(), "' (player ", player, ") chose an illegal move: ",
                                     e.what()));
      }
    }
    for (Bot* b : distinct) b->inform_action(*state, player, action);
    if (on_move) {
      auto before = state->clone();
      state->apply_action(action);
      on_move(*before, action, *state);
    } else {
      state->apply_action(action);
    }
  }
  return state;
}

MatchResult play_match(const std::string& game, Bot& bot0, Bot& bot1, int games) {
  SPIRE_CHECK(games >= 0, ValueError, "play_match: games must be >= 0, got ", games);
  MatchResult result;
  for (int g = 0; g < games; ++g) {
    const bool first = g % 2 == 0;  // bot 0 plays first in even games
    auto final_state = first ? play_game(game, {&bot0, &bot1}) : play_game(game, {&bot1, &bot0});
    SPIRE_CHECK(final_state->num_players() == 2, ValueError, "play_match: ", game, " has ",
                final_state->num_players(), " players; a match is between two bots");
    const double r = final_state->returns()[first ? 0 : 1];
    (r > 0 ? result.wins : r < 0 ? result.losses : result.draws) += 1;
    result.histories.push_back(final_state->serialize());
    ++result.games;
  }
  return result;
}

}  // namespace spire::rl
