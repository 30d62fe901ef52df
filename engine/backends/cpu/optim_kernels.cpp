// CPU kernels of the fused optimizer updates (ops/optim_update.h: Adam/AdamW, SGD, RMSprop): one
// pass over the parameter, its gradient and its state, in fixed chunks (flat_for) so results do
// not depend on the thread count. Each element is computed operation for operation as PyTorch's
// CPU kernels compute it, coefficients rounded to the element type first: where PyTorch's
// vectorised kernels fuse a multiply-add (lerp, add with alpha, addcmul) the loops call std::fma,
// and everywhere else they round every product; the loops are compiled with floating-point
// contraction off so that the compiler fuses nothing else. Adam and SGD then give PyTorch's bits
// (checked over 20 steps, float32 and float64) except where PyTorch's float32 sqrt is not
// correctly rounded (1 ulp off on about 1% of entries with AVX-512); std::sqrt is.
#include <cmath>
#include <concepts>

#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"
#include "engine/ops/optim_update.h"
#include "engine/ops/shape.h"

namespace spire::cpu {
namespace {

template <class T>
struct AdamCoeffs {
  T sign, decay, l2, w, w_minus_1, beta2, one_minus_beta2, bias_correction2_sqrt, eps, neg_step_size;
};

// Pointers to one chunk's operands: in[0..4] = param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq;
// out[0..3] = their updated values (no grad).
template <class T>
struct AdamOperands {
  const T* in[5];
  T* out[4];
};

// kL2: coupled weight decay; kSmallWeight: |1 - beta1| < 0.5, PyTorch's lerp form
// m + w (g - m), else g - (g - m)(1 - w). Non-inlined: the contraction setting is per function.
template <class T, bool kL2, bool kSmallWeight, bool kAmsgrad>
[[gnu::noinline]] __attribute__((optimize("fp-contract=off"))) void adam_chunk(const AdamOperands<T>& o,
                                                                                const AdamCoeffs<T> c,
                                                                                int64_t lo, int64_t hi) {
  const T *p_in = o.in[0], *g_in = o.in[1], *m_in = o.in[2], *v_in = o.in[3], *vmax_in = o.in[4];
  T *p_out = o.out[0], *m_out = o.out[1], *v_out = o.out[2], *vmax_out = o.out[3];
#pragma omp simd
  for (int64_t i = lo; i < hi; ++i) {
    T g = g_in[i] * c.sign;  // exact: the sign is +-1
    T p = p_in[i];
    if constexpr (kL2) g = std::fma(p, c.l2, g);  // grad.add(param, alpha=weight_decay)
    p = p * c.decay;                              // param.mul_(1 - lr weight_decay), or 1
    T m = m_in[i];
    T d = g - m;
    if constexpr (kSmallWeight) m = std::fma(c.w, d, m);  // exp_avg.lerp_(grad, 1 - beta1)
    else m = std::fma(c.w_minus_1, d, g);
    // exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2): PyTorch's addcmul rounds
    // value * grad and fuses the rest.
    T v = v_in[i] * c.beta2;
    v = std::fma(c.one_minus_beta2 * g, g, v);
    T vv = v;
    if constexpr (kAmsgrad) {  // torch.maximum: NaN in either gives NaN
      T a = vmax_in[i];
      vv = (a > v || a != a) ? a : v;
      vmax_out[i] = vv;
    }
    T denom = std::sqrt(vv) / c.bias_correction2_sqrt;  // (sqrt(v) / bias_correction2_sqrt).add_(eps)
    denom = denom + c.eps;
    T step = c.neg_step_size * m;  // param.addcdiv_(exp_avg, denom, value=-step_size)
    step = step / denom;
    p_out[i] = p + step;
    m_out[i] = m;
    v_out[i] = v;
  }
}

template <class T, bool kL2, bool kSmallWeight, bool kAmsgrad>
void adam_run(const AdamOperands<T>& o, const AdamCoeffs<T>& c, int64_t n) {
  flat_for(n, [&](int64_t lo, int64_t hi) { adam_chunk<T, kL2, kSmallWeight, kAmsgrad>(o, c, lo, hi); });
}

template <class T, bool kL2>
void adam_dispatch(const AdamOperands<T>& o, const AdamCoeffs<T>& c, bool small, bool amsgrad, int64_t n) {
  if (small) amsgrad ? adam_run<T, kL2, true, true>(o, c, n) : adam_run<T, kL2, true, false>(o, c, n);
  else amsgrad ? adam_run<T, kL2, false, true>(o, c, n) : adam_run<T, kL2, false, false>(o, c, n);
}

void adam_update_kernel(const std::vector<Tensor>& in_, std::vector<Tensor>& out, const Attrs& a) {
  const AdamStep s = adam_step(a);
  const double lr = s.h.lr, beta2 = s.h.beta2, eps = s.h.eps, wd = s.h.weight_decay;
  const bool decoupled = s.h.decoupled, amsgrad = s.h.amsgrad;
  const double step_size = s.step_size, bias_correction2_sqrt = s.bias_correction2_sqrt, w = s.one_minus_beta1;
  std::vector<Tensor> in;
  for (const Tensor& t : in_) in.push_back(contiguous(t));
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::floating_point<T>) {
      // Each coefficient rounded to T, as PyTorch's kernels take a Python number (its opmath type
      // for float32 and float64 is the element type).
      AdamCoeffs<T> c{.sign = T(a.get<bool>("maximize") ? -1 : 1),
                      .decay = T(decoupled && wd != 0 ? 1 - lr * wd : 1),
                      .l2 = T(wd),
                      .w = T(w),
                      .w_minus_1 = T(T(w) - T(1)),
                      .beta2 = T(beta2),
                      .one_minus_beta2 = T(1 - beta2),
                      .bias_correction2_sqrt = T(bias_correction2_sqrt),
                      .eps = T(eps),
                      .neg_step_size = T(-step_size)};
      AdamOperands<T> o{};
      for (size_t i = 0; i < in.size(); ++i) o.in[i] = in[i].data<T>();
      for (size_t i = 0; i < out.size(); ++i) o.out[i] = out[i].data<T>();
      const bool small = std::abs(T(w)) < T(0.5);  // PyTorch's is_lerp_weight_small, on the rounded weight
      if (!decoupled && wd != 0) adam_dispatch<T, true>(o, c, small, amsgrad, out[0].numel());
      else adam_dispatch<T, false>(o, c, small, amsgrad, out[0].numel());
    }
  });
}
SPIRE_REGISTER_KERNEL("adam_update", DeviceKind::CPU, adam_update_kernel);

template <class T>
struct SGDCoeffs {
  T sign, l2, momentum, one_minus_dampening, neg_lr;
};

// in: param, grad[, momentum_buffer]; out: param[, momentum_buffer]. kMomentum without kBuffer is
// the first step, where the buffer starts at the (decayed) gradient.
template <class T, bool kL2, bool kMomentum, bool kBuffer, bool kNesterov>
[[gnu::noinline]] __attribute__((optimize("fp-contract=off"))) void sgd_chunk(const T* const* in, T* const* out,
                                                                               const SGDCoeffs<T> c, int64_t lo,
                                                                               int64_t hi) {
  const T *p_in = in[0], *g_in = in[1], *b_in = in[2];
  T *p_out = out[0], *b_out = out[1];
#pragma omp simd
  for (int64_t i = lo; i < hi; ++i) {
    T p = p_in[i];
    T g = g_in[i] * c.sign;
    if constexpr (kL2) g = std::fma(p, c.l2, g);  // grad.add(param, alpha=weight_decay)
    if constexpr (kMomentum) {
      T b = g;  // buf = grad.clone() on the first step
      if constexpr (kBuffer) {
        b = b_in[i] * c.momentum;  // buf.mul_(momentum).add_(grad, alpha=1 - dampening)
        b = std::fma(g, c.one_minus_dampening, b);
      }
      b_out[i] = b;
      if constexpr (kNesterov) g = std::fma(b, c.momentum, g);  // grad.add(buf, alpha=momentum)
      else g = b;
    }
    p_out[i] = std::fma(g, c.neg_lr, p);  // param.add_(grad, alpha=-lr)
  }
}

template <class T, bool kL2, bool kMomentum, bool kBuffer, bool kNesterov>
void sgd_run(const T* const* in, T* const* out, const SGDCoeffs<T>& c, int64_t n) {
  flat_for(n, [&](int64_t lo, int64_t hi) { sgd_chunk<T, kL2, kMomentum, kBuffer, kNesterov>(in, out, c, lo, hi); });
}

template <class T, bool kL2>
void sgd_dispatch(const T* const* in, T* const* out, const SGDCoeffs<T>& c, bool momentum, bool buffer,
                  bool nesterov, int64_t n) {
  if (!momentum) return sgd_run<T, kL2, false, false, false>(in, out, c, n);
  if (buffer && nesterov) sgd_run<T, kL2, true, true, true>(in, out, c, n);
  else if (buffer) sgd_run<T, kL2, true, true, false>(in, out, c, n);
  else if (nesterov) sgd_run<T, kL2, true, false, true>(in, out, c, n);
  else sgd_run<T, kL2, true, false, false>(in, out, c, n);
}

void sgd_update_kernel(const std::vector<Tensor>& in_, std::vector<Tensor>& out, const Attrs& a) {
  const double wd = a.get<double>("weight_decay"), momentum = a.get<double>("momentum");
  const bool buffer = a.get<bool>("has_buffer"), nesterov = a.get<bool>("nesterov");
  std::vector<Tensor> in;
  for (const Tensor& t : in_) in.push_back(contiguous(t));
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::floating_point<T>) {
      SGDCoeffs<T> c{.sign = T(a.get<bool>("maximize") ? -1 : 1),
                     .l2 = T(wd),
                     .momentum = T(momentum),
                     .one_minus_dampening = T(1 - a.get<double>("dampening")),
                     .neg_lr = T(-a.get<double>("lr"))};
      const T* ip[3] = {in[0].data<T>(), in[1].data<T>(), buffer ? in[2].data<T>() : nullptr};
      T* op[2] = {out[0].data<T>(), out.size() > 1 ? out[1].data<T>() : nullptr};
      if (wd != 0) sgd_dispatch<T, true>(ip, op, c, momentum != 0, buffer, nesterov, out[0].numel());
      else sgd_dispatch<T, false>(ip, op, c, momentum != 0, buffer, nesterov, out[0].numel());
    }
  });
}
SPIRE_REGISTER_KERNEL("sgd_update", DeviceKind::CPU, sgd_update_kernel);

template <class T>
struct RMSpropCoeffs {
  T sign, l2, alpha, one_minus_alpha, w_minus_1, eps, momentum, neg_lr;
};

// in: param, grad, square_avg, grad_avg, momentum_buffer (null where absent); out likewise less grad.
template <class T, bool kL2, bool kCentered, bool kSmallWeight, bool kMomentum>
[[gnu::noinline]] __attribute__((optimize("fp-contract=off"))) void rmsprop_chunk(const T* const* in,
                                                                                   T* const* out,
                                                                                   const RMSpropCoeffs<T> c,
                                                                                   int64_t lo, int64_t hi) {
  const T *p_in = in[0], *g_in = in[1], *s_in = in[2], *a_in = in[3], *b_in = in[4];
  T *p_out = out[0], *s_out = out[1], *a_out = out[2], *b_out = out[3];
#pragma omp simd
  for (int64_t i = lo; i < hi; ++i) {
    T p = p_in[i];
    T g = g_in[i] * c.sign;
    if constexpr (kL2) g = std::fma(p, c.l2, g);  // grad.add(param, alpha=weight_decay)
    T s = s_in[i] * c.alpha;                      // square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
    s = std::fma(c.one_minus_alpha * g, g, s);
    s_out[i] = s;
    T avg;
    if constexpr (kCentered) {
      T a = a_in[i];
      T d = g - a;  // grad_avg.lerp_(grad, 1 - alpha)
      if constexpr (kSmallWeight) a = std::fma(c.one_minus_alpha, d, a);
      else a = std::fma(c.w_minus_1, d, g);
      a_out[i] = a;
      avg = std::sqrt(std::fma(-a, a, s));  // square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
    } else {
      avg = std::sqrt(s);
    }
    avg = avg + c.eps;
    if constexpr (kMomentum) {
      T b = b_in[i] * c.momentum;  // buf.mul_(momentum).addcdiv_(grad, avg)
      b = b + g / avg;
      b_out[i] = b;
      p_out[i] = std::fma(b, c.neg_lr, p);  // param.add_(buf, alpha=-lr)
    } else {
      T step = c.neg_lr * g;  // param.addcdiv_(grad, avg, value=-lr)
      p_out[i] = p + step / avg;
    }
  }
}

template <class T, bool kL2, bool kCentered, bool kSmallWeight, bool kMomentum>
void rmsprop_run(const T* const* in, T* const* out, const RMSpropCoeffs<T>& c, int64_t n) {
  flat_for(n, [&](int64_t lo, int64_t hi) {
    rmsprop_chunk<T, kL2, kCentered, kSmallWeight, kMomentum>(in, out, c, lo, hi);
  });
}

template <class T, bool kL2, bool kMomentum>
void rmsprop_dispatch(const T* const* in, T* const* out, const RMSpropCoeffs<T>& c, bool centered, bool small,
                      int64_t n) {
  if (!centered) rmsprop_run<T, kL2, false, true, kMomentum>(in, out, c, n);
  else if (small) rmsprop_run<T, kL2, true, true, kMomentum>(in, out, c, n);
  else rmsprop_run<T, kL2, true, false, kMomentum>(in, out, c, n);
}

void rmsprop_update_kernel(const std::vector<Tensor>& in_, std::vector<Tensor>& out, const Attrs& a) {
  const double wd = a.get<double>("weight_decay"), momentum = a.get<double>("momentum"), alpha = a.get<double>("alpha");
  const bool centered = a.get<bool>("centered");
  std::vector<Tensor> in;
  for (const Tensor& t : in_) in.push_back(contiguous(t));
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::floating_point<T>) {
      const T w = T(1 - alpha);
      RMSpropCoeffs<T> c{.sign = T(a.get<bool>("maximize") ? -1 : 1),
                         .l2 = T(wd),
                         .alpha = T(alpha),
                         .one_minus_alpha = w,
                         .w_minus_1 = T(w - T(1)),
                         .eps = T(a.get<double>("eps")),
                         .momentum = T(momentum),
                         .neg_lr = T(-a.get<double>("lr"))};
      // Operands in a fixed layout: absent ones null.
      const T* ip[5] = {in[0].data<T>(), in[1].data<T>(), in[2].data<T>(), nullptr, nullptr};
      T* op[4] = {out[0].data<T>(), out[1].data<T>(), nullptr, nullptr};
      size_t k = 3;
      if (centered) ip[3] = in[k].data<T>(), op[2] = out[k - 1].data<T>(), ++k;
      if (momentum > 0) ip[4] = in[k].data<T>(), op[3] = out[k - 1].data<T>();
      const bool small = std::abs(w) < T(0.5);
      const int64_t n = out[0].numel();
      if (wd != 0) {
        momentum > 0 ? rmsprop_dispatch<T, true, true>(ip, op, c, centered, small, n)
                     : rmsprop_dispatch<T, true, false>(ip, op, c, centered, small, n);
      } else {
        momentum > 0 ? rmsprop_dispatch<T, false, true>(ip, op, c, centered, small, n)
                     : rmsprop_dispatch<T, false, false>(ip, op, c, centered, small, n);
      }
    }
  });
}
SPIRE_REGISTER_KERNEL("rmsprop_update", DeviceKind::CPU, rmsprop_update_kernel);

}  // namespace
}  // namespace spire::cpu
