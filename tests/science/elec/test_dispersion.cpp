// Dispersive polarisations: driven by E^n = cos(omega n dt), the steady-state ratio P/E of each
// model equals the discrete susceptibility of its scheme, derived here by replacing d/dt and
// d^2/dt^2 with their central-difference symbols (Gamma = sin(omega dt) / dt, Omega^2 =
// (2 / dt)^2 sin^2(omega dt / 2)) for Lorentz and Drude and by the z-transform of the trapezoidal
// rule for Debye, to 1e-9, and approaches the continuum chi(omega) of medium.h at second order in
// dt. Also: Drude's DC limit (a constant E gives a constant current dP/dt = sigma_DC E), the Debye
// step response against its closed-form discrete solution and the continuum exponential, the
// coupled Yee + ADE update bounded exactly where check_dispersive_stability's Nyquist criterion
// says, the time-step checks, and the same bits on 1 and 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/threads.h"
#include "science/elec/dispersion.h"
#include "science/elec/medium.h"
#include "science/elec/yee.h"

namespace spire::elec {
namespace {

using C = std::complex<double>;
constexpr double kPi = std::numbers::pi;

// The scheme's discrete susceptibility, derived independently of the code's coefficients.
C derived_discrete_chi(const Susceptibility& m, double f, double dt) {
  const double w = 2 * kPi * f;
  const double Omega2 = std::pow(2 / dt * std::sin(0.5 * w * dt), 2);
  const double Gamma = std::sin(w * dt) / dt;
  const double s = m.sigma_diag.x;
  const double wn = 2 * kPi * m.frequency, g = 2 * kPi * m.gamma;
  switch (m.kind) {
    case Susceptibility::Kind::lorentzian: return s * wn * wn / C(wn * wn - Omega2, -g * Gamma);
    case Susceptibility::Kind::drude: return -s * wn * wn / C(Omega2, g * Gamma);
    case Susceptibility::Kind::debye: {
      // tau (P^{n+1} - P^n) / dt + (P^{n+1} + P^n) / 2 = s (3 E^n - E^{n-1}) / 2 with P^n = chi E^n,
      // E^n ~ z^n.
      const C z = std::polar(1.0, -w * dt);
      return s * (3.0 - 1.0 / z) / 2.0 / (m.tau * (z - 1.0) / dt + (z + 1.0) / 2.0);
    }
  }
  return 0;
}

// Solves the 3x3 normal equations of P^m ~ A cos(theta_m) + B sin(theta_m) + K (Cramer's rule).
C fit_chi(const std::vector<double>& p, const std::vector<double>& theta) {
  double M[3][3] = {}, r[3] = {};
  for (size_t i = 0; i < p.size(); ++i) {
    const double v[3] = {std::cos(theta[i]), std::sin(theta[i]), 1.0};
    for (int a = 0; a < 3; ++a) {
      r[a] += v[a] * p[i];
      for (int b = 0; b < 3; ++b) M[a][b] += v[a] * v[b];
    }
  }
  auto det = [](double m[3][3]) {
    return m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
           m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  };
  const double d = det(M);
  double x[2];
  for (int c = 0; c < 2; ++c) {
    double Mc[3][3];
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) Mc[a][b] = b == c ? r[a] : M[a][b];
    x[c] = det(Mc) / d;
  }
  // P^m = Re(chi exp(-i theta_m)) = Re chi cos + Im chi sin.
  return {x[0], x[1]};
}

// A one-dimensional lattice with `samples` samples of Ex.
YeeLattice line(int samples, double resolution) { return YeeLattice(Dimensions::one, {0, 0, samples / resolution}, resolution); }

// Drives samples with strengths (1, 2.5) by E^n = cos(omega n dt) for time T and returns the fitted
// P/E of the first sample (checking the second is 2.5 times it).
template <class T>
C steady_state_chi(const Susceptibility& model, double f, double dt) {
  const YeeLattice lat = line(2, 10);
  SusceptibilityArrays sa{model, {}};
  sa.strength[0] = {1.0, 2.5};
  Polarizations<T> pol(lat, {sa}, dt);
  const double w = 2 * kPi * f;
  const int steps = int(std::ceil(40 / dt));
  std::vector<double> p0, p1, theta;
  std::vector<T> e(2);
  for (int n = 0; n < steps; ++n) {
    e[0] = e[1] = T(std::cos(w * n * dt));
    const T* p = pol.advance(Component::Ex, e.data());  // P^{n+1}
    if (n >= steps - 400) {
      p0.push_back(double(p[0]));
      p1.push_back(double(p[1]));
      theta.push_back(w * (n + 1) * dt);
    }
  }
  const C chi0 = fit_chi(p0, theta), chi1 = fit_chi(p1, theta);
  EXPECT_LT(std::abs(chi1 - 2.5 * chi0), 1e-9 * std::abs(chi1) + (sizeof(T) == 4 ? 1e-4 * std::abs(chi1) : 0.0));
  return chi0;
}

TEST(Dispersion, SteadyStateIsTheDiscreteSusceptibility) {
  const Susceptibility models[] = {Susceptibility::lorentzian(1.1, 0.3, 1.0), Susceptibility::drude(0.9, 0.3, 1.0),
                                   Susceptibility::debye(0.3, 1.0)};
  const double f = 0.7;
  for (const Susceptibility& m : models) {
    double previous_error = 0;
    for (double dt : {0.02, 0.01}) {
      const C measured = steady_state_chi<double>(m, f, dt);
      const C derived = derived_discrete_chi(m, f, dt);
      EXPECT_LT(std::abs(measured - derived) / std::abs(derived), 1e-9) << m.describe() << " dt " << dt;
      EXPECT_LT(std::abs(discrete_susceptibility(m, f, dt) - derived) / std::abs(derived), 1e-13) << m.describe();
      const C continuum = m.chi(f);
      const double error = std::abs(measured - continuum) / std::abs(continuum);
      EXPECT_LT(error, 0.02) << m.describe();
      if (previous_error > 0) {
        // Second order: halving dt divides the error by 4.
        EXPECT_NEAR(previous_error / error, 4.0, 0.3) << m.describe();
      }
      previous_error = error;
    }
    // float32 state follows the same recursion to single precision.
    const C single = steady_state_chi<float>(m, f, 0.02);
    EXPECT_LT(std::abs(single - derived_discrete_chi(m, f, 0.02)) / std::abs(single), 2e-4) << m.describe();
  }
}

TEST(Dispersion, DrudeDirectCurrentLimit) {
  // A constant E drives a constant current: (P^{n+1} - P^n) / dt = sigma w_n^2 / g E exactly once
  // the damped transient has gone, the DC conductivity that Medium.epsilon's f -> 0 limit gives.
  const double fn = 0.8, g = 0.3, s = 1.7, dt = 0.01, E0 = 0.6;
  const Susceptibility drude = Susceptibility::drude(fn, g, s);
  const YeeLattice lat = line(1, 10);
  SusceptibilityArrays sa{drude, {}};
  sa.strength[0] = {s};
  Polarizations<double> pol(lat, {sa}, dt);
  std::vector<double> e{E0};
  double last = 0, rate = 0;
  for (int n = 0; n < 4000; ++n) {
    const double p = pol.advance(Component::Ex, e.data())[0];
    rate = (p - last) / dt;
    last = p;
  }
  const double sigma_dc = s * std::pow(2 * kPi * fn, 2) / (2 * kPi * g);
  EXPECT_NEAR(rate / (sigma_dc * E0), 1.0, 1e-10);
  Medium metal;
  metal.with_susceptibility(drude);
  const double f = 1e-8;
  EXPECT_NEAR(2 * kPi * f * metal.epsilon(f)[0].imag() / sigma_dc, 1.0, 1e-7);
}

TEST(Dispersion, DebyeStepResponse) {
  // E = E0 from n = 0 on, E = P = 0 before: P^1 = 3 beta s E0 and then P^{n+1} = alpha P^n +
  // 2 beta s E0 (alpha = (2 tau - dt) / (2 tau + dt), beta = dt / (2 tau + dt)), so
  // P^m = s E0 (1 - (1 - 3 beta) alpha^(m-1)). The extrapolated E^{n+1} overshoots at the jump, which
  // moves the response half a step early: P^m is the continuum s E0 (1 - exp(-t/tau)) at
  // t = (m + 1/2) dt to O(dt^2), and at t = m dt only to O(dt).
  const double tau = 0.5, s = 2.0, E0 = 1.5, t_end = 0.4;
  double previous_error = 0, previous_lag_error = 0;
  for (double dt : {0.02, 0.01, 0.005}) {
    const YeeLattice lat = line(1, 10);
    SusceptibilityArrays sa{Susceptibility::debye(tau, s), {}};
    sa.strength[0] = {s};
    Polarizations<double> pol(lat, {sa}, dt);
    const double alpha = (2 * tau - dt) / (2 * tau + dt), beta = dt / (2 * tau + dt);
    std::vector<double> e{E0};
    const int m_end = int(std::lround(t_end / dt));
    double p_end = 0;
    for (int m = 1; m <= m_end; ++m) {
      const double p = pol.advance(Component::Ex, e.data())[0];
      EXPECT_NEAR(p, s * E0 * (1 - (1 - 3 * beta) * std::pow(alpha, m - 1)), 1e-14) << "m = " << m;
      p_end = p;
    }
    const double error = std::fabs(p_end - s * E0 * (1 - std::exp(-(t_end + 0.5 * dt) / tau)));
    const double lag_error = std::fabs(p_end - s * E0 * (1 - std::exp(-t_end / tau)));
    EXPECT_LT(error, 2e-3);
    if (previous_error > 0) {
      EXPECT_NEAR(previous_error / error, 4.0, 0.1) << "dt " << dt;
      EXPECT_NEAR(previous_lag_error / lag_error, 2.0, 0.1) << "dt " << dt;
    }
    previous_error = error;
    previous_lag_error = lag_error;
  }
}

// A periodic 1D Yee ring (Ex, Hy) with the polarisation in the constitutive step, as the FDTD core
// runs it: returns the largest |E| over the first and the last 200 of `steps` steps.
std::pair<double, double> ring_run(const Susceptibility& model, double eps_inf, int steps, int threads, int n = 64,
                                   std::vector<double>* final_e = nullptr) {
  NumThreadsGuard guard(threads);
  const double res = 20, dt = 0.5 / res;
  const YeeLattice lat = line(n, res);
  SusceptibilityArrays sa{model, {}};
  sa.strength[0].assign(size_t(n), model.sigma_diag.x);
  Polarizations<double> pol(lat, {sa}, dt);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> d(static_cast<size_t>(n)), e(static_cast<size_t>(n)), h(static_cast<size_t>(n));
  for (int k = 0; k < n; ++k) d[size_t(k)] = u(rng), h[size_t(k)] = u(rng);
  for (int k = 0; k < n; ++k) e[size_t(k)] = d[size_t(k)] / eps_inf;
  double first = 0, last = 0;
  for (int step = 0; step < steps; ++step) {
    for (int k = 0; k < n; ++k) h[size_t(k)] -= dt * res * (e[size_t((k + 1) % n)] - e[size_t(k)]);
    for (int k = 0; k < n; ++k) d[size_t(k)] -= dt * res * (h[size_t(k)] - h[size_t((k + n - 1) % n)]);
    const double* p = pol.advance(Component::Ex, e.data());
    double big = 0;
    for (int k = 0; k < n; ++k) {
      e[size_t(k)] = (d[size_t(k)] - p[k]) / eps_inf;
      // Non-finite values count as infinite (std::max would drop a NaN).
      big = std::isfinite(e[size_t(k)]) ? std::max(big, std::fabs(e[size_t(k)])) : HUGE_VAL;
    }
    if (step < 200) first = std::max(first, big);
    if (step >= steps - 200) last = std::max(last, big);
  }
  if (final_e) *final_e = e;
  return {first, last};
}

TEST(Dispersion, CoupledUpdateIsBoundedWhereTheNyquistCriterionHolds) {
  // The 1D ring runs at Courant number S = 0.5, so the criterion is eps_N >= S^2 = 0.25. Cases on
  // either side of it, including resonances near the standalone limit 2 pi f dt = 2, strong
  // plasmas, Debye relaxations far shorter and far longer than dt: where check_dispersive_stability
  // accepts the medium the fields stay bounded over 20000 steps; where it refuses, they grow by
  // orders of magnitude within them.
  const double dt = 0.5 / 20;
  auto f = [&](double w_dt) { return w_dt / (2 * kPi * dt); };  // the frequency with 2 pi f dt = w_dt
  struct Case {
    Susceptibility model;
    bool stable;
  };
  const Case cases[] = {
      {Susceptibility::lorentzian(f(1.9), 0.0, 0.01), true},  // weak: eps_N = 0.91
      {Susceptibility::lorentzian(f(0.5), 0.0, 10.0), true},   // eps_N = 1/3
      {Susceptibility::lorentzian(f(1.0), 0.1, 3.0), false},   // eps_N = 0
      {Susceptibility::lorentzian(f(1.9), 0.0, 3.0), false},
      {Susceptibility::drude(f(0.47), 0.0, 4.0), true},  // eps_N = 0.78
      {Susceptibility::drude(f(1.5), 0.2, 4.0), false},  // eps_N = -1.25
      {Susceptibility::debye(0.1 * dt, 0.05), true},                   // eps_N = 0.5
      {Susceptibility::debye(0.1 * dt, 1.0), false},                   // eps_N = -9
      {Susceptibility::debye(50 * dt, 20.0), true},                    // eps_N = 0.6
      {Susceptibility::debye(50 * dt, 60.0), false},                   // eps_N = -0.2
  };
  const YeeLattice ring = line(64, 20);
  for (const Case& k : cases) {
    SusceptibilityArrays sa{k.model, {}};
    sa.strength[0].assign(64, k.model.sigma_diag.x);
    bool accepted = true;
    try {
      check_dispersive_stability(ring, MaterialArrays::vacuum(ring), {sa}, dt);
    } catch (const ValueError&) {
      accepted = false;
    }
    EXPECT_EQ(accepted, k.stable) << k.model.describe();
    const auto [first, last] = ring_run(k.model, 1.0, 20000, 1);
    const bool bounded = std::isfinite(last) && last < 20 * first;
    EXPECT_EQ(bounded, k.stable) << k.model.describe() << " max|E| " << first << " -> " << last;
  }
}

TEST(Dispersion, SameBitsOnOneAndTwoThreads) {
  std::vector<double> e1, e2;
  // Enough samples (10000) that the update is split between the threads.
  ring_run(Susceptibility::lorentzian(2.0, 0.1, 2.0), 2.0, 12, 1, 10000, &e1);
  ring_run(Susceptibility::lorentzian(2.0, 0.1, 2.0), 2.0, 12, 2, 10000, &e2);
  ASSERT_EQ(e1.size(), e2.size());
  for (size_t i = 0; i < e1.size(); ++i) EXPECT_EQ(e1[i], e2[i]) << i;
}

TEST(Dispersion, MergesTermsAndChecksInput) {
  const YeeLattice lat = line(4, 10);
  SusceptibilityArrays a{Susceptibility::lorentzian(1, 0.1, 1), {}}, b{Susceptibility::lorentzian(1, 0.1, 3), {}};
  a.strength[0] = {1, 0, 0, 2};
  b.strength[0] = {0, 0, 0.5, 1};
  Polarizations<double> pol(lat, {a, b}, 0.05);
  EXPECT_EQ(pol.size(), 1u);  // same dynamics: one field with summed strengths
  EXPECT_EQ(pol.active(Component::Ex), (std::vector<int64_t>{0, 2, 3}));
  EXPECT_TRUE(pol.has(Component::Ex));
  EXPECT_FALSE(pol.has(Component::Ey));
  EXPECT_EQ(pol.advance(Component::Ey, nullptr), nullptr);
  std::vector<double> e{1, 1, 1, 1};
  const double* p = pol.advance(Component::Ex, e.data());
  const AdeCoefficients k = ade_coefficients(a.model, 0.05);
  EXPECT_DOUBLE_EQ(p[3], k.b0 * 3.0);
  EXPECT_EQ(p[1], 0.0);
  pol.reset();
  EXPECT_EQ(pol.total(Component::Ex)[3], 0.0);
  // advance_into adds into the caller's array: the same values as advance.
  Polarizations<double> twin(lat, {a, b}, 0.05);
  std::vector<double> into(4, 0.0);
  twin.advance_into(Component::Ex, e.data(), into.data());
  pol.advance(Component::Ex, e.data());
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(into[i], pol.total(Component::Ex)[i]);
  EXPECT_EQ(twin.total(Component::Ex), nullptr);

  auto message = [&](auto&& f) {
    try {
      f();
    } catch (const ValueError& err) {
      return std::string(err.what());
    }
    return std::string("(no ValueError)");
  };
  SusceptibilityArrays wrong{Susceptibility::debye(1, 1), {}};
  wrong.strength[0] = {1, 2};
  EXPECT_NE(message([&] { Polarizations<double>(lat, {wrong}, 0.05); }).find("has 2 strengths for Ex; the lattice has 4"),
            std::string::npos);
  SusceptibilityArrays ez{Susceptibility::debye(1, 1), {}};
  ez.strength[2] = {1, 1, 1, 1};
  EXPECT_NE(message([&] { Polarizations<double>(lat, {ez}, 0.05); }).find("Ez, which a 1d problem does not carry"),
            std::string::npos);
  // The coupled bound names the sample and what to change.
  SusceptibilityArrays strong{Susceptibility::drude(6, 0.1, 1), {}};
  strong.strength[0] = {0, 0, 4, 0};
  const std::string bound = message([&] { check_dispersive_stability(lat, MaterialArrays::vacuum(lat), {strong}, 0.05); });
  EXPECT_NE(bound.find("at Ex sample (0, 0, 2)"), std::string::npos) << bound;
  EXPECT_NE(bound.find("lower the Courant number or raise the resolution"), std::string::npos) << bound;
  // 2 pi f dt >= 2: the Lorentzian recursion has a pole outside the unit circle.
  EXPECT_NE(message([&] { ade_coefficients(Susceptibility::lorentzian(10, 0.1, 1), 0.05); }).find("must be < 2"),
            std::string::npos);
  EXPECT_NE(message([&] { ade_coefficients(Susceptibility::drude(1, 0.1, 1), -1); }).find("time step must be finite and > 0"),
            std::string::npos);
}

}  // namespace
}  // namespace spire::elec
