// Helpers shared by the reduction ops' rules (sum.cpp, reduce.cpp, scan.cpp); not public API.
#pragma once
#include "engine/ops/reduce.h"

namespace spire::detail {

// Gradient of a reduction: reinserts the reduced axes as size 1 and broadcasts back to in_shape.
Tensor unreduce(const Tensor& g, const Shape& in_shape, const Axes& axes, bool keepdims);
// Number of elements a reduction over (normalised) axes folds into each output.
int64_t reduced_count(const Shape& shape, const Axes& axes);

}  // namespace spire::detail
