// The game interface that search and AlphaZero play: deterministic, perfect-information,
// turn-based games for any number of players (OpenSpiel's State, without chance nodes). A game is
// its state: apply_action moves it on, clone() copies it for search.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <typeinfo>
#include <vector>

namespace spire::rl {

class Game {
 public:
  // current_player() once the game is over (OpenSpiel's kTerminalPlayerId).
  static constexpr int kTerminal = -4;

  virtual ~Game() = default;

  virtual std::string name() const = 0;  // the registered name: "tic_tac_toe", "connect_four"
  virtual int num_players() const = 0;
  virtual int num_actions() const = 0;   // actions are 0 .. num_actions() - 1
  // The shape of observation(): planes first ({3, 3, 3} for tic-tac-toe, {3, 6, 7} for Connect Four).
  virtual std::vector<int64_t> observation_shape() const = 0;
  // Returns are in [min_return, max_return] (for the value scale of search).
  virtual double min_return() const { return -1; }
  virtual double max_return() const { return 1; }

  virtual int current_player() const = 0;  // 0 .. num_players() - 1, or kTerminal
  virtual bool is_terminal() const = 0;
  virtual std::vector<int> legal_actions() const = 0;  // ascending; empty when terminal
  // legal_actions() into a caller's vector (cleared first): no allocation once `out` has grown, for
  // search loops. The built-in games override it; the default copies legal_actions().
  virtual void legal_actions_into(std::vector<int>& out) const { out = legal_actions(); }
  // mask[a] = 1 when a is legal (num_actions() entries).
  virtual void legal_mask(std::span<uint8_t> mask) const;
  bool is_legal(int action) const;
  // Plays `action` for current_player(); an illegal action throws ValueError naming the legal ones.
  void apply_action(int action);
  // apply_action without the legality check, for callers that only play actions they read from
  // legal_mask (search, playouts): the check costs virtual calls on every move of every playout.
  void apply_legal_action(int action) {
    do_apply_action(action);
    history_.push_back(action);
  }
  // One value per player: the final outcome when terminal (win +1, loss -1, draw 0), else zeros.
  virtual std::vector<double> returns() const = 0;
  // returns()[player] without allocating (OpenSpiel's PlayerReturn), for rollouts.
  virtual double player_return(int player) const { return returns()[static_cast<size_t>(player)]; }
  // Every action applied since the initial state, in order.
  const std::vector<int>& history() const { return history_; }
  int move_number() const { return static_cast<int>(history_.size()); }

  virtual std::unique_ptr<Game> clone() const = 0;
  // Makes this state a copy of `other`, reusing this object's memory (the history's capacity), so
  // that search can keep its states and copy into them rather than allocate a clone per simulation.
  // False, changing nothing, when `other` is another game or this game cannot (the default);
  // copy_state below then clones. The built-in games override it with assign_if_same.
  virtual bool copy_from([[maybe_unused]] const Game& other) { return false; }
  // The history as text ("4 0 8"); deserialize_game(name(), serialize()) replays it.
  std::string serialize() const;
  // A human-readable board (rows of text, one per line).
  virtual std::string to_string() const = 0;
  virtual std::string action_to_string(int action) const { return std::to_string(action); }
  // The input of a policy-value network, from the view of the player to move (so one network
  // serves both sides): plane 0 the mover's pieces, plane 1 the opponent's, plane 2 empty cells;
  // float32 in {0, 1}, observation_shape() elements. Defined at terminal states too.
  virtual void observation(std::span<float> out) const = 0;
  std::vector<float> observation() const;
  int64_t observation_size() const;
  // Identifies the position (board and player to move) for transposition tables: equal positions
  // give equal keys. Exact for the built-in games; the default hashes to_string() and the player to
  // move, which a game whose board text does not determine the position should override.
  virtual uint64_t position_key() const;

 protected:
  Game() = default;
  // A copy keeps room for one more action in its history: search copies a state to play a move on it.
  Game(const Game& other) { copy_history(other); }
  Game& operator=(const Game& other) {
    if (this != &other) copy_history(other);
    return *this;
  }
  // copy_from for a game class T that is copy-assignable: `self = other` when other is a T.
  template <class T>
  static bool assign_if_same(T& self, const Game& other) {
    if (typeid(other) != typeid(T)) return false;
    self = static_cast<const T&>(other);
    return true;
  }
  // Called by apply_action and apply_legal_action with a legal action; updates the state (history
  // is kept by the base).
  virtual void do_apply_action(int action) = 0;
  // is_legal for an action in range on a live state; the default reads legal_mask.
  virtual bool action_is_legal(int action) const;

 private:
  void copy_history(const Game& other) {
    if (history_.capacity() <= other.history_.size()) history_.reserve(other.history_.size() + 1);
    history_.assign(other.history_.begin(), other.history_.end());
  }

  std::vector<int> history_;
};

// `to` becomes a copy of `from`: in place when to's game allows it (copy_from), else a clone.
void copy_state(std::unique_ptr<Game>& to, const Game& from);

// The games by name; an unknown name throws ValueError listing registered_games(). A user's game
// joins the registry with register_game (a second registration of a name replaces the first).
std::unique_ptr<Game> make_game(const std::string& name);
void register_game(const std::string& name, std::function<std::unique_ptr<Game>()> factory);
std::vector<std::string> registered_games();
// The state reached by replaying serialize()'s text from the initial state.
std::unique_ptr<Game> deserialize_game(const std::string& name, const std::string& text);

}  // namespace spire::rl
