#include "engine/optim/optimizer.h"

#include "engine/autodiff/mode.h"
#include "engine/autodiff/node.h"
#include "engine/ops/elementwise.h"

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

void check_option(bool ok, const char* optimizer, const char* option, double value, const char* allowed) {
  SPIRE_CHECK(ok, ValueError, optimizer, ": ", option, " must be ", allowed, ", got ", value);
}

}  // namespace spire::optim
