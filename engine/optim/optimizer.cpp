#include "engine/optim/optimizer.h"

#include "engine/autodiff/mode.h"
#include "engine/autodiff/node.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::optim {

Optimizer::Optimizer(Tensors params, const char* optimizer) : params_(std::move(params)), name_(optimizer) {
  SPIRE_CHECK(!params_.empty(), ValueError, name_, ": got an empty parameter list");
  for (size_t i = 0; i < params_.size(); ++i) {
    const Tensor& p = params_[i];
    SPIRE_CHECK(p.defined(), ValueError, name_, ": parameter ", i, " is an undefined tensor");
    SPIRE_CHECK(p.is_leaf(), ValueError, name_, ": parameter ", i, " is not a leaf (it was computed by '",
                p.grad_fn()->name(), "'); optimize the tensor it came from, or a detached copy");
    SPIRE_CHECK(is_floating(p.dtype()), DTypeError, name_, ": parameter ", i, " has dtype ", name(p.dtype()),
                "; parameters must be float32 or float64");
    SPIRE_CHECK(p.requires_grad(), ValueError, name_, ": parameter ", i,
                " does not require grad; call set_requires_grad() (requires_grad_() in Python) first");
    SPIRE_CHECK(!p.is_batched(), ValueError, name_, ": parameter ", i, " is a vmap-batched tensor");
    for (size_t j = 0; j < i; ++j)
      SPIRE_CHECK(!params_[j].same(p), ValueError, name_, ": parameter ", i, " is the same tensor as parameter ", j,
                  "; list each parameter once");
  }
}

void Optimizer::zero_grad(bool set_to_none) {
  for (Tensor& p : params_) {
    if (set_to_none) {
      p.set_grad(Tensor());
    } else if (p.grad().defined()) {
      NoGradGuard no_grad;
      p.set_grad(zeros_like(p));
    }
  }
}

Tensor Optimizer::evaluate(const Closure& closure) const {
  GradModeGuard record(true);
  Tensor loss = closure();
  SPIRE_CHECK(loss.defined() && loss.numel() == 1, ValueError, name_,
              ": the closure must return the loss as a one-element tensor, got ",
              loss.defined() ? shape_str(loss.shape()) : std::string("an undefined tensor"));
  return loss;
}

Tensor Optimizer::step_each(const Closure& closure, bool maximize,
                             const std::function<void(size_t, Tensor&, Tensor)>& update) {
  Tensor loss = closure ? evaluate(closure) : Tensor();
  NoGradGuard no_grad;
  for (size_t i = 0; i < params_.size(); ++i) {
    Tensor g = params_[i].grad();
    if (!g.defined()) continue;
    update(i, params_[i], maximize ? neg(g) : g);
  }
  ++step_count_;
  return loss;
}

StateDict Optimizer::state_dict() const {
  StateDict s;
  s.set("lr", lr());
  s.set("step_count", step_count_);
  if (has_momentum()) s.set("momentum", momentum());  // OneCycleLR changes it during training
  return s;
}

void Optimizer::load_state_dict(const StateDict& state) {
  set_lr(state.number("lr"));
  if (has_momentum() && state.contains("momentum")) set_momentum(state.number("momentum"));
  step_count_ = state.integer("step_count");
}

double Optimizer::momentum() const {
  SPIRE_CHECK(false, ValueError, name_, " has no momentum to read or cycle");
  return 0;
}

void Optimizer::set_momentum(double) { SPIRE_CHECK(false, ValueError, name_, " has no momentum to set or cycle"); }

Tensor Optimizer::param_state(const StateDict& state, const std::string& key, size_t i) const {
  Tensor t = state.tensor(key);
  const Tensor& p = params_.at(i);
  SPIRE_CHECK(t.shape() == p.shape() && t.dtype() == p.dtype(), ValueError, name_, ".load_state_dict: '", key,
              "' has shape ", shape_str(t.shape()), " and dtype ", name(t.dtype()), " but parameter ", i, " has shape ",
              shape_str(p.shape()), " and dtype ", name(p.dtype()));
  // A copy, so the optimizer never shares storage with the dict it was loaded from.
  return t.device() == p.device() ? copy(t.detach()) : to(t.detach(), p.device());
}

void check_option(bool ok, const char* optimizer, const char* option, double value, const char* allowed) {
  SPIRE_CHECK(ok, ValueError, optimizer, ": ", option, " must be ", allowed, ", got ", value);
}

}  // namespace spire::optim
