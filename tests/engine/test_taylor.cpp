// Taylor mode and the differential operators built on it (autodiff/taylor.h, differential.h), checked
// against closed forms, against nested reverse and forward mode, and against finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <numbers>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/differential.h"
#include "engine/autodiff/forward.h"
#include "engine/autodiff/functional.h"
#include "engine/autodiff/mode.h"
#include "engine/autodiff/taylor.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "tests/common/expect_error.h"

using namespace spire;

namespace {

using Vec = std::vector<double>;

Vec vec(const Tensor& t) { return t.to_vector(); }

// Points in [lo, hi)^d, deterministic.
Tensor points(int64_t n, int64_t d, uint64_t seed, double lo = -1.0, double hi = 1.0) {
  return rules::sample({n, d}, lo, hi, seed);
}

Tensor coord(const Tensor& x, int64_t i) { return select(x, -1, i); }
Tensor sqnorm(const Tensor& x) { return sum(square(x), {-1}); }

void expect_near_rel(const Vec& got, const Vec& want, double rtol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::abs(got[i] - want[i]), rtol * (1 + std::abs(want[i])))
        << what << " at " << i << ": " << got[i] << " vs " << want[i];
}

// --- a small MLP: [..., d] -> [...], depth 4 ------------------------------------------------------
enum class Act { Tanh, Sin, Gelu };

Tensor activate(Act a, const Tensor& x) {
  switch (a) {
    case Act::Tanh: return tanh(x);
    case Act::Sin: return sin(x);
    case Act::Gelu: return mul(mul(x, 0.5), add(erf(mul(x, 1 / std::numbers::sqrt2)), 1.0));
  }
  return x;
}

Tensors mlp_params(int64_t d, int64_t width, uint64_t seed) {
  Tensors p;
  std::vector<int64_t> sizes{d, width, width, width, 1};
  for (size_t l = 0; l + 1 < sizes.size(); ++l) {
    double scale = std::sqrt(3.0 / double(sizes[l]));
    p.push_back(rules::sample({sizes[l], sizes[l + 1]}, -scale, scale, seed++));
    p.push_back(rules::sample({sizes[l + 1]}, -0.5, 0.5, seed++));
  }
  return p;
}

Tensor mlp(Act a, const Tensors& p, const Tensor& x) {
  Tensor h = x;
  for (size_t l = 0; l < p.size(); l += 2) {
    h = add(matmul(h, p[l]), p[l + 1]);
    if (l + 2 < p.size()) h = activate(a, h);
  }
  return select(h, -1, 0);
}

// Hessian of the point function at one point [d], by spire::hessian (forward over reverse).
Vec point_hessian(const PointFunction& f, const Tensor& xp) {
  Function g = [f](const Tensors& in) { return Tensors{reshape(f(unsqueeze(in[0], 0)), {})}; };
  return vec(hessian(g)({xp})[0]);
}

// --- scalar truncated series (normalised coefficients), the reference for jet() ------------------
using Ser = Vec;
Ser smul(const Ser& a, const Ser& b) {
  Ser c(a.size(), 0.0);
  for (size_t k = 0; k < a.size(); ++k)
    for (size_t j = 0; j <= k; ++j) c[k] += a[j] * b[k - j];
  return c;
}
Ser sexp(const Ser& a) {
  Ser z(a.size(), 0.0);
  z[0] = std::exp(a[0]);
  for (size_t k = 1; k < a.size(); ++k) {
    for (size_t j = 1; j <= k; ++j) z[k] += double(j) * a[j] * z[k - j];
    z[k] /= double(k);
  }
  return z;
}
std::pair<Ser, Ser> ssincos(const Ser& a) {
  Ser s(a.size(), 0.0), c(a.size(), 0.0);
  s[0] = std::sin(a[0]);
  c[0] = std::cos(a[0]);
  for (size_t k = 1; k < a.size(); ++k) {
    for (size_t j = 1; j <= k; ++j) {
      s[k] += double(j) * a[j] * c[k - j];
      c[k] -= double(j) * a[j] * s[k - j];
    }
    s[k] /= double(k);
    c[k] /= double(k);
  }
  return {s, c};
}

double factorial(int k) { return k <= 1 ? 1.0 : k * factorial(k - 1); }

}  // namespace

// ================================ analytic =========================================================

TEST(Laplacian, HarmonicFunctionsGiveZero) {
  Tensor x2 = points(7, 2, 11);
  PointFunction saddle = [](const Tensor& x) { return sub(square(coord(x, 0)), square(coord(x, 1))); };
  PointFunction expsin = [](const Tensor& x) { return mul(exp(coord(x, 0)), sin(coord(x, 1))); };
  expect_near_rel(vec(laplacian(saddle)(x2)), Vec(7, 0.0), 1e-12, "x^2 - y^2");
  expect_near_rel(vec(laplacian(expsin)(x2)), Vec(7, 0.0), 1e-12, "exp(x) sin(y)");
  // 1/|x| in 3D, at points with |x| >= 0.5.
  Tensor x3 = add(points(6, 3, 12, 0.3, 1.0), 0.0);
  PointFunction newton = [](const Tensor& x) { return rsqrt(sqnorm(x)); };
  expect_near_rel(vec(laplacian(newton)(x3)), Vec(6, 0.0), 1e-11, "1/|x|");
  // Points along two leading axes.
  Tensor x4 = rules::sample({2, 3, 2}, -1, 1, 13);
  Tensor l = laplacian(expsin)(x4);
  EXPECT_EQ(l.shape(), (Shape{2, 3}));
  expect_near_rel(vec(l), Vec(6, 0.0), 1e-12, "exp(x) sin(y) on [2, 3, 2]");
}

TEST(Laplacian, GaussianInManyDimensions) {
  PointFunction gauss = [](const Tensor& x) { return exp(neg(sqnorm(x))); };
  for (int64_t d : {2, 8, 32}) {
    Tensor x = points(5, d, 20 + uint64_t(d), -0.4, 0.4);
    Vec want;
    for (double r2 : vec(sqnorm(x))) want.push_back((4 * r2 - 2 * double(d)) * std::exp(-r2));
    expect_near_rel(vec(laplacian(gauss)(x)), want, 1e-12, "d = " + std::to_string(d));
    // hessian_diag: d2/dx_i^2 exp(-r^2) = (4 x_i^2 - 2) exp(-r^2).
    Vec xs = vec(x), r2s = vec(sqnorm(x)), diag;
    for (int64_t p = 0; p < 5; ++p)
      for (int64_t i = 0; i < d; ++i) {
        double xi = xs[size_t(p * d + i)];
        diag.push_back((4 * xi * xi - 2) * std::exp(-r2s[size_t(p)]));
      }
    Tensor h = hessian_diag(gauss)(x);
    EXPECT_EQ(h.shape(), (Shape{5, d}));
    expect_near_rel(vec(h), diag, 1e-12, "hessian_diag d = " + std::to_string(d));
  }
}

TEST(Divergence, KnownFields) {
  // div (x |x|^2) = (d + 2) |x|^2.
  PointFunction radial = [](const Tensor& x) { return mul(x, unsqueeze(sqnorm(x), -1)); };
  for (int64_t d : {2, 3, 8}) {
    Tensor x = points(4, d, 30 + uint64_t(d));
    Vec want;
    for (double r2 : vec(sqnorm(x))) want.push_back(double(d + 2) * r2);
    expect_near_rel(vec(divergence(radial)(x)), want, 1e-12, "div x|x|^2, d = " + std::to_string(d));
  }
  // A rotation is divergence free.
  PointFunction rotation = [](const Tensor& x) { return stack({neg(coord(x, 1)), coord(x, 0)}, -1); };
  expect_near_rel(vec(divergence(rotation)(points(3, 2, 33))), Vec(3, 0.0), 0, "rotation");
}

TEST(Curl, KnownFields) {
  Tensor x = points(5, 3, 40);
  Vec xs = vec(x);
  // curl (-y, x, 0) = (0, 0, 2).
  PointFunction rotation = [](const Tensor& x) {
    return stack({neg(coord(x, 1)), coord(x, 0), zeros_like(coord(x, 2))}, -1);
  };
  Tensor c = curl(rotation)(x);
  EXPECT_EQ(c.shape(), (Shape{5, 3}));
  Vec want;
  for (int p = 0; p < 5; ++p) want.insert(want.end(), {0.0, 0.0, 2.0});
  expect_near_rel(vec(c), want, 1e-14, "curl(-y, x, 0)");
  // A gradient field (of xyz) has no curl.
  PointFunction gradient_field = [](const Tensor& x) {
    Tensor a = coord(x, 0), b = coord(x, 1), z = coord(x, 2);
    return stack({mul(b, z), mul(a, z), mul(a, b)}, -1);
  };
  expect_near_rel(vec(curl(gradient_field)(x)), Vec(15, 0.0), 1e-14, "curl grad(xyz)");
  // curl (0, 0, x^2 y) = (x^2, -2xy, 0); curl (sin z, 0, 0) = (0, cos z, 0).
  PointFunction f = [](const Tensor& x) {
    Tensor a = coord(x, 0), b = coord(x, 1), z = coord(x, 2);
    return stack({sin(z), zeros_like(a), mul(square(a), b)}, -1);
  };
  want.clear();
  for (int p = 0; p < 5; ++p) {
    double a = xs[size_t(3 * p)], b = xs[size_t(3 * p + 1)], z = xs[size_t(3 * p + 2)];
    want.insert(want.end(), {a * a, std::cos(z) - 2 * a * b, 0.0});
  }
  expect_near_rel(vec(curl(f)(x)), want, 1e-14, "curl(sin z, 0, x^2 y)");
}

TEST(Derivative, PolynomialsAndSineToOrderSix) {
  // f(x) = (a.x)^6: d^k/dt^k f(x + t v) = 6!/(6-k)! (a.x)^(6-k) (a.v)^k; f = sin(a.x): sin(a.x + k pi/2) (a.v)^k.
  int64_t d = 3;
  Tensor x = points(4, d, 50);
  Tensor a = from_vector<double>({0.7, -0.4, 1.1}, {3});
  Tensor v = from_vector<double>({0.5, 1.5, -0.8}, {3});
  PointFunction power = [a](const Tensor& x) { return pow(sum(mul(x, a), {-1}), Scalar(6.0)); };
  PointFunction sine = [a](const Tensor& x) { return sin(sum(mul(x, a), {-1})); };
  Vec ax = vec(sum(mul(x, a), {-1}));
  double av = 0.7 * 0.5 - 0.4 * 1.5 - 1.1 * 0.8;
  for (int k = 1; k <= 6; ++k) {
    Vec want_pow, want_sin;
    for (double s : ax) {
      want_pow.push_back(factorial(6) / factorial(6 - k) * std::pow(s, 6 - k) * std::pow(av, k));
      want_sin.push_back(std::sin(s + k * std::numbers::pi / 2) * std::pow(av, k));
    }
    std::string order = "order " + std::to_string(k);
    expect_near_rel(vec(derivative(power, k, v)(x)), want_pow, 1e-12, "(a.x)^6 " + order);
    expect_near_rel(vec(derivative(sine, k, v)(x)), want_sin, 1e-12, "sin(a.x) " + order);
    // A direction per point (shaped like x) that is the same everywhere gives the same answer.
    Tensor vfull = contiguous(expand(v, x.shape()));
    expect_near_rel(vec(derivative(sine, k, vfull)(x)), want_sin, 1e-12, "per-point direction " + order);
  }
}

TEST(InputGrad, ScalarAndVectorFunctions) {
  Tensor x = points(4, 3, 60);
  Vec xs = vec(x);
  Tensor a = from_vector<double>({0.3, -0.9, 0.4}, {3});
  PointFunction expa = [a](const Tensor& x) { return exp(sum(mul(x, a), {-1})); };
  Tensor g = input_grad(expa)(x);
  EXPECT_EQ(g.shape(), (Shape{4, 3}));
  Vec want;
  for (int p = 0; p < 4; ++p) {
    double e = std::exp(0.3 * xs[3 * p] - 0.9 * xs[3 * p + 1] + 0.4 * xs[3 * p + 2]);
    want.insert(want.end(), {0.3 * e, -0.9 * e, 0.4 * e});
  }
  expect_near_rel(vec(g), want, 1e-13, "grad exp(a.x)");
  // f(x) = (x0 x1, x1^2 sin x2): Jacobian [[x1, x0, 0], [0, 2 x1 sin x2, x1^2 cos x2]], shape [..., 2, 3].
  PointFunction vf = [](const Tensor& x) {
    Tensor x0 = coord(x, 0), x1 = coord(x, 1), x2 = coord(x, 2);
    return stack({mul(x0, x1), mul(square(x1), sin(x2))}, -1);
  };
  Tensor j = input_grad(vf)(x);
  EXPECT_EQ(j.shape(), (Shape{4, 2, 3}));
  want.clear();
  for (int p = 0; p < 4; ++p) {
    double x0 = xs[3 * p], x1 = xs[3 * p + 1], x2 = xs[3 * p + 2];
    want.insert(want.end(), {x1, x0, 0.0, 0.0, 2 * x1 * std::sin(x2), x1 * x1 * std::cos(x2)});
  }
  expect_near_rel(vec(j), want, 1e-13, "Jacobian");
}

TEST(HessianDiag, VectorFunction) {
  // f(x) = (sum_i c_i x_i^3 + x0 x1, x0^2 x2): diagonals (6 c_i x_i) and (2 x2, 0, 0); shape [..., 2, 3].
  Tensor x = points(3, 3, 70);
  Vec xs = vec(x);
  Tensor c = from_vector<double>({1.0, -2.0, 0.5}, {3});
  PointFunction f = [c](const Tensor& x) {
    Tensor f0 = add(sum(mul(c, pow(x, Scalar(3.0))), {-1}), mul(coord(x, 0), coord(x, 1)));
    return stack({f0, mul(square(coord(x, 0)), coord(x, 2))}, -1);
  };
  Tensor h = hessian_diag(f)(x);
  EXPECT_EQ(h.shape(), (Shape{3, 2, 3}));
  Vec want;
  for (int p = 0; p < 3; ++p) {
    double x0 = xs[3 * p], x1 = xs[3 * p + 1], x2 = xs[3 * p + 2];
    want.insert(want.end(), {6 * x0, -12 * x1, 3 * x2, 2 * x2, 0.0, 0.0});
  }
  expect_near_rel(vec(h), want, 1e-13, "hessian_diag");
}

// ================================ against nested reverse mode =====================================

TEST(Laplacian, MatchesHessianTraceOnRandomMLPs) {
  for (Act act : {Act::Tanh, Act::Sin, Act::Gelu}) {
    for (int64_t d : {2, 8, 32}) {
      int64_t width = d == 32 ? 32 : 16;
      Tensors p = mlp_params(d, width, 100 + uint64_t(d) + 10 * uint64_t(act));
      PointFunction f = [act, p](const Tensor& x) { return mlp(act, p, x); };
      Tensor x = points(3, d, 200 + uint64_t(d), -1.0, 1.0);
      Vec lap = vec(laplacian(f)(x));
      Vec diag = vec(hessian_diag(f)(x));
      std::string what = "activation " + std::to_string(int(act)) + ", d = " + std::to_string(d);
      Vec want_lap, want_diag;
      for (int64_t i = 0; i < 3; ++i) {
        Vec h = point_hessian(f, select(x, 0, i));
        double trace = 0;
        for (int64_t j = 0; j < d; ++j) {
          trace += h[size_t(j * d + j)];
          want_diag.push_back(h[size_t(j * d + j)]);
        }
        want_lap.push_back(trace);
      }
      expect_near_rel(lap, want_lap, 1e-10, "laplacian, " + what);
      expect_near_rel(diag, want_diag, 1e-10, "hessian_diag, " + what);
    }
  }
}

// The parameter gradient of sum_points laplacian^2 through the forward Laplacian against reverse mode
// three levels deep: Laplacian as sum_i d/dx_i of the input gradient, then the parameter gradient.
TEST(Laplacian, ParameterGradientOfLaplacianLoss) {
  for (Act act : {Act::Tanh, Act::Sin, Act::Gelu}) {
    for (int64_t d : {2, 8, 32}) {
      int64_t width = d == 32 ? 32 : 16;
      Tensors p0 = mlp_params(d, width, 300 + uint64_t(d) + 10 * uint64_t(act));
      Tensor x0 = points(3, d, 400 + uint64_t(d));
      std::string what = "activation " + std::to_string(int(act)) + ", d = " + std::to_string(d);

      Tensors p;
      for (auto& t : p0) p.push_back(t.detach().set_requires_grad(true));
      PointFunction f = [act, &p](const Tensor& x) { return mlp(act, p, x); };
      Tensor loss = sum(square(laplacian(f)(x0)));
      Tensors g = autodiff::grad({loss}, p);

      Tensors q;
      for (auto& t : p0) q.push_back(t.detach().set_requires_grad(true));
      Tensor x = x0.detach().set_requires_grad(true);
      Tensor gx = autodiff::grad({sum(mlp(act, q, x))}, {x}, {}, true, true)[0];
      Tensor lap = zeros({3}, DType::Float64);
      for (int64_t i = 0; i < d; ++i) {
        Tensor hi = autodiff::grad({sum(select(gx, -1, i))}, {x}, {}, true, true)[0];
        lap = add(lap, select(hi, -1, i));
      }
      expect_near_rel(vec(loss), vec(sum(square(lap))), 1e-10, "loss, " + what);
      Tensors want = autodiff::grad({sum(square(lap))}, q);
      ASSERT_EQ(g.size(), want.size());
      for (size_t k = 0; k < g.size(); ++k) {
        // The last bias shifts f by a constant: the Laplacian does not depend on it.
        Tensor gk = g[k].defined() ? g[k] : zeros_like(p0[k]);
        Tensor wk = want[k].defined() ? want[k] : zeros_like(p0[k]);
        expect_near_rel(vec(gk), vec(wk), 1e-10, "parameter " + std::to_string(k) + ", " + what);
      }
    }
  }
}

// ================================ randomised estimators ===========================================

TEST(LaplacianEstimators, SameSeedSameBitsAndErrors) {
  Tensors p = mlp_params(8, 16, 500);
  PointFunction f = [p](const Tensor& x) { return mlp(Act::Tanh, p, x); };
  Tensor x = points(4, 8, 501);
  for (auto est : {LaplacianEstimator::Hutchinson, LaplacianEstimator::Sparse}) {
    Vec a = vec(laplacian(f, est, 5, 42)(x)), b = vec(laplacian(f, est, 5, 42)(x));
    Vec c = vec(laplacian(f, est, 5, 43)(x));
    ASSERT_EQ(a.size(), 4u);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(std::memcmp(&a[i], &b[i], sizeof(double)), 0);
    EXPECT_NE(a, c) << "different seeds gave the same estimate";
    expect_error_naming<ValueError>([&] { laplacian(f, est, 0, 1); }, {"samples", "0"});
    expect_error_naming<ValueError>([&] { laplacian(f, est, -3, 1); }, {"samples", "-3"});
  }
}

TEST(LaplacianEstimators, ExactWhereTheVarianceVanishes) {
  // Diagonal Hessian: Hutchinson's v^T H v = tr H for every Rademacher v.
  Tensor c = from_vector<double>({0.5, -1.0, 2.0, 0.25, 1.5}, {5});
  PointFunction separable = [c](const Tensor& x) { return sum(mul(c, pow(x, Scalar(3.0))), {-1}); };
  Tensor x = points(3, 5, 510);
  Vec exact = vec(laplacian(separable)(x));
  expect_near_rel(vec(laplacian(separable, LaplacianEstimator::Hutchinson, 3, 7)(x)), exact, 1e-12, "hutchinson");
  // H = 2 I: the sparse estimator's d H_ii = tr H for every coordinate drawn.
  PointFunction bowl = [](const Tensor& x) { return sqnorm(x); };
  expect_near_rel(vec(laplacian(bowl, LaplacianEstimator::Sparse, 2, 9)(x)), Vec(3, 10.0), 1e-12, "sparse");
}

// Over many seeds: the mean is within 5 standard errors of the exact Laplacian, and the spread of the
// estimates matches the documented variance.
TEST(LaplacianEstimators, UnbiasedWithTheDocumentedVariance) {
  int64_t d = 8, n = 3, samples = 4;
  int seeds = 300;
  Tensors p = mlp_params(d, 16, 520);
  PointFunction f = [p](const Tensor& x) { return add(mlp(Act::Tanh, p, x), mul(sqnorm(x), mlp(Act::Sin, p, x))); };
  Tensor x = points(n, d, 521);
  Vec trace(n), var_hutch(n), var_sparse(n);
  for (int64_t i = 0; i < n; ++i) {
    Vec h = point_hessian(f, select(x, 0, i));
    double fro = 0, diag2 = 0, tr = 0;
    for (int64_t a = 0; a < d; ++a) {
      for (int64_t b = 0; b < d; ++b) fro += h[size_t(a * d + b)] * h[size_t(a * d + b)];
      diag2 += h[size_t(a * d + a)] * h[size_t(a * d + a)];
      tr += h[size_t(a * d + a)];
    }
    trace[i] = tr;
    var_hutch[i] = 2 * (fro - diag2) / double(samples);
    var_sparse[i] = (double(d) * diag2 - tr * tr) / double(samples);
  }
  for (auto [est, var] : {std::pair{LaplacianEstimator::Hutchinson, var_hutch},
                          std::pair{LaplacianEstimator::Sparse, var_sparse}}) {
    Vec mean(n, 0.0), sq(n, 0.0);
    for (int s = 0; s < seeds; ++s) {
      Vec e = vec(laplacian(f, est, samples, uint64_t(1000 + s))(x));
      for (int64_t i = 0; i < n; ++i) {
        mean[i] += e[i] / seeds;
        sq[i] += e[i] * e[i] / seeds;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      SCOPED_TRACE(est == LaplacianEstimator::Hutchinson ? "hutchinson" : "sparse");
      ASSERT_GT(var[i], 1e-6) << "the test function must have a Hessian the estimator does not get exactly";
      EXPECT_LE(std::abs(mean[i] - trace[i]), 5 * std::sqrt(var[i] / seeds))
          << "point " << i << ": mean " << mean[i] << ", exact " << trace[i];
      double spread = (sq[i] - mean[i] * mean[i]) * seeds / (seeds - 1);
      EXPECT_GT(spread, 0.6 * var[i]) << "point " << i;
      EXPECT_LT(spread, 1.5 * var[i]) << "point " << i;
    }
  }
}

// ================================ jet() ===========================================================

TEST(Jet, ExpOfSineAtZero) {
  // d^k/dt^k exp(sin t) at 0: 1, 1, 0, -3, -8, -3 (k = 1..6).
  Function f = [](const Tensors& in) { return Tensors{exp(sin(in[0]))}; };
  Tensor t0 = scalar_tensor(0.0, DType::Float64);
  Series s{scalar_tensor(1.0, DType::Float64)};
  s.resize(6);
  auto [out, series] = jet(f, {t0}, {s});
  EXPECT_DOUBLE_EQ(out[0].item<double>(), 1.0);
  ASSERT_EQ(series[0].size(), 6u);
  Vec want{1, 1, 0, -3, -8, -3};
  for (int k = 0; k < 6; ++k) EXPECT_NEAR(series[0][k].item<double>(), want[k], 1e-12) << "order " << k + 1;
}

TEST(Jet, CompositionsToOrderSixAgainstScalarSeries) {
  // f(x, y) = exp(sin(x) * y) + cos(x * y) along paths with all six derivatives given.
  constexpr int K = 6;
  Tensor x0 = rules::sample({4}, -1, 1, 600), y0 = rules::sample({4}, -1, 1, 601);
  Series sx, sy;
  for (int k = 0; k < K; ++k) {
    sx.push_back(rules::sample({4}, -0.7, 0.7, 610 + k));
    sy.push_back(rules::sample({4}, -0.7, 0.7, 620 + k));
  }
  sy[2] = Tensor();  // an undefined term is zero
  Function f = [](const Tensors& in) {
    return Tensors{add(exp(mul(sin(in[0]), in[1])), cos(mul(in[0], in[1])))};
  };
  auto [out, series] = jet(f, {x0, y0}, {sx, sy});
  ASSERT_EQ(series[0].size(), size_t(K));
  for (int e = 0; e < 4; ++e) {
    // The paths in normalised coefficients: a_k = k-th derivative / k!.
    Ser a(K + 1), b(K + 1);
    a[0] = vec(x0)[e];
    b[0] = vec(y0)[e];
    for (int k = 1; k <= K; ++k) {
      a[k] = vec(sx[k - 1])[e] / factorial(k);
      b[k] = k == 3 ? 0.0 : vec(sy[k - 1])[e] / factorial(k);
    }
    Ser z = sexp(smul(ssincos(a).first, b));
    Ser w = ssincos(smul(a, b)).second;
    EXPECT_NEAR(vec(out[0])[e], z[0] + w[0], 1e-13);
    for (int k = 1; k <= K; ++k) {
      double want = (z[k] + w[k]) * factorial(k);
      EXPECT_NEAR(vec(series[0][k - 1])[e], want, 1e-10 * (1 + std::abs(want))) << "order " << k << ", entry " << e;
    }
  }
}

TEST(Jet, SineAlongALineHasClosedFormDerivatives) {
  // x(t) = x0 + t v: d^k sin(x(t)) = sin(x0 + k pi/2) v^k.
  Tensor x0 = rules::sample({5}, -2, 2, 630), v = rules::sample({5}, -1.5, 1.5, 631);
  Function f = [](const Tensors& in) { return Tensors{sin(in[0])}; };
  Series s{v};
  s.resize(6);
  auto [out, series] = jet(f, {x0}, {s});
  Vec xs = vec(x0), vs = vec(v);
  for (int k = 1; k <= 6; ++k) {
    Vec want;
    for (size_t e = 0; e < xs.size(); ++e) want.push_back(std::sin(xs[e] + k * std::numbers::pi / 2) * std::pow(vs[e], k));
    expect_near_rel(vec(series[0][k - 1]), want, 1e-12, "order " + std::to_string(k));
  }
}

// Reverse mode through jet(): the gradient of a coefficient with respect to the primal and the
// first series term, against central differences.
TEST(Jet, GradientOfACoefficient) {
  Tensor x0 = rules::sample({5}, -1, 1, 640), v1 = rules::sample({5}, -1, 1, 641);
  Tensor v2 = rules::sample({5}, -1, 1, 642), w = rules::sample({5}, -1, 1, 643);
  Tensor dx = rules::sample({5}, -1, 1, 644), dv = rules::sample({5}, -1, 1, 645);
  Function f = [](const Tensors& in) { return Tensors{mul(tanh(in[0]), exp(sin(in[0])))}; };
  auto q = [&](const Tensor& x, const Tensor& v) {
    auto [out, series] = jet(f, {x}, {{v, v2, Tensor()}});
    return sum(mul(w, series[0][2]));  // the third derivative
  };
  Tensor x = x0.detach().set_requires_grad(true), v = v1.detach().set_requires_grad(true);
  Tensors g = autodiff::grad({q(x, v)}, {x, v});
  double analytic = sum(add(mul(g[0], dx), mul(g[1], dv))).item<double>();
  double h = 1e-6, fd;
  {
    NoGradGuard ng;
    fd = (q(add(x0, mul(dx, h)), add(v1, mul(dv, h))).item<double>() -
          q(sub(x0, mul(dx, h)), sub(v1, mul(dv, h))).item<double>()) / (2 * h);
  }
  EXPECT_NEAR(analytic, fd, 1e-6 * (1 + std::abs(fd)));
}

// Forward mode over the forward Laplacian: jvp of laplacian(exp(-|x|^2)) against the gradient of its
// closed form, e^{-r^2} (8 + 4d - 8 r^2) x.
TEST(Jet, JvpOfLaplacian) {
  int64_t d = 3;
  PointFunction gauss = [](const Tensor& x) { return exp(neg(sqnorm(x))); };
  Tensor x = points(4, d, 650, -0.6, 0.6), u = points(4, d, 651);
  Function lap = [gauss](const Tensors& in) { return Tensors{laplacian(gauss)(in[0])}; };
  auto [out, tangent] = jvp(lap, {x}, {u});
  Vec r2 = vec(sqnorm(x)), xu = vec(sum(mul(x, u), {-1})), want;
  for (size_t p = 0; p < 4; ++p) want.push_back(std::exp(-r2[p]) * (8 + 4.0 * double(d) - 8 * r2[p]) * xu[p]);
  expect_near_rel(vec(tangent[0]), want, 1e-12, "jvp of the Laplacian");
}

// Taylor mode over reverse mode: h(x) = sum_i d/dx_i g(x) with g(x) = sum_j exp(x_j) + tanh(x_j) is
// sum_i exp(x_i) + tanh'(x_i); its Laplacian is sum_i exp(x_i) + tanh'''(x_i). Both reverse rules
// use their op's output, so this needs the jets of saved outputs.
TEST(Jet, LaplacianOfAGradient) {
  PointFunction h = [](const Tensor& x) {
    Function g = [](const Tensors& in) { return Tensors{add(sum(exp(in[0])), sum(tanh(in[0])))}; };
    return sum(grad(g)({x})[0], {-1});
  };
  Tensor x = points(4, 3, 660);
  Vec xs = vec(x), want;
  for (int p = 0; p < 4; ++p) {
    double l = 0;
    for (int i = 0; i < 3; ++i) {
      double t = std::tanh(xs[size_t(3 * p + i)]);
      l += std::exp(xs[size_t(3 * p + i)]) + (6 * t * t - 2) * (1 - t * t);
    }
    want.push_back(l);
  }
  expect_near_rel(vec(laplacian(h)(x)), want, 1e-12, "laplacian of a gradient");
}

// A tangent's reverse history refers back to its primal (the tangent of exp(x) is v * exp(x)); the
// end of a level must drop its tangents and jets so that such cycles are freed.
TEST(Levels, ExitFreesTensorsThatCarryTangentsOrJets) {
  Tensor x0 = rules::sample({3}, -1, 1, 670), v = rules::sample({3}, -1, 1, 671);
  std::weak_ptr<TensorImpl> probe_tangent, probe_jet;
  {
    Tensor x = x0.detach().set_requires_grad(true);
    forward_ad::Level level;
    Tensor y = tanh(exp(forward_ad::make_dual(x, v, level.get())));
    ASSERT_TRUE(forward_ad::tangent(y, level.get()).requires_grad());
    probe_tangent = y.impl_ptr();
  }
  {
    Tensor x = x0.detach().set_requires_grad(true);
    taylor::Level level({.order = 3});
    Tensor y = tanh(exp(taylor::make_jet(x, {v, v}, level.get())));
    ASSERT_TRUE(taylor::coefficients(y, level.get())[2].requires_grad());
    probe_jet = y.impl_ptr();
  }
  EXPECT_TRUE(probe_tangent.expired()) << "a tensor with a tangent outlived its forward level";
  EXPECT_TRUE(probe_jet.expired()) << "a tensor with Taylor coefficients outlived its taylor level";
}

// ================================ errors ===========================================================

TEST(DifferentialErrors, BadShapesNameTheShapes) {
  PointFunction f = [](const Tensor& x) { return sum(square(x), {-1}); };
  PointFunction same = [](const Tensor& x) { return mul(x, 2.0); };
  Tensor x = points(4, 3, 700);
  expect_error_naming<ShapeError>([&] { laplacian(f)(scalar_tensor(1.0, DType::Float64)); }, {"laplacian", "[]"});
  expect_error_naming<ShapeError>([&] { hessian_diag(f)(scalar_tensor(1.0, DType::Float64)); }, {"hessian_diag", "[]"});
  expect_error_naming<ShapeError>([&] { input_grad(f)(zeros({4, 0}, DType::Float64)); }, {"input_grad", "[4, 0]"});
  expect_error_naming<DTypeError>([&] { laplacian(f)(zeros({4, 3}, DType::Int64)); }, {"laplacian", "int64"});
  expect_error_naming<ShapeError>([&] { curl(same)(points(4, 2, 701)); }, {"curl", "2"});
  expect_error_naming<ShapeError>([&] { curl(f)(x); }, {"curl", "[4, 3]", "[4]"});
  PointFunction to_two = [](const Tensor& x) { return slice(x, -1, 0, 2); };
  expect_error_naming<ShapeError>([&] { divergence(to_two)(x); }, {"divergence", "[4, 3]", "[4, 2]"});
  expect_error_naming<ShapeError>([&] { derivative(f, 2, rules::sample({5}, -1, 1, 3))(x); },
                                  {"derivative", "[5]", "[4, 3]"});
  expect_error_naming<ValueError>([&] { derivative(f, 0, rules::sample({3}, -1, 1, 3)); }, {"order", "0"});
  expect_error_naming<ShapeError>([&] { directional_jets(f, x, rules::sample({2, 3}, -1, 1, 4), 2, true); },
                                  {"[2, 3]", "[4, 3]"});
  {
    taylor::Level level({.order = 2});
    expect_error_naming<ShapeError>([&] { taylor::make_jet(x, {rules::sample({3}, -1, 1, 5)}, level.get()); },
                                    {"[3]", "[4, 3]"});
  }
  Function g = [](const Tensors& in) { return in; };
  expect_error_naming<ValueError>([&] { jet(g, {x}, {}); }, {"jet", "0 series", "1 primals"});
  expect_error_naming<ValueError>([&] { jet(g, {x}, {Series{}}); }, {"jet", "empty"});
}
