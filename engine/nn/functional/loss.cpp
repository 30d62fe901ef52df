#include "engine/nn/functional/loss.h"

#include <cmath>

#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::nn::functional {
namespace {

Tensor reduce(const Tensor& loss, Reduction r) {
  switch (r) {
    case Reduction::Mean: return mean(loss);
    case Reduction::Sum: return sum(loss);
    case Reduction::None: return loss;
  }
  return loss;
}

void check_pair(const Tensor& input, const Tensor& target, const char* loss) {
  SPIRE_CHECK(input.defined() && target.defined(), ValueError, loss, ": input and target must be defined tensors");
  SPIRE_CHECK(input.shape() == target.shape(), ShapeError, loss, ": input has shape ", shape_str(input.shape()),
              " but target has shape ", shape_str(target.shape()),
              "; they must match (broadcasting them is almost always a bug: reshape one)");
  SPIRE_CHECK(is_floating(input.dtype()), DTypeError, loss, ": input must be float32 or float64, got ",
              name(input.dtype()));
}

// ||x||_p along axis 1 of a [N, M] tensor.
Tensor row_norm(const Tensor& x, double p) {
  if (p == 2) return sqrt(sum(square(x), {1}));
  if (p == 1) return sum(abs(x), {1});
  return pow(sum(pow(abs(x), Scalar(p)), {1}), Scalar(1 / p));
}

}  // namespace

Reduction parse_reduction(const std::string& name, const char* loss) {
  if (name == "mean") return Reduction::Mean;
  if (name == "sum") return Reduction::Sum;
  if (name == "none") return Reduction::None;
  SPIRE_CHECK(false, ValueError, loss, ": reduction must be 'mean', 'sum' or 'none', got '", name, "'");
  return Reduction::Mean;
}

Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  check_pair(input, target, "mse_loss");
  return reduce(square(sub(input, target)), reduction);
}

Tensor l1_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  check_pair(input, target, "l1_loss");
  return reduce(abs(sub(input, target)), reduction);
}

Tensor huber_loss(const Tensor& input, const Tensor& target, Reduction reduction, double delta) {
  check_pair(input, target, "huber_loss");
  SPIRE_CHECK(delta > 0, ValueError, "huber_loss: delta must be > 0, got ", delta);
  Tensor d = sub(input, target), a = abs(d);
  Tensor loss = where(lt(a, Scalar(delta)), mul(square(d), 0.5), mul(sub(a, 0.5 * delta), delta));
  return reduce(loss, reduction);
}

Tensor relative_l2_loss(const Tensor& pred, const Tensor& target, Reduction reduction, double p) {
  check_pair(pred, target, "relative_l2_loss");
  SPIRE_CHECK(pred.dim() >= 1, ShapeError, "relative_l2_loss: inputs need a batch axis first, got a 0-d tensor");
  SPIRE_CHECK(p > 0, ValueError, "relative_l2_loss: p must be > 0, got ", p);
  int64_t n = pred.shape(0);
  Tensor x = reshape(pred, {n, -1}), y = reshape(target, {n, -1});
  Tensor ratio = div(row_norm(sub(x, y), p), row_norm(y, p));
  return reduce(ratio, reduction);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& o) {
  SPIRE_CHECK(input.defined() && target.defined(), ValueError, "cross_entropy: input and target must be defined");
  SPIRE_CHECK(input.dim() >= 1, ShapeError, "cross_entropy: input must be [C] or [N, C, d1, ...] logits, got a 0-d tensor");
  SPIRE_CHECK(is_floating(input.dtype()), DTypeError, "cross_entropy: input (logits) must be float32 or float64, got ",
              name(input.dtype()));
  SPIRE_CHECK(o.label_smoothing >= 0 && o.label_smoothing <= 1, ValueError,
              "cross_entropy: label_smoothing must be in [0, 1], got ", o.label_smoothing);
  const int64_t axis = input.dim() == 1 ? 0 : 1, C = input.shape(axis);
  const double eps = o.label_smoothing;
  Tensor logp = sub(input, logsumexp(input, {axis}, true));  // log_softmax, stable
  // The weights shaped to broadcast along the class axis: [C] or [1, C, 1, ...].
  Tensor w, w_b;
  if (o.weight.defined()) {
    SPIRE_CHECK(o.weight.shape() == Shape{C}, ShapeError, "cross_entropy: weight must have shape [", C,
                "] (one per class), got ", shape_str(o.weight.shape()));
    w = cast(o.weight, input.dtype());
    Shape s(size_t(input.dim()), 1);
    s[size_t(axis)] = C;
    w_b = reshape(w, s);
  }

  if (is_floating(target.dtype())) {  // class probabilities
    SPIRE_CHECK(target.shape() == input.shape(), ShapeError, "cross_entropy: probability targets must have input's shape ",
                shape_str(input.shape()), ", got ", shape_str(target.shape()));
    Tensor q = cast(target, input.dtype());
    if (eps > 0) q = add(mul(q, 1 - eps), eps / double(C));
    Tensor term = mul(logp, q);
    if (w_b.defined()) term = mul(term, w_b);
    Tensor loss = neg(sum(term, {axis}));
    if (o.reduction == Reduction::Mean) return div(sum(loss), double(input.numel() / C));
    return reduce(loss, o.reduction);
  }

  SPIRE_CHECK(is_integral(target.dtype()), DTypeError,
              "cross_entropy: target must hold class indices (an integer tensor) or class probabilities (a floating "
              "tensor), got ", name(target.dtype()));
  Shape want = input.shape();
  want.erase(want.begin() + axis);
  SPIRE_CHECK(target.shape() == want, ShapeError, "cross_entropy: class-index targets for input of shape ",
              shape_str(input.shape()), " must have shape ", shape_str(want), ", got ", shape_str(target.shape()));
  Tensor keep = ne(target, Scalar(o.ignore_index));
  Tensor safe = where(keep, cast(target, DType::Int64), Scalar(int64_t(0)));
  Tensor keep_f = cast(keep, input.dtype());
  Tensor picked = squeeze(take_along_axis(logp, unsqueeze(safe, axis), axis), {axis});
  // The weight of each target, zero where ignored.
  Tensor w_n = w.defined() ? mul(reshape(index_select(w, 0, reshape(safe, {-1})), safe.shape()), keep_f) : keep_f;
  Tensor nll = neg(mul(picked, w_n));
  auto reduce_by_weight = [&](const Tensor& loss) {
    return o.reduction == Reduction::Mean ? div(sum(loss), sum(w_n)) : reduce(loss, o.reduction);
  };
  Tensor out = reduce_by_weight(nll);
  if (eps == 0) return out;
  Tensor smooth = neg(sum(w_b.defined() ? mul(logp, w_b) : logp, {axis}));
  smooth = mul(smooth, keep_f);
  return add(mul(out, 1 - eps), mul(reduce_by_weight(smooth), eps / double(C)));
}

Tensor binary_cross_entropy(const Tensor& input, const Tensor& target, const Tensor& weight, Reduction reduction) {
  check_pair(input, target, "binary_cross_entropy");
  Tensor y = cast(target, input.dtype());
  Tensor log_x = clamp_min(log(input), -100.0), log_1mx = clamp_min(log(sub(scalar_like(input, 1.0), input)), -100.0);
  Tensor loss = neg(add(mul(y, log_x), mul(sub(scalar_like(y, 1.0), y), log_1mx)));
  if (weight.defined()) loss = mul(loss, cast(weight, input.dtype()));
  return reduce(loss, reduction);
}

Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, const Tensor& weight,
                                        const Tensor& pos_weight, Reduction reduction) {
  check_pair(input, target, "binary_cross_entropy_with_logits");
  Tensor y = cast(target, input.dtype());
  // softplus(-x) = -log sigmoid(x), computed without overflow for any x.
  Tensor sp = softplus(neg(input));
  Tensor log_weight = pos_weight.defined() ? add(mul(sub(cast(pos_weight, input.dtype()), 1.0), y), 1.0) : Tensor();
  Tensor loss = add(mul(sub(scalar_like(y, 1.0), y), input), log_weight.defined() ? mul(log_weight, sp) : sp);
  if (weight.defined()) loss = mul(loss, cast(weight, input.dtype()));
  return reduce(loss, reduction);
}

}  // namespace spire::nn::functional
