// Pooling over the last `spatial` axes of a tensor (PyTorch's max/avg/adaptive pooling, with its
// formulas, tie-breaking and errors). Any leading axes are planes pooled independently, so
// [N, C, *spatial] and unbatched [C, *spatial] inputs both work. Per-axis options take one value
// (repeated) or one per spatial axis.
//
// Two primitives carry all of it (engine/ops/pool.cpp): max_pool, returning values and the argmax
// as a flat index into each input plane (its reverse rule is a scatter-add of the gradient to the
// argmax, its forward and Taylor rules a gather there), and avg_pool, linear, whose reverse rule is
// its transpose avg_pool_backward. Adaptive pooling is the same two primitives with torch's
// adaptive windows [floor(o In / Out), ceil((o + 1) In / Out)).
#pragma once
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"

namespace spire {

struct PoolOptions {
  std::vector<int64_t> kernel_size;
  std::vector<int64_t> stride;        // empty: kernel_size (PyTorch's default)
  std::vector<int64_t> padding{0};    // implicit -inf (max) or zeros (avg), at most kernel_size / 2
  std::vector<int64_t> dilation{1};   // max pooling only
  bool ceil_mode = false;             // the last window may start in the input's tail
};

// (values, indices): the maximum of each window, the first one in window order on ties (a NaN
// wins, as in PyTorch), and its flat index into the input plane (int64). Real inputs (float or
// integer); the gradient goes to the argmax.
std::pair<Tensor, Tensor> max_pool(const Tensor& x, int64_t spatial, const PoolOptions& opt);

// The mean of each window: the sum over the window's input elements divided by the window size
// counted with padding (count_include_pad, clipped to the padded input for ceil_mode windows), by
// the number of input elements (otherwise), or by divisor_override. Floating-point inputs.
Tensor avg_pool(const Tensor& x, int64_t spatial, const PoolOptions& opt, bool count_include_pad = true,
                std::optional<int64_t> divisor_override = std::nullopt);

// Adaptive pooling to output_size (one entry per spatial axis, >= 0; inputs must not be empty
// along spatial axes).
std::pair<Tensor, Tensor> adaptive_max_pool(const Tensor& x, const std::vector<int64_t>& output_size);
Tensor adaptive_avg_pool(const Tensor& x, const std::vector<int64_t>& output_size);

// The partial inverse of max_pool (torch's MaxUnpool): zeros of spatial sizes output_size with each
// value of x written at its flat index in the output plane (indices: max_pool's, same shape as x;
// where indices repeat, the last value in order is kept). Its gradient gathers at the indices, as
// torch's does (every repeat of an index gets the gradient there).
Tensor max_unpool(const Tensor& x, const Tensor& indices, const std::vector<int64_t>& output_size);

}  // namespace spire
