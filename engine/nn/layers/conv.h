// torch.nn.Conv1d/2d/3d and ConvTranspose1d/2d/3d.
#pragma once
#include <string>
#include <vector>

#include "engine/nn/layers/common.h"
#include "engine/nn/module.h"

namespace spire::nn {

// Options after the channels and kernel size, with PyTorch's defaults. Per-axis options take one
// value (repeated) or one per spatial axis.
struct ConvLayerOptions {
  std::vector<int64_t> stride{1}, padding{0}, dilation{1};
  std::vector<int64_t> output_padding{0};  // transposed convolutions only
  int64_t groups = 1;
  bool bias = true;
  std::string padding_mode = "zeros";  // "zeros", "reflect", "replicate", "circular" (convolutions only)
  // torch's string padding, "same" or "valid", instead of `padding` (convolutions only; "same"
  // needs stride 1). Empty: the numbers in `padding`.
  std::string padding_rule;
  DType dtype = DType::Float32;
  Generator* gen = nullptr;  // the default generator when null
};

// The N-d (transposed) convolution; the named classes below fix N and `transposed`.
class ConvNd : public Module {
 public:
  ConvNd(int64_t spatial, bool transposed, int64_t in_channels, int64_t out_channels,
         std::vector<int64_t> kernel_size, const ConvLayerOptions& options);
  // kaiming_uniform(a = sqrt(5)) weights, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) bias.
  void reset_parameters(Generator& gen);
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  // Transposed convolutions: the output size's ambiguity resolved per call (PyTorch's output_size).
  Tensor forward(const Tensor& x, const std::vector<int64_t>& output_padding);
  std::string extra_repr() const override;

  int64_t spatial;
  bool transposed;
  int64_t in_channels, out_channels, groups;
  std::vector<int64_t> kernel_size, stride, padding, dilation, output_padding;
  std::string padding_mode;
  std::string padding_rule;  // "same", "valid" or empty (then `padding` holds the numbers)
  Tensor weight, bias;
};

#define SPIRE_CONV_LAYER(Name, N, T)                                                                  \
  class Name : public ConvNd {                                                                        \
   public:                                                                                            \
    Name(int64_t in_channels, int64_t out_channels, std::vector<int64_t> kernel_size,                 \
         const ConvLayerOptions& options = {})                                                        \
        : ConvNd(N, T, in_channels, out_channels, std::move(kernel_size), options) {                  \
      set_type_name(#Name);                                                                           \
    }                                                                                                 \
  };
SPIRE_CONV_LAYER(Conv1d, 1, false)
SPIRE_CONV_LAYER(Conv2d, 2, false)
SPIRE_CONV_LAYER(Conv3d, 3, false)
SPIRE_CONV_LAYER(ConvTranspose1d, 1, true)
SPIRE_CONV_LAYER(ConvTranspose2d, 2, true)
SPIRE_CONV_LAYER(ConvTranspose3d, 3, true)
#undef SPIRE_CONV_LAYER

}  // namespace spire::nn
