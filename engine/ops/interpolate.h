// Resampling of the last out_size.size() axes of a tensor onto a new grid, with PyTorch's
// coordinate maps (F.interpolate's modes). Separable: one pass per axis whose size changes, an
// index_select for the nearest modes and, for the linear ones, the primitive resample_axis (a fixed
// two-tap sparse matrix along the axis, whose reverse rule is its transpose), so every derivative,
// Taylor mode and vmap work through it.
#pragma once
#include <vector>

#include "engine/core/tensor.h"

namespace spire {

enum class ResampleMode {
  Nearest,       // torch's "nearest": src = min(floor(dst * scale), in - 1) (OpenCV's legacy rule)
  NearestExact,  // "nearest-exact": src = min(floor((dst + 0.5) * scale), in - 1) (Pillow, scipy)
  Linear,        // "linear" / "bilinear" / "trilinear": one axis after another
  Area,          // "area": adaptive average pooling
};

// `scales` (empty, or one per resampled axis) are the scale factors the user gave; where one is > 0
// the coordinate map uses 1 / scale in place of in / out (torch's scale_factor without
// recompute_scale_factor). align_corners is for Linear only: the corner samples of input and output
// coincide, scale (in - 1) / (out - 1). Floating-point inputs.
Tensor resample(const Tensor& x, const std::vector<int64_t>& out_size, ResampleMode mode, bool align_corners = false,
                const std::vector<double>& scales = {});

}  // namespace spire
