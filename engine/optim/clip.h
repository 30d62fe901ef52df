// Gradient clipping, as torch.nn.utils.clip_grad_norm_ and clip_grad_value_. Both rebind each
// parameter's .grad to the clipped values; parameters without a gradient are skipped.
#pragma once
#include <limits>

#include "engine/core/tensor.h"

namespace spire::optim {

// Scales all gradients together so that their total norm is at most max_norm and returns the total
// norm before clipping (a 0-d tensor). The total norm is the norm_type-norm of the per-parameter
// norms (the norm of all gradients as one vector); norm_type may be any p > 0 or infinity (max |g|).
// Every gradient is multiplied by min(1, max_norm / (total + 1e-6)), as PyTorch does. A non-finite
// total is a ValueError when error_if_nonfinite, else the gradients come out non-finite too.
Tensor clip_grad_norm_(const Tensors& params, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

// Clamps every gradient element to [-clip_value, clip_value].
void clip_grad_value_(const Tensors& params, double clip_value);

}  // namespace spire::optim
