#include "engine/optim/sgd.h"

#include "engine/ops/elementwise.h"

namespace spire::optim {
namespace {

void check(const SGDOptions& o) {
  check_option(o.lr >= 0, "SGD", "lr", o.lr, ">= 0");
  check_option(o.momentum >= 0, "SGD", "momentum", o.momentum, ">= 0");
  check_option(o.weight_decay >= 0, "SGD", "weight_decay", o.weight_decay, ">= 0");
  SPIRE_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), ValueError,
              "SGD: nesterov needs momentum > 0 and dampening = 0, got momentum ", o.momentum, " and dampening ",
              o.dampening);
}

}  // namespace

SGD::SGD(Tensors params, SGDOptions options)
    : Optimizer(std::move(params), "SGD"), options_(options), momentum_buffer_(params_.size()) {
  check(options_);
}

void SGD::set_lr(double lr) {
  check_option(lr >= 0, "SGD", "lr", lr, ">= 0");
  options_.lr = lr;
}

void SGD::set_momentum(double momentum) {
  check_option(momentum >= 0, "SGD", "momentum", momentum, ">= 0");
  options_.momentum = momentum;
}

StateDict SGD::state_dict() const {
  StateDict s = Optimizer::state_dict();
  for (size_t i = 0; i < params_.size(); ++i)
    if (momentum_buffer_[i].defined()) s.set(state_key(i, "momentum_buffer"), momentum_buffer_[i]);
  return s;
}

void SGD::load_state_dict(const StateDict& state) {
  Tensors buffers(params_.size());
  for (size_t i = 0; i < params_.size(); ++i) {
    std::string key = state_key(i, "momentum_buffer");
    if (state.contains(key)) buffers[i] = param_state(state, key, i);
  }
  Optimizer::load_state_dict(state);
  momentum_buffer_ = std::move(buffers);
}

Tensor SGD::step(const Closure& closure) {
  const SGDOptions& o = options_;
  return step_each(closure, o.maximize, [&](size_t i, Tensor& p, Tensor g) {
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
