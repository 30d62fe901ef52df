// Affine maps: linear (x W^T + b, as torch.nn.functional.linear) and convolutions with a bias and
// PyTorch's padding modes, over the engine's conv primitives (engine/ops/conv.h).
#pragma once
#include <string>
#include <vector>

#include "engine/core/tensor.h"
#include "engine/ops/conv.h"

namespace spire::nn::functional {

// x [..., in], weight [out, in], bias [out] or undefined.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());

// x [N, C_in, *spatial] (or unbatched [C_in, *spatial]), weight [C_out, C_in/groups, *kernel].
// Integer options are per spatial axis (one value is repeated). padding_mode: "zeros",
// "reflect", "replicate" or "circular"; the non-zero modes pad explicitly before an unpadded
// convolution. padding_rule, when not empty, replaces the numbers as torch's string padding:
// "valid" is no padding, "same" pads dilation * (kernel - 1) in total per axis so that the output
// has the input's size (stride 1 only), the odd element on the right (after) side, as torch.
struct ConvArgs {
  std::vector<int64_t> stride, padding, dilation;
  int64_t groups = 1;
  std::string padding_mode = "zeros";
  std::string padding_rule;
};
Tensor conv(const Tensor& x, const Tensor& weight, const Tensor& bias, int64_t spatial, const ConvArgs& a = {});
Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), const ConvArgs& a = {});
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), const ConvArgs& a = {});
Tensor conv3d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), const ConvArgs& a = {});

// weight [C_in, C_out/groups, *kernel]; output_padding as torch (only zero padding, and only
// numeric padding: a padding_rule is refused, as torch refuses string padding here).
Tensor conv_transpose(const Tensor& x, const Tensor& weight, const Tensor& bias, int64_t spatial,
                      const ConvArgs& a = {}, std::vector<int64_t> output_padding = {});
Tensor conv_transpose1d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(),
                        const ConvArgs& a = {}, std::vector<int64_t> output_padding = {});
Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(),
                        const ConvArgs& a = {}, std::vector<int64_t> output_padding = {});
Tensor conv_transpose3d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(),
                        const ConvArgs& a = {}, std::vector<int64_t> output_padding = {});

// The (before, after) padding per spatial axis that a padding rule ("same", "valid") asks for,
// for a kernel of `kernel` taps per axis; ValueError for any other rule, or for "same" with a
// stride other than 1.
std::vector<std::pair<int64_t, int64_t>> rule_padding(const std::string& rule, const std::vector<int64_t>& kernel,
                                                      const std::vector<int64_t>& stride,
                                                      const std::vector<int64_t>& dilation, const char* op);

// Pads the last pads.size() axes for a convolution: padding_mode "zeros", "reflect", "replicate"
// (the edge value repeated) or "circular".
Tensor pad_for_conv(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads,
                    const std::string& padding_mode, const char* op);

// A per-axis option: empty gives `dflt` on every axis, one value is repeated.
std::vector<int64_t> expand_option(std::vector<int64_t> v, int64_t spatial, int64_t dflt, const char* op,
                                   const char* name);

}  // namespace spire::nn::functional
