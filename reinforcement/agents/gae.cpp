#include "reinforcement/agents/gae.h"

#include "engine/core/error.h"

namespace spire::rl::agents {

Advantages generalized_advantages(const GaeRollout& r, double gamma, double lambda) {
  const int64_t T = r.steps, N = r.envs;
  const size_t rows = size_t(T * N);
  SPIRE_CHECK(T >= 1 && N >= 1 && r.rewards.size() == rows && r.values.size() == rows &&
                  r.terminated.size() == rows && r.truncated.size() == rows && r.valid.size() == rows &&
                  r.last_values.size() == size_t(N),
              ShapeError, "generalized_advantages: expected ", T, " x ", N, " rows and ", N,
              " last values, got rewards ", r.rewards.size(), ", values ", r.values.size(), ", terminated ",
              r.terminated.size(), ", truncated ", r.truncated.size(), ", valid ", r.valid.size(),
              ", last values ", r.last_values.size());
  Advantages out;
  out.advantages.assign(rows, 0.0f);
  out.returns.assign(rows, 0.0f);
  for (int64_t e = 0; e < N; ++e) {
    double next_advantage = 0;
    for (int64_t t = T - 1; t >= 0; --t) {
      const size_t i = size_t(t * N + e);
      const double value = r.values[i];
      if (r.valid[i] == 0) {
        // The step before an autoreset step ended its episode, so nothing flows through this one.
        out.returns[i] = float(value);
        next_advantage = 0;
        continue;
      }
      const double next_value = t + 1 < T ? r.values[i + size_t(N)] : r.last_values[size_t(e)];
      const bool terminated = r.terminated[i] != 0, done = terminated || r.truncated[i] != 0;
      const double delta = r.rewards[i] + (terminated ? 0.0 : gamma * next_value) - value;
      const double advantage = delta + (done ? 0.0 : gamma * lambda * next_advantage);
      out.advantages[i] = float(advantage);
      out.returns[i] = float(advantage + value);
      next_advantage = advantage;
    }
  }
  return out;
}

}  // namespace spire::rl::agents
