#include "reinforcement/agents/ppo.h"

#include <algorithm>
#include <limits>

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"
#include "engine/optim/adam.h"

namespace spire::rl::agents {

PpoConfig PpoConfig::read(data::JobSection& section) {
  PpoConfig c;
  c.OnPolicyConfig::read(section);
  const double inf = std::numeric_limits<double>::infinity();
  section.integer("batch_size", c.batch_size, 1);
  section.integer("n_epochs", c.n_epochs, 1);
  section.number("clip_range", c.clip_range, 0, inf, true);
  section.string("clip_range_schedule", c.clip_range_schedule, schedule_names());
  section.number("clip_range_vf", c.clip_range_vf, 0, inf);
  section.number("target_kl", c.target_kl, 0, inf);
  section.number("adam_eps", c.adam_eps, 0, 1);
  section.finish();
  return c;
}

std::string PpoConfig::to_toml() const {
  using data::toml_number;
  return "[ppo]\n" + OnPolicyConfig::to_toml() + "batch_size = " + std::to_string(batch_size) +
         "\nn_epochs = " + std::to_string(n_epochs) + "\nclip_range = " + toml_number(clip_range) +
         "\nclip_range_schedule = " + data::toml_string(clip_range_schedule) +
         "\nclip_range_vf = " + toml_number(clip_range_vf) + "\ntarget_kl = " + toml_number(target_kl) +
         "\nadam_eps = " + toml_number(adam_eps) + "\n";
}

PpoLoss ppo_loss(const Tensor& log_prob, const Tensor& old_log_prob, const Tensor& advantages, const Tensor& values,
                 const Tensor& old_values, const Tensor& returns, const Tensor& entropy, const PpoLossSettings& s) {
  Tensor adv = advantages;
  if (s.normalize_advantage && adv.numel() > 1) adv = (adv - mean(adv)) / (spire::std(adv, {}, 1) + 1e-8);
  Tensor log_ratio = log_prob - old_log_prob;
  Tensor ratio = exp(log_ratio);
  Tensor surrogate = minimum(adv * ratio, adv * clamp(ratio, 1.0 - s.clip_range, 1.0 + s.clip_range));
  PpoLoss l;
  l.policy = -mean(surrogate);
  Tensor predicted =
      s.clip_range_vf > 0 ? old_values + clamp(values - old_values, -s.clip_range_vf, s.clip_range_vf) : values;
  l.value = mean(square(returns - predicted));
  l.entropy = -mean(entropy);
  l.total = l.policy + s.ent_coef * l.entropy + s.vf_coef * l.value;
  NoGradGuard no_grad;
  // Schulman's k3 estimator of KL(old || new), as SB3 logs it.
  l.approx_kl = mean((ratio - 1.0) - log_ratio);
  l.clip_fraction = mean(cast(gt(abs(ratio - 1.0), s.clip_range), ratio.dtype()));
  return l;
}

namespace {

class PpoLearner final : public OnPolicyLearner {
 public:
  PpoLearner(const PpoConfig& config, const dataflow::RunSettings& run, const Space& observation_space,
             const Space& action_space)
      : OnPolicyLearner(observation_space, action_space, config, run), ppo_(config),
        adam_(net_->parameters(), optim::AdamOptions{.lr = config.lr, .eps = config.adam_eps}) {}

 protected:
  optim::Optimizer& optimizer() override { return adam_; }
  const optim::Optimizer& optimizer() const override { return adam_; }

  train::Logs optimize(const Batch& batch, double progress_remaining) override {
    const double lr = set_scheduled_lr(progress_remaining);
    PpoLossSettings settings{.clip_range = scheduled(ppo_.clip_range_schedule, ppo_.clip_range, progress_remaining),
                             .clip_range_vf = ppo_.clip_range_vf,
                             .ent_coef = ppo_.ent_coef,
                             .vf_coef = ppo_.vf_coef,
                             .normalize_advantage = ppo_.normalize_advantage};
    double policy = 0, value = 0, entropy = 0, kl = 0, clipped = 0, loss = std::nan("");
    int64_t minibatches = 0, epochs = 0;
    bool keep_going = batch.size > 0;
    for (int64_t epoch = 0; epoch < ppo_.n_epochs && keep_going; ++epoch, ++epochs) {
      Tensor order = permutation(batch.size, gen_);
      for (int64_t first = 0; first < batch.size; first += ppo_.batch_size) {
        Tensor rows = slice(order, 0, first, std::min(first + ppo_.batch_size, batch.size));
        auto pick = [&](const Tensor& x) { return index_select(x, 0, rows); };
        GradModeGuard grad(true);
        ActorCritic::Evaluation e = net_->evaluate(pick(batch.observations), pick(batch.actions));
        PpoLoss l = ppo_loss(e.log_prob, pick(batch.log_prob), pick(batch.advantages), e.value, pick(batch.values),
                             pick(batch.returns), e.entropy, settings);
        const double approx_kl = l.approx_kl.item<double>();
        policy += l.policy.item<double>();
        value += l.value.item<double>();
        entropy -= l.entropy.item<double>();
        kl += approx_kl;
        clipped += l.clip_fraction.item<double>();
        ++minibatches;
        if (ppo_.target_kl > 0 && approx_kl > 1.5 * ppo_.target_kl) {
          keep_going = false;  // SB3 stops before this minibatch's step
          break;
        }
        step(l.total);
        loss = l.total.item<double>();
      }
    }
    const double n = double(std::max<int64_t>(minibatches, 1));
    return train::Logs{{"loss", loss},
                       {"policy_loss", policy / n},
                       {"value_loss", value / n},
                       {"entropy", entropy / n},
                       {"approx_kl", kl / n},
                       {"clip_fraction", clipped / n},
                       {"lr", lr},
                       {"clip_range", settings.clip_range},
                       {"epochs", double(epochs)}};
  }

 private:
  PpoConfig ppo_;
  optim::Adam adam_;
};

}  // namespace

std::unique_ptr<dataflow::Learner> make_ppo_learner(const PpoConfig& config, const dataflow::RunSettings& run,
                                                    const Space& observation_space, const Space& action_space) {
  return std::make_unique<PpoLearner>(config, run, observation_space, action_space);
}

std::unique_ptr<dataflow::Algorithm> make_ppo(data::JobSection& section, const dataflow::RunSettings& run) {
  PpoConfig config = PpoConfig::read(section);
  return std::make_unique<OnPolicyAlgorithm>(
      "ppo", config, run, config.to_toml(), [config, run](const Space& observation_space, const Space& action_space) {
        return make_ppo_learner(config, run, observation_space, action_space);
      });
}

}  // namespace spire::rl::agents
