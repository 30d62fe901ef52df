// What search asks of a leaf: a prior over the actions and a value. One call evaluates the leaves
// of every tree in the batch (one per tree per simulation step), so a network runs one batch.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reinforcement/envs/np_random.h"
#include "reinforcement/games/game.h"

namespace spire::rl {

struct Leaves {
  std::span<const Game* const> states;  // n non-terminal states
  std::span<const int> trees;           // the tree (batch index) each leaf belongs to
  std::span<Generator* const> rngs;     // that tree's generator: draws are reproducible per tree
  int num_actions = 0;
  // Threads the evaluator may use across the leaves (the search's; results must not depend on it).
  int threads = 1;
  // Outputs. priors: [n, num_actions], any non-negative weights (search keeps the legal ones and
  // normalises them; all zero means uniform). values: [n], the expected return of the player to
  // move, in the game's [min_return, max_return].
  std::span<float> priors;
  std::span<float> values;
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  virtual void evaluate(const Leaves& leaves) = 0;
  // True when a leaf's prior and value depend only on its state and its tree's generator, never on
  // the other leaves of the call, and evaluate() may run concurrently. Search then runs each tree's
  // simulations on their own (one thread per tree, one leaf per call): the same results as the
  // batched steps, without a synchronisation per step, and one tree at a time in the cache.
  virtual bool independent_leaves() const { return false; }
};

// Uniform prior; the value is the mean return of `rollouts` uniformly random playouts
// (OpenSpiel's RandomRolloutEvaluator).
class RandomRollout final : public Evaluator {
 public:
  explicit RandomRollout(int rollouts = 1);
  void evaluate(const Leaves& leaves) override;
  bool independent_leaves() const override { return true; }
  // The mean return of `rollouts` uniformly random playouts from `state`, for `player`.
  static double rollout_value(const Game& state, int player, int rollouts, Generator& rng);

 private:
  int rollouts_;
};

// Any callable (a Python function through the bindings, a lambda in C++).
class FunctionEvaluator final : public Evaluator {
 public:
  using Fn = std::function<void(const Leaves&)>;
  explicit FunctionEvaluator(Fn fn) : fn_(std::move(fn)) {}
  void evaluate(const Leaves& leaves) override { fn_(leaves); }

 private:
  Fn fn_;
};

// Evaluators by name ("random_rollout", and what users register), built from string options
// ({"rollouts": "4"}); an unknown name or option throws ValueError naming the allowed ones.
using EvaluatorOptions = std::map<std::string, std::string>;
using EvaluatorFactory = std::function<std::shared_ptr<Evaluator>(const EvaluatorOptions&)>;
void register_evaluator(const std::string& name, EvaluatorFactory factory);
std::shared_ptr<Evaluator> make_evaluator(const std::string& name, const EvaluatorOptions& options = {});
std::vector<std::string> registered_evaluators();

}  // namespace spire::rl
