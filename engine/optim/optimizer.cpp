#include "engine/optim/optimizer.h"

#include <algorithm>

#include "engine/autodiff/mode.h"
#include "engine/autodiff/node.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::optim {

void Optimizer::append_group(const Tensors& params, size_t group) {
  // Parameter j of group g: "parameter j" in the first group, "parameter j of param group g" after.
  auto which = [&](size_t j) {
    return "parameter " + std::to_string(j) + (group == 0 ? std::string() : " of param group " + std::to_string(group));
  };
  SPIRE_CHECK(group > 0 || !params.empty(), ValueError, name_, ": got an empty parameter list");
  for (size_t j = 0; j < params.size(); ++j) {
    const Tensor& p = params[j];
    SPIRE_CHECK(p.defined(), ValueError, name_, ": ", which(j), " is an undefined tensor");
    SPIRE_CHECK(p.is_leaf(), ValueError, name_, ": ", which(j), " is not a leaf (it was computed by '",
                p.grad_fn()->name(), "'); optimize the tensor it came from, or a detached copy");
    SPIRE_CHECK(is_floating(p.dtype()), DTypeError, name_, ": ", which(j), " has dtype ", spire::name(p.dtype()),
                "; parameters must be float32 or float64");
    SPIRE_CHECK(p.requires_grad(), ValueError, name_, ": ", which(j),
                " does not require grad; call set_requires_grad() (requires_grad_() in Python) first");
    SPIRE_CHECK(!p.is_batched(), ValueError, name_, ": ", which(j), " is a vmap-batched tensor");
    for (size_t k = 0; k < j; ++k)
      SPIRE_CHECK(!params[k].same(p), ValueError, name_, ": ", which(j), " is the same tensor as parameter ", k,
                  "; list each parameter once");
    for (size_t i = 0; i < params_.size(); ++i) {
      if (!params_[i].same(p)) continue;
      size_t owner = group_of(i);
      SPIRE_CHECK(false, ValueError, name_, ": ", which(j), " is already in param group ", owner, " (its parameter ",
                  i - group_begin_[owner], "); a parameter may be in one group only");
    }
  }
  params_.insert(params_.end(), params.begin(), params.end());
  group_begin_.push_back(params_.size());
}

size_t Optimizer::group_of(size_t i) const {
  SPIRE_CHECK(i < params_.size(), ValueError, name_, ": parameter ", i, " is out of range; there are ", params_.size());
  size_t g = 0;
  while (group_begin_[g + 1] <= i) ++g;
  return g;
}

std::span<const Tensor> Optimizer::params(size_t group) const {
  auto [first, last] = param_range(group);
  return std::span<const Tensor>(params_.data() + first, last - first);
}

std::pair<size_t, size_t> Optimizer::param_range(size_t group) const {
  SPIRE_CHECK(group < num_param_groups(), ValueError, name_, ": param group ", group, " is out of range; it has ",
              num_param_groups(), " groups");
  return {group_begin_[group], group_begin_[group + 1]};
}

void Optimizer::set_lr(double lr) {
  // Every group is checked before any is changed, so an invalid rate leaves them all as they were.
  for (size_t g = 0; g < num_param_groups(); ++g) check_option(lr >= 0, who(g), "lr", lr, ">= 0");
  for (size_t g = 0; g < num_param_groups(); ++g) set_lr(g, lr);
}

void Optimizer::set_momentum(double momentum) {
  for (size_t g = 0; g < num_param_groups(); ++g) set_momentum(g, momentum);
}

std::optional<double> Optimizer::initial_lr(size_t group) const {
  param_range(group);
  return initial_lr_[group];
}

void Optimizer::set_initial_lr(size_t group, std::optional<double> lr) {
  param_range(group);
  initial_lr_[group] = lr;
}

std::string Optimizer::who(size_t group) const {
  return num_param_groups() == 1 ? std::string(name_) : std::string(name_) + " param group " + std::to_string(group);
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

Tensor Optimizer::step_each(const Closure& closure,
                             const std::function<void(size_t, size_t, Tensor&, Tensor)>& update) {
  check_groups();  // options edited through param_groups() since the last step
  Tensor loss = closure ? evaluate(closure) : Tensor();
  NoGradGuard no_grad;
  for (size_t g = 0; g < num_param_groups(); ++g) {
    const bool negate = maximize(g);
    for (size_t i = group_begin_[g]; i < group_begin_[g + 1]; ++i) {
      Tensor grad = params_[i].grad();
      if (!grad.defined()) continue;
      update(g, i, params_[i], negate ? neg(grad) : grad);
    }
  }
  ++step_count_;
  return loss;
}

Optimizer::Layout Optimizer::read_layout(const StateDict& state) const {
  Layout layout;
  if (!state.contains(group_prefix(0) + "params")) {  // a flat dict from before parameter groups
    layout.legacy = true;
    for (size_t i = 0; i < params_.size(); ++i) layout.saved_index.push_back(int64_t(i));
    return layout;
  }
  size_t saved_groups = 0;
  while (state.contains(group_prefix(saved_groups) + "params")) ++saved_groups;
  SPIRE_CHECK(saved_groups == num_param_groups(), ValueError, name_,
              ".load_state_dict: the state has a different number of parameter groups: ", saved_groups,
              " in the state, ", num_param_groups(), " in this optimizer");
  for (size_t g = 0; g < saved_groups; ++g) {
    std::string key = group_prefix(g) + "params";
    Tensor index = state.tensor(key);
    auto [first, last] = param_range(g);
    SPIRE_CHECK(index.dim() == 1 && !is_floating(index.dtype()) && !is_complex(index.dtype()), ValueError, name_,
                ".load_state_dict: '", key, "' must be a 1-d integer tensor of parameter indices, got shape ",
                shape_str(index.shape()), " and dtype ", spire::name(index.dtype()));
    SPIRE_CHECK(size_t(index.numel()) == last - first, ValueError, name_, ".load_state_dict: param group ", g,
                " has ", index.numel(), " parameters in the state and ", last - first, " in this optimizer");
    for (double v : index.to_vector()) layout.saved_index.push_back(int64_t(v));
  }
  return layout;
}

int64_t Optimizer::read_step_count(const StateDict& state, const Layout& layout) const {
  if (state.contains("step_count") || layout.legacy) return state.integer("step_count");
  int64_t steps = 0;
  for (int64_t i : layout.saved_index)
    if (std::string key = state_key(i, "step"); state.contains(key)) steps = std::max(steps, state.integer(key));
  return steps;
}

double Optimizer::momentum(size_t) const {
  SPIRE_CHECK(false, ValueError, name_, " has no momentum to read or cycle");
  return 0;
}

void Optimizer::set_momentum(size_t, double) {
  SPIRE_CHECK(false, ValueError, name_, " has no momentum to set or cycle");
}

Tensor Optimizer::param_state(const StateDict& state, const std::string& key, size_t i) const {
  Tensor t = state.tensor(key);
  const Tensor& p = params_.at(i);
  SPIRE_CHECK(t.shape() == p.shape() && t.dtype() == p.dtype(), ValueError, name_, ".load_state_dict: '", key,
              "' has shape ", shape_str(t.shape()), " and dtype ", spire::name(t.dtype()), " but parameter ", i,
              " has shape ", shape_str(p.shape()), " and dtype ", spire::name(p.dtype()));
  // A copy, so the optimizer never shares storage with the dict it was loaded from.
  return t.device() == p.device() ? copy(t.detach()) : to(t.detach(), p.device());
}

void check_option(bool ok, const std::string& optimizer, const char* option, double value, const char* allowed) {
  SPIRE_CHECK(ok, ValueError, optimizer, ": ", option, " must be ", allowed, ", got ", value);
}

}  // namespace spire::optim
