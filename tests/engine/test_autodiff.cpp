// Reverse and forward mode, their composition, and the errors autodiff gives.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/forward.h"
#include "engine/autodiff/functional.h"
#include "engine/autodiff/mode.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

using namespace spire;

namespace {
Tensor vec(std::vector<double> v) { return from_vector<double>(v, {int64_t(v.size())}); }

void expect_all_near(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  auto got = t.to_vector();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

// f(x) = sum(sin(x) * x^2): analytic gradient and Hessian diagonal (the Hessian is diagonal).
Tensors f_sin(const Tensors& x) { return {sum(mul(sin(x[0]), square(x[0])))}; }
double df(double x) { return std::cos(x) * x * x + 2 * x * std::sin(x); }
double d2f(double x) { return -std::sin(x) * x * x + 4 * x * std::cos(x) + 2 * std::sin(x); }
double d3f(double x) { return -std::cos(x) * x * x - 6 * x * std::sin(x) + 6 * std::cos(x); }
}  // namespace

TEST(Autodiff, GradMatchesAnalytic) {
  std::vector<double> xv{0.3, -1.2, 2.0};
  Tensors g = grad(f_sin)({vec(xv)});
  std::vector<double> want;
  for (double x : xv) want.push_back(df(x));
  expect_all_near(g[0], want);
}

TEST(Autodiff, ThirdOrderByNestedGrad) {
  // d3/dx3 of sin(x) x^2 via grad(grad(grad)) of a scalar function.
  Function f1 = [](const Tensors& x) { return Tensors{sum(mul(sin(x[0]), square(x[0])))}; };
  Function f2 = [f1](const Tensors& x) { return Tensors{sum(grad(f1)(x)[0])}; };
  Function f3 = [f2](const Tensors& x) { return Tensors{sum(grad(f2)(x)[0])}; };
  Tensors g = grad(f3)({vec({0.7})});
  EXPECT_NEAR(g[0].item<double>(), d3f(0.7), 1e-12);
}

TEST(Autodiff, HessianForwardOverReverseAndReverseOverReverse) {
  std::vector<double> xv{0.5, -0.25};
  Tensors h = hessian(f_sin)({vec(xv)});
  Tensors hr = jacrev(grad(f_sin))({vec(xv)});
  expect_all_near(h[0], {d2f(0.5), 0, 0, d2f(-0.25)});
  expect_all_near(hr[0], {d2f(0.5), 0, 0, d2f(-0.25)});
}

TEST(Autodiff, JacobiansAgree) {
  // f(x) = [x0 * x1, exp(x0)] as a stacked vector.
  Function f = [](const Tensors& x) {
    Tensor a = select(x[0], 0, 0), b = select(x[0], 0, 1);
    return Tensors{stack({mul(a, b), exp(a)}, 0)};
  };
  Tensor x = vec({1.5, -2.0});
  Tensor jf = jacfwd(f)({x})[0], jr = jacrev(f)({x})[0];
  expect_all_near(jf, {-2.0, 1.5, std::exp(1.5), 0.0});
  expect_all_near(jr, {-2.0, 1.5, std::exp(1.5), 0.0});
}

TEST(Autodiff, HvpEqualsHessianTimesVector) {
  std::vector<double> xv{0.2, 1.1, -0.4}, vv{1.0, -2.0, 0.5};
  Tensors hv = hvp(f_sin, {vec(xv)}, {vec(vv)});
  expect_all_near(hv[0], {d2f(0.2) * 1.0, d2f(1.1) * -2.0, d2f(-0.4) * 0.5});
}

TEST(Autodiff, NestedJvpGivesMixedSecondDerivative) {
  // f(x) = x^3; jvp of jvp along (u, v) gives f''(x) u v = 6 x u v.
  Function f = [](const Tensors& x) { return Tensors{mul(square(x[0]), x[0])}; };
  Function df_u = [f](const Tensors& x) { return jvp(f, x, {vec({2.0})}).second; };
  auto [out, t] = jvp(df_u, {vec({1.5})}, {vec({3.0})});
  EXPECT_NEAR(out[0].item<double>(), 3 * 1.5 * 1.5 * 2.0, 1e-12);
  EXPECT_NEAR(t[0].item<double>(), 6 * 1.5 * 2.0 * 3.0, 1e-12);
}

TEST(Autodiff, GradOfClosureOverOuterVariable) {
  // d/dx [ d/dy (x*y) at y=c ] = d/dx [x] = 1: the inner gradient must stay differentiable in x.
  Function outer = [](const Tensors& xs) {
    Tensor x = xs[0];
    Function inner = [x](const Tensors& ys) { return Tensors{sum(mul(x, ys[0]))}; };
    return Tensors{sum(grad(inner)({vec({4.0})})[0])};
  };
  EXPECT_NEAR(grad(outer)({vec({3.0})})[0].item<double>(), 1.0, 1e-12);
}

TEST(Autodiff, BackwardAccumulatesAndNoGradStops) {
  Tensor x = vec({1.0, 2.0}).set_requires_grad();
  sum(mul(x, x)).backward();
  sum(x).backward();
  expect_all_near(x.grad(), {3.0, 5.0});
  {
    NoGradGuard ng;
    Tensor y = mul(x, x);
    EXPECT_FALSE(y.requires_grad());
  }
  Tensor d = mul(x.detach(), x.detach());
  EXPECT_FALSE(d.requires_grad());
}

TEST(Autodiff, SecondBackwardThroughFreedGraphSaysHowToKeepIt) {
  Tensor x = vec({1.0, 2.0}).set_requires_grad();
  Tensor y = sum(exp(x));
  y.backward();
  try {
    y.backward();
    FAIL() << "no error";
  } catch (const AutodiffError& e) {
    EXPECT_NE(std::string(e.what()).find("retain_graph"), std::string::npos) << e.what();
  }
  Tensor z = sum(exp(x));
  z.backward(Tensor(), /*retain_graph=*/true);
  EXPECT_NO_THROW(z.backward());
}

TEST(Autodiff, NonDifferentiableOpIsNamed) {
  Tensor x = vec({1.0, -2.0, 3.0}).set_requires_grad();
  Tensor i = argmax(x, 0);
  EXPECT_FALSE(i.requires_grad());
  try {
    autodiff::grad({sum(cast(i, DType::Float64))}, {x});
    FAIL() << "no error";
  } catch (const AutodiffError& e) {
    EXPECT_NE(std::string(e.what()).find("argmax"), std::string::npos) << e.what();
  }
}

TEST(Autodiff, AnomalyModeNamesTheOpThatMadeNaN) {
  AnomalyMode::set(true);
  Tensor x = vec({-1.0, 2.0}).set_requires_grad();
  try {
    sqrt(x);
    AnomalyMode::set(false);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    AnomalyMode::set(false);
    EXPECT_NE(std::string(e.what()).find("'sqrt'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("NaN"), std::string::npos) << e.what();
  }
}

TEST(Autodiff, ComplexGradientFollowsConjugateConvention) {
  // L(z) = |z|^2 = z conj(z): the gradient (dL/dRe + i dL/dIm) is 2z.
  Tensor z = from_vector<c128>({c128(1.0, 2.0)}, {1});
  Function f = [](const Tensors& x) { return Tensors{sum(real(mul(x[0], conj(x[0]))))}; };
  Tensor g = grad(f)({z})[0];
  c128 v = g.item().to_complex();
  EXPECT_NEAR(v.real(), 2.0, 1e-12);
  EXPECT_NEAR(v.imag(), 4.0, 1e-12);
}

TEST(Autodiff, ValueAndGradWithArgnums) {
  Function f = [](const Tensors& x) { return Tensors{sum(mul(x[0], exp(x[1])))}; };
  Tensors r = value_and_grad(f, {1})({vec({2.0}), vec({0.5})});
  ASSERT_EQ(r.size(), 2u);
  EXPECT_NEAR(r[0].item<double>(), 2.0 * std::exp(0.5), 1e-12);
  EXPECT_NEAR(r[1].item<double>(), 2.0 * std::exp(0.5), 1e-12);
}
