// Categorical and Normal against their closed forms written out in plain doubles (PyTorch's
// definitions), their gradients of first and second order against the analytic derivatives,
// sampling statistics within 5 sigma, determinism per seed, and the errors for bad arguments.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/autodiff/backward.h"
#include "engine/distributions/categorical.h"
#include "engine/distributions/normal.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "tests/common/expect_error.h"

using namespace spire;
using spire::distributions::Categorical;
using spire::distributions::Normal;
using Vec = std::vector<double>;

namespace {

Tensor t(const Vec& v, Shape s) { return from_vector<double>(v, s); }

TEST(DistributionsCategorical, LogProbEntropyProbsMatchClosedForm) {
  Vec z{0.3, -1.2, 2.5, 0.1, -0.4, 1.7};  // two rows of three categories
  Categorical c = Categorical::from_logits(t(z, {2, 3}));
  EXPECT_EQ(c.batch_shape(), Shape({2}));
  EXPECT_EQ(c.num_categories(), 3);
  Vec lp = c.log_prob(from_vector<int64_t>({2, 0}, {2})).to_vector();
  Vec h = c.entropy().to_vector();
  Vec p = c.probs().to_vector();
  for (int r = 0; r < 2; ++r) {
    double lse = 0;
    for (int k = 0; k < 3; ++k) lse += std::exp(z[3 * r + k]);
    lse = std::log(lse);
    double ent = 0;
    for (int k = 0; k < 3; ++k) {
      double pk = std::exp(z[3 * r + k] - lse);
      EXPECT_NEAR(p[3 * r + k], pk, 1e-14);
      ent -= pk * std::log(pk);
    }
    EXPECT_NEAR(h[r], ent, 1e-14);
    EXPECT_NEAR(lp[r], z[3 * r + (r == 0 ? 2 : 0)] - lse, 1e-14);
  }
  EXPECT_EQ(c.mode().to_vector(), Vec({2, 2}));
}

TEST(DistributionsCategorical, GradOfLogProbIsOneHotMinusProbs) {
  Tensor z = t({0.5, -1.0, 0.25, 2.0}, {4}).set_requires_grad();
  Categorical c = Categorical::from_logits(z);
  Tensor g = autodiff::grad({c.log_prob(from_vector<int64_t>({1}, {}))}, {z})[0];
  Vec p = c.probs().to_vector(), gv = g.to_vector();
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(gv[k], (k == 1 ? 1.0 : 0.0) - p[k], 1e-14);
}

TEST(DistributionsCategorical, SampleFrequenciesAndDeterminism) {
  Vec probs{0.1, 0.2, 0.3, 0.4};
  Categorical c = Categorical::from_probs(t(probs, {4}));
  const int64_t n = 100000;
  Generator g1(7), g2(7);
  Tensor s = c.sample({n}, g1);
  EXPECT_EQ(s.dtype(), DType::Int64);
  EXPECT_EQ(s.to_vector(), c.sample({n}, g2).to_vector());
  Vec counts(4, 0);
  for (double v : s.to_vector()) counts[size_t(v)] += 1;
  for (int k = 0; k < 4; ++k)
    EXPECT_NEAR(counts[k] / n, probs[k], 5 * std::sqrt(probs[k] * (1 - probs[k]) / n));
}

TEST(DistributionsCategorical, Errors) {
  Categorical c = Categorical::from_logits(t({0, 0, 0}, {3}));
  expect_error_naming<ValueError>([&] { c.log_prob(from_vector<int64_t>({3}, {})); }, {"[0, 3)"});
  expect_error_naming<ValueError>([&] { c.log_prob(from_vector<int64_t>({-1}, {})); }, {"[0, 3)"});
  expect_error_naming<ValueError>([&] { Categorical::from_probs(t({0.5, -0.1}, {2})); }, {"non-negative"});
}

TEST(DistributionsNormal, LogProbEntropyAndSecondDerivative) {
  Tensor loc = t({0.5, -1.0}, {2}).set_requires_grad();
  Tensor scale = t({2.0}, {1});
  Normal d(loc, scale);
  EXPECT_EQ(d.batch_shape(), Shape({2}));
  Vec lp = d.log_prob(t({1.5, 0.0}, {2})).to_vector();
  EXPECT_NEAR(lp[0], -0.125 - std::log(2.0) - 0.5 * std::log(2 * M_PI), 1e-14);
  EXPECT_NEAR(lp[1], -0.125 - std::log(2.0) - 0.5 * std::log(2 * M_PI), 1e-14);
  EXPECT_NEAR(d.entropy().to_vector()[0], 0.5 + 0.5 * std::log(2 * M_PI) + std::log(2.0), 1e-14);
  Tensor g = autodiff::grad({sum(d.log_prob(t({1.5, 0.0}, {2})))}, {loc}, {}, false, true)[0];
  EXPECT_NEAR(g.to_vector()[0], 0.25, 1e-14);  // (x - loc) / scale^2
  Tensor h = autodiff::grad({sum(g)}, {loc})[0];
  for (double v : h.to_vector()) EXPECT_NEAR(v, -0.25, 1e-14);  // -1 / scale^2
}

TEST(DistributionsNormal, RsampleGradientsAndStatistics) {
  Tensor loc = t({1.5}, {}).set_requires_grad(), scale = t({0.5}, {}).set_requires_grad();
  Normal d(loc, scale);
  const int64_t n = 100000;
  Generator g1(3), g2(3);
  Tensor x = d.rsample({n}, g1);
  Tensor eps = (d.sample({n}, g2) - 1.5) / 0.5;  // the same noise, without history
  auto gs = autodiff::grad({sum(x)}, {loc, scale});
  EXPECT_NEAR(gs[0].item<double>(), double(n), 1e-6);
  EXPECT_NEAR(gs[1].item<double>(), sum(eps).item<double>(), 1e-6);
  double m = mean(x).item<double>(), v = var(x).item<double>();
  EXPECT_NEAR(m, 1.5, 5 * 0.5 / std::sqrt(double(n)));
  EXPECT_NEAR(v, 0.25, 5 * 0.25 * std::sqrt(2.0 / n));
  EXPECT_FALSE(d.sample({2}).requires_grad());
}

TEST(DistributionsNormal, ScaleMustBePositive) {
  expect_error_naming<ValueError>([] { Normal(t({0.0}, {1}), t({0.0}, {1})); }, {"scale must be > 0"});
}

}  // namespace
