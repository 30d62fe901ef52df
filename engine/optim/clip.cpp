#include "engine/optim/clip.h"

#include <cmath>

#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::optim {
namespace {

Tensor vector_norm(const Tensor& x, double p) {
  if (std::isinf(p)) return amax(abs(x));
  if (p == 2) return sqrt(sum(square(abs(x))));
  if (p == 1) return sum(abs(x));
  return pow(sum(pow(abs(x), Scalar(p))), Scalar(1 / p));
}

}  // namespace

Tensor clip_grad_norm_(const Tensors& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  SPIRE_CHECK(norm_type > 0, ValueError, "clip_grad_norm_: norm_type must be > 0 or inf, got ", norm_type);
  SPIRE_CHECK(max_norm >= 0, ValueError, "clip_grad_norm_: max_norm must be >= 0, got ", max_norm);
  NoGradGuard no_grad;
  Tensors grads;
  for (const Tensor& p : params)
    if (p.grad().defined()) grads.push_back(p.grad());
  if (grads.empty())
    return params.empty() ? scalar_tensor(Scalar(0.0), DType::Float32)
                          : scalar_tensor(Scalar(0.0), params[0].dtype(), params[0].device());
  Tensors norms;
  for (const Tensor& g : grads) norms.push_back(cast(vector_norm(g, norm_type), grads[0].dtype()));
  Tensor total = vector_norm(stack(norms), norm_type);
  double total_value = total.item<double>();
  SPIRE_CHECK(!error_if_nonfinite || std::isfinite(total_value), ValueError, "clip_grad_norm_: the total norm of order ",
              norm_type, " of the gradients is ", total_value,
              "; pass error_if_nonfinite=false to clip anyway (the gradients then become non-finite)");
  Tensor coef = clamp_max(div(scalar_like(total, max_norm), add(total, 1e-6)), 1.0);
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (g.defined()) Tensor(p).set_grad(mul(g, cast(coef, g.dtype())));  // a handle: sets p's grad
  }
  return total;
}

void clip_grad_value_(const Tensors& params, double clip_value) {
  SPIRE_CHECK(clip_value >= 0, ValueError, "clip_grad_value_: clip_value must be >= 0, got ", clip_value);
  NoGradGuard no_grad;
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (g.defined()) Tensor(p).set_grad(clamp(g, -clip_value, clip_value));
  }
}

}  // namespace spire::optim
