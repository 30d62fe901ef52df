// A custom op in a plugin: smooth_abs(x; eps) = sqrt(x^2 + eps^2), a differentiable |x|.
//
// The forward is a hand-written CPU kernel (the reason to write a custom op); the rules are written
// with engine ops, so the op takes part in every transform a built-in does: grad to any order,
// jvp, Taylor mode (jet, laplacian), vmap. Built with spire_add_custom_op() (CMakeLists.txt here)
// and loaded with spire::load_library(path) or spire.custom.load_library(path); called as
// spire::call(spire::op_def("example.smooth_abs"), {x}, {{"eps", 0.5}}) or
// spire.custom.call("example.smooth_abs", x, eps=0.5).
#include <cmath>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/core/op.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace {

using namespace spire;

// eps as a number whichever way it came (Python passes eps=1 as an integer).
double eps_of(const Attrs& a) {
  double eps = a.get_or<double>("eps", std::nan(""));
  if (std::isnan(eps)) eps = double(a.get_or<int64_t>("eps", 1));
  SPIRE_CHECK(eps > 0, ValueError, "example.smooth_abs: eps must be positive, got ", eps);
  return eps;
}

template <class T>
void smooth_abs_kernel(const Tensor& x, Tensor& y, double eps) {
  const T* in = x.data<T>();
  T* out = y.data<T>();
  const T e2 = T(eps * eps);
  const int64_t n = x.numel();
#pragma omp parallel for if (n > 65536)
  for (int64_t i = 0; i < n; ++i) out[i] = std::sqrt(in[i] * in[i] + e2);
}

// dy/dx = x / y.
Tensor slope(const Tensor& x, const Tensor& y) { return div(x, y); }

SPIRE_DEFINE_OP({
    .name = "example.smooth_abs",
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      SPIRE_CHECK(in[0].dtype() == DType::Float32 || in[0].dtype() == DType::Float64, DTypeError,
                  "example.smooth_abs: expected float32 or float64, got ", name(in[0].dtype()));
      eps_of(a);
      return {{in[0].shape(), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {mul(c.grads[0], slope(c.inputs[0], c.outputs[0]))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      if (!c.tangents[0].defined()) return {Tensor()};
      return {mul(c.tangents[0], slope(c.inputs[0], c.outputs[0]))};
    },
    // y = sqrt(x^2 + eps^2) as a composition of series.
    .taylor = [](const TaylorContext& c) -> std::vector<Series> {
      double eps = eps_of(c.attrs);
      jets::Jet x = jets::input(c, 0);
      jets::Jet s = jets::mul(x, x, add(square(x[0]), eps * eps));
      return {jets::tail(jets::sqrt(s, c.outputs[0]))};
    },
    .batch = batching::batch_elementwise,
    .pointwise = true,
    .samples = [] {
      return std::vector<OpSample>{{{rules::sample({3, 4}, -2, 2)}, {{"eps", 0.5}}, "3x4"},
                                   {{rules::sample({5}, -1, 1, 7)}, {{"eps", 2.0}}, "wide eps"}};
    },
});

SPIRE_REGISTER_KERNEL("example.smooth_abs", DeviceKind::CPU,
                      [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
                        Tensor x = contiguous(in[0].detach());  // kernels may get strided views
                        if (x.dtype() == DType::Float64) smooth_abs_kernel<double>(x, out[0], eps_of(a));
                        else smooth_abs_kernel<float>(x, out[0], eps_of(a));
                      });

}  // namespace
