// Optimizers over a list of parameter tensors, as torch.optim: SGD (optim/sgd.h), Adam and AdamW
// (optim/adam.h), RMSprop (optim/rmsprop.h), L-BFGS (optim/lbfgs.h). Gradient clipping is in
// optim/clip.h, learning-rate schedules in optim/scheduler.h.
//
// Parameters are leaf tensors that require grad. A training loop zeroes the gradients, computes a
// loss, calls backward() and then step(); or hands step() a closure doing all of that (L-BFGS needs
// one: it evaluates the loss several times per step). Updates run with gradient recording off and
// rebind each parameter to its new values with Tensor::set_data, so every holder of the parameter
// (a model, a closure) sees them and no graph reaches back across steps. Every update is made of
// engine ops, so it runs on the parameters' device and gives the same bits on every run.
#pragma once
#include <cstdint>
#include <functional>

#include "engine/core/tensor.h"
#include "engine/optim/state_dict.h"

namespace spire::optim {

// Re-evaluates the model: zeroes the gradients, computes the loss, calls backward, returns the loss.
using Closure = std::function<Tensor()>;

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Drops every parameter's gradient (PyTorch's default, set_to_none), or sets it to zeros.
  void zero_grad(bool set_to_none = true);
  // One update. With a closure, the loss is first re-evaluated by it (with gradient recording on)
  // and returned; without one, the current gradients are used and an undefined tensor is returned.
  // A parameter with no gradient is left as it is (SGD, Adam).
  virtual Tensor step(const Closure& closure = {}) = 0;

  const Tensors& params() const { return params_; }
  // The learning rate, readable and settable between steps (for schedules).
  virtual double lr() const = 0;
  virtual void set_lr(double lr) = 0;
  // How many times step() has run.
  int64_t step_count() const { return step_count_; }

  // Everything a resumed run needs to continue bit for bit: "lr", "step_count", "momentum" (when
  // the optimizer has one; Adam's beta1), and each
  // optimizer's per-parameter state as "state.<i>.<name>" (entries of a parameter that has not been
  // updated yet are absent). load_state_dict() restores it into an optimizer over parameters of the
  // same shapes and dtypes; a missing entry or a shape mismatch is a ValueError naming it. The other
  // options are the constructor's, as they are not meant to change during training.
  virtual StateDict state_dict() const;
  virtual void load_state_dict(const StateDict& state);

  // The momentum that OneCycleLR cycles: SGD's and RMSprop's momentum, Adam's beta1.
  virtual bool has_momentum() const { return false; }
  virtual double momentum() const;
  virtual void set_momentum(double momentum);

 protected:
  // Checks that params is a non-empty list of distinct floating-point leaves that require grad.
  Optimizer(Tensors params, const char* name);
  // Runs the closure with gradient recording on and checks that it returned a one-element loss.
  Tensor evaluate(const Closure& closure) const;
  // The frame of a first-order step: evaluates the closure if any, then, with recording off, calls
  // update(i, parameter, gradient) for each parameter that has a gradient (negated when maximizing),
  // counts the step and returns the closure's loss.
  Tensor step_each(const Closure& closure, bool maximize,
                   const std::function<void(size_t, Tensor&, Tensor)>& update);
  // state[key] as the state of parameter i: checked to have its shape and dtype, moved to its device.
  Tensor param_state(const StateDict& state, const std::string& key, size_t i) const;
  // "state.<i>.<name>"
  static std::string state_key(size_t i, const char* name) { return "state." + std::to_string(i) + "." + name; }

  Tensors params_;
  const char* name_;
  int64_t step_count_ = 0;
};

// Throws a ValueError naming the optimizer, the option and the allowed range when !ok.
void check_option(bool ok, const char* optimizer, const char* option, double value, const char* allowed);

}  // namespace spire::optim
