#include "engine/distributions/categorical.h"

#include <limits>

#include "engine/autodiff/mode.h"
#include "engine/nn/functional/activation.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::distributions {
namespace {

// The parameter must be floating with a category axis that is not empty.
void check_param(const Tensor& t, const char* who) {
  SPIRE_CHECK(t.defined(), ValueError, "Categorical.", who, ": the tensor is undefined");
  SPIRE_CHECK(is_floating(t.dtype()), DTypeError, "Categorical.", who, ": expected float32 or float64, got ",
              name(t.dtype()));
  SPIRE_CHECK(t.dim() >= 1 && t.shape().back() >= 1, ShapeError, "Categorical.", who,
              ": expected at least one axis with at least one category, got shape ", shape_str(t.shape()));
}

double machine_eps(DType t) {
  return t == DType::Float32 ? double(std::numeric_limits<float>::epsilon())
                             : std::numeric_limits<double>::epsilon();
}
double lowest(DType t) {
  return t == DType::Float32 ? double(std::numeric_limits<float>::lowest()) : std::numeric_limits<double>::lowest();
}

}  // namespace

Categorical Categorical::from_logits(const Tensor& logits) {
  check_param(logits, "from_logits");
  Tensor normalised = logits - logsumexp(logits, {-1}, true);
  return Categorical(normalised, nn::functional::softmax(normalised, -1));
}

Categorical Categorical::from_probs(const Tensor& probs) {
  check_param(probs, "from_probs");
  // Values are only known outside vmap; inside it the check would need data that is not there.
  if (!probs.is_batched() && probs.numel() > 0) {
    NoGradGuard no_grad;
    SPIRE_CHECK(amin(probs).item<double>() >= 0, ValueError,
                "Categorical.from_probs: probabilities must be non-negative and not NaN");
  }
  Tensor p = probs / sum(probs, {-1}, true);
  // Clamped as PyTorch's probs_to_logits: probability 0 gets a finite (very negative) logit.
  double eps = machine_eps(p.dtype());
  return Categorical(log(clamp(p, eps, 1.0 - eps)), p);
}

Shape Categorical::batch_shape() const {
  const Shape& s = logits_.shape();
  return Shape(s.begin(), s.end() - 1);
}

Tensor Categorical::sample(const Shape& sample_shape, Generator& gen) const {
  NoGradGuard no_grad;
  Shape shape = sample_shape;
  shape.insert(shape.end(), logits_.shape().begin(), logits_.shape().end());
  // Gumbel-max: argmax(logits + G), G = -log(-log U), is exactly categorical. U in [0, 1) can be 0,
  // which gives G = -inf: that category just loses the draw, no NaN.
  Tensor u = uniform(shape, 0.0, 1.0, logits_.dtype(), gen);
  Tensor gumbel = -log(-log(u));
  return argmax(logits_.detach() + gumbel, -1);
}

Tensor Categorical::log_prob(const Tensor& value) const {
  SPIRE_CHECK(value.defined(), ValueError, "Categorical.log_prob: the value is undefined");
  SPIRE_CHECK(is_floating(value.dtype()) || is_integral(value.dtype()), DTypeError,
              "Categorical.log_prob: expected integer values, got ", name(value.dtype()));
  int64_t k = num_categories();
  // Checked in doubles before any cast, so that huge floats cannot overflow int64 first. Values are
  // only known outside vmap.
  if (!value.is_batched() && value.numel() > 0) {
    NoGradGuard no_grad;
    if (is_floating(value.dtype()))
      SPIRE_CHECK(amax(abs(value - round(value))).item<double>() == 0, ValueError,
                  "Categorical.log_prob: values must be whole numbers");
    // take_along_axis would read negative indices from the end; a category must lie in [0, K).
    double lo = amin(value).item<double>(), hi = amax(value).item<double>();
    SPIRE_CHECK(lo >= 0 && hi < double(k), ValueError, "Categorical.log_prob: values must lie in [0, ", k,
                "), got ", lo < 0 ? lo : hi);
  }
  Tensor index = is_floating(value.dtype()) ? cast(value.detach(), DType::Int64) : value;
  Shape batch = batch_shape();
  Shape shape = broadcast_shapes(index.shape(), batch, "Categorical.log_prob");
  Shape index_shape = shape, logits_shape = shape;
  index_shape.push_back(1);
  logits_shape.push_back(k);
  Tensor picked = take_along_axis(expand(logits_, logits_shape), expand(unsqueeze(index, -1), index_shape), -1);
  return squeeze(picked, {-1});
}

Tensor Categorical::entropy() const {
  // -inf logits (probability 0) would give 0 * -inf = NaN; clamped as PyTorch, they contribute 0.
  Tensor logits = clamp_min(logits_, lowest(logits_.dtype()));
  return -sum(logits * probs_, {-1});
}

Tensor Categorical::mode() const { return argmax(probs_, -1); }

}  // namespace spire::distributions
