#include "reinforcement/agents/actor_critic.h"

#include <algorithm>
#include <cmath>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/distributions/categorical.h"
#include "engine/distributions/normal.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "reinforcement/agents/networks.h"

namespace spire::rl::agents {

ActorCritic::ActorCritic(const Space& observation_space, const Space& action_space, const PolicyConfig& config,
                         spire::Generator& gen)
    : Module("ActorCritic"), action_space_(action_space), continuous_(action_space.is_box()),
      obs_dim_(input_size(observation_space)), act_dim_(action_space.is_box() ? action_space.size() : 1) {
  SPIRE_CHECK(observation_space.is_box(), ValueError, "ActorCritic: the observation space must be a Box, got ",
              observation_space.to_string());
  pi_ = register_module("pi", mlp(obs_dim_, config.hidden, output_size(action_space), config.activation, 0.01, gen));
  vf_ = register_module("vf", mlp(obs_dim_, config.hidden, 1, config.activation, 1.0, gen));
  if (continuous_) log_std_ = register_parameter("log_std", full({act_dim_}, config.log_std_init));
}

Tensor ActorCritic::value(const Tensor& observations) {
  return reshape((*vf_)(observations), {observations.shape(0)});
}

namespace {

// A diagonal normal's log-density and entropy are sums over the action's elements (independent).
distributions::Normal gaussian(const Tensor& mean, const Tensor& log_std) {
  return distributions::Normal(mean, exp(log_std));
}

}  // namespace

ActorCritic::Evaluation ActorCritic::evaluate(const Tensor& observations, const Tensor& actions) {
  Evaluation e;
  Tensor out = pi(observations);
  if (continuous_) {
    auto d = gaussian(out, log_std_);
    e.log_prob = sum(d.log_prob(actions), {1});
    e.entropy = sum(d.entropy(), {1});
  } else {
    auto d = distributions::Categorical::from_logits(out);
    e.log_prob = d.log_prob(actions);
    e.entropy = d.entropy();
  }
  e.value = value(observations);
  return e;
}

ActorCritic::Sample ActorCritic::sample(const Tensor& observations, spire::Generator& gen) {
  NoGradGuard no_grad;
  Sample s;
  Tensor out = pi(observations);
  if (continuous_) {
    auto d = gaussian(out, log_std_);
    s.actions = d.sample({}, gen);
    s.log_prob = sum(d.log_prob(s.actions), {1});
  } else {
    auto d = distributions::Categorical::from_logits(out);
    s.actions = d.sample({}, gen);
    s.log_prob = d.log_prob(s.actions);
  }
  s.value = value(observations);
  return s;
}

Tensor ActorCritic::mode(const Tensor& observations) {
  NoGradGuard no_grad;
  Tensor out = pi(observations);
  return continuous_ ? out : distributions::Categorical::from_logits(out).mode();
}

void clip_to_bounds(const Space& space, std::span<float> actions) {
  SPIRE_CHECK(space.is_box(), ValueError, "clip_to_bounds: expected a Box space, got ", space.to_string());
  const size_t d = size_t(space.size());
  SPIRE_CHECK(actions.size() % d == 0, ShapeError, "clip_to_bounds: ", actions.size(),
              " values are not whole rows of ", d);
  const std::vector<float>&low = space.low(), &high = space.high();
  for (size_t i = 0; i < actions.size(); ++i) actions[i] = std::clamp(actions[i], low[i % d], high[i % d]);
}

}  // namespace spire::rl::agents
