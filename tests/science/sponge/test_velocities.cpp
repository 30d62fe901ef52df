// Initial velocities: the temperature after scaling against the requested T (the defining
// property), zero momentum, draws keyed by (seed, particle) alone, the Maxwell-Boltzmann
// distribution of sqrt(m / kT) v against the standard normal (moments with tolerances from the
// sample size, and a Kolmogorov-Smirnov test), and constraint consistency: rigid waters move as
// rigid bodies and constrained pairs have no relative velocity along their bonds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "engine/core/error.h"
#include "science/sponge/lattice.h"
#include "science/sponge/velocities.h"

namespace spire::sponge {
namespace {

TEST(Velocities, LjTemperatureAndMomentumExact) {
  State s = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), 4, 4, 4);
  System sys = identical_particles(int64_t(s.positions.size()), 1.0, "A", Units::lj());
  maxwell_boltzmann(sys, s, 1.44, 87287);
  EXPECT_NEAR(kinetic_temperature(sys, s.velocities, true), 1.44, 1e-14);
  // K = (3N - 3)/2 k_B T.
  EXPECT_NEAR(kinetic_energy(sys, s.velocities), 0.5 * (3 * 256 - 3) * 1.44, 1e-12);
  Vec3 vcom = center_of_mass_velocity(sys, s.velocities);
  EXPECT_LT(norm(vcom), 1e-15);
  // Same seed, same bits; another seed, other velocities.
  State again = s;
  maxwell_boltzmann(sys, again, 1.44, 87287);
  EXPECT_EQ(again.velocities, s.velocities);
  maxwell_boltzmann(sys, again, 1.44, 87288);
  EXPECT_NE(again.velocities[0], s.velocities[0]);
}

TEST(Velocities, DrawsKeyedByParticle) {
  // Without momentum removal the only global step is the scale: particle i's velocity in a system
  // of 100 is a fixed multiple of its velocity in a system of 200.
  System small = identical_particles(100, 2.0, "A", Units::lj()), big = identical_particles(200, 2.0, "A", Units::lj());
  State a, b;
  a.positions.resize(100);
  b.positions.resize(200);
  maxwell_boltzmann(small, a, 1.0, 7, false);
  maxwell_boltzmann(big, b, 1.0, 7, false);
  double ratio = b.velocities[0].x / a.velocities[0].x;
  for (int i = 0; i < 100; ++i)
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(b.velocities[i][k], ratio * a.velocities[i][k], 1e-14);
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

TEST(Velocities, MaxwellBoltzmannDistribution) {
  // Argon-like and four times heavier particles in md units at 300 K.
  const int n = 20000;
  System sys;
  for (int i = 0; i < n; ++i) sys.add_particle(i % 2 ? 4 * 39.948 : 39.948, 0, i % 2 ? "B" : "A");
  State s;
  s.positions.resize(n);
  maxwell_boltzmann(sys, s, 300, 2024, false);
  const double kT = constants::kBoltzmann * 300;
  for (int cls = 0; cls < 2; ++cls) {
    std::vector<double> z;
    for (int i = cls; i < n; i += 2)
      for (int k = 0; k < 3; ++k) z.push_back(s.velocities[i][k] * std::sqrt(sys.mass[i] / kT));
    const double m = double(z.size());
    double mean = 0, var = 0, m4 = 0;
    for (double x : z) mean += x;
    mean /= m;
    for (double x : z) var += (x - mean) * (x - mean), m4 += std::pow(x - mean, 4);
    var /= m;
    m4 /= m;
    // Five standard errors: of the mean 1/sqrt(m), of the variance sqrt(2/m), of the kurtosis
    // sqrt(24/m).
    EXPECT_NEAR(mean, 0, 5 / std::sqrt(m));
    EXPECT_NEAR(var, 1, 5 * std::sqrt(2 / m));
    EXPECT_NEAR(m4 / (var * var), 3, 5 * std::sqrt(24 / m));
    // Kolmogorov-Smirnov against N(0, 1): critical value 1.63 / sqrt(m) at the 1% level.
    std::sort(z.begin(), z.end());
    double d = 0;
    for (size_t i = 0; i < z.size(); ++i) {
      double f = normal_cdf(z[i]);
      d = std::max({d, f - i / m, (i + 1) / m - f});
    }
    EXPECT_LT(d, 1.63 / std::sqrt(m)) << "class " << cls;
  }
}

// Two waters (SPC/E geometry) apart from each other across the periodic boundary, plus a
// constrained chain of three atoms and a free particle, and a fixed particle constrained to one.
System constrained_system(State& s) {
  System sys;
  s = State{};
  s.box = Box::orthorhombic(2, 2, 2);
  const double th = 109.47 * std::numbers::pi / 180;
  auto water = [&](Vec3 o, Vec3 e1, Vec3 e2) {
    int io = sys.add_particle(15.9994, -0.8476, "OW");
    int h1 = sys.add_particle(1.008, 0.4238, "HW");
    int h2 = sys.add_particle(1.008, 0.4238, "HW");
    s.positions.push_back(o);
    s.positions.push_back(s.box.wrap(o + 0.1 * e1));
    s.positions.push_back(s.box.wrap(o + 0.1 * (std::cos(th) * e1 + std::sin(th) * e2)));
    sys.topology.waters.push_back({io, h1, h2, 0.1, 2 * 0.1 * std::sin(th / 2)});
  };
  water({1.95, 0.5, 0.5}, {1, 0, 0}, {0, 1, 0});  // a hydrogen across x = 2
  water({0.5, 1.0, 0.02}, {0, 0.6, -0.8}, {1, 0, 0});
  for (int k = 0; k < 3; ++k) {
    sys.add_particle(12.011, 0, "C");
    s.positions.push_back({1.0 + 0.15 * k, 1.0 + 0.03 * k * k, 1.5});
  }
  sys.topology.constraints.push_back({6, 7, 0.15});
  sys.topology.constraints.push_back({8, 7, 0.15});
  sys.add_particle(0, 0, "X");  // fixed
  s.positions.push_back({1.0, 0.85, 1.5});
  sys.topology.constraints.push_back({9, 6, 0.15});
  sys.add_particle(39.948, 0, "Ar");
  s.positions.push_back({0.2, 1.7, 1.2});
  return sys;
}

TEST(Velocities, ConstraintsAndRigidWaters) {
  State s;
  System sys = constrained_system(s);
  ASSERT_NO_THROW(sys.check());
  maxwell_boltzmann(sys, s, 300, 11, false);
  // 10 moving atoms: 30 - 2 * 3 (waters) - 3 (constraints) = 21.
  EXPECT_EQ(sys.degrees_of_freedom(false), 21);
  EXPECT_NEAR(kinetic_temperature(sys, s.velocities, false), 300, 1e-10);
  EXPECT_EQ(s.velocities[9], Vec3{});
  const std::vector<Vec3>& v = s.velocities;
  double v_scale = std::sqrt(constants::kBoltzmann * 300 / 1.008);
  auto relative = [&](int i, int j) {
    Vec3 r = s.box.min_image(s.positions[i] - s.positions[j]);
    return dot(r, v[i] - v[j]) / norm(r);
  };
  for (const RigidWater& w : sys.topology.waters) {
    EXPECT_NEAR(relative(w.o, w.h1), 0, 1e-12 * v_scale);
    EXPECT_NEAR(relative(w.o, w.h2), 0, 1e-12 * v_scale);
    EXPECT_NEAR(relative(w.h1, w.h2), 0, 1e-12 * v_scale);
  }
  for (const Constraint& c : sys.topology.constraints) EXPECT_NEAR(relative(c.i, c.j), 0, 1e-12 * v_scale);
}

TEST(Velocities, ZeroMomentumWithRigidWaters) {
  State s;
  System sys = constrained_system(s);
  sys.topology.constraints.clear();  // pair constraints to the fixed atom would pass momentum to it
  maxwell_boltzmann(sys, s, 250, 3, true);
  EXPECT_NEAR(kinetic_temperature(sys, s.velocities, true), 250, 1e-10);
  EXPECT_LT(norm(center_of_mass_velocity(sys, s.velocities)), 1e-14);
}

TEST(Velocities, Errors) {
  System one = identical_particles(1, 1.0, "A", Units::lj());
  State s;
  s.positions.resize(1);
  EXPECT_THROW(maxwell_boltzmann(one, s, 1.0, 1, true), ValueError);  // 3 - 3 = 0 degrees of freedom
  EXPECT_NO_THROW(maxwell_boltzmann(one, s, 0.0, 1, true));
  EXPECT_EQ(s.velocities[0], Vec3{});
  EXPECT_THROW(maxwell_boltzmann(one, s, -1.0, 1, false), ValueError);
  s.positions.resize(2);
  EXPECT_THROW(maxwell_boltzmann(one, s, 1.0, 1, false), ValueError);
}

}  // namespace
}  // namespace spire::sponge
