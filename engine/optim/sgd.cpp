#include "engine/optim/sgd.h"

#include "engine/ops/elementwise.h"
#include "engine/ops/optim_update.h"

namespace spire::optim {

const std::vector<OptionField<SGDOptions>>& SGDOptions::fields() {
  static const std::vector<OptionField<SGDOptions>> f{
      {"lr", &SGDOptions::lr},
      {"momentum", &SGDOptions::momentum},
      {"dampening", &SGDOptions::dampening},
      {"weight_decay", &SGDOptions::weight_decay},
      {"nesterov", &SGDOptions::nesterov},
      {"maximize", &SGDOptions::maximize},
  };
  return f;
}

void SGDOptions::check(const std::string& who) const {
  check_option(lr >= 0, who, "lr", lr, ">= 0");
  check_option(momentum >= 0, who, "momentum", momentum, ">= 0");
  check_option(weight_decay >= 0, who, "weight_decay", weight_decay, ">= 0");
  SPIRE_CHECK(!nesterov || (momentum > 0 && dampening == 0), ValueError, who,
              ": nesterov needs momentum > 0 and dampening = 0, got momentum ", momentum, " and dampening ",
              dampening);
}

SGD::SGD(Tensors params, SGDOptions options) : SGD(one_group(std::move(params), options), options) {}

SGD::SGD(std::vector<ParamGroup<SGDOptions>> groups, SGDOptions defaults)
    : OptimizerOf("SGD", defaults, std::move(groups)) {}

void SGD::save_state(StateDict& s) const {
  for (size_t i = 0; i < momentum_buffer_.size(); ++i)
    if (momentum_buffer_[i].defined()) s.set(state_key(int64_t(i), "momentum_buffer"), momentum_buffer_[i]);
}

void SGD::load_state(const StateDict& state, const std::vector<int64_t>& saved, const std::vector<SGDOptions>&) {
  Tensors buffers(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    std::string key = state_key(saved[i], "momentum_buffer");
    if (state.contains(key)) buffers[i] = param_state(state, key, i);
  }
  momentum_buffer_ = std::move(buffers);
}

Tensor SGD::step(const Closure& closure) {
  momentum_buffer_.resize(params_.size());  // groups added since the last step
  return step_each(closure, [&](size_t group, size_t i, Tensor& p, Tensor g) {
    const SGDOptions& o = options_[group];
    // One pass over memory where the device has the fused kernel (step_each has already negated
    // the gradient of a maximizing group); the same formula in engine ops elsewhere.
    Tensor& buf = momentum_buffer_[i];
    if (fused_update_available("sgd_update", p) && g.dtype() == p.dtype() &&
        (!buf.defined() || buf.dtype() == p.dtype())) {
      SGDHyper h{.lr = o.lr, .momentum = o.momentum, .dampening = o.dampening, .weight_decay = o.weight_decay,
                 .nesterov = o.nesterov};
      SGDUpdate u = sgd_update(p, g, o.momentum != 0 ? buf : Tensor(), h);
      if (o.momentum != 0) buf = u.momentum_buffer;
      p.set_data(u.param);
      return;
    }
    if (o.weight_decay != 0) g = add(g, mul(p, o.weight_decay));
    if (o.momentum != 0) {
      Tensor& b = momentum_buffer_[i];
      // The first step starts the buffer at g, undamped, as PyTorch does.
      b = b.defined() ? add(mul(b, o.momentum), mul(g, 1 - o.dampening)) : g;
      g = o.nesterov ? add(g, mul(b, o.momentum)) : b;
    }
    p.set_data(sub(p, mul(g, o.lr)));
  });
}

}  // namespace spire::optim
