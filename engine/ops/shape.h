// Shape and indexing ops. Views (reshape of contiguous data, permute, expand, slice, squeeze,
// diagonal) share memory with their input; the rest copy.
#pragma once
#include <optional>

#include "engine/core/tensor.h"

namespace spire {

Tensor alias(const Tensor& x);  // a view of all of x: a new identity for autodiff to target
Tensor reshape(const Tensor& x, const Shape& shape);  // one dimension may be -1
Tensor flatten(const Tensor& x, int64_t start_axis = 0, int64_t end_axis = -1);
Tensor permute(const Tensor& x, const std::vector<int64_t>& perm);
Tensor transpose(const Tensor& x, int64_t a, int64_t b);
Tensor mT(const Tensor& x);  // swaps the last two axes
Tensor expand(const Tensor& x, const Shape& shape);  // NumPy broadcast_to; no copy
Tensor broadcast_to(const Tensor& x, const Shape& shape);
Tensor squeeze(const Tensor& x, const std::vector<int64_t>& axes = {});
Tensor unsqueeze(const Tensor& x, int64_t axis);
// x[start:stop:step] along axis; negative bounds count from the end, as in Python.
Tensor slice(const Tensor& x, int64_t axis, std::optional<int64_t> start, std::optional<int64_t> stop,
             int64_t step = 1);
Tensor select(const Tensor& x, int64_t axis, int64_t index);  // drops the axis
Tensor contiguous(const Tensor& x);  // x itself if already contiguous
Tensor copy(const Tensor& x);        // always a fresh contiguous copy

enum class PadMode { Constant, Circular, Reflect };
// pads: (before, after) for each of the last pads.size() axes, first axis first.
Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads,
           PadMode mode = PadMode::Constant, Scalar value = 0.0);
Tensor concat(const std::vector<Tensor>& xs, int64_t axis);
Tensor stack(const std::vector<Tensor>& xs, int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis);
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis);
Tensor flip(const Tensor& x, const std::vector<int64_t>& axes);
Tensor roll(const Tensor& x, int64_t shift, int64_t axis);
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t axis1 = -2, int64_t axis2 = -1);
Tensor tril(const Tensor& x, int64_t k = 0);
Tensor triu(const Tensor& x, int64_t k = 0);

// Indexing. Indices are int32 or int64; negative indices count from the end.
Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index);
Tensor take_along_axis(const Tensor& x, const Tensor& index, int64_t axis);
Tensor gather(const Tensor& x, int64_t axis, const Tensor& index);  // = take_along_axis
// out = x, then out[index[i]] += src[i] along axis (index is 1-d).
Tensor index_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src);
// out = x, then out[..., index[j], ...] += src[j] elementwise (index shaped like src).
Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src);
Tensor one_hot(const Tensor& index, int64_t num_classes, DType dtype = DType::Float32);
// The elements where mask is true, as a 1-d tensor (mask broadcasts to x).
Tensor masked_select(const Tensor& x, const Tensor& mask);
// Indices of nonzero elements, shape [count, ndim] (int64).
Tensor nonzero(const Tensor& x);

}  // namespace spire
