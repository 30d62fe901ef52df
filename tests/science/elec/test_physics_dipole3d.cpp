// End to end in 3D: a point dipole (Ez, Gaussian pulse) radiating into a PML-bounded vacuum cell.
// Three independent numbers must agree at each frequency:
//   - the Poynting flux through a closed box around the dipole (box_regions);
//   - the analytic power of a Hertzian dipole whose current moment is the current's own DFT
//     I(f) = sum_n J(t_n + dt/2) e^{i omega (t_n + dt/2)} dt (what the E steps inject, centred in
//     their intervals), p = i I / omega: flux = 2 dipole_power(p) (flux.h: Re(E* x H) of DFT
//     fields is twice the time-averaged power of phasors);
//   - the near-to-far transform of the same box: its power through a sphere of radius 50
//     (radiated_power), and its angular density R^2 Re(E* x H).rhat at R = 1000 on a grid of
//     directions against 2 dipole_power_per_solid_angle, i.e. (3 P / 8 pi) sin^2 theta.
// The cell: the box half-width 0.6, 0.5 of vacuum to a PML 1 thick; f = 0.425, 0.5, 0.575 (df
// 0.25 pulse). Every error is a discretisation error of the lattice (the box's fields, the dipole
// spread over the two Ez samples around it), second order in dx.
//
// Measured (float64):
//   resolution 10 (20 cells per wavelength at f = 0.5; 42^3 cells, ~1 s on one thread):
//     box / analytic 1.0012, 1.0017, 1.0022; far-field power / analytic 1.0041, 1.0078, 1.0112;
//     far / box 1.0029, 1.0061, 1.0089; the pattern's largest pointwise deviation (theta 10..170
//     degrees) 1.2%, 1.6%, 2.2%.
//   resolution 20 (FullSize*, in make validate; 84^3 cells): box / analytic 1.0003, 1.0004, 1.0006; far /
//     analytic 1.0010, 1.0019, 1.0028; far / box 1.0007, 1.0015, 1.0022; pattern 0.3%, 0.4%, 0.55%:
//     every error falls by 4 (second order).
// Tolerances: resolution 10: power 1% (box), 2% (far field, the issue's), far / box 1.5%, pattern
// 3% pointwise (its 2.2% at 17 cells per wavelength is the coarse grid's); resolution 20: the
// issue's 2% everywhere with the tighter 0.5% for the box flux and far / box, and the errors of
// resolution 20 at most 0.35 of resolution 10's (second order gives 0.25).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <string>

#include "science/elec/analytic.h"
#include "science/elec/monitors.h"
#include "science/elec/problem.h"
#include "tests/science/elec/support_current_dft.h"

namespace spire::elec {
namespace {

constexpr double kPi = std::numbers::pi;

struct DipoleFigures {
  std::vector<double> frequencies;
  std::vector<double> box, far, pattern;  // box / analytic, far / analytic, worst pointwise |ratio - 1|
};

DipoleFigures measure(double resolution) {
  const double half = 0.6, pad = 0.5, pml = 1.0, f0 = 0.5;
  Problem p;
  p.dimensions = Dimensions::three;
  const double side = 2 * (half + pad + pml);
  p.cell_size = {side, side, side};
  p.resolution = resolution;
  p.boundaries = Boundaries::pml(pml);
  auto pulse = std::make_shared<GaussianSource>(f0, 0.5 * f0);
  p.sources.push_back(point_dipole(Component::Ez, Vec3{}, pulse));
  Simulation sim = build(p);

  DipoleFigures out;
  out.frequencies = frequency_list(f0, 0.3 * f0, 3);
  const auto& freqs = out.frequencies;
  Monitors monitors(sim);
  const auto box = box_regions(sim.lattice(), Vec3{}, Vec3{2 * half, 2 * half, 2 * half});
  Flux& flux = monitors.add_flux(box, freqs);
  Near2Far& n2f = monitors.add_near2far(box, freqs);
  const testing::CurrentDft current(sim, pulse, freqs);  // accumulated alongside the field DFTs
  // Until the pulse has crossed the box and the PML has taken it (a few light-crossings of the cell).
  sim.run(pulse->end_time() + 2 * side + 5);

  const auto box_flux = flux.flux();
  const auto far_power = n2f.radiated_power(50.0);
  // Directions: theta 10..170 degrees (sin^2 theta >= 0.03), phi over a quarter turn (the lattice's
  // symmetry repeats it).
  const double R = 1000;
  std::vector<Vec3> directions, points;
  for (int it = 1; it <= 17; ++it)
    for (int ip = 0; ip < 4; ++ip) {
      const double theta = it * kPi / 18, phi = ip * kPi / 8;
      const Vec3 n{std::sin(theta) * std::cos(phi), std::sin(theta) * std::sin(phi), std::cos(theta)};
      directions.push_back(n);
      points.push_back(Vec3{R * n.x, R * n.y, R * n.z});
    }
  const auto fields = n2f.far_fields(points);
  for (size_t i = 0; i < freqs.size(); ++i) {
    const double omega = 2 * kPi * freqs[i];
    const ComplexVec3 moment = dipole_moment_of_current(ComplexVec3{0, 0, current.values()[i]}, omega);
    const double analytic = 2 * dipole_power(moment, omega);
    out.box.push_back(box_flux[i] / analytic);
    out.far.push_back(far_power[i] / analytic);
    double worst = 0;
    for (size_t k = 0; k < points.size(); ++k) {
      const PhasorFields& f = fields[k * freqs.size() + i];
      const Vec3& n = directions[k];
      const double sx = (std::conj(f.E[1]) * f.H[2] - std::conj(f.E[2]) * f.H[1]).real();
      const double sy = (std::conj(f.E[2]) * f.H[0] - std::conj(f.E[0]) * f.H[2]).real();
      const double sz = (std::conj(f.E[0]) * f.H[1] - std::conj(f.E[1]) * f.H[0]).real();
      const double density = R * R * (sx * n.x + sy * n.y + sz * n.z);
      worst = std::max(worst, std::fabs(density / (2 * dipole_power_per_solid_angle(moment, omega, n)) - 1));
    }
    out.pattern.push_back(worst);
  }
  return out;
}

void print(const DipoleFigures& d, double resolution) {
  for (size_t i = 0; i < d.frequencies.size(); ++i)
    std::printf(
        "figure: 3D dipole, resolution %g, f %.3f: box flux / analytic %.5f, far-field power / analytic "
        "%.5f, far / box %.5f, pattern vs (3P/8pi) sin^2 theta: largest deviation %.2f%%\n",
        resolution, d.frequencies[i], d.box[i], d.far[i], d.far[i] / d.box[i], 100 * d.pattern[i]);
}

void expect_within(const DipoleFigures& d, double box_tol, double far_tol, double ratio_tol, double pattern_tol) {
  for (size_t i = 0; i < d.frequencies.size(); ++i) {
    EXPECT_NEAR(d.box[i], 1, box_tol) << "f " << d.frequencies[i];
    EXPECT_NEAR(d.far[i], 1, far_tol) << "f " << d.frequencies[i];
    EXPECT_NEAR(d.far[i] / d.box[i], 1, ratio_tol) << "f " << d.frequencies[i];
    EXPECT_LE(d.pattern[i], pattern_tol) << "f " << d.frequencies[i];
  }
}

TEST(PhysicsDipole3d, BoxFluxFarFieldAndPatternMatchTheHertzianDipole) {
  const DipoleFigures d = measure(10);
  print(d, 10);
  expect_within(d, 0.01, 0.02, 0.015, 0.03);
}

// Validation size (resolutions 10 and 20: 42^3 and 84^3 cells, ~20 s on one core): FullSize* tests
// are left out of ctest and run by `make validate`.
TEST(PhysicsDipole3d, FullSizeWithinTwoPercentAndSecondOrder) {
  const DipoleFigures coarse = measure(10), fine = measure(20);
  print(fine, 20);
  expect_within(fine, 0.005, 0.02, 0.005, 0.02);
  for (size_t i = 0; i < fine.frequencies.size(); ++i) {
    EXPECT_LE(std::fabs(fine.box[i] - 1), 0.35 * std::fabs(coarse.box[i] - 1)) << "f " << fine.frequencies[i];
    EXPECT_LE(std::fabs(fine.far[i] - 1), 0.35 * std::fabs(coarse.far[i] - 1)) << "f " << fine.frequencies[i];
    EXPECT_LE(fine.pattern[i], 0.35 * coarse.pattern[i]) << "f " << fine.frequencies[i];
  }
}

}  // namespace
}  // namespace spire::elec
