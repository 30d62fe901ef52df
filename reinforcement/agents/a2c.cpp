#include "reinforcement/agents/a2c.h"

#include <limits>

#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/optim/adam.h"
#include "engine/optim/rmsprop.h"

namespace spire::rl::agents {

A2cConfig A2cConfig::read(data::JobSection& section) {
  A2cConfig c;
  c.OnPolicyConfig::read(section);
  section.string("optimizer", c.optimizer, {"rmsprop", "adam"});
  section.number("rms_prop_eps", c.rms_prop_eps, 0, 1);
  section.number("adam_eps", c.adam_eps, 0, 1);
  section.finish();
  return c;
}

std::string A2cConfig::to_toml() const {
  return "[a2c]\n" + OnPolicyConfig::to_toml() + "optimizer = " + data::toml_string(optimizer) +
         "\nrms_prop_eps = " + data::toml_number(rms_prop_eps) + "\nadam_eps = " + data::toml_number(adam_eps) +
         "\n";
}

A2cLoss a2c_loss(const Tensor& log_prob, const Tensor& advantages, const Tensor& values, const Tensor& returns,
                 const Tensor& entropy, double ent_coef, double vf_coef, bool normalize_advantage) {
  Tensor adv = advantages;
  if (normalize_advantage && adv.numel() > 1) adv = (adv - mean(adv)) / (spire::std(adv, {}, 1) + 1e-8);
  A2cLoss l;
  l.policy = -mean(adv * log_prob);
  l.value = mean(square(returns - values));
  l.entropy = -mean(entropy);
  l.total = l.policy + ent_coef * l.entropy + vf_coef * l.value;
  return l;
}

namespace {

std::unique_ptr<optim::Optimizer> make_optimizer(const A2cConfig& c, const Tensors& params) {
  if (c.optimizer == "adam")
    return std::make_unique<optim::Adam>(params, optim::AdamOptions{.lr = c.lr, .eps = c.adam_eps});
  // PyTorch's RMSprop (eps outside the square root), which SB3's A2C uses unless told to take
  // its TF-like variant.
  return std::make_unique<optim::RMSprop>(
      params, optim::RMSpropOptions{.lr = c.lr, .alpha = 0.99, .eps = c.rms_prop_eps});
}

class A2cLearner final : public OnPolicyLearner {
 public:
  A2cLearner(const A2cConfig& config, const dataflow::RunSettings& run, const Space& observation_space,
             const Space& action_space)
      : OnPolicyLearner(observation_space, action_space, config, run), a2c_(config),
        optimizer_(make_optimizer(config, net_->parameters())) {}

 protected:
  optim::Optimizer& optimizer() override { return *optimizer_; }
  const optim::Optimizer& optimizer() const override { return *optimizer_; }

  train::Logs optimize(const Batch& batch, double progress_remaining) override {
    const double lr = set_scheduled_lr(progress_remaining);
    train::Logs logs{{"loss", std::nan("")}, {"policy_loss", std::nan("")}, {"value_loss", std::nan("")},
                     {"entropy", std::nan("")}, {"lr", lr}};
    if (batch.size == 0) return logs;
    GradModeGuard grad(true);
    ActorCritic::Evaluation e = net_->evaluate(batch.observations, batch.actions);
    A2cLoss l = a2c_loss(e.log_prob, batch.advantages, e.value, batch.returns, e.entropy, a2c_.ent_coef,
                         a2c_.vf_coef, a2c_.normalize_advantage);
    step(l.total);
    logs.set("loss", l.total.item<double>());
    logs.set("policy_loss", l.policy.item<double>());
    logs.set("value_loss", l.value.item<double>());
    logs.set("entropy", -l.entropy.item<double>());
    return logs;
  }

 private:
  A2cConfig a2c_;
  std::unique_ptr<optim::Optimizer> optimizer_;
};

}  // namespace

std::unique_ptr<dataflow::Learner> make_a2c_learner(const A2cConfig& config, const dataflow::RunSettings& run,
                                                    const Space& observation_space, const Space& action_space) {
  return std::make_unique<A2cLearner>(config, run, observation_space, action_space);
}

std::unique_ptr<dataflow::Algorithm> make_a2c(data::JobSection& section, const dataflow::RunSettings& run) {
  A2cConfig config = A2cConfig::read(section);
  return std::make_unique<OnPolicyAlgorithm>(
      "a2c", config, run, config.to_toml(), [config, run](const Space& observation_space, const Space& action_space) {
        return make_a2c_learner(config, run, observation_space, action_space);
      });
}

}  // namespace spire::rl::agents
