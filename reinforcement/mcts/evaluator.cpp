#include "reinforcement/mcts/evaluator.h"


#include "engine/core/error.h"
#include "reinforcement/common/named_registry.h"
#include "reinforcement/mcts/parallel.h"

namespace spire::rl {

RandomRollout::RandomRollout(int rollouts) : rollouts_(rollouts) {
  SPIRE_CHECK(rollouts >= 1, ValueError, "RandomRollout: rollouts must be at least 1, got ", rollouts);
}

namespace {
// The state a playout runs on: a per-thread scratch state that copy_from refills, so that a playout
// allocates nothing once its history has grown. A game without copy_from plays on a clone held in
// `owned`: only states that copy in place are kept, as a thread-local Python game could outlive the
// interpreter. The hot path reads a plain pointer, as a thread_local with a destructor is checked
// for initialisation on every access.
Game& playout_state(const Game& from, std::unique_ptr<Game>& owned) {
  thread_local Game* scratch = nullptr;
  if (scratch && scratch->copy_from(from)) return *scratch;
  owned = from.clone();
  if (!owned->copy_from(from)) return *owned;
  thread_local std::unique_ptr<Game> keep;
  keep = std::move(owned);
  scratch = keep.get();
  return *scratch;
}
}  // namespace

double RandomRollout::rollout_value(const Game& state, int player, int rollouts, Generator& rng) {
  // The legal actions live on the stack (on the heap once per call for games of many actions).
  constexpr size_t kOnStack = 512;
  const auto A = static_cast<size_t>(state.num_actions());
  uint8_t mask_on_stack[kOnStack];
  int actions_on_stack[kOnStack];
  std::vector<uint8_t> mask_on_heap(A > kOnStack ? A : 0);
  std::vector<int> actions_on_heap(A > kOnStack ? A : 0);
  std::span<uint8_t> mask(A > kOnStack ? mask_on_heap.data() : mask_on_stack, A);
  int* actions = A > kOnStack ? actions_on_heap.data() : actions_on_stack;
  std::unique_ptr<Game> owned;
  double total = 0;
  for (int r = 0; r < rollouts; ++r) {
    Game& game = playout_state(state, owned);
    while (!game.is_terminal()) {
      game.legal_mask(mask);
      // The legal actions in ascending order, without a branch per action (a random board's
      // empty cells defeat branch prediction).
      int64_t count = 0;
      for (size_t a = 0; a < A; ++a) {
        actions[count] = static_cast<int>(a);
        count += mask[a];
      }
      game.apply_legal_action(actions[rng.below(count)]);
    }
    total += game.player_return(player);
  }
  return total / rollouts;
}

void RandomRollout::evaluate(const Leaves& leaves) {
  const auto n = static_cast<int64_t>(leaves.states.size());
  const int64_t A = leaves.num_actions;
  parallel_over(n, leaves.threads, [&](int64_t i) {
    const Game& state = *leaves.states[static_cast<size_t>(i)];
    // A uniform prior: the legal mask (search normalises it).
    std::span<float> prior = leaves.priors.subspan(static_cast<size_t>(i * A), static_cast<size_t>(A));
    std::fill(prior.begin(), prior.end(), 1.0f);
    leaves.values[static_cast<size_t>(i)] = static_cast<float>(
        rollout_value(state, state.current_player(), rollouts_, *leaves.rngs[static_cast<size_t>(i)]));
  });
}

namespace {

int int_option(const EvaluatorOptions& options, const std::string& evaluator, const std::string& key, int fallback) {
  auto it = options.find(key);
  if (it == options.end()) return fallback;
  try {
    size_t used = 0;
    int v = std::stoi(it->second, &used);
    if (used == it->second.size()) return v;
  } catch (const std::exception&) {
  }
  throw ValueError(detail::cat("evaluator '", evaluator, "': option '", key, "' must be an integer, got '",
                               it->second, "'"));
}

NamedRegistry<EvaluatorFactory>& registry() {
  static NamedRegistry<EvaluatorFactory> r(
      "evaluator", {{"random_rollout", [](const EvaluatorOptions& options) {
                       for (auto& [k, v] : options)
                         SPIRE_CHECK(k == "rollouts", ValueError, "evaluator 'random_rollout': unknown option '", k,
                                     "'; allowed: rollouts");
                       return std::make_shared<RandomRollout>(int_option(options, "random_rollout", "rollouts", 1));
                     }}});
  return r;
}
}  // namespace

void register_evaluator(const std::string& name, EvaluatorFactory factory) { registry().add(name, std::move(factory)); }

std::vector<std::string> registered_evaluators() { return registry().names(); }

std::shared_ptr<Evaluator> make_evaluator(const std::string& name, const EvaluatorOptions& options) {
  auto evaluator = registry().find(name)(options);
  SPIRE_CHECK(evaluator, ValueError, "the factory of evaluator '", name, "' returned no evaluator");
  return evaluator;
}

}  // namespace spire::rl
