// Pooling and resampling with torch.nn.functional's names, options and defaults, over the engine's
// pooling primitives (engine/ops/pool.h) and resampling (engine/ops/interpolate.h). Inputs are
// [N, C, *spatial] or unbatched [C, *spatial]; per-axis options take one value (repeated) or one per
// spatial axis.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::nn::functional {

// Options after kernel_size; an empty stride means stride = kernel_size.
struct MaxPoolArgs {
  std::vector<int64_t> stride, padding{0}, dilation{1};
  bool ceil_mode = false;
};
Tensor max_pool(const Tensor& x, int64_t spatial, const std::vector<int64_t>& kernel_size, const MaxPoolArgs& a = {});
// (values, indices): indices are flat positions in each input plane (int64), as torch's.
std::pair<Tensor, Tensor> max_pool_with_indices(const Tensor& x, int64_t spatial, const std::vector<int64_t>& kernel_size,
                                                const MaxPoolArgs& a = {});
Tensor max_pool1d(const Tensor& x, const std::vector<int64_t>& kernel_size, const MaxPoolArgs& a = {});
Tensor max_pool2d(const Tensor& x, const std::vector<int64_t>& kernel_size, const MaxPoolArgs& a = {});
Tensor max_pool3d(const Tensor& x, const std::vector<int64_t>& kernel_size, const MaxPoolArgs& a = {});
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& x, const std::vector<int64_t>& kernel_size,
                                                  const MaxPoolArgs& a = {});
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, const std::vector<int64_t>& kernel_size,
                                                  const MaxPoolArgs& a = {});
std::pair<Tensor, Tensor> max_pool3d_with_indices(const Tensor& x, const std::vector<int64_t>& kernel_size,
                                                  const MaxPoolArgs& a = {});

struct AvgPoolArgs {
  std::vector<int64_t> stride, padding{0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override;  // not in torch's avg_pool1d
};
Tensor avg_pool(const Tensor& x, int64_t spatial, const std::vector<int64_t>& kernel_size, const AvgPoolArgs& a = {});
Tensor avg_pool1d(const Tensor& x, const std::vector<int64_t>& kernel_size, const AvgPoolArgs& a = {});
Tensor avg_pool2d(const Tensor& x, const std::vector<int64_t>& kernel_size, const AvgPoolArgs& a = {});
Tensor avg_pool3d(const Tensor& x, const std::vector<int64_t>& kernel_size, const AvgPoolArgs& a = {});

// torch's F.max_unpool: the values of max_pool with (kernel_size, stride, padding) written back at
// their indices into zeros of size (in - 1) stride - 2 padding + kernel_size per axis, or of
// output_size (its last `spatial` entries; each within stride of that default).
struct MaxUnpoolArgs {
  std::vector<int64_t> stride, padding{0};
  std::vector<int64_t> output_size;  // empty: the default
};
Tensor max_unpool(const Tensor& x, const Tensor& indices, int64_t spatial, const std::vector<int64_t>& kernel_size,
                  const MaxUnpoolArgs& a = {});
Tensor max_unpool1d(const Tensor& x, const Tensor& indices, const std::vector<int64_t>& kernel_size,
                    const MaxUnpoolArgs& a = {});
Tensor max_unpool2d(const Tensor& x, const Tensor& indices, const std::vector<int64_t>& kernel_size,
                    const MaxUnpoolArgs& a = {});
Tensor max_unpool3d(const Tensor& x, const Tensor& indices, const std::vector<int64_t>& kernel_size,
                    const MaxUnpoolArgs& a = {});

// Adaptive output sizes: one entry (repeated) or one per spatial axis; nullopt keeps the input's size.
using OutputSize = std::vector<std::optional<int64_t>>;
Tensor adaptive_avg_pool(const Tensor& x, int64_t spatial, const OutputSize& output_size);
Tensor adaptive_avg_pool1d(const Tensor& x, const OutputSize& output_size);
Tensor adaptive_avg_pool2d(const Tensor& x, const OutputSize& output_size);
Tensor adaptive_avg_pool3d(const Tensor& x, const OutputSize& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool_with_indices(const Tensor& x, int64_t spatial, const OutputSize& output_size);
Tensor adaptive_max_pool(const Tensor& x, int64_t spatial, const OutputSize& output_size);
Tensor adaptive_max_pool1d(const Tensor& x, const OutputSize& output_size);
Tensor adaptive_max_pool2d(const Tensor& x, const OutputSize& output_size);
Tensor adaptive_max_pool3d(const Tensor& x, const OutputSize& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool1d_with_indices(const Tensor& x, const OutputSize& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d_with_indices(const Tensor& x, const OutputSize& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool3d_with_indices(const Tensor& x, const OutputSize& output_size);

// F.interpolate: x [N, C, *spatial] with 1 to 3 spatial axes. Exactly one of size and scale_factor
// (one value, repeated, or one per spatial axis). mode: "nearest", "nearest-exact", "linear" (3-d
// input), "bilinear" (4-d), "trilinear" (5-d) or "area". align_corners (linear modes only) defaults
// to false. With a scale_factor the output size is floor(in * scale_factor) and the coordinate map
// uses the scale factor itself, unless recompute_scale_factor (then in / out, as with size).
struct InterpolateArgs {
  std::vector<int64_t> size;
  std::vector<double> scale_factor;
  std::string mode = "nearest";
  std::optional<bool> align_corners;
  std::optional<bool> recompute_scale_factor;
  bool antialias = false;  // not supported; true is refused
};
Tensor interpolate(const Tensor& x, const InterpolateArgs& a);

}  // namespace spire::nn::functional
