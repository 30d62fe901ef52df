// Reductions over any set of axes (empty `axes` means all), with keepdims.
#pragma once
#include "engine/core/tensor.h"

namespace spire {

using Axes = std::vector<int64_t>;

Tensor sum(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor mean(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor prod(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor amax(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor amin(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
Tensor logsumexp(const Tensor& x, const Axes& axes = {}, bool keepdims = false);
// ddof = 1 gives the unbiased estimate.
Tensor var(const Tensor& x, const Axes& axes = {}, int64_t ddof = 0, bool keepdims = false);
Tensor std(const Tensor& x, const Axes& axes = {}, int64_t ddof = 0, bool keepdims = false);
// Index of the first extreme along one axis (int64, no gradient).
Tensor argmax(const Tensor& x, int64_t axis, bool keepdims = false);
Tensor argmin(const Tensor& x, int64_t axis, bool keepdims = false);
Tensor cumsum(const Tensor& x, int64_t axis);
Tensor cumprod(const Tensor& x, int64_t axis);
// exclusive: element i folds the elements before i only (starting from 0 or 1); reverse: folds
// from the end of the axis (reverse inclusive cumsum of x is flip(cumsum(flip(x)))).
Tensor cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse);
Tensor cumprod(const Tensor& x, int64_t axis, bool exclusive, bool reverse);

// Sums a broadcast gradient back to `shape` (the reverse of broadcasting).
Tensor sum_to(const Tensor& x, const Shape& shape);
// Normalises axes: empty means all; negatives wrap; duplicates are an error naming `op`.
Axes normalize_axes(const Axes& axes, int64_t ndim, const char* op);
// The shape after reducing `axes` (sorted, normalised) with or without keepdims.
Shape reduced_shape(const Shape& shape, const Axes& axes, bool keepdims);

}  // namespace spire
