// Periodic and Bloch-periodic boundaries. A discrete plane wave exp(i (k.r - w t)) with
// k = 2 pi (k_bloch + m / L) per axis is an exact solution of the Yee scheme on a Bloch-periodic
// lattice when w obeys the discrete dispersion relation 2 sin(w dt / 2) / dt = |K|,
// K_a = 2 sin(k_a dx / 2) / dx, and H = (K x e) / |K| (derivation: each staggered difference of
// exp(i k x) is i K exp(i k x)). Any error in the wrap (a missing or wrong exp(i 2 pi k L)) breaks
// that. Then a pulse crossing a Bloch cell returns after L / c multiplied by exp(-i 2 pi k L).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>

#include "science/elec/simulation.h"
#include "tests/science/elec/support_cavity.h"

namespace spire::elec {
namespace {

using cd = std::complex<double>;
constexpr double kPi = std::numbers::pi;

struct PlaneWave {
  std::array<double, 3> k{0, 0, 0}, e{0, 0, 0}, h{0, 0, 0};
  double omega = 0;
};

// A plane wave of the lattice with wavevector k (rad/a), polarisation perpendicular to K.
PlaneWave plane_wave(const Simulation& sim, std::array<double, 3> k) {
  const YeeLattice& L = sim.lattice();
  PlaneWave w;
  w.k = k;
  std::array<double, 3> K{0, 0, 0};
  double K2 = 0;
  for (int a = 0; a < 3; ++a) {
    if (!L.has_axis(a)) continue;
    K[size_t(a)] = 2 * std::sin(0.5 * k[size_t(a)] * L.dx()) / L.dx();
    K2 += K[size_t(a)] * K[size_t(a)];
  }
  const double Kn = std::sqrt(K2);
  switch (L.dimensions()) {
    case Dimensions::one: w.e = {1, 0, 0}; break;
    case Dimensions::two_tm: w.e = {0, 0, 1}; break;
    case Dimensions::two_te: w.e = {K[1] / Kn, -K[0] / Kn, 0}; break;
    case Dimensions::three: {
      const auto e = testing::cross(K, {0.2, -0.4, 0.9});
      const double n = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
      w.e = {e[0] / n, e[1] / n, e[2] / n};
      break;
    }
  }
  const auto ke = testing::cross(K, w.e);
  w.h = {ke[0] / Kn, ke[1] / Kn, ke[2] / Kn};
  w.omega = 2 / sim.dt() * std::asin(0.5 * sim.dt() * Kn);
  return w;
}

cd wave_value(const PlaneWave& w, Component c, const Vec3& r, double t) {
  const double amp = is_electric(c) ? w.e[size_t(axis_of(c))] : w.h[size_t(axis_of(c))];
  double phase = -w.omega * t;
  for (int a = 0; a < 3; ++a) phase += w.k[size_t(a)] * r[a];
  return amp * std::polar(1.0, phase);
}

void set_wave(Simulation& sim, const PlaneWave& w, bool complex_fields) {
  for (Component c : sim.lattice().components()) {
    const double t = is_electric(c) ? 0.0 : -0.5 * sim.dt();
    sim.set_field(c, [&](const Vec3& r) {
      const cd v = wave_value(w, c, r, t);
      return complex_fields ? v : cd(v.real());
    });
  }
}

// Largest deviation of E and H from the travelling wave after `steps` steps.
double wave_error(Simulation& sim, const PlaneWave& w, bool complex_fields, int steps) {
  set_wave(sim, w, complex_fields);
  sim.run_steps(steps);
  const YeeLattice& L = sim.lattice();
  double worst = 0;
  for (Component c : L.components()) {
    const FieldView v = sim.field(c);
    for (int64_t i = 0; i < L.n(0); ++i)
      for (int64_t j = 0; j < L.n(1); ++j)
        for (int64_t k = 0; k < L.n(2); ++k) {
          cd want = wave_value(w, c, L.position(c, i, j, k), v.time);
          if (!complex_fields) want = want.real();
          worst = std::max(worst, std::abs(v.at(L.index(i, j, k)) - want));
        }
  }
  return worst;
}

TEST(BoundariesBloch, PeriodicTravellingWaveIsExact) {
  YeeLattice lattice(Dimensions::two_te, {1.2, 0.9, 0}, 20);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries::periodic());
  EXPECT_FALSE(sim.complex_fields());
  const Vec3 s = lattice.size();
  const PlaneWave w = plane_wave(sim, {2 * kPi * 2 / s.x, 2 * kPi * -1 / s.y, 0});
  EXPECT_LT(wave_error(sim, w, false, 400), 1e-10);
}

TEST(BoundariesBloch, BlochWaveIsExactIn1D2D3D) {
  struct Case {
    Dimensions dims;
    Vec3 size;
    double resolution;
    std::array<double, 3> kb;  // Bloch k, 1/a
    std::array<int, 3> m;
  };
  const Case cases[] = {{Dimensions::one, {0, 0, 1.5}, 20, {0, 0, 0.23}, {0, 0, 1}},
                        {Dimensions::two_tm, {1.0, 0.8, 0}, 20, {0.31, -0.17, 0}, {1, 0, 0}},
                        {Dimensions::two_te, {0.9, 1.1, 0}, 20, {-0.12, 0.4, 0}, {0, -1, 0}},
                        {Dimensions::three, {0.7, 0.6, 0.8}, 10, {0.2, 0.15, -0.3}, {1, 0, -1}}};
  for (const Case& c : cases) {
    YeeLattice lattice(c.dims, c.size, c.resolution);
    Boundaries b;
    for (int a = 0; a < 3; ++a) b.set_bloch(a, c.kb[size_t(a)]);
    Simulation sim(lattice, MaterialArrays::vacuum(lattice), b);
    ASSERT_TRUE(sim.complex_fields());
    std::array<double, 3> k{0, 0, 0};
    for (int a = 0; a < 3; ++a)
      if (lattice.has_axis(a)) k[size_t(a)] = 2 * kPi * (c.kb[size_t(a)] + c.m[size_t(a)] / lattice.size()[a]);
    const PlaneWave w = plane_wave(sim, k);
    EXPECT_LT(wave_error(sim, w, true, 300), 1e-10) << to_string(c.dims);
  }
}

TEST(BoundariesBloch, BlochWaveIsExactInFloat32) {
  YeeLattice lattice(Dimensions::two_tm, {1.0, 0.8, 0}, 20);
  Boundaries b;
  b.set_bloch(0, 0.31).set_bloch(1, -0.17);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice), b, 0.5, Precision::float32);
  const PlaneWave w = plane_wave(sim, {2 * kPi * (0.31 + 1 / 1.0), 2 * kPi * -0.17, 0});
  EXPECT_LT(wave_error(sim, w, true, 300), 1e-4);
}

// A right-moving Gaussian pulse (Ex, Hy) centred in a 1D cell; after time L it is back, times
// exp(-i 2 pi k L) for a Bloch cell (1 for a periodic one), up to the lattice's dispersion.
double pulse_return_error(const Boundaries& b, cd expected_phase, bool complex_fields) {
  const double length = 4.0;
  YeeLattice lattice(Dimensions::one, {0, 0, length}, 40);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice), b);
  const double width = 0.35;
  auto g = [&](double z) { return std::exp(-0.5 * z * z / (width * width)); };
  sim.set_field(Component::Ex, [&](const Vec3& r) { return cd(g(r.z)); });
  sim.set_field(Component::Hy, [&](const Vec3& r) { return cd(g(r.z + 0.5 * sim.dt())); });
  std::vector<cd> start(size_t(lattice.samples()));
  for (int64_t i = 0; i < lattice.samples(); ++i) start[size_t(i)] = sim.field(Component::Ex).at(i);
  sim.run(length);
  EXPECT_NEAR(sim.time(), length, 1e-12);
  double worst = 0;
  const FieldView v = sim.field(Component::Ex);
  EXPECT_EQ(v.is_complex(), complex_fields);
  for (int64_t i = 0; i < lattice.samples(); ++i)
    worst = std::max(worst, std::abs(v.at(i) - expected_phase * start[size_t(i)]));
  return worst;
}

TEST(BoundariesBloch, PulseReturnsAfterOneCellTransitWithTheBlochPhase) {
  Boundaries periodic;
  periodic.set_periodic(2);
  EXPECT_LT(pulse_return_error(periodic, 1.0, false), 2e-2);
  const double kb = 0.3, length = 4.0;
  Boundaries bloch;
  bloch.set_bloch(2, kb);
  const cd phase = std::polar(1.0, -2 * kPi * kb * length);
  EXPECT_LT(pulse_return_error(bloch, phase, true), 2e-2);
  // And not with the conjugate phase: the test can tell the sign of the wrap.
  EXPECT_GT(pulse_return_error(bloch, std::conj(phase), true), 0.5);
}

TEST(BoundariesBloch, ComplexFieldsAreTwoRealRunsWhenThePhaseIsOne) {
  // Bloch with k = 0 wraps with exp(0) = 1 but still carries complex fields: the real part must be
  // the periodic real run driven by Re(current), the imaginary part the real run driven by
  // Im(current), bit for bit, through the CPML of the other axis and a dielectric.
  YeeLattice lattice(Dimensions::two_te, {2.0, 2.4, 0}, 10);
  MaterialArrays m = MaterialArrays::vacuum(lattice);
  for (int64_t i = 0; i < lattice.samples(); i += 5) m.inverse[0][size_t(i)] = 0.3;
  auto pulse = std::make_shared<GaussianSource>(1.0, 1.0);
  auto run = [&](bool bloch, std::shared_ptr<const TimeProfile> profile) {
    Boundaries b = Boundaries::pml_cells(6);
    if (bloch)
      b.set_bloch(0, 0.0);
    else
      b.set_periodic(0);
    Simulation sim(lattice, m, b);
    sim.add_source(point_dipole(Component::Ey, {0.33, 0.1, 0}, profile, cd(0.8, 0.0)));
    sim.run_steps(120);
    return sim;
  };
  const Simulation complex_run = run(true, pulse);
  ASSERT_TRUE(complex_run.complex_fields());
  const Simulation real_part = run(false, pulse);
  const double dt = complex_run.dt();
  auto imaginary = std::make_shared<CustomSource>([pulse, dt](double t) { return cd(0, -1) * pulse->current(t, dt); });
  const Simulation imag_part = run(false, imaginary);
  for (Component c : lattice.components())
    for (int64_t i = 0; i < lattice.samples(); ++i) {
      ASSERT_EQ(complex_run.field(c).real(i), real_part.field(c).real(i)) << to_string(c) << " " << i;
      ASSERT_EQ(complex_run.field(c).imag(i), imag_part.field(c).real(i)) << to_string(c) << " " << i;
    }
}

}  // namespace
}  // namespace spire::elec
