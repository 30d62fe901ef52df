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
// NumPy's moveaxis: axes `source` go to positions `destination`, the others keep their order.
Tensor moveaxis(const Tensor& x, const std::vector<int64_t>& source, const std::vector<int64_t>& destination);
Tensor moveaxis(const Tensor& x, int64_t source, int64_t destination);
Tensor transpose(const Tensor& x, int64_t a, int64_t b);
Tensor mT(const Tensor& x);  // swaps the last two axes
Tensor expand(const Tensor& x, const Shape& shape);  // NumPy broadcast_to; no copy
Tensor broadcast_to(const Tensor& x, const Shape& shape);
Tensor squeeze(const Tensor& x, const std::vector<int64_t>& axes = {});
Tensor unsqueeze(const Tensor& x, int64_t axis);
// x[start:stop:step] along axis, a view; bounds are clamped and negative ones count from the end,
// exactly as Python's slice.indices. A negative step gives a view with a negative stride.
Tensor slice(const Tensor& x, int64_t axis, std::optional<int64_t> start, std::optional<int64_t> stop,
             int64_t step = 1);
Tensor select(const Tensor& x, int64_t axis, int64_t index);  // drops the axis
Tensor contiguous(const Tensor& x);  // x itself if already contiguous
Tensor copy(const Tensor& x);        // always a fresh contiguous copy

enum class PadMode { Constant, Circular, Reflect };
// pads: (before, after) for each of the last pads.size() axes, first axis first. Constant mode
// crops where a pad is negative; circular is NumPy's "wrap"; reflect mirrors about the edge
// element without repeating it (NumPy's and PyTorch's "reflect"). Pads wider than the axis repeat
// periodically, as in NumPy. `value` is used by constant mode only.
Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads,
           PadMode mode = PadMode::Constant, Scalar value = 0.0);
Tensor concat(const std::vector<Tensor>& xs, int64_t axis);
Tensor stack(const std::vector<Tensor>& xs, int64_t axis = 0);
std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis);
// Views of ceil(n / chunks) elements each, the last smaller (PyTorch's chunk).
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis);
Tensor flip(const Tensor& x, const std::vector<int64_t>& axes);  // a copy; empty axes: all axes
Tensor roll(const Tensor& x, int64_t shift, int64_t axis);  // out[i] = x[i - shift], a copy
// A view: axis1 and axis2 are dropped and the diagonal becomes the last axis (as NumPy).
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t axis1 = -2, int64_t axis2 = -1);
Tensor tril(const Tensor& x, int64_t k = 0);
Tensor triu(const Tensor& x, int64_t k = 0);

// Indexing. Indices are int32 or int64; negative indices count from the end; an index out of
// range is a ValueError naming the op, the index, the axis and the allowed range.
// np.take along one axis: the axis is replaced by index's shape (any rank; 0-d drops the axis).
Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index);
// NumPy advanced indexing over the adjacent axes axis, axis+1, ..., axis+k-1 with k index arrays
// (broadcast together to a shape B): out[pre..., b..., post...] = x[pre..., i0[b], ..., ik-1[b],
// post...]. x[i0, i1] is take(x, {i0, i1}, 0); a boolean mask m over those axes is
// take(x, columns of nonzero(m), axis).
Tensor take(const Tensor& x, const std::vector<Tensor>& indices, int64_t axis = 0);
// NumPy take_along_axis: index has x's rank; the other axes broadcast against x's.
Tensor take_along_axis(const Tensor& x, const Tensor& index, int64_t axis);
Tensor gather(const Tensor& x, int64_t axis, const Tensor& index);  // = take_along_axis
// out = x, then out[..., index[i], ...] += src[..., i, ...] along axis, repeated indices
// accumulating in index order (src broadcasts to the index_select shape).
Tensor index_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src);
// The adjoint of take: out = x, then out[pre, i0[b], ..., post] += src[pre, b, post] (np.add.at).
Tensor take_add(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& src, int64_t axis = 0);
// out = x, then out[..., index[j], ...] += src[j] elementwise along axis, in index order
// (deterministic). index has x's rank and broadcasts to x's sizes off `axis`; src broadcasts to
// index's shape. The adjoint of take_along_axis.
Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src);
// index.shape + [num_classes], 1 at each index (negative ones count from the end); num_classes = -1
// takes max(index) + 1. Not differentiable.
Tensor one_hot(const Tensor& index, int64_t num_classes, DType dtype = DType::Float32);
// The elements where mask is true, as a 1-d tensor (mask broadcasts to x).
Tensor masked_select(const Tensor& x, const Tensor& mask);
// Indices of nonzero elements, shape [count, ndim] (int64).
Tensor nonzero(const Tensor& x);

}  // namespace spire
