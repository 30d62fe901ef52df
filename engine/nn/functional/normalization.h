// Normalisation layers' functional forms, with PyTorch's formulas: biased variance inside the
// normalisation, the unbiased one in batch norm's running estimate, eps added to the variance.
#pragma once
#include <vector>

#include "engine/core/tensor.h"

namespace spire::nn::functional {

// Normalises over the last normalized_shape.size() axes; weight and bias (optional) have
// normalized_shape.
Tensor layer_norm(const Tensor& x, const std::vector<int64_t>& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

// x [N, C, *]. In training (or without running statistics) the batch's statistics over every axis
// but 1 are used, and running_mean / running_var (when given) are updated in place, without
// history, as (1 - momentum) running + momentum batch (the variance unbiased). In evaluation the
// running statistics are used.
Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight = Tensor(), const Tensor& bias = Tensor(), bool training = false,
                  double momentum = 0.1, double eps = 1e-5);

// x [N, C, *]: the channels split into num_groups groups, each normalised over its channels and
// the spatial axes; weight and bias [C] (optional).
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                  double eps = 1e-5);

}  // namespace spire::nn::functional
