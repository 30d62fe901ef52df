// The loss and metric functions fit calls on the model's outputs and the batch's target. Models may
// return several outputs, so the general form takes all of them; a function of one output and the
// target converts too (and then insists on a model with one output):
//
//   train::Loss mse = [](const Tensor& out, const Tensor& y) { return nn::functional::mse_loss(out, y); };
//   train::Loss multi = [](const Tensors& outs, const Tensor& y) { return mse_loss(outs[0], y) + ...; };
#pragma once
#include <concepts>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>

#include "engine/core/error.h"
#include "engine/core/tensor.h"

namespace spire::train {

template <class R>
class OnOutputs {
 public:
  using Fn = std::function<R(const Tensors& outputs, const Tensor& target)>;

  OnOutputs() = default;
  template <class F>
    requires std::is_invocable_r_v<R, F&, const Tensors&, const Tensor&>
  OnOutputs(F f) : fn_(std::move(f)) {}
  template <class F>
    requires(std::is_invocable_r_v<R, F&, const Tensor&, const Tensor&> &&
             !std::is_invocable_r_v<R, F&, const Tensors&, const Tensor&>)
  OnOutputs(F f)
      : fn_([f = std::move(f)](const Tensors& outputs, const Tensor& target) mutable -> R {
          SPIRE_CHECK(outputs.size() == 1, ValueError, "this loss or metric takes one model output, but the model "
                      "returned ", outputs.size(), "; give a function of (const Tensors& outputs, const Tensor& target)");
          return f(outputs[0], target);
        }) {}

  R operator()(const Tensors& outputs, const Tensor& target) const {
    SPIRE_CHECK(bool(fn_), ValueError, "fit: no loss function given");
    return fn_(outputs, target);
  }
  explicit operator bool() const { return bool(fn_); }

 private:
  Fn fn_;
};

using Loss = OnOutputs<Tensor>;

// A metric logged under `name` (and "val_<name>" for validation data): the epoch's sample-weighted
// mean of fn over its batches.
struct Metric {
  std::string name = "";
  OnOutputs<double> fn = {};
};

// Fraction of correct predictions. Class scores [N, C] (any leading axes, C > 1 last) are compared
// by argmax with integer labels (or, for a target of the output's shape, one-hot or probability
// rows, by their argmax); a single score per sample ([N] or [N, 1]) is a binary logit, predicted
// positive when > 0, against targets positive when > 0.5.
double accuracy(const Tensor& output, const Tensor& target);

// The built-in metric of that name: "accuracy" (or "acc", logged as "accuracy"). ValueError naming
// the known ones otherwise.
Metric metric(const std::string& name);

}  // namespace spire::train
