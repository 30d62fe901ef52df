#include "reinforcement/dataflow/evaluator.h"

#include <cmath>
#include <numeric>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "reinforcement/envs/vector_env.h"

namespace spire::rl::dataflow {

double Evaluation::mean_return() const {
  return returns.empty() ? NAN : std::accumulate(returns.begin(), returns.end(), 0.0) / double(returns.size());
}

double Evaluation::std_return() const {
  if (returns.empty()) return NAN;
  const double m = mean_return();
  double s = 0;
  for (double r : returns) s += (r - m) * (r - m);
  return std::sqrt(s / double(returns.size()));
}

double Evaluation::mean_length() const {
  return lengths.empty() ? NAN
                         : double(std::accumulate(lengths.begin(), lengths.end(), int64_t(0))) / double(lengths.size());
}

Evaluation evaluate(const std::function<Tensor(const Tensor&)>& act, const std::string& env_id,
                    int64_t max_episode_steps, int64_t episodes, int64_t envs, uint64_t seed) {
  SPIRE_CHECK(episodes >= 1 && envs >= 1, ValueError, "evaluate: episodes and envs must be >= 1, got ", episodes,
              " and ", envs);
  envs = std::min(envs, episodes);
  VectorEnv pool(env_id, envs, VectorEnvOptions{.num_threads = 1}, max_episode_steps);
  const int64_t d = pool.obs_dim();
  const auto n = static_cast<size_t>(envs);
  std::vector<int64_t> target(n), done(n, 0), length(n, 0);
  std::vector<double> ret(n, 0.0);
  std::vector<uint8_t> resetting(n, 0);
  for (int64_t i = 0; i < envs; ++i) target[size_t(i)] = episodes / envs + (i < episodes % envs ? 1 : 0);
  Evaluation out;
  NoGradGuard no_grad;
  VectorBatch b = pool.reset(seed);
  Tensor obs = empty({envs, d}, DType::Float32);
  while (int64_t(out.returns.size()) < episodes) {
    std::copy(b.obs.begin(), b.obs.end(), obs.data<float>());
    Tensor a = act(obs);
    if (pool.single_action_space().is_discrete()) {
      SPIRE_CHECK(a.dtype() == DType::Int64 && a.numel() == envs, ValueError,
                  "evaluate: the policy must return int64 [", envs, "] actions, got ", a.str());
      b = pool.step(std::span<const int64_t>(a.data<int64_t>(), size_t(envs)));
    } else {
      SPIRE_CHECK(a.dtype() == DType::Float32 && a.numel() == envs * pool.act_dim(), ValueError,
                  "evaluate: the policy must return float32 [", envs, ", ", pool.act_dim(), "] actions, got ", a.str());
      b = pool.step(std::span<const float>(a.data<float>(), size_t(a.numel())));
    }
    for (int64_t i = 0; i < envs; ++i) {
      const size_t k = size_t(i);
      if (resetting[k]) {  // the autoreset step: the new episode's first observation
        resetting[k] = 0;
        continue;
      }
      ret[k] += b.rewards[k];
      ++length[k];
      if (!b.terminated[k] && !b.truncated[k]) continue;
      if (done[k] < target[k]) {
        out.returns.push_back(ret[k]);
        out.lengths.push_back(length[k]);
        ++done[k];
      }
      ret[k] = 0;
      length[k] = 0;
      resetting[k] = 1;
    }
  }
  return out;
}

}  // namespace spire::rl::dataflow
