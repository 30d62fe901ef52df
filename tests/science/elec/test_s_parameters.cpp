// S-parameters (s_parameters.h) of two ports on a short TEM parallel-plate line (3D: plates at the
// pec walls of z, gap g; periodic in y, width W; open (pmc) ends along x), checked against
//   - the exact network of the Yee lattice: the structure outside the two port gaps is a ladder of
//     20 series inductances L = g dx / W and 19 shunt capacitances C = W dx / g, with
//     d/dt -> -i omega~, omega~ = 2 sin(omega dt / 2) / dt (test_port.cpp's header derives it);
//     its S-matrix from ABCD matrices must equal the simulated one to 1e-9 (measured 1e-14);
//   - the continuum: for ports of the line's impedance Z = eta0 g / W (matched), |S11| small and
//     S21 = exp(i k l') with l' = l - dx/2, l = 20 the distance between the ports. Each port's gap is
//     a whole cell of the line, and its capacitance belongs to the port (port.h): what the
//     S-parameters see is 19 cells of line between the gaps' faces, joined to each gap by half a
//     cell of inductance: total inductance of 20 cells, capacitance of 19, electrically ~19.5 long,
//     and mismatched by the missing half cell of capacitance at each end. Measured (cells per
//     wavelength: |S11|, |S21|, |arg S21 - k l'| in rad): 100: 0.011, 0.99994, 6e-6; 50: 0.048,
//     0.9988, 0.0022; 33: 0.081, 0.9967, 0.0021; 20: 0.155, 0.9878, 0.021; 14: 0.156, 0.9878,
//     0.065; 10: 0.31, 0.951, 0.17 (against k l: 0.031, 0.061, 0.092, 0.14, 0.15, 0.15);
//   - reciprocity and energy: with unequal port resistances and a dielectric block filling half the
//     line's width (a 3D field), S21 = S12 to 1e-9 (measured 1e-13) and, the structure being
//     lossless, |S11|^2 + |S21|^2 = 1 and the columns orthogonal to 1e-6. The plain ratios b_i / a_j
//     differ from each other there by 0.008 to 0.21: why S = B A^-1 (s_parameters.h).
// And the decay stopping rule, single-port excitation, and the errors.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <iostream>
#include <numbers>

#include "engine/core/error.h"
#include "science/elec/s_parameters.h"
#include "tests/common/expect_error.h"
#include "tests/science/elec/support_plate_line.h"

namespace spire::elec {
namespace {

using namespace testing;        // the parallel-plate line
constexpr double kLength = 20;  // the ports are 20 cells apart

// 21 Ez nodes along x between pmc walls: the first (x = -9.5) and the last (x = 10.5, sample 0)
// carry the ports.
Problem line(double r1, double r2, std::shared_ptr<const TimeProfile> profile = pulse(0.06, 0.12)) {
  Problem p;
  p.dimensions = Dimensions::three;
  p.cell_size = {kLength + 1, kW, kG};
  p.resolution = 1;
  p.boundaries.set_pmc(0);
  p.boundaries.set_periodic(1);
  p.ports = {line_port(-9.5, r1, profile), line_port(10.5, r2, profile)};
  return p;
}

using Matrix2 = std::array<std::array<cd, 2>, 2>;
Matrix2 multiply(const Matrix2& a, const Matrix2& b) {
  Matrix2 c{};
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
  return c;
}

// The lattice's ladder between the two port nodes, as S-parameters for reference impedance z0
// (normalised) at both ports.
Matrix2 ladder_s(double f, double dt, double z0) {
  const double wt = omega_tilde(f, dt);
  const cd z_series(0, -wt * kLcell), y_shunt(0, -wt * kCnode);
  Matrix2 abcd{{{1.0, z_series}, {0.0, 1.0}}};
  for (int cell = 1; cell < int(kLength); ++cell) {
    abcd = multiply(abcd, Matrix2{{{1.0, 0.0}, {y_shunt, 1.0}}});
    abcd = multiply(abcd, Matrix2{{{1.0, z_series}, {0.0, 1.0}}});
  }
  const cd A = abcd[0][0], B = abcd[0][1], C = abcd[1][0], D = abcd[1][1];
  const cd delta = A + B / z0 + C * z0 + D;
  return Matrix2{{{(A + B / z0 - C * z0 - D) / delta, 2.0 * (A * D - B * C) / delta},
                  {2.0 / delta, (-A + B / z0 - C * z0 + D) / delta}}};
}

const std::vector<double> kFreqs{0.01, 0.02, 0.03, 0.05, 0.07, 0.1};

// b_i / a_0 in the run exciting port 0.
cd r_plain(const SParameterResult& r, size_t i, size_t f) { return r.reflected[0][i][f] / r.incident[0][0][f]; }

TEST(SParameters, MatchedLineAgainstTheLatticeLadderAndTheContinuum) {
  const SParameterResult r = s_parameters(line(kZline, kZline), kFreqs, 700);
  const double dt = 0.5;
  for (size_t f = 0; f < kFreqs.size(); ++f) {
    const Matrix2 ref = ladder_s(kFreqs[f], dt, kZline / kEta0);
    double worst = 0;
    for (size_t i = 0; i < 2; ++i)
      for (size_t j = 0; j < 2; ++j) worst = std::max(worst, std::abs(r(i, j, f) - ref[i][j]));
    EXPECT_LT(worst, 1e-9) << "f " << kFreqs[f];
    // The continuum line, electrically l - dx/2 long between the gaps (header comment).
    const double k = 2 * kPi * kFreqs[f];
    const double phase_error = std::abs(std::arg(r(1, 0, f) * std::polar(1.0, -k * (kLength - 0.5))));
    std::cout << "matched line, f " << kFreqs[f] << " (" << 1 / kFreqs[f] << " cells per wavelength): |S11| "
              << std::abs(r(0, 0, f)) << ", |S21| " << std::abs(r(1, 0, f)) << ", arg S21 - k (l - dx/2) "
              << phase_error << " rad; Z_in " << r.input_impedance[0][f] << " ohm; |S - ladder| " << worst << "\n";
    if (kFreqs[f] <= 0.03) {  // 33 cells per wavelength and more
      EXPECT_LT(std::abs(r(0, 0, f)), 0.085) << "f " << kFreqs[f];
      EXPECT_GT(std::abs(r(1, 0, f)), 0.996) << "f " << kFreqs[f];
      EXPECT_LT(phase_error, 0.003) << "f " << kFreqs[f];
    } else if (kFreqs[f] <= 0.05) {  // 20 cells per wavelength
      EXPECT_LT(std::abs(r(0, 0, f)), 0.16) << "f " << kFreqs[f];
      EXPECT_GT(std::abs(r(1, 0, f)), 0.985) << "f " << kFreqs[f];
      EXPECT_LT(phase_error, 0.025) << "f " << kFreqs[f];
    }
  }
}

TEST(SParameters, ReciprocalAndLosslessWithUnequalPortsAndA3DField) {
  // The pulse stays below 0.11: higher, modes varying across y propagate in the dielectric half
  // but not in vacuum (cutoffs 0.125 and 0.25), are trapped there, couple to the ports' mean
  // voltage only weakly and ring far longer than the run.
  Problem p = line(100, 300, pulse(0.045, 0.07));
  Block half;  // eps 4 over x in [-3, 5], the half y < 0 of the width, the full gap
  half.center = {1, -1, 0};
  half.size = {8, 2, kG};
  p.geometry.add(half, Medium::dielectric(4));
  const std::vector<double> freqs{0.01, 0.02, 0.03, 0.05, 0.07, 0.09};
  const SParameterResult r = s_parameters(p, freqs, 1200);
  for (size_t f = 0; f < freqs.size(); ++f) {
    const cd s11 = r(0, 0, f), s21 = r(1, 0, f), s12 = r(0, 1, f), s22 = r(1, 1, f);
    EXPECT_LT(std::abs(s21 - s12), 1e-9) << "f " << freqs[f];
    EXPECT_NEAR(std::norm(s11) + std::norm(s21), 1, 1e-6) << "f " << freqs[f];
    EXPECT_NEAR(std::norm(s12) + std::norm(s22), 1, 1e-6) << "f " << freqs[f];
    EXPECT_LT(std::abs(s11 * std::conj(s12) + s21 * std::conj(s22)), 1e-6) << "f " << freqs[f];
    // The plain ratios b_i / a_j carry the passive port's own small reflection (s_parameters.h).
    const cd plain21 = r.reflected[0][1][f] / r.incident[0][0][f], plain12 = r.reflected[1][0][f] / r.incident[1][1][f];
    std::cout << "asymmetric line, f " << freqs[f] << ": |S11| " << std::abs(s11) << ", |S21| " << std::abs(s21)
              << ", |S21 - S12| " << std::abs(s21 - s12) << "; plain b/a ratios differ by "
              << std::abs(plain21 - plain12) << "\n";
  }
}

TEST(SParameters, StopsWhenThePortFieldsHaveDecayed) {
  const Problem p = line(kZline, kZline);
  const SParameterResult full = s_parameters(p, kFreqs, 700);
  SParameterOptions o;
  o.decay_by = 1e-16;  // of the power: 1e-8 of the fields
  o.decay_interval = 20;
  o.excite = {0};
  const SParameterResult early = s_parameters(p, kFreqs, 700, o);
  ASSERT_EQ(early.stop_time.size(), 1u);
  EXPECT_TRUE(early.decayed[0]);
  EXPECT_LT(early.stop_time[0], 400);
  std::cout << "power decayed by 1e-16 at t = " << early.stop_time[0] << "\n";
  for (size_t f = 0; f < kFreqs.size(); ++f) {
    // One port excited: the plain ratios, which a matched passive port makes nearly the full S.
    EXPECT_NEAR(std::abs(early(0, 0, f) - r_plain(full, 0, f)), 0, 1e-6);
    EXPECT_LT(std::abs(early.input_impedance[0][f] - full.input_impedance[0][f]), 1e-6 * kZline);
  }
  EXPECT_TRUE(early.s[0][1].empty());
  EXPECT_THROW(early(0, 1, 0), ValueError);
}

TEST(SParameters, ErrorsNameWhatIsWrong) {
  const Problem good = line(kZline, kZline);
  Problem p = good;
  p.ports.clear();
  expect_error_naming<ValueError>([&] { s_parameters(p, kFreqs, 100); }, {"no ports"});
  p = good;
  p.ports[1].profile = nullptr;
  expect_error_naming<ValueError>([&] { s_parameters(p, kFreqs, 700); }, {"port 1 has no profile"});
  SParameterOptions o;
  o.excite = {0, 2};
  expect_error_naming<ValueError>([&] { s_parameters(good, kFreqs, 700, o); }, {"excite names port 2"});
  o.excite = {1, 1};
  expect_error_naming<ValueError>([&] { s_parameters(good, kFreqs, 700, o); }, {"twice"});
  o = {};
  o.decay_by = 1.5;
  expect_error_naming<ValueError>([&] { s_parameters(good, kFreqs, 700, o); }, {"decay_by"});
  p = good;
  p.sources.push_back(point_dipole(Component::Ez, {0, 0, 0}, pulse(0.05, 0.05)));
  expect_error_naming<ValueError>([&] { s_parameters(p, kFreqs, 700); }, {"only excitation"});
  expect_error_naming<ValueError>([&] { s_parameters(good, {}, 700); }, {"no frequencies"});
  expect_error_naming<ValueError>([&] { s_parameters(good, {0.05, -1}, 700); }, {"frequencies must be finite and > 0"});
  expect_error_naming<ValueError>([&] { s_parameters(good, kFreqs, 0); }, {"until must be finite and > 0"});
  expect_error_naming<ValueError>([&] { s_parameters(good, kFreqs, 50); }, {"ends before port 0's excitation"});
  p = good;
  p.ports[0].component = Component::Hz;
  expect_error_naming<ValueError>([&] { s_parameters(p, kFreqs, 700); }, {"an E component"});
}

}  // namespace
}  // namespace spire::elec
