// The fused optimizer updates on CUDA: adam_update, sgd_update, rmsprop_update. Coefficients are
// computed here exactly as backends/cpu/optim_kernels.cpp computes them (in double, then rounded
// to the element type), and optim.cu repeats the CPU's per-element arithmetic, so CPU and GPU
// training steps give the same bits. Registering these kernels makes fused_update_available()
// true on CUDA, so the optimizers take one pass per parameter there too.
#include "engine/backends/cuda/optim.h"

#include <cmath>
#include <concepts>

#include "engine/backends/cuda/loop.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/optim_update.h"
#include "engine/ops/shape.h"

namespace spire::cuda {
namespace {

// Parameters and their state are contiguous in practice; a strided view is copied first, as on the CPU.
std::vector<Tensor> contiguous_all(const std::vector<Tensor>& in) {
  std::vector<Tensor> out;
  for (const Tensor& t : in) out.push_back(contiguous(t));
  return out;
}

// The op's infer allows float32 and float64 only; say so clearly if anything else arrives.
void check_floating(const Tensor& t, const char* op) {
  SPIRE_CHECK(is_floating(t.dtype()), DTypeError, op, ": cuda kernel takes float32 or float64, got ", name(t.dtype()));
}

void adam_update_kernel(const std::vector<Tensor>& in_, std::vector<Tensor>& out, const Attrs& a) {
  const AdamStep s = adam_step(a);
  const double lr = s.h.lr, beta2 = s.h.beta2, eps = s.h.eps, wd = s.h.weight_decay;
  const bool decoupled = s.h.decoupled, amsgrad = s.h.amsgrad;
  const double step_size = s.step_size, bias_correction2_sqrt = s.bias_correction2_sqrt, w = s.one_minus_beta1;
  check_floating(out[0], "adam_update");
  DeviceGuard guard(out[0].device());
  std::vector<Tensor> in = contiguous_all(in_);
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::floating_point<T>) {
      AdamArgs<T> c;
      for (size_t i = 0; i < in.size(); ++i) c.in[i] = in[i].data<T>();
      for (size_t i = 0; i < out.size(); ++i) c.out[i] = out[i].data<T>();
      c.sign = T(a.get<bool>("maximize") ? -1 : 1);
      c.decay = T(decoupled && wd != 0 ? 1 - lr * wd : 1);
      c.l2 = T(wd);
      c.w = T(w);
      c.w_minus_1 = T(T(w) - T(1));
      c.beta2 = T(beta2);
      c.one_minus_beta2 = T(1 - beta2);
      c.bias_correction2_sqrt = T(bias_correction2_sqrt);
      c.eps = T(eps);
      c.neg_step_size = T(-step_size);
      c.coupled_l2 = !decoupled && wd != 0;
      c.small_weight = std::abs(T(w)) < T(0.5);  // PyTorch's is_lerp_weight_small, on the rounded weight
      c.amsgrad = amsgrad;
      c.n = out[0].numel();
      check_launch(launch_adam_update(c), "adam_update");
    }
  });
}
SPIRE_REGISTER_KERNEL("adam_update", DeviceKind::CUDA, adam_update_kernel);

void sgd_update_kernel(const std::vector<Tensor>& in_, std::vector<Tensor>& out, const Attrs& a) {
  const double wd = a.get<double>("weight_decay"), momentum = a.get<double>("momentum");
  const bool buffer = a.get<bool>("has_buffer"), nesterov = a.get<bool>("nesterov");
  check_floating(out[0], "sgd_update");
  DeviceGuard guard(out[0].device());
  std::vector<Tensor> in = contiguous_all(in_);
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::floating_point<T>) {
      SGDArgs<T> c;
      c.in[0] = in[0].data<T>();
      c.in[1] = in[1].data<T>();
      c.in[2] = buffer ? in[2].data<T>() : nullptr;
      c.out[0] = out[0].data<T>();
      c.out[1] = out.size() > 1 ? out[1].data<T>() : nullptr;
      c.sign = T(a.get<bool>("maximize") ? -1 : 1);
      c.l2 = T(wd);
      c.momentum = T(momentum);
      c.one_minus_dampening = T(1 - a.get<double>("dampening"));
      c.neg_lr = T(-a.get<double>("lr"));
      c.l2_on = wd != 0;
      c.use_momentum = momentum != 0;
      c.has_buffer = buffer;
      c.nesterov = nesterov;
      c.n = out[0].numel();
      check_launch(launch_sgd_update(c), "sgd_update");
    }
  });
}
SPIRE_REGISTER_KERNEL("sgd_update", DeviceKind::CUDA, sgd_update_kernel);

void rmsprop_update_kernel(const std::vector<Tensor>& in_, std::vector<Tensor>& out, const Attrs& a) {
  const double wd = a.get<double>("weight_decay"), momentum = a.get<double>("momentum"),
               alpha = a.get<double>("alpha");
  const bool centered = a.get<bool>("centered");
  check_floating(out[0], "rmsprop_update");
  DeviceGuard guard(out[0].device());
  std::vector<Tensor> in = contiguous_all(in_);
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::floating_point<T>) {
      const T w = T(1 - alpha);
      RMSpropArgs<T> c;
      // Operands in a fixed layout: absent ones null.
      c.in[0] = in[0].data<T>();
      c.in[1] = in[1].data<T>();
      c.in[2] = in[2].data<T>();
      c.out[0] = out[0].data<T>();
      c.out[1] = out[1].data<T>();
      size_t k = 3;
      if (centered) c.in[3] = in[k].data<T>(), c.out[2] = out[k - 1].data<T>(), ++k;
      if (momentum > 0) c.in[4] = in[k].data<T>(), c.out[3] = out[k - 1].data<T>();
      c.sign = T(a.get<bool>("maximize") ? -1 : 1);
      c.l2 = T(wd);
      c.alpha = T(alpha);
      c.one_minus_alpha = w;
      c.w_minus_1 = T(w - T(1));
      c.eps = T(a.get<double>("eps"));
      c.momentum = T(momentum);
      c.neg_lr = T(-a.get<double>("lr"));
      c.l2_on = wd != 0;
      c.centered = centered;
      c.small_weight = std::abs(w) < T(0.5);
      c.use_momentum = momentum > 0;
      c.n = out[0].numel();
      check_launch(launch_rmsprop_update(c), "rmsprop_update");
    }
  });
}
SPIRE_REGISTER_KERNEL("rmsprop_update", DeviceKind::CUDA, rmsprop_update_kernel);

}  // namespace
}  // namespace spire::cuda
