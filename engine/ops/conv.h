// N-d convolution (cross-correlation, as in every deep-learning framework), channels first:
// x [N, C_in, *spatial], w [C_out, C_in/groups, *kernel]. The transposed convolution is the
// reverse rule of the forward one, exposed for decoders.
#pragma once
#include "engine/core/tensor.h"

namespace spire {

struct ConvOptions {
  std::vector<int64_t> stride;    // default 1 per spatial axis
  std::vector<int64_t> padding;   // symmetric zero padding, default 0
  std::vector<int64_t> dilation;  // default 1
  int64_t groups = 1;
};

Tensor conv(const Tensor& x, const Tensor& w, const ConvOptions& opt = {});
Tensor conv1d(const Tensor& x, const Tensor& w, const ConvOptions& opt = {});
Tensor conv2d(const Tensor& x, const Tensor& w, const ConvOptions& opt = {});
Tensor conv3d(const Tensor& x, const Tensor& w, const ConvOptions& opt = {});
// w [C_in, C_out/groups, *kernel]; output_padding resolves the size ambiguity of strided inputs.
Tensor conv_transpose(const Tensor& x, const Tensor& w, const ConvOptions& opt = {},
                      const std::vector<int64_t>& output_padding = {});

}  // namespace spire
