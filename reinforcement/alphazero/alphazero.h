// An AlphaZero run: self-play with batched search and the policy-value network, a replay buffer, a
// learner, an evaluation ladder against MCTS with random rollouts, a history of every iteration and
// checkpoints. Deterministic given config.seed: the network's initial weights, every game and every
// minibatch come from generators derived from it, and a run resumed from a checkpoint continues with
// the same bits as one never stopped.
//
//   AlphaZero run(load_config("job.toml"));
//   run.train();                        // config.train.iterations iterations
//   run.save("run/checkpoint.h5");
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/train/logs.h"
#include "reinforcement/alphazero/arena.h"
#include "reinforcement/alphazero/config.h"
#include "reinforcement/alphazero/learner.h"
#include "reinforcement/alphazero/network.h"
#include "reinforcement/alphazero/replay_buffer.h"
#include "reinforcement/games/bot.h"

namespace spire::rl::alphazero {

class AlphaZero {
 public:
  explicit AlphaZero(Config config);

  // Called after each iteration with its number (from 0) and its logs; returning false stops training.
  using Callback = std::function<bool(int64_t iteration, const train::Logs& logs)>;
  // Runs `iterations` more iterations (< 0: until config.train.iterations are done in all). Writes a
  // checkpoint every config.checkpoint.every iterations and at the end when config.checkpoint.dir is
  // set; appends each iteration's logs to history() and to history_path when given.
  void train(int64_t iterations = -1, const Callback& callback = {});
  // One iteration: self-play, learning, and the ladder when due. Returns its logs.
  train::Logs iteration();

  std::vector<LadderRung> evaluate(const std::vector<int>& opponents, int games, int simulations = 0);
  // A player for play_game / play_match: search guided by the network, no noise, the most visited move.
  std::unique_ptr<Bot> bot(int simulations = 0) const;
  // The network's value of `state` for the player to move, in [-1, 1].
  double value(const Game& state) const;

  // Everything a resumed run needs in one HDF5 file (written atomically): see checkpoint.h.
  void save(const std::string& path) const;
  // A run restored from save()'s file, with the configuration saved in it.
  static std::unique_ptr<AlphaZero> load(const std::string& path);
  // Restores save()'s state into this run (same game and network shape).
  void load_state(const std::string& path);

  const Config& config() const { return config_; }
  Config& mutable_config() { return config_; }
  const std::shared_ptr<PolicyValueNet>& network() const { return net_; }
  const ReplayBuffer& buffer() const { return buffer_; }
  Learner& learner() { return learner_; }
  int64_t iterations_done() const { return iteration_; }
  int64_t learner_steps() const { return steps_; }
  const std::vector<train::Logs>& history() const { return history_; }
  // The CSV (or .h5) file each iteration's logs are appended to; empty: none.
  std::string history_path;
  // Lines of progress (one per iteration) go here when set.
  std::function<void(const std::string&)> progress;

 private:
  Config config_;
  std::shared_ptr<PolicyValueNet> net_;
  ReplayBuffer buffer_;
  Learner learner_;
  spire::Generator sample_gen_;  // minibatches
  int64_t iteration_ = 0, steps_ = 0, games_ = 0;
  std::vector<train::Logs> history_;
};

// The network described by a configuration, initialised from its seed.
std::shared_ptr<PolicyValueNet> make_network(const Config& config);
// A player that searches with `net` (config's search settings; simulations 0: config.mcts's).
std::unique_ptr<Bot> make_bot(const Config& config, std::shared_ptr<PolicyValueNet> net, int simulations = 0);
// A network and configuration read back from a checkpoint written by AlphaZero::save.
std::pair<Config, std::shared_ptr<PolicyValueNet>> load_network(const std::string& path);

}  // namespace spire::rl::alphazero
