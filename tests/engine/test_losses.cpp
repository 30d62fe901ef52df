// Losses against PyTorch's definitions written out by hand in plain doubles, their gradients
// against central finite differences, and the errors for mismatched inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/autodiff/functional.h"
#include "engine/nn/functional/loss.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

using namespace spire;
namespace F = spire::nn::functional;
using Vec = std::vector<double>;
using F::Reduction;

namespace {

Tensor t(const Vec& v, Shape s) { return from_vector<double>(v, s); }
double val(const Tensor& x) { return x.item<double>(); }

const Vec kX{0.3, -1.2, 2.5, 0.1, -0.4, 1.7}, kY{0.0, -1.0, 0.5, 0.2, 1.0, 1.6};

// The gradient of f at x by central differences.
Vec numeric_grad(const std::function<double(const Vec&)>& f, Vec x, double h = 1e-6) {
  Vec g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double xi = x[i];
    x[i] = xi + h;
    double fp = f(x);
    x[i] = xi - h;
    double fm = f(x);
    x[i] = xi;
    g[i] = (fp - fm) / (2 * h);
  }
  return g;
}

void expect_grad_matches(const std::function<Tensor(const Tensor&)>& loss, const Vec& x0, Shape shape) {
  Tensor x = t(x0, shape);
  x.set_requires_grad();
  loss(x).backward();
  Vec got = x.grad().to_vector();
  Vec want = numeric_grad([&](const Vec& v) { return val(loss(t(v, shape))); }, x0);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-7) << "at " << i;
}

}  // namespace

TEST(Losses, RegressionLossesMatchTheirDefinitions) {
  Tensor x = t(kX, {2, 3}), y = t(kY, {2, 3});
  double mse = 0, l1 = 0, huber = 0;
  for (size_t i = 0; i < kX.size(); ++i) {
    double d = kX[i] - kY[i];
    mse += d * d, l1 += std::abs(d);
    huber += std::abs(d) < 0.5 ? 0.5 * d * d : 0.5 * (std::abs(d) - 0.25);
  }
  EXPECT_NEAR(val(F::mse_loss(x, y)), mse / 6, 1e-15);
  EXPECT_NEAR(val(F::mse_loss(x, y, Reduction::Sum)), mse, 1e-14);
  EXPECT_EQ(F::mse_loss(x, y, Reduction::None).shape(), (Shape{2, 3}));
  EXPECT_NEAR(val(F::l1_loss(x, y)), l1 / 6, 1e-15);
  EXPECT_NEAR(val(F::huber_loss(x, y, Reduction::Sum, 0.5)), huber, 1e-14);
  Vec none = F::huber_loss(x, y, Reduction::None).to_vector();  // delta = 1, the default
  for (size_t i = 0; i < kX.size(); ++i) {
    double d = std::abs(kX[i] - kY[i]);
    EXPECT_NEAR(none[i], d < 1 ? 0.5 * d * d : d - 0.5, 1e-15);
  }
  EXPECT_THROW(F::mse_loss(x, t(kY, {6})), ShapeError);
  EXPECT_THROW(F::parse_reduction("average", "mse_loss"), ValueError);
}

TEST(Losses, RelativeL2IsTheFNOLoss) {
  Tensor x = t(kX, {2, 3}), y = t(kY, {2, 3});
  double r[2];
  for (int n = 0; n < 2; ++n) {
    double dd = 0, yy = 0;
    for (int j = 0; j < 3; ++j) {
      double d = kX[3 * n + j] - kY[3 * n + j];
      dd += d * d, yy += kY[3 * n + j] * kY[3 * n + j];
    }
    r[n] = std::sqrt(dd) / std::sqrt(yy);
  }
  EXPECT_NEAR(val(F::relative_l2_loss(x, y)), (r[0] + r[1]) / 2, 1e-15);
  EXPECT_NEAR(val(F::relative_l2_loss(x, y, Reduction::Sum)), r[0] + r[1], 1e-15);
  Vec none = F::relative_l2_loss(reshape(x, {2, 3, 1}), reshape(y, {2, 3, 1}), Reduction::None).to_vector();
  EXPECT_NEAR(none[1], r[1], 1e-15);
  expect_grad_matches([&](const Tensor& p) { return F::relative_l2_loss(p, y); }, kX, {2, 3});
}

TEST(Losses, CrossEntropyWithIndicesWeightsSmoothingAndIgnore) {
  // logits [3, 4]; targets 2, ignored, 0; weights per class.
  Vec logits{0.5, -1.0, 2.0, 0.3, 1.5, 0.2, -0.7, 0.0, -0.2, 0.8, 0.1, 1.1};
  Vec w{0.5, 1.0, 2.0, 1.5};
  Tensor x = t(logits, {3, 4}), target = from_vector<int64_t>({2, -100, 0}, {3});
  auto logp = [&](int n, int c) {
    double m = 0;
    for (int k = 0; k < 4; ++k) m += std::exp(logits[4 * n + k]);
    return logits[4 * n + c] - std::log(m);
  };
  double eps = 0.1;
  // Hand-written PyTorch: (1 - eps) nll + eps / C smooth, each normalised by the kept targets' weights.
  double nll = -(w[2] * logp(0, 2) + w[0] * logp(2, 0)), smooth = 0;
  for (int n : {0, 2})
    for (int c = 0; c < 4; ++c) smooth -= w[c] * logp(n, c);
  double wsum = w[2] + w[0];
  F::CrossEntropyOptions o{.weight = t(w, {4}), .label_smoothing = eps};
  EXPECT_NEAR(val(F::cross_entropy(x, target, o)), (1 - eps) * nll / wsum + eps / 4 * smooth / wsum, 1e-14);
  o.reduction = Reduction::Sum;
  EXPECT_NEAR(val(F::cross_entropy(x, target, o)), (1 - eps) * nll + eps / 4 * smooth, 1e-14);
  o.reduction = Reduction::None;
  Vec none = F::cross_entropy(x, target, o).to_vector();
  EXPECT_EQ(none[1], 0.0);
  // No weights, no smoothing: the mean of -log p over the kept targets.
  EXPECT_NEAR(val(F::cross_entropy(x, target)), -(logp(0, 2) + logp(2, 0)) / 2, 1e-15);
  // Spatial targets [N, d] for logits [N, C, d]: the same as flattening them.
  Tensor x3 = reshape(x, {1, 3, 4});  // N = 1, C = 3, d = 4
  Tensor t3 = from_vector<int64_t>({0, 2, 1, 1}, {1, 4});
  double want = 0;
  for (int j = 0; j < 4; ++j) {
    int c = std::vector<int>{0, 2, 1, 1}[j];
    double lse = 0;
    for (int k = 0; k < 3; ++k) lse += std::exp(logits[4 * k + j]);
    want -= logits[4 * c + j] - std::log(lse);
  }
  EXPECT_NEAR(val(F::cross_entropy(x3, t3)), want / 4, 1e-14);
  expect_grad_matches([&](const Tensor& p) { return F::cross_entropy(p, target, {.weight = t(w, {4}), .label_smoothing = 0.2}); },
                      logits, {3, 4});
  EXPECT_THROW(F::cross_entropy(x, from_vector<int64_t>({1, 2}, {2})), ShapeError);
}

TEST(Losses, CrossEntropyWithProbabilities) {
  Vec logits{0.5, -1.0, 2.0, 1.5, 0.2, -0.7};
  Vec q{0.2, 0.3, 0.5, 1.0, 0.0, 0.0};
  double eps = 0.3, loss = 0;
  for (int n = 0; n < 2; ++n) {
    double lse = 0;
    for (int c = 0; c < 3; ++c) lse += std::exp(logits[3 * n + c]);
    for (int c = 0; c < 3; ++c) loss -= (q[3 * n + c] * (1 - eps) + eps / 3) * (logits[3 * n + c] - std::log(lse));
  }
  Tensor x = t(logits, {2, 3});
  EXPECT_NEAR(val(F::cross_entropy(x, t(q, {2, 3}), {.label_smoothing = eps})), loss / 2, 1e-15);
}

TEST(Losses, BinaryCrossEntropyIsStable) {
  Vec logits{-3.0, -0.5, 0.0, 0.7, 4.0, 800.0}, y{0.0, 1.0, 0.5, 1.0, 0.0, 0.0}, pw{2.0};
  double bce = 0, bcel = 0, bcel_pw = 0;
  Vec probs;
  for (size_t i = 0; i < 5; ++i) {  // the finite reference skips 800
    double p = 1 / (1 + std::exp(-logits[i]));
    probs.push_back(p);
    bce -= y[i] * std::log(p) + (1 - y[i]) * std::log(1 - p);
    bcel -= y[i] * std::log(p) + (1 - y[i]) * std::log(1 - p);
    bcel_pw -= 2.0 * y[i] * std::log(p) + (1 - y[i]) * std::log(1 - p);
  }
  Tensor x = t(Vec(logits.begin(), logits.begin() + 5), {5}), yy = t(Vec(y.begin(), y.begin() + 5), {5});
  EXPECT_NEAR(val(F::binary_cross_entropy(t(probs, {5}), yy, Tensor(), Reduction::Sum)), bce, 1e-12);
  EXPECT_NEAR(val(F::binary_cross_entropy_with_logits(x, yy, Tensor(), Tensor(), Reduction::Sum)), bcel, 1e-12);
  EXPECT_NEAR(val(F::binary_cross_entropy_with_logits(x, yy, Tensor(), t(pw, {1}), Reduction::Sum)), bcel_pw, 1e-12);
  // A logit of 800 with target 0 costs 800, neither inf nor nan; a probability of 0 costs at most 100.
  Vec big = F::binary_cross_entropy_with_logits(t(logits, {6}), t(y, {6}), Tensor(), Tensor(), Reduction::None).to_vector();
  EXPECT_DOUBLE_EQ(big[5], 800.0);
  EXPECT_DOUBLE_EQ(val(F::binary_cross_entropy(t({0.0}, {1}), t({1.0}, {1}))), 100.0);
  expect_grad_matches([&](const Tensor& p) { return F::binary_cross_entropy_with_logits(p, yy, Tensor(), t(pw, {1})); },
                      Vec(logits.begin(), logits.begin() + 5), {5});
}
