// Pooling and upsampling layers: torch.nn.MaxPool1d/2d/3d, AvgPool1d/2d/3d,
// AdaptiveAvgPool1d/2d/3d, AdaptiveMaxPool1d/2d/3d, MaxUnpool1d/2d/3d and Upsample, over the functional forms
// (engine/nn/functional/pooling.h). Options are kept as given (one value or one per spatial axis)
// and shown so by repr, as PyTorch does; stride defaults to kernel_size.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "engine/nn/functional/pooling.h"
#include "engine/nn/module.h"

namespace spire::nn {

struct MaxPoolOptions {
  std::vector<int64_t> stride;  // empty: kernel_size
  std::vector<int64_t> padding{0}, dilation{1};
  bool return_indices = false;
  bool ceil_mode = false;
};

// forward(x) gives the pooled values; with return_indices, forward({x}) gives {values, indices}
// (flat positions in each input plane, as MaxUnpool takes them).
class MaxPoolNd : public Module {
 public:
  MaxPoolNd(int64_t spatial, std::vector<int64_t> kernel_size, const MaxPoolOptions& options = {});
  Tensor forward(const Tensor& x) override;
  Tensors forward(const Tensors& inputs) override;
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  std::string extra_repr() const override;

  int64_t spatial;
  std::vector<int64_t> kernel_size, stride, padding, dilation;
  bool return_indices, ceil_mode;
};

struct AvgPoolOptions {
  std::vector<int64_t> stride;  // empty: kernel_size
  std::vector<int64_t> padding{0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override;  // AvgPool2d/3d only, as in torch
};

class AvgPoolNd : public Module {
 public:
  AvgPoolNd(int64_t spatial, std::vector<int64_t> kernel_size, const AvgPoolOptions& options = {});
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  int64_t spatial;
  std::vector<int64_t> kernel_size, stride, padding;
  bool ceil_mode, count_include_pad;
  std::optional<int64_t> divisor_override;
};

// output_size: one entry (repeated) or one per spatial axis; nullopt keeps the input's size.
class AdaptiveAvgPoolNd : public Module {
 public:
  AdaptiveAvgPoolNd(int64_t spatial, functional::OutputSize output_size);
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  int64_t spatial;
  functional::OutputSize output_size;
};

class AdaptiveMaxPoolNd : public Module {
 public:
  AdaptiveMaxPoolNd(int64_t spatial, functional::OutputSize output_size, bool return_indices = false);
  Tensor forward(const Tensor& x) override;
  Tensors forward(const Tensors& inputs) override;  // {values, indices} with return_indices
  std::pair<Tensor, Tensor> forward_with_indices(const Tensor& x);
  std::string extra_repr() const override;

  int64_t spatial;
  functional::OutputSize output_size;
  bool return_indices;
};

#define SPIRE_POOL_LAYER(Name, Base, N, Options)                                         \
  class Name : public Base {                                                             \
   public:                                                                               \
    explicit Name(std::vector<int64_t> kernel_size, const Options& options = {})         \
        : Base(N, std::move(kernel_size), options) {                                     \
      set_type_name(#Name);                                                              \
    }                                                                                    \
  };
SPIRE_POOL_LAYER(MaxPool1d, MaxPoolNd, 1, MaxPoolOptions)
SPIRE_POOL_LAYER(MaxPool2d, MaxPoolNd, 2, MaxPoolOptions)
SPIRE_POOL_LAYER(MaxPool3d, MaxPoolNd, 3, MaxPoolOptions)
SPIRE_POOL_LAYER(AvgPool1d, AvgPoolNd, 1, AvgPoolOptions)
SPIRE_POOL_LAYER(AvgPool2d, AvgPoolNd, 2, AvgPoolOptions)
SPIRE_POOL_LAYER(AvgPool3d, AvgPoolNd, 3, AvgPoolOptions)
#undef SPIRE_POOL_LAYER

#define SPIRE_ADAPTIVE_AVG_LAYER(Name, N)                                                   \
  class Name : public AdaptiveAvgPoolNd {                                                   \
   public:                                                                                  \
    explicit Name(functional::OutputSize output_size)                                       \
        : AdaptiveAvgPoolNd(N, std::move(output_size)) {                                    \
      set_type_name(#Name);                                                                 \
    }                                                                                       \
  };
#define SPIRE_ADAPTIVE_MAX_LAYER(Name, N)                                                   \
  class Name : public AdaptiveMaxPoolNd {                                                   \
   public:                                                                                  \
    explicit Name(functional::OutputSize output_size, bool return_indices = false)          \
        : AdaptiveMaxPoolNd(N, std::move(output_size), return_indices) {                    \
      set_type_name(#Name);                                                                 \
    }                                                                                       \
  };
SPIRE_ADAPTIVE_AVG_LAYER(AdaptiveAvgPool1d, 1)
SPIRE_ADAPTIVE_AVG_LAYER(AdaptiveAvgPool2d, 2)
SPIRE_ADAPTIVE_AVG_LAYER(AdaptiveAvgPool3d, 3)
SPIRE_ADAPTIVE_MAX_LAYER(AdaptiveMaxPool1d, 1)
SPIRE_ADAPTIVE_MAX_LAYER(AdaptiveMaxPool2d, 2)
SPIRE_ADAPTIVE_MAX_LAYER(AdaptiveMaxPool3d, 3)
#undef SPIRE_ADAPTIVE_AVG_LAYER
#undef SPIRE_ADAPTIVE_MAX_LAYER

// torch.nn.MaxUnpool1d/2d/3d: forward({x, indices}) or forward(x, indices, output_size).
class MaxUnpoolNd : public Module {
 public:
  MaxUnpoolNd(int64_t spatial, std::vector<int64_t> kernel_size, std::vector<int64_t> stride = {},
              std::vector<int64_t> padding = {0});
  using Module::forward;
  Tensors forward(const Tensors& inputs) override;
  Tensor forward(const Tensor& x, const Tensor& indices, const std::vector<int64_t>& output_size = {});
  std::string extra_repr() const override;

  int64_t spatial;
  std::vector<int64_t> kernel_size, stride, padding;
};
#define SPIRE_UNPOOL_LAYER(Name, N)                                                                  \
  class Name : public MaxUnpoolNd {                                                                  \
   public:                                                                                           \
    explicit Name(std::vector<int64_t> kernel_size, std::vector<int64_t> stride = {},                \
                  std::vector<int64_t> padding = {0})                                                \
        : MaxUnpoolNd(N, std::move(kernel_size), std::move(stride), std::move(padding)) {            \
      set_type_name(#Name);                                                                          \
    }                                                                                                \
  };
SPIRE_UNPOOL_LAYER(MaxUnpool1d, 1)
SPIRE_UNPOOL_LAYER(MaxUnpool2d, 2)
SPIRE_UNPOOL_LAYER(MaxUnpool3d, 3)
#undef SPIRE_UNPOOL_LAYER

// torch.nn.Upsample: F.interpolate with fixed size or scale_factor (exactly one), mode,
// align_corners and recompute_scale_factor.
class Upsample : public Module {
 public:
  explicit Upsample(functional::InterpolateArgs args);
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  functional::InterpolateArgs args;
};

}  // namespace spire::nn
