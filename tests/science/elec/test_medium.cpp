// Media: eps(f) against the textbook Lorentz, Drude and Debye formulas written in angular
// frequency here, against Meep's own Medium.epsilon (a fixed table), the low-frequency limits
// (Drude's DC conductivity, a conductor's i sigma / omega), passivity, and the errors that name a
// bad parameter.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <string>

#include "engine/core/error.h"
#include "science/elec/medium.h"

namespace spire::elec {
namespace {

using C = std::complex<double>;
constexpr double kPi = std::numbers::pi;

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const ValueError& e) {
    return e.what();
  }
  return "(no ValueError)";
}

double rel(C a, C b) { return std::abs(a - b) / std::abs(b); }

// Textbook forms (exp(-i omega t)): Lorentz oscillator d_eps w0^2 / (w0^2 - w^2 - i w G), Drude
// -wp^2 / (w^2 + i w G) with wp^2 = sigma w_n^2, Debye d_eps / (1 - i w tau), and a D-conductivity
// multiplying everything by (1 + i sigma_D / w); Meep's frequencies are w / 2 pi.
TEST(Medium, EpsilonMatchesTextbookFormulas) {
  const double fL = 1.3, gL = 0.25, sL = 0.7;
  const double fD = 0.9, gD = 0.12, sD = 3.0;
  const double tau = 0.4, dEps = 1.7;
  const double eps_inf = 2.25, sigma_D = 0.05;
  Medium m = Medium::dielectric(eps_inf);
  m.with_D_conductivity(sigma_D)
      .with_susceptibility(Susceptibility::lorentzian(fL, gL, sL))
      .with_susceptibility(Susceptibility::drude(fD, gD, sD))
      .with_susceptibility(Susceptibility::debye(tau, dEps));
  for (double f : {0.05, 0.4, 1.0, 1.3, 2.7}) {
    const double w = 2 * kPi * f, w0 = 2 * kPi * fL, G = 2 * kPi * gL, wn = 2 * kPi * fD, GD = 2 * kPi * gD;
    const C lorentz = sL * w0 * w0 / (w0 * w0 - w * w - C(0, 1) * w * G);
    const C drude = -(sD * wn * wn) / (w * w + C(0, 1) * w * GD);
    const C debye = dEps / (1.0 - C(0, 1) * w * tau);
    const C expect = (eps_inf + lorentz + drude + debye) * (1.0 + C(0, 1) * sigma_D / w);
    const auto got = m.epsilon(f);
    for (int a = 0; a < 3; ++a) EXPECT_LT(rel(got[size_t(a)], expect), 1e-13) << "f = " << f;
    // Passive: every term with positive strength and damping absorbs.
    EXPECT_GT(got[0].imag(), 0) << "f = " << f;
  }
  EXPECT_EQ(m.mu(0.5)[1], C(1, 0));
}

// Reference values printed by Meep 1.25 (Debian python3-meep), with
//   /usr/bin/python3 -c "import meep as mp
//   a=mp.Medium(epsilon=2.0, D_conductivity=0.3, E_susceptibilities=[mp.LorentzianSusceptibility(
//     frequency=1.1,gamma=0.2,sigma=0.5), mp.DrudeSusceptibility(frequency=0.8,gamma=0.1,sigma=2.0)])
//   b=mp.Medium(epsilon_diag=mp.Vector3(1.5,2.5,3.5), E_susceptibilities=[mp.LorentzianSusceptibility(
//     frequency=0.9,gamma=0.05,sigma_diag=mp.Vector3(1,2,3))])
//   for name,m,fs in (('a',a,(0.3,0.7,1.5)),('b',b,(0.5,0.95))):
//     for f in fs:
//       e=m.epsilon(f); print(name, f, [(repr(e[i][i].real), repr(e[i][i].imag)) for i in range(3)])"
TEST(Medium, EpsilonMatchesMeep) {
  Medium a = Medium::dielectric(2.0);
  a.with_D_conductivity(0.3)
      .with_susceptibility(Susceptibility::lorentzian(1.1, 0.2, 0.5))
      .with_susceptibility(Susceptibility::drude(0.8, 0.1, 2.0));
  Medium b;
  b.epsilon_diag = {1.5, 2.5, 3.5};
  b.with_susceptibility(Susceptibility::lorentzian(0.9, 0.05, 1).with_sigma_diag({1, 2, 3}));
  struct Row {
    const Medium* m;
    double f;
    C eps[3];
  };
  const C ia(-10.94502080788173, 2.662374671925285), ib(0.213981804971459, 0.5401787243410276),
      ic(0.8904519403478144, 0.22121365142647997);
  const Row rows[] = {
      {&a, 0.3, {ia, ia, ia}},
      {&a, 0.7, {ib, ib, ib}},
      {&a, 1.5, {ic, ic, ic}},
      {&b, 0.5, {{2.9435515951945264, 0.06444426764261278}, {5.387103190389053, 0.12888853528522556},
                 {7.8306547855835795, 0.19333280292783833}}},
      {&b, 0.95, {{-5.4294797687861305, 3.5583815028901786}, {-11.358959537572261, 7.116763005780357},
                  {-17.28843930635839, 10.675144508670536}}},
  };
  for (const Row& r : rows) {
    const auto got = r.m->epsilon(r.f);
    for (int k = 0; k < 3; ++k) EXPECT_LT(rel(got[size_t(k)], r.eps[k]), 1e-12) << "f = " << r.f << " axis " << k;
  }
}

TEST(Medium, LowFrequencyLimits) {
  // Drude: omega Im eps -> the DC conductivity sigma w_n^2 / G as f -> 0.
  const double fn = 1.2, g = 0.3, s = 2.0;
  Medium drude;
  drude.with_susceptibility(Susceptibility::drude(fn, g, s));
  const double f = 1e-7;
  const double dc = s * std::pow(2 * kPi * fn, 2) / (2 * kPi * g);
  EXPECT_NEAR(2 * kPi * f * drude.epsilon(f)[2].imag() / dc, 1.0, 1e-6);
  // An ordinary conductor: eps(f) = eps + i sigma / omega (Meep's D_conductivity = sigma / eps).
  Medium cond = Medium::from_index(1.5);
  cond.with_conductivity(0.8);
  EXPECT_NEAR(cond.D_conductivity_diag.y, 0.8 / 2.25, 1e-15);
  const C e = cond.epsilon(0.35)[1];
  EXPECT_NEAR(e.real(), 2.25, 1e-14);
  EXPECT_NEAR(e.imag(), 0.8 / (2 * kPi * 0.35), 1e-14);
  // Debye: static limit eps + delta_eps, high-frequency limit eps.
  Medium debye = Medium::dielectric(3);
  debye.with_susceptibility(Susceptibility::debye(0.2, 5));
  EXPECT_NEAR(debye.epsilon(1e-9)[0].real(), 8, 1e-9);
  EXPECT_NEAR(debye.epsilon(1e9)[0].real(), 3, 1e-9);
}

TEST(Medium, PerfectConductorsAndEquality) {
  const Medium pec = perfect_electric_conductor();
  const Medium pmc = perfect_magnetic_conductor();
  EXPECT_TRUE(pec.is_pec());
  EXPECT_TRUE(pmc.is_pmc());
  EXPECT_EQ(pec.epsilon(1)[0].real(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(pmc.mu(1)[2].real(), -std::numeric_limits<double>::infinity());
  EXPECT_TRUE(same_medium(pec, perfect_electric_conductor()));
  EXPECT_FALSE(same_medium(pec, pmc));
  EXPECT_FALSE(same_medium(pec, Medium::vacuum()));
  Medium a = Medium::dielectric(2);
  a.with_susceptibility(Susceptibility::lorentzian(1, 0.1, 1));
  Medium b = a;
  EXPECT_TRUE(same_medium(a, b));
  b.E_susceptibilities[0].sigma_diag.z = 2;
  EXPECT_FALSE(same_medium(a, b));
  EXPECT_TRUE(Susceptibility::lorentzian(1, 0.1, 1).same_model(Susceptibility::lorentzian(1, 0.1, 5)));
  EXPECT_FALSE(Susceptibility::lorentzian(1, 0.1, 1).same_model(Susceptibility::drude(1, 0.1, 1)));
}

TEST(Medium, BadParametersAreNamed) {
  const double nan = std::nan("");
  EXPECT_NE(message_of([] { Medium::dielectric(-1); }).find("epsilon_diag.x must be finite and > 0, got -1"),
            std::string::npos);
  EXPECT_NE(message_of([] { Medium::from_index(0); }).find("index must be finite and > 0"), std::string::npos);
  EXPECT_NE(message_of([] { Susceptibility::lorentzian(0, 0.1, 1); }).find("LorentzianSusceptibility: frequency"),
            std::string::npos);
  EXPECT_NE(message_of([] { Susceptibility::drude(1, -0.1, 1); }).find("DrudeSusceptibility: gamma (c/a) must be finite and >= 0"),
            std::string::npos);
  EXPECT_NE(message_of([] { Susceptibility::debye(0, 1); }).find("DebyeSusceptibility: tau"), std::string::npos);
  EXPECT_NE(message_of([&] { Susceptibility::lorentzian(1, 0.1, nan); }).find("sigma.x must be finite"),
            std::string::npos);
  Medium m;
  m.mu_diag.z = 0;
  EXPECT_NE(message_of([&] { m.validate("geometry object 2"); }).find("geometry object 2: mu_diag.z must be finite and > 0"),
            std::string::npos);
  Medium s;
  s.E_susceptibilities.push_back(Susceptibility::lorentzian(1, 0.1, 1));
  s.E_susceptibilities[0].frequency = -2;
  EXPECT_NE(message_of([&] { s.validate(); }).find("E_susceptibilities[0]: LorentzianSusceptibility: frequency"),
            std::string::npos);
  EXPECT_NE(message_of([] { Medium().epsilon(0); }).find("frequency must be finite and > 0"), std::string::npos);
}

}  // namespace
}  // namespace spire::elec
