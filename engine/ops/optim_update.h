// Fused optimizer updates: one op computing a parameter's whole update (and its new state) in one
// pass over memory, where composing engine ops made a dozen passes and as many allocations per
// parameter. Not differentiable (updates run with recording off). The arithmetic follows PyTorch's
// single-tensor implementations operation for operation, rounding each scalar coefficient to the
// parameter's dtype as PyTorch does, so results match torch.optim to rounding.
//
// Only some devices have a kernel (the CPU); optimizers check fused_update_available() and compose
// engine ops elsewhere, so a device gains the fused path by registering a kernel for the op.
#pragma once
#include <cstdint>

#include "engine/core/attrs.h"
#include "engine/core/tensor.h"

namespace spire {

// True when `op` ("adam_update") has a kernel for t's device and t is float32 or float64.
bool fused_update_available(const char* op, const Tensor& t);

// Adam and AdamW at step `step` (counted from 1), as torch.optim.adam._single_tensor_adam:
//   g = -grad if maximize
//   p = p * (1 - lr weight_decay)            decoupled (AdamW), weight_decay != 0
//   g = g + weight_decay p                   coupled (Adam), weight_decay != 0
//   m = lerp(m, g, 1 - beta1)
//   v = v beta2 + (1 - beta2) g g
//   vmax = maximum(vmax, v)                  amsgrad (vmax replaces v below)
//   p = p - lr / (1 - beta1^step) m / (sqrt(v) / sqrt(1 - beta2^step) + eps)
struct AdamHyper {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0;
  bool decoupled = false, amsgrad = false, maximize = false;
  int64_t step = 1;
};
struct AdamUpdate {
  Tensor param, exp_avg, exp_avg_sq, max_exp_avg_sq;  // the last undefined without amsgrad
};
// New tensors (the inputs are left as they are). All of one shape and dtype; max_exp_avg_sq is
// required with amsgrad and must be undefined without it.
AdamUpdate adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                       const Tensor& max_exp_avg_sq, const AdamHyper& h);

// What every backend's adam_update kernel computes once per call from the op's attributes: the
// hyperparameters and the step's scalars, in double as torch.optim.adam computes them (in Python
// floats); the kernels round each to the parameter's dtype.
struct AdamStep {
  AdamHyper h;
  double step_size;              // lr / (1 - beta1^step)
  double bias_correction2_sqrt;  // sqrt(1 - beta2^step)
  double one_minus_beta1;        // the lerp weight of m
};
AdamStep adam_step(const Attrs& attrs);

// SGD with optional momentum and Nesterov momentum, as torch.optim.sgd._single_tensor_sgd:
//   g = -grad if maximize
//   g = g + weight_decay p                   weight_decay != 0
//   b = g on the first step (no buffer given), else b = momentum b + (1 - dampening) g
//   g = g + momentum b (nesterov), or b      momentum != 0
//   p = p - lr g
struct SGDHyper {
  double lr = 1e-3, momentum = 0, dampening = 0, weight_decay = 0;
  bool nesterov = false, maximize = false;
};
struct SGDUpdate {
  Tensor param, momentum_buffer;  // the buffer undefined when momentum is 0
};
// momentum_buffer: undefined on the first step with momentum (the buffer starts at g) and without
// momentum.
SGDUpdate sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SGDHyper& h);

// RMSprop, as torch.optim.rmsprop._single_tensor_rmsprop:
//   g = -grad if maximize;  g = g + weight_decay p  (weight_decay != 0)
//   s = alpha s + (1 - alpha) g g
//   centered: a = lerp(a, g, 1 - alpha), avg = sqrt(s - a a) + eps;  else avg = sqrt(s) + eps
//   momentum > 0: b = momentum b + g / avg, p = p - lr b;  else p = p - lr g / avg
struct RMSpropHyper {
  double lr = 1e-2, alpha = 0.99, eps = 1e-8, weight_decay = 0, momentum = 0;
  bool centered = false, maximize = false;
};
struct RMSpropUpdate {
  Tensor param, square_avg, grad_avg, momentum_buffer;  // grad_avg with centered, the buffer with momentum > 0
};
// grad_avg is required when centered and momentum_buffer when momentum > 0 (undefined otherwise).
RMSpropUpdate rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                             const Tensor& grad_avg, const Tensor& momentum_buffer, const RMSpropHyper& h);

}  // namespace spire
