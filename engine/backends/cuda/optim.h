// Launchers of the fused optimizer updates (engine/ops/optim_update.h), compiled by nvcc. The C++
// side (optim.cpp) computes the coefficients exactly as the CPU kernels do, rounded to the element
// type; the device computes each element operation for operation as the CPU does, so the two give
// the same bits. All pointers are to contiguous device arrays of n elements.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

namespace spire::cuda {

template <class T>
struct AdamArgs {
  // in: param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad only);
  // out: param, exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad only).
  const T* in[5] = {};
  T* out[4] = {};
  T sign, decay, l2, w, w_minus_1, beta2, one_minus_beta2, bias_correction2_sqrt, eps, neg_step_size;
  bool coupled_l2 = false, small_weight = false, amsgrad = false;
  int64_t n = 0;
};

template <class T>
struct SGDArgs {
  // in: param, grad, momentum_buffer (has_buffer only); out: param, momentum_buffer (momentum only).
  const T* in[3] = {};
  T* out[2] = {};
  T sign, l2, momentum, one_minus_dampening, neg_lr;
  bool l2_on = false, use_momentum = false, has_buffer = false, nesterov = false;
  int64_t n = 0;
};

template <class T>
struct RMSpropArgs {
  // in: param, grad, square_avg, grad_avg, momentum_buffer; out: param, square_avg, grad_avg,
  // momentum_buffer (grad_avg null unless centered, the buffer null unless momentum > 0).
  const T* in[5] = {};
  T* out[4] = {};
  T sign, l2, alpha, one_minus_alpha, w_minus_1, eps, momentum, neg_lr;
  bool l2_on = false, centered = false, small_weight = false, use_momentum = false;
  int64_t n = 0;
};

cudaError_t launch_adam_update(const AdamArgs<float>& a);
cudaError_t launch_adam_update(const AdamArgs<double>& a);
cudaError_t launch_sgd_update(const SGDArgs<float>& a);
cudaError_t launch_sgd_update(const SGDArgs<double>& a);
cudaError_t launch_rmsprop_update(const RMSpropArgs<float>& a);
cudaError_t launch_rmsprop_update(const RMSpropArgs<double>& a);

}  // namespace spire::cuda
