// Reductions and scans: values against closed forms and against a naive float64 reference walked
// by index in this file, float32 accuracy of the pairwise sums, bit-identical results for one and
// two threads, the documented gradients (zeros in prod, ties in amax), and errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/functional.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

using namespace spire;

namespace {

std::vector<double> vec(const Tensor& t) { return t.to_vector(); }

void expect_near_all(const std::vector<double>& a, const std::vector<double>& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol * (1 + std::abs(b[i]))) << "at " << i;
}

// Reference: fold x (any layout, read through to_vector of its logical order) over `axes` in
// float64, by walking every index.
std::vector<double> reference(const Tensor& x, const Axes& axes_in, double init,
                              const std::function<double(double, double)>& f) {
  Axes axes = normalize_axes(axes_in, x.dim(), "reference");
  Shape out_shape = reduced_shape(x.shape(), axes, false);
  std::vector<double> out(numel_of(out_shape), init), v = vec(x);
  std::vector<int64_t> idx(x.dim(), 0);
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < x.dim(); ++d)
      if (!std::binary_search(axes.begin(), axes.end(), d)) o = o * x.shape()[d] + idx[d];
    out[o] = f(out[o], v[i]);
    for (int64_t d = x.dim() - 1; d >= 0; --d) {
      if (++idx[d] < x.shape()[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

std::vector<uint8_t> bytes(const Tensor& t) {
  Tensor c = contiguous(t);
  std::vector<uint8_t> b(c.nbytes());
  std::memcpy(b.data(), c.raw_data(), b.size());
  return b;
}

Tensor rand64(const Shape& s, uint64_t seed) { return rules::sample(s, -1, 1, seed); }
Tensor rand32(const Shape& s, uint64_t seed) { return cast(rules::sample(s, -1, 1, seed), DType::Float32); }

// ---------------------------------------------------------------- sum

TEST(Sum, ClosedForms) {
  Tensor x = reshape(arange(1, 25, 1, DType::Float64), {2, 3, 4});  // 1..24
  EXPECT_DOUBLE_EQ(sum(x).item<double>(), 300.0);
  EXPECT_EQ(vec(sum(x, {0, 2})), (std::vector<double>{2 * (1 + 2 + 3 + 4) + 48, 2 * (5 + 6 + 7 + 8) + 48,
                                                       2 * (9 + 10 + 11 + 12) + 48}));
  EXPECT_EQ(sum(x, {1}, true).shape(), (Shape{2, 1, 4}));
  EXPECT_EQ(vec(sum(x, {-1})), (std::vector<double>{10, 26, 42, 58, 74, 90}));
  Tensor b = from_vector<bool>({true, false, true, true}, {4});
  EXPECT_EQ(sum(b).dtype(), DType::Int64);
  EXPECT_EQ(sum(b).item<int64_t>(), 3);
  Tensor i = from_vector<int32_t>({2000000000, 2000000000, -2000000000}, {3});
  EXPECT_EQ(sum(i).item<int64_t>(), 2000000000);  // accumulated in int64: no overflow on the way
  Tensor z = from_vector<c128>({{1, 2}, {3, -1}, {0.5, 0.5}}, {3});
  EXPECT_EQ(sum(z).item().to_complex(), c128(4.5, 1.5));
}

TEST(Sum, EmptyAndScalar) {
  EXPECT_EQ(vec(sum(zeros({0, 3}, DType::Float32), {0})), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(sum(zeros({3, 0}), {0}).shape(), (Shape{0}));
  EXPECT_DOUBLE_EQ(sum(full({}, 2.5, DType::Float64)).item<double>(), 2.5);
  EXPECT_EQ(vec(sum(ones({2, 1, 3}), {1})), std::vector<double>(6, 1.0));  // a size-1 axis
}

// Every layout the kernels distinguish (inner, outer, middle, alternating, permuted, sliced,
// broadcast; short and chunked lengths) against the float64 reference.
TEST(Sum, MatchesReferenceOnManyLayouts) {
  struct Case {
    Shape shape;
    Axes axes;
  };
  std::vector<Case> cases = {
      {{7}, {0}},           {{1000}, {0}},          {{70000}, {0}},          {{5, 9}, {1}},
      {{5, 9}, {0}},        {{3001, 5}, {0}},       {{2500, 40}, {0}},       {{3, 70000}, {1}},
      {{4, 5, 6}, {1}},     {{4, 5, 6}, {0, 2}},    {{4, 5, 6, 7}, {1, 3}},  {{4, 5, 6, 7}, {0, 2}},
      {{2, 3, 4, 5}, {0, 1, 2, 3}}, {{6, 1, 8}, {0, 1}}, {{2, 2101, 3}, {1}}, {{9, 600}, {0, 1}},
  };
  uint64_t seed = 1;
  for (auto& c : cases) {
    for (DType dt : {DType::Float64, DType::Float32}) {
      Tensor x = dt == DType::Float64 ? rand64(c.shape, seed++) : rand32(c.shape, seed++);
      auto want = reference(x, c.axes, 0.0, [](double a, double b) { return a + b; });
      // Rounding error is relative to the sum of magnitudes (the condition of the sum).
      auto scale = reference(x, c.axes, 0.0, [](double a, double b) { return a + std::abs(b); });
      double eps = dt == DType::Float64 ? 1e-15 : 3e-7;
      SCOPED_TRACE(shape_str(c.shape) + " " + name(dt));
      auto got = vec(sum(x, c.axes));
      for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], eps * (1 + scale[i])) << "at " << i;
      // The same data through a transposed (non-contiguous but dense) view.
      if (x.dim() >= 2) {
        Tensor xt = transpose(x, 0, x.dim() - 1);
        auto want_t = reference(xt, c.axes, 0.0, [](double a, double b) { return a + b; });
        auto scale_t = reference(xt, c.axes, 0.0, [](double a, double b) { return a + std::abs(b); });
        auto got_t = vec(sum(xt, c.axes));
        for (size_t i = 0; i < got_t.size(); ++i) EXPECT_NEAR(got_t[i], want_t[i], eps * (1 + scale_t[i]));
      }
    }
  }
  // Sliced (gaps in memory) and broadcast (stride 0) inputs take the strided path.
  Tensor x = rand64({6, 10}, 99);
  Tensor s = slice(x, 1, 1, 9, 2);
  expect_near_all(vec(sum(s, {1})), reference(s, {1}, 0.0, [](double a, double b) { return a + b; }), 1e-13);
  Tensor e = expand(rand64({1, 10}, 98), {500, 10});
  expect_near_all(vec(sum(e, {0})), reference(e, {0}, 0.0, [](double a, double b) { return a + b; }), 1e-13);
}

// Pairwise sums keep float32 accurate where a running sum would lose digits: 2^22 copies of 0.1f
// summed in sequence in float32 stall far below the truth.
TEST(Sum, Float32IsAccurateForLongReductions) {
  const int64_t n = int64_t(1) << 22;
  double exact = double(n) * double(0.1f);
  Tensor x = full({n}, 0.1, DType::Float32);
  EXPECT_NEAR(sum(x).item<double>(), exact, exact * 1e-6);
  Tensor cols = full({n / 4, 4}, 0.1, DType::Float32);  // leading-axis reduction
  for (double v : vec(sum(cols, {0}))) EXPECT_NEAR(v, exact / 4, exact / 4 * 1e-6);
  Tensor mid = full({2, n / 8, 4}, 0.1, DType::Float32);
  for (double v : vec(sum(mid, {1}))) EXPECT_NEAR(v, exact / 8, exact / 8 * 1e-6);
}

TEST(Sum, BitsDoNotDependOnThreadCount) {
  std::vector<std::pair<Tensor, Axes>> work = {
      {rand32({1 << 20}, 1), {0}},          // one long row: chunks summed by different threads
      {rand32({64, 4096}, 2), {1}},         // rows
      {rand32({5000, 300}, 3), {0}},        // leading axis, several row chunks
      {rand32({3, 3000, 70}, 4), {0, 2}},   // alternating: two passes
      {rand32({2, 100000}, 5), {1}},        // few long rows
      {rand64({300000, 3}, 6), {0}},        // narrow columns
  };
  int saved = omp_get_max_threads();
  for (auto& [x, axes] : work) {
    omp_set_num_threads(1);
    auto one = bytes(sum(x, axes));
    auto one_max = bytes(amax(x, axes));
    omp_set_num_threads(2);
    auto two = bytes(sum(x, axes));
    auto two_max = bytes(amax(x, axes));
    EXPECT_EQ(one, two) << shape_str(x.shape());
    EXPECT_EQ(one_max, two_max) << shape_str(x.shape());
  }
  omp_set_num_threads(saved);
}

TEST(Sum, SumToReversesBroadcasting) {
  Tensor g = ones({2, 3, 4}, DType::Float64);
  EXPECT_EQ(vec(sum_to(g, {3, 1})), (std::vector<double>{8, 8, 8}));
  EXPECT_EQ(vec(sum_to(g, {4})), std::vector<double>(4, 6.0));
  EXPECT_THROW(sum_to(g, {1, 2, 3, 4}), ShapeError);
}

// ---------------------------------------------------------------- mean, prod

TEST(Mean, ValuesAndDtypes) {
  Tensor x = reshape(arange(0, 6, 1, DType::Float64), {2, 3});
  EXPECT_EQ(vec(mean(x, {1})), (std::vector<double>{1, 4}));
  EXPECT_DOUBLE_EQ(mean(x).item<double>(), 2.5);
  Tensor i = from_vector<int64_t>({1, 2}, {2});
  EXPECT_EQ(mean(i).dtype(), DType::Float32);
  EXPECT_DOUBLE_EQ(mean(i).item<double>(), 1.5);
  EXPECT_TRUE(std::isnan(mean(zeros({0})).item<double>()));
}

TEST(Prod, ValuesAndLayouts) {
  Tensor x = reshape(arange(1, 7, 1, DType::Float64), {2, 3});
  EXPECT_EQ(vec(prod(x, {1})), (std::vector<double>{6, 120}));
  EXPECT_EQ(vec(prod(x, {0})), (std::vector<double>{4, 10, 18}));
  EXPECT_DOUBLE_EQ(prod(x).item<double>(), 720);
  EXPECT_EQ(prod(from_vector<int32_t>({3, -2, 5}, {3})).item<int64_t>(), -30);
  EXPECT_EQ(prod(from_vector<bool>({true, true}, {2})).dtype(), DType::Int64);
  EXPECT_DOUBLE_EQ(prod(zeros({0})).item<double>(), 1.0);
  Tensor big = add(mul(rand64({40, 50}, 7), Scalar(0.1)), Scalar(1.0));
  expect_near_all(vec(prod(big, {0})), reference(big, {0}, 1.0, [](double a, double b) { return a * b; }), 1e-13);
  expect_near_all(vec(prod(big, {1})), reference(big, {1}, 1.0, [](double a, double b) { return a * b; }), 1e-13);
}

// d prod / d x_i is the product of the others, also where some x_j are zero.
TEST(Prod, GradientWithZeros) {
  auto grad_of = [](std::vector<double> v) {
    Tensor x = from_vector<double>(v, {int64_t(v.size())}).set_requires_grad();
    prod(x).backward();
    return vec(x.grad());
  };
  EXPECT_EQ(grad_of({2, 3, 4}), (std::vector<double>{12, 8, 6}));
  EXPECT_EQ(grad_of({2, 0, 4}), (std::vector<double>{0, 8, 0}));
  EXPECT_EQ(grad_of({0, 3, 0}), (std::vector<double>{0, 0, 0}));
  // Over a middle axis, with keepdims.
  Tensor x = from_vector<double>({1, 2, 0, 3, 4, 5, 6, 7}, {2, 2, 2}).set_requires_grad();
  sum(prod(x, {1}, true)).backward();
  // groups (axis 1): {1,0},{2,3},{4,6},{5,7}
  EXPECT_EQ(vec(x.grad()), (std::vector<double>{0, 3, 1, 2, 6, 7, 4, 5}));
}

// ---------------------------------------------------------------- amax, amin, argmax, argmin

TEST(Extremes, ValuesAndNaN) {
  Tensor x = from_vector<double>({3, -1, 7, 2, 9, -4}, {2, 3});
  EXPECT_EQ(vec(amax(x, {1})), (std::vector<double>{7, 9}));
  EXPECT_EQ(vec(amin(x, {0})), (std::vector<double>{2, -1, -4}));
  EXPECT_DOUBLE_EQ(amax(x).item<double>(), 9);
  EXPECT_EQ(amin(x, {0, 1}, true).shape(), (Shape{1, 1}));
  EXPECT_EQ(amax(from_vector<int32_t>({3, 8, -2}, {3})).item<int64_t>(), 8);
  EXPECT_EQ(amax(from_vector<bool>({false, true}, {2})).item<double>(), 1.0);
  double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor n = from_vector<double>({1, nan, 3, 4, 5, 6}, {2, 3});
  auto m = vec(amax(n, {1}));
  EXPECT_TRUE(std::isnan(m[0]));
  EXPECT_EQ(m[1], 6);
  EXPECT_TRUE(std::isnan(amin(n).item<double>()));
  // Long rows and columns (vectorised lanes, chunks) against the reference.
  Tensor r = rand32({3, 40000}, 8);
  expect_near_all(vec(amax(r, {1})), reference(r, {1}, -1e300, [](double a, double b) { return std::max(a, b); }), 0);
  Tensor c = rand32({3000, 33}, 9);
  expect_near_all(vec(amin(c, {0})), reference(c, {0}, 1e300, [](double a, double b) { return std::min(a, b); }), 0);
}

TEST(Extremes, GradientIsSharedAmongTies) {
  Tensor x = from_vector<double>({1, 5, 5, 2, 5, 0}, {6}).set_requires_grad();
  amax(x).backward();
  double t = 1.0 / 3;
  EXPECT_EQ(vec(x.grad()), (std::vector<double>{0, t, t, 0, t, 0}));
  Tensor y = from_vector<double>({4, 1, 1, 3}, {2, 2}).set_requires_grad();
  sum(mul(amin(y, {1}), from_vector<double>({10, 100}, {2}))).backward();
  EXPECT_EQ(vec(y.grad()), (std::vector<double>{0, 10, 100, 0}));
}

TEST(Extremes, ArgmaxArgmin) {
  Tensor x = from_vector<double>({3, 9, 9, 1, 0, 0, 7, 2}, {2, 4});
  Tensor am = argmax(x, 1);
  EXPECT_EQ(am.dtype(), DType::Int64);
  EXPECT_EQ(vec(am), (std::vector<double>{1, 2}));  // first of the tied maxima
  EXPECT_EQ(vec(argmin(x, 1)), (std::vector<double>{3, 0}));
  EXPECT_EQ(vec(argmax(x, 0)), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(argmin(x, -1, true).shape(), (Shape{2, 1}));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(argmax(from_vector<double>({1, nan, 5, nan}, {4}), 0).item<int64_t>(), 1);  // NumPy: first NaN
  EXPECT_EQ(argmin(from_vector<double>({1, 5, nan}, {3}), 0).item<int64_t>(), 2);
  Tensor r = rand64({70000}, 10);
  auto v = vec(r);
  int64_t want = std::max_element(v.begin(), v.end()) - v.begin();
  EXPECT_EQ(argmax(r, 0).item<int64_t>(), want);
  EXPECT_EQ(vec(argmax(transpose(x, 0, 1), 1)), (std::vector<double>{0, 0, 0, 1}));
  Tensor g = rand64({3}, 11).set_requires_grad();
  EXPECT_FALSE(argmax(g, 0).requires_grad());
}

TEST(Extremes, Errors) {
  EXPECT_THROW(amax(zeros({0, 3}), {0}), ValueError);
  EXPECT_NO_THROW(amax(zeros({0, 3}), {1}));
  EXPECT_THROW(amax(zeros({2}, DType::Complex64)), DTypeError);
  EXPECT_THROW(argmax(zeros({2}, DType::Complex64), 0), DTypeError);
  EXPECT_THROW(argmin(zeros({3, 0}), 1), ValueError);
  EXPECT_THROW(argmax(zeros({3}), 1), Error);
  EXPECT_THROW(amin(zeros({3}), {0, 0}), ShapeError);
}

// ---------------------------------------------------------------- logsumexp, var, std

TEST(LogSumExp, StableAndCorrect) {
  Tensor x = from_vector<double>({1000, 1000, -1000, 0}, {2, 2});
  auto v = vec(logsumexp(x, {1}));
  EXPECT_NEAR(v[0], 1000 + std::log(2.0), 1e-12);
  EXPECT_NEAR(v[1], std::log1p(std::exp(-1000.0)), 1e-12);
  Tensor y = from_vector<float>({0.5f, -1.0f, 2.0f}, {3});
  EXPECT_NEAR(logsumexp(y).item<double>(), std::log(std::exp(0.5) + std::exp(-1.0) + std::exp(2.0)), 1e-6);
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(logsumexp(from_vector<double>({-inf, -inf}, {2})).item<double>(), -inf);
  EXPECT_EQ(logsumexp(from_vector<double>({inf, 1}, {2})).item<double>(), inf);
  EXPECT_EQ(logsumexp(x, {1}, true).shape(), (Shape{2, 1}));
  EXPECT_EQ(logsumexp(zeros({0})).item<double>(), -inf);
}

TEST(LogSumExp, GradientIsSoftmax) {
  Tensor x = from_vector<double>({1, 2, 3, 3}, {4}).set_requires_grad();  // a tie in the max
  logsumexp(x).backward();
  double z = std::exp(1) + std::exp(2) + 2 * std::exp(3);
  expect_near_all(vec(x.grad()), {std::exp(1) / z, std::exp(2) / z, std::exp(3) / z, std::exp(3) / z}, 1e-14);
}

// Second order and forward mode through the composite: the Hessian of logsumexp is
// diag(p) - p p^T and its tangent along v is <p, v>, with p = softmax(x).
TEST(LogSumExp, HessianAndForwardMode) {
  std::vector<double> xv = {0.3, -1.2, 2.0, 2.0};
  Tensor x = from_vector<double>(xv, {4});
  std::vector<double> p(4);
  double z = 0;
  for (int i = 0; i < 4; ++i) z += std::exp(xv[i]);
  for (int i = 0; i < 4; ++i) p[i] = std::exp(xv[i]) / z;
  Function f = [](const Tensors& in) { return Tensors{logsumexp(in[0])}; };
  auto h = vec(hessian(f)({x})[0]);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_NEAR(h[i * 4 + j], (i == j ? p[i] : 0.0) - p[i] * p[j], 1e-12);
  Tensor v = from_vector<double>({1, -2, 0.5, 3}, {4});
  auto [out, tangent] = jvp(f, {x}, {v});
  EXPECT_NEAR(tangent[0].item<double>(), p[0] - 2 * p[1] + 0.5 * p[2] + 3 * p[3], 1e-12);
}

TEST(VarStd, KnownValues) {
  Tensor x = from_vector<double>({1, 2, 3, 4}, {4});
  EXPECT_DOUBLE_EQ(var(x).item<double>(), 1.25);
  EXPECT_DOUBLE_EQ(var(x, {}, 1).item<double>(), 5.0 / 3);
  EXPECT_DOUBLE_EQ(spire::std(x, {}, 1).item<double>(), std::sqrt(5.0 / 3));
  Tensor m = from_vector<double>({1, 3, 2, 8}, {2, 2});
  EXPECT_EQ(vec(var(m, {0})), (std::vector<double>{0.25, 6.25}));
  EXPECT_EQ(var(m, {1}, 0, true).shape(), (Shape{2, 1}));
  // Large offset: the two-pass form keeps float32 exact-ish where E[x^2] - E[x]^2 would cancel.
  Tensor big = from_vector<float>({10000.0f, 10001.0f, 10002.0f}, {3});
  EXPECT_NEAR(var(big).item<double>(), 2.0 / 3, 1e-3);
  Tensor z = from_vector<c128>({{1, 1}, {-1, -1}}, {2});  // |z - 0|^2 = 2 each
  EXPECT_EQ(var(z).dtype(), DType::Float64);
  EXPECT_DOUBLE_EQ(var(z).item<double>(), 2.0);
  EXPECT_EQ(var(from_vector<int64_t>({1, 3}, {2})).dtype(), DType::Float32);
  EXPECT_THROW(var(x, {}, 4), ValueError);
  EXPECT_THROW(var(x, {}, -1), ValueError);
}

TEST(VarStd, Gradient) {
  // d var / d x_i = 2 (x_i - mean) / (n - ddof)
  Tensor x = from_vector<double>({1, 2, 4}, {3}).set_requires_grad();
  var(x, {}, 1).backward();
  double mu = 7.0 / 3;
  expect_near_all(vec(x.grad()), {(1 - mu), (2 - mu), (4 - mu)}, 1e-14);
  // Forward mode: d std = <x - mean, v> / ((n - ddof) std).
  Function f = [](const Tensors& in) { return Tensors{spire::std(in[0], {}, 1)}; };
  Tensor v = from_vector<double>({1, 0, -1}, {3});
  auto [out, tangent] = jvp(f, {x.detach()}, {v});
  double sd = std::sqrt(((1 - mu) * (1 - mu) + (2 - mu) * (2 - mu) + (4 - mu) * (4 - mu)) / 2);
  EXPECT_NEAR(out[0].item<double>(), sd, 1e-14);
  EXPECT_NEAR(tangent[0].item<double>(), ((1 - mu) - (4 - mu)) / (2 * sd), 1e-14);
}

// ---------------------------------------------------------------- cumsum, cumprod

TEST(Scan, CumsumAndCumprod) {
  Tensor x = from_vector<double>({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(vec(cumsum(x, 1)), (std::vector<double>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(vec(cumsum(x, 0)), (std::vector<double>{1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(vec(cumprod(x, -1)), (std::vector<double>{1, 2, 6, 4, 20, 120}));
  EXPECT_EQ(vec(cumprod(x, 0)), (std::vector<double>{1, 2, 3, 4, 10, 18}));
  EXPECT_EQ(vec(cumsum(x, 1, true, false)), (std::vector<double>{0, 1, 3, 0, 4, 9}));
  EXPECT_EQ(vec(cumsum(x, 1, false, true)), (std::vector<double>{6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(vec(cumsum(x, 1, true, true)), (std::vector<double>{5, 3, 0, 11, 6, 0}));
  EXPECT_EQ(vec(cumprod(x, 0, true, true)), (std::vector<double>{4, 5, 6, 1, 1, 1}));
  // Non-contiguous input, ints, bools.
  EXPECT_EQ(vec(cumsum(transpose(x, 0, 1), 1)), (std::vector<double>{1, 5, 2, 7, 3, 9}));
  Tensor i = from_vector<int32_t>({5, -2, 7}, {3});
  EXPECT_EQ(cumsum(i, 0).dtype(), DType::Int32);
  EXPECT_EQ(vec(cumprod(i, 0)), (std::vector<double>{5, -10, -70}));
  Tensor b = from_vector<bool>({true, false, true}, {3});
  EXPECT_EQ(cumsum(b, 0).dtype(), DType::Int64);
  EXPECT_EQ(vec(cumsum(b, 0)), (std::vector<double>{1, 1, 2}));
  // Long axes, both kernel shapes: running sums of 1..n.
  int64_t n = 100000;
  Tensor r = arange(1, double(n) + 1, 1, DType::Float64);
  EXPECT_DOUBLE_EQ(vec(cumsum(r, 0))[n - 1], double(n) * (n + 1) / 2);
  Tensor c = expand(reshape(r, {n, 1}), {n, 3});
  auto cs = vec(cumsum(contiguous(c), 0));
  EXPECT_DOUBLE_EQ(cs[3 * (n - 1) + 2], double(n) * (n + 1) / 2);
  EXPECT_THROW(cumsum(x, 2), Error);
}

TEST(Scan, Gradients) {
  // d/dx_i sum_k w_k cumsum(x)_k = sum_{k >= i} w_k
  Tensor x = from_vector<double>({1, 2, 3}, {3}).set_requires_grad();
  Tensor w = from_vector<double>({1, 10, 100}, {3});
  sum(mul(cumsum(x, 0), w)).backward();
  EXPECT_EQ(vec(x.grad()), (std::vector<double>{111, 110, 100}));
  // cumprod: y = (x0, x0 x1, x0 x1 x2) with x = (1, 2, 3)
  Tensor y = from_vector<double>({1, 2, 3}, {3}).set_requires_grad();
  sum(mul(cumprod(y, 0), w)).backward();
  expect_near_all(vec(y.grad()), {1 + 10 * 2 + 100 * 6, 10 * 1 + 100 * 3, 100 * 2}, 1e-15);
}

}  // namespace
