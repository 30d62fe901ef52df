// relu as one primitive, with its reverse rule as another: one pass over memory each way, where
// where(x > 0, x, 0) made a bool mask and then a select (two passes and an allocation more).
#pragma once
#include "engine/core/tensor.h"

namespace spire {

// max(x, 0) elementwise, as torch.relu: NaN stays NaN, and the derivative at 0 is 0.
// Real floating and integer dtypes; complex is refused (a DTypeError), as in PyTorch.
Tensor relu(const Tensor& x);
// grad where x > 0, else 0 (torch's threshold_backward at 0): relu's reverse rule. Linear in grad;
// x only selects, so it receives no gradient. grad and x broadcast together; grad's dtype wins.
Tensor relu_backward(const Tensor& grad, const Tensor& x);

}  // namespace spire
