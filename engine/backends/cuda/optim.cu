// The fused optimizer updates on the GPU: one pass over a parameter, its gradient and its state.
// Each element follows the CPU kernel (backends/cpu/optim_kernels.cpp) operation for operation:
// the CPU rounds every operation and fuses a multiply-add only where it calls std::fma, so here
// every operation is an explicitly rounded intrinsic (__fmul_rn, __fadd_rn, ...), which nvcc never
// contracts into an fma, and the CPU's fmas are explicit fmas. Division and square root are the
// correctly rounded ones, as std::sqrt and '/' are. Same inputs, same bits as the CPU.
//
// A kernel of its own rather than launch_map: an update writes up to four outputs.
#include <cmath>

#include "engine/backends/cuda/kernel_abi.h"
#include "engine/backends/cuda/optim.h"

namespace spire::cuda {
namespace {

// Rounded operations (T is float or double). On the host, where tests run the per-element
// functions against the CPU kernels, the plain operators (not contracted by the host compiler at
// the x86-64 baseline) and std::fma.
template <class T>
SPIRE_HD __forceinline__ T mul(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) return __fmul_rn(a, b);
  else return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
template <class T>
SPIRE_HD __forceinline__ T add(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) return __fadd_rn(a, b);
  else return __dadd_rn(a, b);
#else
  return a + b;
#endif
}
template <class T>
SPIRE_HD __forceinline__ T sub(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) return __fsub_rn(a, b);
  else return __dsub_rn(a, b);
#else
  return a - b;
#endif
}
template <class T>
SPIRE_HD __forceinline__ T div(T a, T b) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) return __fdiv_rn(a, b);
  else return __ddiv_rn(a, b);
#else
  return a / b;
#endif
}
template <class T>
SPIRE_HD __forceinline__ T sqrt_rn(T a) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) return __fsqrt_rn(a);
  else return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
template <class T>
SPIRE_HD __forceinline__ T fma_rn(T a, T b, T c) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == 4) return __fmaf_rn(a, b, c);
  else return __fma_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

// Element i of an Adam/AdamW step (the CPU's adam_chunk).
template <class T>
SPIRE_HD __forceinline__ void adam_at(const AdamArgs<T>& c, int64_t i) {
  T g = mul(c.in[1][i], c.sign);  // exact: the sign is +-1
  T p = c.in[0][i];
  if (c.coupled_l2) g = fma_rn(p, c.l2, g);  // grad.add(param, alpha=weight_decay)
  p = mul(p, c.decay);                       // param.mul_(1 - lr weight_decay), or 1
  T m = c.in[2][i];
  T d = sub(g, m);
  m = c.small_weight ? fma_rn(c.w, d, m) : fma_rn(c.w_minus_1, d, g);  // exp_avg.lerp_(grad, 1 - beta1)
  // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
  T v = mul(c.in[3][i], c.beta2);
  v = fma_rn(mul(c.one_minus_beta2, g), g, v);
  T vv = v;
  if (c.amsgrad) {  // torch.maximum: NaN in either gives NaN
    T a = c.in[4][i];
    vv = (a > v || a != a) ? a : v;
    c.out[3][i] = vv;
  }
  T denom = div(sqrt_rn(vv), c.bias_correction2_sqrt);  // (sqrt(v) / bias_correction2_sqrt).add_(eps)
  denom = add(denom, c.eps);
  T step = mul(c.neg_step_size, m);  // param.addcdiv_(exp_avg, denom, value=-step_size)
  step = div(step, denom);
  c.out[0][i] = add(p, step);
  c.out[1][i] = m;
  c.out[2][i] = v;
}

template <class T>
__global__ void __launch_bounds__(kThreads) adam_kernel(const AdamArgs<T> c) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < c.n; i += int64_t(gridDim.x) * blockDim.x)
    adam_at(c, i);
}

// Element i of an SGD step (the CPU's sgd_chunk).
template <class T>
SPIRE_HD __forceinline__ void sgd_at(const SGDArgs<T>& c, int64_t i) {
  T p = c.in[0][i];
  T g = mul(c.in[1][i], c.sign);
  if (c.l2_on) g = fma_rn(p, c.l2, g);  // grad.add(param, alpha=weight_decay)
  if (c.use_momentum) {
    T b = g;  // buf = grad.clone() on the first step
    if (c.has_buffer) {
      b = mul(c.in[2][i], c.momentum);  // buf.mul_(momentum).add_(grad, alpha=1 - dampening)
      b = fma_rn(g, c.one_minus_dampening, b);
    }
    c.out[1][i] = b;
    g = c.nesterov ? fma_rn(b, c.momentum, g) : b;  // grad.add(buf, alpha=momentum), or buf
  }
  c.out[0][i] = fma_rn(g, c.neg_lr, p);  // param.add_(grad, alpha=-lr)
}

template <class T>
__global__ void __launch_bounds__(kThreads) sgd_kernel(const SGDArgs<T> c) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < c.n; i += int64_t(gridDim.x) * blockDim.x)
    sgd_at(c, i);
}

// Element i of an RMSprop step (the CPU's rmsprop_chunk).
template <class T>
SPIRE_HD __forceinline__ void rmsprop_at(const RMSpropArgs<T>& c, int64_t i) {
  T p = c.in[0][i];
  T g = mul(c.in[1][i], c.sign);
  if (c.l2_on) g = fma_rn(p, c.l2, g);  // grad.add(param, alpha=weight_decay)
  T s = mul(c.in[2][i], c.alpha);       // square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
  s = fma_rn(mul(c.one_minus_alpha, g), g, s);
  c.out[1][i] = s;
  T avg;
  if (c.centered) {
    T a = c.in[3][i];
    T d = sub(g, a);  // grad_avg.lerp_(grad, 1 - alpha)
    a = c.small_weight ? fma_rn(c.one_minus_alpha, d, a) : fma_rn(c.w_minus_1, d, g);
    c.out[2][i] = a;
    avg = sqrt_rn(fma_rn(-a, a, s));  // square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
  } else {
    avg = sqrt_rn(s);
  }
  avg = add(avg, c.eps);
  if (c.use_momentum) {
    T b = mul(c.in[4][i], c.momentum);  // buf.mul_(momentum).addcdiv_(grad, avg)
    b = add(b, div(g, avg));
    c.out[3][i] = b;
    c.out[0][i] = fma_rn(b, c.neg_lr, p);  // param.add_(buf, alpha=-lr)
  } else {
    T step = mul(c.neg_lr, g);  // param.addcdiv_(grad, avg, value=-lr)
    c.out[0][i] = add(p, div(step, avg));
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) rmsprop_kernel(const RMSpropArgs<T> c) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < c.n; i += int64_t(gridDim.x) * blockDim.x)
    rmsprop_at(c, i);
}

}  // namespace

// Each output element is written by one thread from its own inputs only, so the launch geometry
// changes nothing.
#define SPIRE_OPTIM_LAUNCHER(Name, Args, Kernel)                                          \
  cudaError_t Name(const Args& a) {                                                     \
    if (a.n <= 0) return cudaSuccess;                                                   \
    Kernel<<<blocks_for(a.n, 4), kThreads, 0, current_stream()>>>(a);                   \
    return cudaGetLastError();                                                          \
  }
SPIRE_OPTIM_LAUNCHER(launch_adam_update, AdamArgs<float>, adam_kernel<float>)
SPIRE_OPTIM_LAUNCHER(launch_adam_update, AdamArgs<double>, adam_kernel<double>)
SPIRE_OPTIM_LAUNCHER(launch_sgd_update, SGDArgs<float>, sgd_kernel<float>)
SPIRE_OPTIM_LAUNCHER(launch_sgd_update, SGDArgs<double>, sgd_kernel<double>)
SPIRE_OPTIM_LAUNCHER(launch_rmsprop_update, RMSpropArgs<float>, rmsprop_kernel<float>)
SPIRE_OPTIM_LAUNCHER(launch_rmsprop_update, RMSpropArgs<double>, rmsprop_kernel<double>)
#undef SPIRE_OPTIM_LAUNCHER

}  // namespace spire::cuda
