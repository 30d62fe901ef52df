// The Fourier space against analytic Fourier series, derivatives and products.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <cstring>
#include <thread>

#include "engine/core/error.h"
#include "science/flow/fftw_plans.h"
#include "science/flow/fourier.h"
#include "science/flow/space.h"

namespace spire::flow {
namespace {

constexpr double pi = std::numbers::pi;

Discretization disc1(int n, double dealias = 1.5, double x0 = -1, double x1 = 1) {
  Discretization d;
  d.nx = n;
  d.dealias = dealias;
  d.x0 = x0;
  d.x1 = x1;
  return d;
}

Discretization disc2(int nx, int ny, double dealias = 1.5) {
  Discretization d = disc1(nx, dealias, 0, 2 * pi);
  d.dims = 2;
  d.ny = ny;
  d.y0 = -1;
  d.y1 = 1;
  return d;
}

std::vector<double> random_grid(size_t n, unsigned seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(n);
  for (double& x : v) x = u(g);
  return v;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(a[i] - b[i]));
  return m;
}

TEST(FourierSpace, RoundTripAndKnownCoefficients1D) {
  auto s = make_space(disc1(32));
  const auto& x = s->coordinates(0, false);
  ASSERT_EQ(x.size(), 32u);
  EXPECT_DOUBLE_EQ(x[0], -1.0);
  EXPECT_DOUBLE_EQ(x[1], -1.0 + 2.0 / 32);
  auto g = random_grid(32, 1);
  std::vector<cplx> c(s->coeff_size(false));
  std::vector<double> back(32);
  s->forward(g.data(), c.data(), false);
  s->backward(c.data(), back.data(), false);
  EXPECT_LT(max_diff(g, back), 1e-14);
  // sin(3 k1 (x - x0)) = (e^{i..} - e^{-i..}) / 2i: c_3 = -i/2; plus a constant 0.25.
  std::vector<double> f(32);
  for (int i = 0; i < 32; ++i) f[i] = 0.25 + std::sin(3 * pi * (x[i] + 1));
  s->forward(f.data(), c.data(), false);
  EXPECT_NEAR(c[0].real(), 0.25, 1e-15);
  EXPECT_NEAR(c[3].real(), 0, 1e-15);
  EXPECT_NEAR(c[3].imag(), -0.5, 1e-15);
  for (int m : {1, 2, 4, 16}) EXPECT_LT(std::abs(c[m]), 1e-15) << m;
}

TEST(FourierSpace, RoundTripAndLayout2D) {
  auto s = make_space(disc2(16, 12));
  EXPECT_EQ(s->grid_shape(false), (std::vector<int>{16, 12}));
  EXPECT_EQ(s->pencil_count(false), 16 * 7);
  auto g = random_grid(16 * 12, 2);
  std::vector<cplx> c(s->coeff_size(false));
  std::vector<double> back(g.size());
  s->forward(g.data(), c.data(), false);
  s->backward(c.data(), back.data(), false);
  EXPECT_LT(max_diff(g, back), 1e-14);
  // cos(2 kx x' - 3 ky y') = (e^{i(2,-3)} + e^{i(-2,3)}) / 2: the (-2, 3) half sits at row 16 - 2.
  const auto &x = s->coordinates(0, false), &y = s->coordinates(1, false);
  std::vector<double> f(g.size());
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 12; ++j) f[i * 12 + j] = std::cos(2 * x[i] - 3 * pi * (y[j] + 1));
  s->forward(f.data(), c.data(), false);
  for (int p = 0; p < s->pencil_count(false); ++p) {
    const double expected = p == 14 * 7 + 3 ? 0.5 : 0;
    EXPECT_NEAR(c[p].real(), expected, 1e-15) << p;
    EXPECT_NEAR(c[p].imag(), 0, 1e-15) << p;
  }
}

// The trigonometric interpolant of coefficients c (Nyquist as a cosine), evaluated directly.
double interpolant(const std::vector<cplx>& c, int n, double xi, double length) {
  double u = c[0].real();
  for (int m = 1; m < n / 2; ++m) u += 2 * (c[m] * std::exp(cplx(0, 2 * pi * m * xi / length))).real();
  return u + c[n / 2].real() * std::cos(pi * n * xi / length);
}

TEST(FourierSpace, PaddingKeepsTheInterpolantAndTruncationUndoesIt) {
  auto s = make_space(disc1(16, 1.5));
  EXPECT_EQ(s->grid_size(true), 24u);
  auto g = random_grid(16, 3);  // full spectrum, Nyquist included
  std::vector<cplx> c(s->coeff_size(false)), cp(s->coeff_size(true)), c2(c.size());
  s->forward(g.data(), c.data(), false);
  s->pad(c.data(), cp.data());
  std::vector<double> fine(24);
  s->backward(cp.data(), fine.data(), true);
  const auto& xp = s->coordinates(0, true);
  for (int i = 0; i < 24; ++i) EXPECT_NEAR(fine[i], interpolant(c, 16, xp[i] + 1, 2), 1e-14) << i;
  s->truncate(cp.data(), c2.data());
  for (size_t k = 0; k < c.size(); ++k) EXPECT_LT(std::abs(c[k] - c2[k]), 1e-16) << k;

  for (double dealias : {1.0, 1.5, 2.0}) {  // 2D: the x Nyquist row and y Nyquist column both split
    auto s2 = make_space(disc2(8, 6, dealias));
    auto g2 = random_grid(48, 4);
    std::vector<cplx> d(s2->coeff_size(false)), dp(s2->coeff_size(true)), d2(d.size());
    s2->forward(g2.data(), d.data(), false);
    s2->pad(d.data(), dp.data());
    s2->truncate(dp.data(), d2.data());
    for (size_t k = 0; k < d.size(); ++k) EXPECT_LT(std::abs(d[k] - d2[k]), 1e-16) << k;
    // Back on the coarse points, the padded grid's values are the original ones.
    std::vector<double> fine2(s2->grid_size(true));
    s2->backward(dp.data(), fine2.data(), true);
    const auto shape = s2->grid_shape(true);
    if (shape[0] % 8 == 0 && shape[1] % 6 == 0) {
      const int rx = shape[0] / 8, ry = shape[1] / 6;
      for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 6; ++j)
          EXPECT_NEAR(fine2[(i * rx) * shape[1] + j * ry], g2[i * 6 + j], 1e-14) << dealias;
    }
  }
}

TEST(FourierSpace, BandLimitedTransformsMatchTheFullOnes) {
  for (double dealias : {1.0, 1.5, 2.0}) {
    auto sp = make_space(disc2(12, 10, dealias));
    auto* s = dynamic_cast<const FourierSpace*>(sp.get());
    ASSERT_NE(s, nullptr);
    auto g = random_grid(120, 7);
    std::vector<cplx> c(s->coeff_size(false)), cp(s->coeff_size(true));
    s->forward(g.data(), c.data(), false);
    s->pad(c.data(), cp.data());
    std::vector<double> a(s->grid_size(true)), b(a.size()), d(a.size());
    s->backward(cp.data(), a.data(), true);
    auto kept = cp;
    s->backward_band_limited(cp.data(), b.data(), false);
    EXPECT_EQ(std::memcmp(cp.data(), kept.data(), cp.size() * sizeof(cplx)), 0);  // input kept
    s->backward_band_limited(cp.data(), d.data(), true);
    EXPECT_LT(max_diff(a, b), 1e-14) << dealias;
    EXPECT_LT(max_diff(a, d), 1e-14) << dealias;
    // pad_derivative: the same values as pad() then differentiate() (zeros may differ in sign).
    for (auto [ox, oy] : {std::pair{1, 0}, {0, 1}, {2, 1}, {0, 3}, {5, 0}}) {
      std::vector<cplx> one(cp.size()), two(cp.size());
      s->pad(c.data(), two.data());
      if (ox) s->differentiate(two.data(), two.data(), 0, ox, true);
      if (oy) s->differentiate(two.data(), two.data(), 1, oy, true);
      s->pad_derivative(c.data(), one.data(), ox, oy);
      for (size_t k = 0; k < one.size(); ++k) ASSERT_EQ(one[k], two[k]) << ox << " " << oy << " " << k;
    }
    // The forward twin: what truncate() keeps is the same as after a full forward.
    auto fine = random_grid(s->grid_size(true), 8);
    std::vector<cplx> full(s->coeff_size(true)), part(full.size()), t1(c.size()), t2(c.size());
    s->forward(fine.data(), full.data(), true);
    s->forward_band_limited(fine.data(), part.data());
    s->truncate(full.data(), t1.data());
    s->truncate(part.data(), t2.data());
    for (size_t k = 0; k < t1.size(); ++k) EXPECT_LT(std::abs(t1[k] - t2[k]), 1e-16) << dealias << " " << k;
  }
}

// Max error of d/dx of exp(sin(pi x)) on [-1, 1] with n points.
double derivative_error(int n) {
  auto s = make_space(disc1(n));
  const auto& x = s->coordinates(0, false);
  std::vector<double> u(n), du(n), exact(n);
  for (int i = 0; i < n; ++i) {
    u[i] = std::exp(std::sin(pi * x[i]));
    exact[i] = pi * std::cos(pi * x[i]) * u[i];
  }
  std::vector<cplx> c(s->coeff_size(false));
  s->forward(u.data(), c.data(), false);
  s->differentiate(c.data(), c.data(), 0, 1, false);
  s->backward(c.data(), du.data(), false);
  return max_diff(du, exact);
}

TEST(FourierSpace, DerivativesAreSpectrallyAccurate) {
  {
    auto s = make_space(disc1(16));
    const auto& x = s->coordinates(0, false);
    std::vector<double> u(16), d2(16);
    for (int i = 0; i < 16; ++i) u[i] = std::sin(2 * pi * x[i]) + std::cos(3 * pi * x[i]);
    std::vector<cplx> c(s->coeff_size(false)), dc(c.size());
    s->forward(u.data(), c.data(), false);
    for (int order = 1; order <= 3; ++order) {
      s->differentiate(c.data(), dc.data(), 0, order, false);
      s->backward(dc.data(), d2.data(), false);
      for (int i = 0; i < 16; ++i) {
        const double a = 2 * pi * x[i], b = 3 * pi * x[i];
        const double exact[] = {0, 2 * pi * std::cos(a) - 3 * pi * std::sin(b),
                                -4 * pi * pi * std::sin(a) - 9 * pi * pi * std::cos(b),
                                -8 * pi * pi * pi * std::cos(a) + 27 * pi * pi * pi * std::sin(b)};
        EXPECT_NEAR(d2[i], exact[order], 1e-11) << order;
      }
    }
  }
  const double e8 = derivative_error(8), e16 = derivative_error(16), e32 = derivative_error(32),
               e64 = derivative_error(64);
  EXPECT_LT(e16, e8 / 20);
  EXPECT_LT(e32, e16 / 1e3);  // exponential: each doubling gains more than the last
  EXPECT_LT(e64, 1e-12);
}

TEST(FourierSpace, DerivativeAlongY) {
  auto s = make_space(disc2(8, 16));
  const auto &x = s->coordinates(0, false), &y = s->coordinates(1, false);
  std::vector<double> u(8 * 16), d(u.size());
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      u[i * 16 + j] = std::sin(x[i]) * std::cos(2 * pi * y[j]) + std::cos(3 * x[i]);
  std::vector<cplx> c(s->coeff_size(false));
  s->forward(u.data(), c.data(), false);
  s->differentiate(c.data(), c.data(), 1, 1, false);
  s->differentiate(c.data(), c.data(), 0, 1, false);
  s->backward(c.data(), d.data(), false);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 16; ++j)
      EXPECT_NEAR(d[i * 16 + j], -2 * pi * std::cos(x[i]) * std::sin(2 * pi * y[j]), 1e-12);
}

// u * v from modes |m| <= 5 each on 16 points: the product reaches |m| = 10 > 8.
void product(double dealias, std::vector<cplx>& got, std::vector<cplx>& exact) {
  auto s = make_space(disc1(16, dealias));
  const int nc = s->coeff_size(false);
  std::vector<cplx> cu(nc, 0), cv(nc, 0);  // coefficients for m >= 0; real functions
  cu[0] = 0.3; cu[2] = {0.5, -0.2}; cu[5] = {0.1, 0.4};
  cv[1] = {-0.3, 0.2}; cv[4] = 0.7; cv[5] = {0.2, 0.1};
  // The exact product's coefficients by convolution over m in -5..5.
  auto full = [](const std::vector<cplx>& c, int m) { return m >= 0 ? c[m] : std::conj(c[-m]); };
  exact.assign(nc, 0);
  for (int m = 0; m < nc; ++m) {
    cplx sum = 0, alias = 0;  // alias: the -m partner, for the Nyquist mode which holds both
    for (int a = -5; a <= 5; ++a) {
      if (std::abs(m - a) <= 5) sum += full(cu, a) * full(cv, m - a);
      if (std::abs(-m - a) <= 5) alias += full(cu, a) * full(cv, -m - a);
    }
    exact[m] = m == 8 ? sum + alias : sum;
  }
  std::vector<cplx> pu(s->coeff_size(true)), pv(pu.size()), pw(pu.size());
  std::vector<double> gu(s->grid_size(true)), gv(gu.size());
  s->pad(cu.data(), pu.data());
  s->pad(cv.data(), pv.data());
  s->backward(pu.data(), gu.data(), true);
  s->backward(pv.data(), gv.data(), true);
  for (size_t i = 0; i < gu.size(); ++i) gu[i] *= gv[i];
  s->forward(gu.data(), pw.data(), true);
  got.resize(nc);
  s->truncate(pw.data(), got.data());
}

TEST(FourierSpace, DealiasingRemovesAliasingOfProducts) {
  std::vector<cplx> got, exact;
  product(1.5, got, exact);
  for (size_t m = 0; m < got.size(); ++m) EXPECT_LT(std::abs(got[m] - exact[m]), 1e-15) << m;
  product(1.0, got, exact);
  double worst = 0;
  for (size_t m = 0; m < got.size(); ++m) worst = std::max(worst, std::abs(got[m] - exact[m]));
  EXPECT_GT(worst, 1e-2);  // mode 10 folds onto mode 6
  EXPECT_GT(std::abs(got[6] - exact[6]), 1e-2);
}

TEST(FourierSpace, PencilMatricesOfATwoFieldSystem) {
  // dt(u) + 0.1 dx(dx(u)) - 2 dx(v) = F;  3 u + dx(dx(dx(v))) = G (a constraint on v).
  Problem pr;
  pr.fields = {"u", "v"};
  Equation e0, e1;
  e0.field = 0;
  e0.mass = {{0, 1.0, 0, 0}};
  e0.linear = {{0, 0.1, 2, 0}, {1, -2.0, 1, 0}};
  e1.field = 1;
  e1.linear = {{0, 3.0, 0, 0}, {1, 1.0, 3, 0}};
  pr.equations = {e0, e1};
  auto s = make_space(disc1(16, 1.5, 0, 4));  // k_m = 2 pi m / 4
  Eigen::MatrixXcd M, L;
  for (int p : {0, 3, 8}) {
    s->matrices(p, pr, M, L);
    ASSERT_EQ(M.rows(), 2);
    ASSERT_EQ(M.cols(), 2);
    const double k = pi * p / 2;
    const bool nyquist = p == 8;
    EXPECT_EQ(M(0, 0), cplx(1));
    EXPECT_EQ(M(0, 1), cplx(0));
    EXPECT_EQ(M(1, 0), cplx(0));
    EXPECT_EQ(M(1, 1), cplx(0));
    EXPECT_NEAR(std::abs(L(0, 0) - cplx(-0.1 * k * k, 0)), 0, 1e-14);
    EXPECT_NEAR(std::abs(L(0, 1) - (nyquist ? cplx(0) : cplx(0, -2 * k))), 0, 1e-14);
    EXPECT_NEAR(std::abs(L(1, 0) - cplx(3)), 0, 1e-15);
    EXPECT_NEAR(std::abs(L(1, 1) - (nyquist ? cplx(0) : cplx(0, -k * k * k))), 0, 1e-12);
  }
  // 2D: the pencil of (kx, ky) = (-2, 3) on [0, 2pi] x [-1, 1]: dx dy -> (i kx)(i ky) = -kx ky.
  Problem p2 = pr;
  p2.dims = 2;
  p2.equations[0].linear = {{0, 1.0, 1, 1}, {1, 0.5, 0, 2}};
  auto s2 = make_space(disc2(8, 8));
  s2->matrices(6 * 5 + 3, p2, M, L);
  EXPECT_NEAR(std::abs(L(0, 0) - cplx(-(-2.0) * (3 * pi))), 0, 1e-13);
  EXPECT_NEAR(std::abs(L(0, 1) - cplx(-0.5 * 9 * pi * pi)), 0, 1e-12);
  std::vector<cplx> f0(s2->coeff_size(false)), f1(f0.size()), out(2);
  f0[33] = {1, 2};
  f1[33] = {3, 4};
  s2->rhs(33, p2, {f0.data(), f1.data()}, 0.0, out.data());
  EXPECT_EQ(out[0], cplx(1, 2));
  EXPECT_EQ(out[1], cplx(3, 4));
}

void expect_config_error(Discretization d, const std::string& words) {
  try {
    make_space(d);
    ADD_FAILURE() << "no error for " << words;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(FourierSpace, MakeSpaceNamesWhatIsWrong) {
  Discretization d = disc1(16);
  d.basis = "legendre";
  expect_config_error(d, "allowed: fourier, chebyshev");
  d = disc1(16);
  d.periodic = false;
  expect_config_error(d, "periodic = true");
  expect_config_error(disc1(2), "at least 4");
  expect_config_error(disc1(15), "even");
  expect_config_error(disc1(16, 0.5), "dealias");
  expect_config_error(disc1(16, 1.5, 1, 1), "x1 > x0");
  d = disc2(16, 16);
  d.basis = "chebyshev";
  d.periodic = false;
  expect_config_error(d, "1D only");
  d = disc1(16);
  d.basis = "chebyshev";
  expect_config_error(d, "periodic = false");
  EXPECT_EQ(make_space(disc1(16, 1.5))->grid_size(true), 24u);
  EXPECT_EQ(make_space(disc1(22, 1.5))->grid_size(true), 36u);  // 33 -> even 7-smooth
  EXPECT_EQ(make_space(disc1(16, 1.0))->grid_size(true), 16u);
}

TEST(FourierSpace, BitsDoNotDependOnBufferAlignment) {
  for (int size : {32, 256}) {
    auto s = make_space(disc1(size));
    for (bool padded : {false, true}) {
      const size_t n = s->grid_size(padded), nc = s->coeff_size(padded);
      auto g = random_grid(n, 6);
      AlignedVector<double> ga(g.begin(), g.end()), back_a(n);
      AlignedVector<cplx> ca(nc);
      s->forward(ga.data(), ca.data(), padded);
      s->backward(ca.data(), back_a.data(), padded);
      EXPECT_LT(max_diff(std::vector<double>(back_a.begin(), back_a.end()), g), 1e-14);
      // Every mix of 0, 8, 16 and 32 bytes off a 64-byte boundary for input and output: aligned
      // for some SIMD codelets and not for others.
      for (int gi : {0, 1, 2, 4})
        for (int ci : {0, 1, 2}) {
          AlignedVector<double> go(n + gi), back_o(n + gi);
          AlignedVector<cplx> co(nc + ci);
          std::copy(g.begin(), g.end(), go.begin() + gi);
          s->forward(go.data() + gi, co.data() + ci, padded);
          EXPECT_EQ(std::memcmp(ca.data(), co.data() + ci, nc * sizeof(cplx)), 0)
              << size << " " << gi << " " << ci;
          s->backward(co.data() + ci, back_o.data() + gi, padded);
          EXPECT_EQ(std::memcmp(back_a.data(), back_o.data() + gi, n * sizeof(double)), 0)
              << size << " " << gi << " " << ci;
        }
    }
  }
}

TEST(FftPlans, DctIMatchesItsDefinition) {
  // FFTW's REDFT00: Y_k = x_0 + (-1)^k x_{n-1} + 2 sum_{j=1}^{n-2} x_j cos(pi j k / (n - 1)).
  for (int n : {2, 3, 5, 17, 257}) {
    auto x = random_grid(n, 9);
    std::vector<double> y(n), direct(n);
    for (int k = 0; k < n; ++k) {
      long double sum = x[0] + ((k % 2) ? -1.0L : 1.0L) * x[n - 1];
      for (int j = 1; j + 1 < n; ++j) sum += 2.0L * x[j] * std::cos(pi * (long double)j * k / (n - 1));
      direct[k] = double(sum);
    }
    const FftPlan& plan = fft_plan(FftKind::Redft00, {n});
    plan.r2r(x.data(), y.data());
    EXPECT_LT(max_diff(y, direct), 1e-13 * n) << n;
    plan.r2r(x.data(), x.data());  // in place
    EXPECT_EQ(std::memcmp(x.data(), y.data(), n * sizeof(double)), 0) << n;
  }
}

TEST(FourierSpace, ThreadsGetIdenticalBits) {
  auto s = make_space(disc2(32, 24));
  auto g = random_grid(32 * 24, 5);
  auto work = [&](std::vector<double>& out) {
    std::vector<cplx> c(s->coeff_size(false)), cp(s->coeff_size(true));
    std::vector<double> fine(s->grid_size(true));
    for (int r = 0; r < 200; ++r) {
      s->forward(g.data(), c.data(), false);
      s->pad(c.data(), cp.data());
      s->backward(cp.data(), fine.data(), true);
      s->forward(fine.data(), cp.data(), true);
      s->truncate(cp.data(), c.data());
      s->backward(c.data(), out.data(), false);
    }
  };
  std::vector<double> serial(g.size()), a(g.size()), b(g.size());
  work(serial);
  std::thread t1([&] { work(a); }), t2([&] { work(b); });
  t1.join();
  t2.join();
  EXPECT_EQ(std::memcmp(serial.data(), a.data(), a.size() * sizeof(double)), 0);
  EXPECT_EQ(std::memcmp(serial.data(), b.data(), b.size() * sizeof(double)), 0);
  EXPECT_LT(max_diff(serial, g), 1e-13);
}

}  // namespace
}  // namespace spire::flow
