#include "engine/nn/functional/normalization.h"

#include "engine/autodiff/mode.h"
#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::nn::functional {

namespace {

// weight [C] and bias [C] applied along axis 1 of a tensor of rank `ndim`.
Tensor channel_affine(Tensor y, const Tensor& weight, const Tensor& bias, int64_t ndim, const char* op) {
  Shape s(size_t(ndim), 1);
  s[1] = y.shape(1);
  for (const Tensor* t : {&weight, &bias})
    if (t->defined())
      SPIRE_CHECK(t->dim() == 1 && t->shape(0) == y.shape(1), ShapeError, op, ": weight and bias must be [",
                  y.shape(1), "], got ", shape_str(t->shape()));
  if (weight.defined()) y = y * reshape(weight, s);
  if (bias.defined()) y = y + reshape(bias, s);
  return y;
}

}  // namespace

Tensor layer_norm(const Tensor& x, const std::vector<int64_t>& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps) {
  int64_t k = int64_t(normalized_shape.size());
  SPIRE_CHECK(k >= 1 && x.dim() >= k, ShapeError, "layer_norm: input ", shape_str(x.shape()),
              " must end in normalized_shape ", shape_str(normalized_shape));
  Shape tail(x.shape().end() - k, x.shape().end());
  SPIRE_CHECK(tail == normalized_shape, ShapeError, "layer_norm: input ", shape_str(x.shape()),
              " must end in normalized_shape ", shape_str(normalized_shape));
  Axes axes;
  for (int64_t i = x.dim() - k; i < x.dim(); ++i) axes.push_back(i);
  Tensor mu = mean(x, axes, true), v = var(x, axes, 0, true);
  Tensor y = (x - mu) * rsqrt(v + eps);
  for (const Tensor* t : {&weight, &bias})
    if (t->defined())
      SPIRE_CHECK(t->shape() == normalized_shape, ShapeError, "layer_norm: weight and bias must have shape ",
                  shape_str(normalized_shape), ", got ", shape_str(t->shape()));
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return y;
}

Tensor batch_norm(const Tensor& x, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                  const Tensor& bias, bool training, double momentum, double eps) {
  SPIRE_CHECK(x.dim() >= 2, ShapeError, "batch_norm: input must be [N, C, *], got ", shape_str(x.shape()));
  int64_t C = x.shape(1);
  Axes axes{0};
  for (int64_t i = 2; i < x.dim(); ++i) axes.push_back(i);
  Shape s(size_t(x.dim()), 1);
  s[1] = C;
  bool have_running = running_mean.defined() && running_var.defined();
  for (const Tensor* t : {&running_mean, &running_var})
    if (t->defined())
      SPIRE_CHECK(t->dim() == 1 && t->shape(0) == C, ShapeError, "batch_norm: running statistics must be [", C,
                  "], got ", shape_str(t->shape()));
  Tensor y;
  if (training || !have_running) {
    int64_t count = x.numel() / std::max<int64_t>(C, 1);
    SPIRE_CHECK(!training || count > 1, ValueError, "batch_norm: expected more than 1 value per channel when "
                "training, got input ", shape_str(x.shape()));
    Tensor mu = mean(x, axes, true), v = var(x, axes, 0, true);
    y = (x - mu) * rsqrt(v + eps);
    if (training && have_running) {
      NoGradGuard no_grad;
      Tensor bm = reshape(mu.detach(), {C}), bv = reshape(v.detach(), {C}) * (double(count) / double(count - 1));
      Tensor rm = running_mean, rv = running_var;  // handles: set_data rebinds the shared tensors
      rm.set_data(cast(running_mean * (1.0 - momentum) + cast(bm, running_mean.dtype()) * momentum,
                                 running_mean.dtype()));
      rv.set_data(cast(running_var * (1.0 - momentum) + cast(bv, running_var.dtype()) * momentum,
                                running_var.dtype()));
    }
  } else {
    y = (x - reshape(running_mean, s)) * rsqrt(reshape(running_var, s) + eps);
  }
  return channel_affine(y, weight, bias, x.dim(), "batch_norm");
}

Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight, const Tensor& bias, double eps) {
  SPIRE_CHECK(x.dim() >= 2, ShapeError, "group_norm: input must be [N, C, *], got ", shape_str(x.shape()));
  int64_t N = x.shape(0), C = x.shape(1);
  SPIRE_CHECK(num_groups >= 1 && C % num_groups == 0, ValueError, "group_norm: num_groups (", num_groups,
              ") must divide the number of channels (", C, ")");
  Tensor g = reshape(x, {N, num_groups, -1});
  Tensor mu = mean(g, {2}, true), v = var(g, {2}, 0, true);
  Tensor y = reshape((g - mu) * rsqrt(v + eps), x.shape());
  return channel_affine(y, weight, bias, x.dim(), "group_norm");
}

}  // namespace spire::nn::functional
