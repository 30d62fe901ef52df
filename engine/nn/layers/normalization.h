// torch.nn.LayerNorm, BatchNorm1d/2d/3d and GroupNorm (formulas in functional/normalization.h).
#pragma once
#include <optional>
#include <vector>

#include "engine/nn/layers/common.h"
#include "engine/nn/module.h"

namespace spire::nn {

class LayerNorm : public Module {
 public:
  LayerNorm(std::vector<int64_t> normalized_shape, double eps = 1e-5, bool elementwise_affine = true,
            bool bias = true, DType dtype = DType::Float32);
  void reset_parameters();  // weight ones, bias zeros
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  std::vector<int64_t> normalized_shape;
  double eps;
  bool elementwise_affine;
  Tensor weight, bias;
};

// Buffers running_mean (zeros), running_var (ones) and num_batches_tracked (int64 0) when
// track_running_stats; momentum nullopt means the cumulative average (1 / num_batches_tracked).
class BatchNorm : public Module {
 public:
  BatchNorm(int64_t spatial, int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,
            bool affine = true, bool track_running_stats = true, DType dtype = DType::Float32);
  void reset_running_stats();
  void reset_parameters();
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  int64_t spatial, num_features;
  double eps;
  std::optional<double> momentum;
  bool affine, track_running_stats;
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;
};

#define SPIRE_BATCHNORM_LAYER(Name, N)                                                                      \
  class Name : public BatchNorm {                                                                           \
   public:                                                                                                  \
    explicit Name(int64_t num_features, double eps = 1e-5, std::optional<double> momentum = 0.1,            \
                  bool affine = true, bool track_running_stats = true, DType dtype = DType::Float32)         \
        : BatchNorm(N, num_features, eps, momentum, affine, track_running_stats, dtype) {                   \
      set_type_name(#Name);                                                                                 \
    }                                                                                                       \
  };
SPIRE_BATCHNORM_LAYER(BatchNorm1d, 1)  // [N, C] or [N, C, L]
SPIRE_BATCHNORM_LAYER(BatchNorm2d, 2)  // [N, C, H, W]
SPIRE_BATCHNORM_LAYER(BatchNorm3d, 3)  // [N, C, D, H, W]
#undef SPIRE_BATCHNORM_LAYER

class GroupNorm : public Module {
 public:
  GroupNorm(int64_t num_groups, int64_t num_channels, double eps = 1e-5, bool affine = true,
            DType dtype = DType::Float32);
  void reset_parameters();
  using Module::forward;
  Tensor forward(const Tensor& x) override;
  std::string extra_repr() const override;

  int64_t num_groups, num_channels;
  double eps;
  bool affine;
  Tensor weight, bias;
};

}  // namespace spire::nn
