// CPML reflection: a Gaussian pulse from a dipole in a small cell closed by a PML, against the same
// dipole in a cell so large (PEC walls) that nothing returns to the probe within the window. The
// difference at a probe near the PML is what the PML reflected; its energy over the window relative
// to the incident field's is the reflection (Taflove & Hagness, 3rd ed., sec. 7.10's test).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "science/elec/cpml.h"
#include "science/elec/simulation.h"

namespace spire::elec {
namespace {

struct ReflectionCase {
  Dimensions dims;
  double interior;  // the small cell's interior edge (cells; dx = 1)
  Vec3 probe;       // relative to the source at the origin
  double frequency, fwidth;
  double window;    // time simulated
  double eps = 1;   // the medium filling the cell (and the PML)
};

std::vector<double> probe_series(const ReflectionCase& rc, double edge, const Boundaries& boundaries) {
  const bool three = rc.dims == Dimensions::three;
  const Vec3 size{edge, edge, three ? edge : 0.0};
  YeeLattice lattice(rc.dims, size, 1.0);
  MaterialArrays m = MaterialArrays::vacuum(lattice);
  for (Component c : lattice.components())
    if (is_electric(c)) m.inverse[size_t(int(c))].assign(size_t(lattice.samples()), 1 / rc.eps);
  Simulation sim(lattice, std::move(m), boundaries);
  const Component c = Component::Ez;
  sim.add_source(point_dipole(c, {0, 0, 0}, std::make_shared<GaussianSource>(rc.frequency, rc.fwidth, 0, 3.0)));
  // The probe sample: nearest Ez sample to the probe position.
  const Vec3 o = lattice.offset(c);
  int64_t ijk[3] = {0, 0, 0};
  for (int a = 0; a < 3; ++a)
    if (lattice.has_axis(a)) ijk[a] = int64_t(std::lround((rc.probe[a] + 0.5 * lattice.size()[a]) / lattice.dx() - o[a]));
  const int64_t idx = lattice.index(ijk[0], ijk[1], ijk[2]);
  std::vector<double> series;
  while (sim.time() < rc.window) {
    sim.step();
    series.push_back(sim.field(c).real(idx));
  }
  return series;
}

// Reflected / incident energy at the probe, in dB, for a pml of `cells` cells.
double reflection_db(const ReflectionCase& rc, int cells, const std::vector<double>& reference,
                     const PmlProfile& profile = PmlProfile()) {
  Boundaries b = Boundaries::pml_cells(cells);
  b.pml_profile = profile;
  const std::vector<double> small = probe_series(rc, rc.interior + 2 * cells, b);
  double reflected = 0, incident = 0;
  for (size_t n = 0; n < reference.size(); ++n) {
    reflected += (small[n] - reference[n]) * (small[n] - reference[n]);
    incident += reference[n] * reference[n];
  }
  return 10 * std::log10(reflected / incident);
}

// A PEC cell whose walls are far enough that no reflection reaches the probe in the window.
std::vector<double> reference_series(const ReflectionCase& rc) {
  double r = 0;
  for (int a = 0; a < 3; ++a) r += rc.probe[a] * rc.probe[a];
  const double half = 0.5 * (rc.window / std::sqrt(rc.eps) + std::sqrt(r)) + 2;
  return probe_series(rc, 2 * std::ceil(half), Boundaries());
}

TEST(Cpml, TwoDimensionalReflectionBelowMinus40dBAndFallingWithThickness) {
  const ReflectionCase rc{Dimensions::two_tm, 20, {6, 3, 0}, 0.15, 0.15, 120};
  const std::vector<double> reference = reference_series(rc);
  const double r5 = reflection_db(rc, 5, reference);
  const double r10 = reflection_db(rc, 10, reference);
  const double r20 = reflection_db(rc, 20, reference);
  std::printf("2D TM CPML reflection: 5 cells %.1f dB, 10 cells %.1f dB, 20 cells %.1f dB\n", r5, r10, r20);
  EXPECT_LT(r10, -40);
  EXPECT_LT(r10, r5 - 5);
  EXPECT_LT(r20, r10 - 5);
}

TEST(Cpml, AbsorbsInADielectric) {
  // The stretched-coordinate PML is matched to any medium filling it: in eps = 2.25 (the same
  // number of cells per wavelength as the vacuum case at f / 1.5) the reflection stays low.
  const ReflectionCase rc{Dimensions::two_tm, 20, {6, 3, 0}, 0.1, 0.1, 150, 2.25};
  const double r10 = reflection_db(rc, 10, reference_series(rc));
  std::printf("2D TM CPML reflection in eps = 2.25: %.1f dB at 10 cells\n", r10);
  EXPECT_LT(r10, -40);
}

TEST(Cpml, TwoDimensionalReflectionFallsAsTheGridIsRefined) {
  // The same physical problem at twice the resolution: every length in cells doubles (the PML keeps
  // its thickness in a, 10 -> 20 cells) and the frequency in cycles per cell halves.
  const ReflectionCase coarse{Dimensions::two_tm, 16, {5, 2, 0}, 0.15, 0.2, 80};
  const ReflectionCase fine{Dimensions::two_tm, 32, {10, 4, 0}, 0.075, 0.1, 160};
  const double r_coarse = reflection_db(coarse, 10, reference_series(coarse));
  const double r_fine = reflection_db(fine, 20, reference_series(fine));
  std::printf("2D TM CPML reflection, 1 a thick: %.1f dB at 6.7 cells per wavelength, %.1f dB at 13.3\n", r_coarse,
              r_fine);
  EXPECT_LT(r_fine, r_coarse - 5);
}

TEST(Cpml, ThreeDimensionalReflectionBelowMinus40dBAndFallingWithThickness) {
  const ReflectionCase rc{Dimensions::three, 10, {3, 2, 1}, 0.15, 0.3, 30};
  const std::vector<double> reference = reference_series(rc);
  const double r5 = reflection_db(rc, 5, reference);
  const double r10 = reflection_db(rc, 10, reference);
  std::printf("3D CPML reflection: 5 cells %.1f dB, 10 cells %.1f dB\n", r5, r10);
  EXPECT_LT(r10, -40);
  EXPECT_LT(r10, r5 - 5);
}

TEST(Cpml, ProfileFollowsRodenGedneyGrading) {
  PmlProfile p;
  p.order = 3;
  p.reflection = 1e-6;
  p.kappa_max = 4;
  p.alpha_max = 0.3;
  const double d = 1.5;
  const double smax = pml_sigma_max(p, d);
  EXPECT_DOUBLE_EQ(smax, -4 * std::log(1e-6) / (2 * d));
  // The continuous PML's round trip: exp(-2 integral of sigma over the slab) = reflection.
  EXPECT_NEAR(std::exp(-2 * smax * d / (p.order + 1)), 1e-6, 1e-18);
  const PmlGrading inner = pml_grading(p, smax, 0.0), wall = pml_grading(p, smax, 1.0), mid = pml_grading(p, smax, 0.5);
  EXPECT_EQ(inner.sigma, 0);
  EXPECT_EQ(inner.kappa, 1);
  EXPECT_DOUBLE_EQ(inner.alpha, 0.3);
  EXPECT_DOUBLE_EQ(wall.sigma, smax);
  EXPECT_DOUBLE_EQ(wall.kappa, 4);
  EXPECT_EQ(wall.alpha, 0);
  EXPECT_DOUBLE_EQ(mid.sigma, smax / 8);
  EXPECT_DOUBLE_EQ(mid.kappa, 1 + 3.0 / 8);
  EXPECT_DOUBLE_EQ(mid.alpha, 0.15);
}

TEST(Cpml, CoefficientsAreTheRecursiveConvolutionOfOneOverS) {
  // b = exp(-(sigma/kappa + alpha) dt), c = sigma (b - 1) / (kappa (sigma + kappa alpha)): checked
  // against the tables at one E and one H position of a low slab of 8 cells.
  YeeLattice lattice(Dimensions::one, {0, 0, 4.0}, 10.0);
  Boundaries b;
  b.set_pml_cells(2, 8);
  const ResolvedBoundaries bc = resolve(b, lattice);
  const double dt = 0.5 * lattice.dx();
  Cpml<double> cpml(lattice, bc, b.pml_profile, dt, false);
  const CpmlAxis<double>& ax = cpml.axis(2);
  const double smax = pml_sigma_max(b.pml_profile, 8 * lattice.dx());
  for (int kind = 0; kind < 2; ++kind) {
    const int64_t i = 3;
    const double u = (8.0 - i - 0.5 * kind) / 8.0;
    const PmlGrading g = pml_grading(b.pml_profile, smax, u);
    const double bb = std::exp(-(g.sigma / g.kappa + g.alpha) * dt);
    EXPECT_NEAR(ax.b[size_t(kind)][size_t(i)], bb, 1e-15);
    EXPECT_NEAR(ax.c[size_t(kind)][size_t(i)], g.sigma * (bb - 1) / (g.kappa * (g.sigma + g.kappa * g.alpha)), 1e-15);
    EXPECT_NEAR(ax.kappa_term[size_t(kind)][size_t(i)], 1 / g.kappa - 1, 1e-15);
  }
  EXPECT_EQ(ax.slab(0), 0);
  EXPECT_EQ(ax.slab(7), 7);
  EXPECT_EQ(ax.slab(8), -1);
  EXPECT_EQ(ax.slab(39), 15);
  // Only components with a derivative along z carry psi in 1D: Ex (d/dz Hy) and Hy (d/dz Ex).
  EXPECT_NE(cpml.psi(Component::Ex, 2), nullptr);
  EXPECT_NE(cpml.psi(Component::Hy, 2), nullptr);
  EXPECT_EQ(cpml.psi(Component::Ex, 0), nullptr);
}

}  // namespace
}  // namespace spire::elec
