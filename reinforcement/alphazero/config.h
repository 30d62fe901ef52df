// An AlphaZero run's settings, read from a TOML job file (`spire rl train job.toml`) or built in
// code. Every key has a default; an unknown key, a value of the wrong type or out of range is a
// ConfigError naming the key, what it got and what is allowed.
//
//   algorithm = "alphazero"   seed = 0
//   [game]       name
//   [network]    blocks, channels, value_hidden, batch_norm
//   [mcts]       simulations, selection ("puct" | "gumbel"), c_puct_init, c_puct_base, fpu,
//                dirichlet_alpha, dirichlet_fraction, gumbel_max_considered, gumbel_scale, reuse
//   [selfplay]   games (played at once, one batched search), games_per_iteration,
//                temperature_moves, temperature, augment (left-right mirror)
//   [train]      iterations, steps_per_iteration, batch_size, lr, weight_decay, buffer_capacity,
//                min_buffer
//   [evaluation] every, games, opponents (simulations of each rung), simulations, rollouts
//   [checkpoint] every, dir
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "reinforcement/alphazero/network.h"

namespace spire::rl::alphazero {

struct MctsSettings {
  int simulations = 50;
  std::string selection = "puct";
  double c_puct_init = 1.25, c_puct_base = 19652, fpu = 0.0;
  double dirichlet_alpha = 0.3, dirichlet_fraction = 0.25;
  int gumbel_max_considered = 16;
  double gumbel_scale = 1.0;
  bool reuse = true;
};

struct SelfPlaySettings {
  int games = 32;                // games played at once, their leaves evaluated in one batch
  int games_per_iteration = 32;  // games finished per iteration
  int temperature_moves = 8;     // moves sampled from the visit counts; later ones play the most visited
  double temperature = 1.0;
  bool augment = true;           // also store each sample's left-right mirror image
};

struct TrainSettings {
  int iterations = 10;
  int steps_per_iteration = 50;
  int batch_size = 128;
  double lr = 1e-3, weight_decay = 1e-4;
  int64_t buffer_capacity = 20000;
  int64_t min_buffer = 0;  // no learning before the buffer holds this many samples
};

struct EvaluationSettings {
  int every = 0;                      // iterations between ladder runs; 0: never
  int games = 20;                     // per rung, colours alternated
  std::vector<int> opponents{25, 100, 400};  // random-rollout MCTS simulations of each rung
  int simulations = 0;                // the agent's simulations; 0: mcts.simulations
  int rollouts = 1;                   // random playouts per opponent leaf
};

struct CheckpointSettings {
  int every = 1;      // iterations between checkpoints (a stopped run loses at most this many); 0: only at the end of train()
  std::string dir;    // empty: no checkpoints
};

struct Config {
  std::string algorithm = "alphazero";
  uint64_t seed = 0;
  std::string game = "tic_tac_toe";
  NetworkConfig network;
  MctsSettings mcts;
  SelfPlaySettings selfplay;
  TrainSettings train;
  EvaluationSettings evaluation;
  CheckpointSettings checkpoint;

  // Range checks across all fields (ConfigError naming the key); the game must be registered.
  void validate() const;
  // The job file text that parse_config reads back as this configuration.
  std::string to_toml() const;
};

// `where` names the source in errors (a path, or "config").
Config parse_config(const std::string& toml_text, const std::string& where = "config");
Config load_config(const std::string& path);

// The `algorithm` a job file names ("alphazero" when absent): what `spire rl train` dispatches on
// before the algorithm's own reader checks the rest.
std::string job_algorithm(const std::string& toml_text, const std::string& where);

}  // namespace spire::rl::alphazero
