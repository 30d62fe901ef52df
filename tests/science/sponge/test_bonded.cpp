// Bonded terms: hand-computed energies of simple geometries, forces against finite differences of
// the energy (molecules split across the faces of a triclinic box), virials against the box-strain
// derivative, zero net force, the IUPAC sign of the dihedral, improper wrapping, restraints and
// external fields.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <random>

#include "engine/core/error.h"
#include "science/sponge/bonded.h"
#include "tests/science/sponge/support_forces.h"

namespace spire::sponge {
namespace {

constexpr double kDeg = M_PI / 180;

using testing::evaluate;

System particles(int n) {
  System s;
  for (int i = 0; i < n; ++i) s.add_particle(12.0, 0.0, "C");
  return s;
}

TEST(Bonded, HandComputedEnergies) {
  System s = particles(4);
  State st;
  st.positions = {{1, 0, 0}, {0, 0, 0}, {0, 0, 1}, {std::cos(60 * kDeg), std::sin(60 * kDeg), 1}};
  s.topology.bonds = {{0, 1, 0.9, 1000.0}};
  s.topology.angles = {{0, 1, 2, 109.5 * kDeg, 400.0}};
  s.topology.torsions = {{0, 1, 2, 3, 2, 0.0, 5.0}};
  s.topology.impropers = {{0, 1, 2, 3, 50 * kDeg, 300.0}};
  HarmonicBonds bonds;
  HarmonicAngles angles;
  PeriodicTorsions torsions;
  HarmonicImpropers impropers;
  EXPECT_NEAR(evaluate(bonds, s, st).energy(), 0.5 * 1000 * 0.1 * 0.1, 1e-12);
  EXPECT_NEAR(evaluate(angles, s, st).energy(), 0.5 * 400 * std::pow(19.5 * kDeg, 2), 1e-12);
  // phi = +60 degrees (IUPAC: l turned clockwise from i seen from j to k): 5 (1 + cos 120) = 2.5.
  EXPECT_NEAR(dihedral_angle(st.positions[1] - st.positions[0], st.positions[2] - st.positions[1],
                             st.positions[3] - st.positions[2]),
              60 * kDeg, 1e-14);
  EXPECT_NEAR(evaluate(torsions, s, st).energy(), 2.5, 1e-12);
  EXPECT_NEAR(evaluate(impropers, s, st).energy(), 0.5 * 300 * std::pow(10 * kDeg, 2), 1e-12);
  // Mirror l through the i-j-k plane: phi = -60.
  st.positions[3].y = -st.positions[3].y;
  EXPECT_NEAR(dihedral_angle(st.positions[1] - st.positions[0], st.positions[2] - st.positions[1],
                             st.positions[3] - st.positions[2]),
              -60 * kDeg, 1e-14);
  // The force of a stretched bond: k (r - r0) along the bond.
  const ForceResult b = evaluate(bonds, s, st);
  EXPECT_NEAR(b.forces[0].x, -100.0, 1e-10);
  EXPECT_NEAR(b.forces[1].x, 100.0, 1e-10);
}

TEST(Bonded, ImproperWrapsTheDeviation) {
  System s = particles(4);
  State st;
  const double xi = -170 * kDeg;  // and xi0 = +170: the deviation is 20 degrees, not 340
  st.positions = {{1, 0, 0}, {0, 0, 0}, {0, 0, 1}, {std::cos(xi), std::sin(xi), 1}};
  s.topology.impropers = {{0, 1, 2, 3, 170 * kDeg, 100.0}};
  HarmonicImpropers impropers;
  EXPECT_NEAR(evaluate(impropers, s, st).energy(), 0.5 * 100 * std::pow(20 * kDeg, 2), 1e-10);
}

// A few small molecules with every kind of term, placed across the faces of a triclinic box.
struct Molecules {
  System system;
  State state;
};

Molecules molecules(uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Molecules m;
  m.state.box = Box::triclinic({2.0, 0, 0}, {0.6, 1.9, 0}, {-0.5, 0.4, 2.1});
  for (int mol = 0; mol < 3; ++mol) {
    const int base = int(m.system.size());
    // Start near a corner so that the chain crosses faces.
    Vec3 x{1.95 + 0.02 * mol, 1.85, 2.05};
    for (int a = 0; a < 6; ++a) {
      m.system.add_particle(12.0, 0.1 * u(rng), "C");
      m.state.positions.push_back(m.state.box.wrap(x));
      Vec3 step{u(rng), u(rng), u(rng)};
      x += step * (0.15 / norm(step));
    }
    Topology& t = m.system.topology;
    for (int a = 0; a + 1 < 6; ++a) t.bonds.push_back({base + a, base + a + 1, 0.14 + 0.01 * a, 2e5});
    for (int a = 0; a + 2 < 6; ++a) t.angles.push_back({base + a, base + a + 1, base + a + 2, 1.9 + 0.1 * a, 400.0});
    for (int a = 0; a + 3 < 6; ++a) {
      t.torsions.push_back({base + a, base + a + 1, base + a + 2, base + a + 3, 1 + a, 0.3 * a, 4.0});
      t.torsions.push_back({base + a, base + a + 1, base + a + 2, base + a + 3, 3, 1.1, 1.5});
    }
    t.impropers.push_back({base + 1, base + 0, base + 2, base + 3, 0.4, 200.0});
    t.impropers.push_back({base + 2, base + 4, base + 3, base + 5, -2.9, 150.0});
  }
  return m;
}

std::vector<std::unique_ptr<Force>> all_terms(const Molecules& m) {
  std::vector<std::unique_ptr<Force>> terms;
  terms.push_back(std::make_unique<HarmonicBonds>());
  terms.push_back(std::make_unique<HarmonicAngles>());
  terms.push_back(std::make_unique<PeriodicTorsions>());
  terms.push_back(std::make_unique<HarmonicImpropers>());
  std::vector<PositionRestraint> restraints;
  for (int i = 0; i < 18; i += 4)
    restraints.push_back({i, m.state.box.wrap(m.state.positions[i] + Vec3{0.03, -0.02, 0.05 + 0.01 * i}), 800.0});
  terms.push_back(std::make_unique<PositionRestraints>(restraints));
  return terms;
}

TEST(Bonded, ForcesAreMinusTheGradient) {
  Molecules m = molecules(4);
  for (auto& term : all_terms(m)) {
    const ForceResult out = evaluate(*term, m.system, m.state);
    Vec3 total{};
    for (int i = 0; i < m.system.size(); ++i) {
      total += out.forces[i];
      for (int a = 0; a < 3; ++a) {
        const double fd = testing::fd_force(*term, m.system, m.state, i, a, 1e-6);
        EXPECT_NEAR(out.forces[i][a], fd, 1e-6 * (1 + std::fabs(fd))) << term->name() << " particle " << i;
      }
    }
    if (term->name() != "restraints") {
      EXPECT_LT(norm(total), 1e-9) << term->name();  // internal forces sum to zero
    }
  }
}

TEST(Bonded, VirialIsTheBoxDerivative) {
  Molecules m = molecules(9);
  for (auto& term : all_terms(m)) {
    const ForceResult out = evaluate(*term, m.system, m.state);
    auto energy = [&](const State& s, const Mat3& mu) {
      if (auto* r = dynamic_cast<PositionRestraints*>(term.get())) {
        // References move with the box (refcoord-scaling = all).
        std::vector<PositionRestraint> moved = r->restraints();
        for (auto& p : moved) p.reference = testing::strained(mu, p.reference);
        PositionRestraints scaled(moved);
        return evaluate(scaled, m.system, s).energy();
      }
      return evaluate(*term, m.system, s).energy();
    };
    for (int a = 0; a < 3; ++a)
      for (int b = a; b < 3; ++b) {
        const double fd = testing::fd_virial(m.state, a, b, 1e-6, energy);
        EXPECT_NEAR(out.virial(b, a), fd, 1e-6 * (1 + std::fabs(fd))) << term->name() << " " << a << b;
        EXPECT_NEAR(out.virial(a, b), out.virial(b, a), 1e-8 * (1 + std::fabs(fd))) << term->name();
      }
  }
}

TEST(Bonded, ExternalField) {
  Molecules m = molecules(2);
  const Vec3 field{0.3, -1.2, 2.0}, g{0, 0, -9.8e-3};
  ExternalField ext(field, g);
  const ForceResult out = evaluate(ext, m.system, m.state);
  double energy = 0;
  for (int i = 0; i < m.system.size(); ++i) {
    const Vec3 f = m.system.charge[i] * field + m.system.mass[i] * g;
    EXPECT_EQ(out.forces[i], f);
    energy -= dot(f, m.state.positions[i]);
  }
  EXPECT_NEAR(out.energy(), energy, 1e-12);
  EXPECT_EQ(out.virial.trace(), 0.0);
  // The energy is -sum f . r, so its gradient is -f.
  State s = m.state;
  s.positions[5].y += 1e-3;
  EXPECT_NEAR(evaluate(ext, m.system, s).energy() - out.energy(), -out.forces[5].y * 1e-3, 1e-12);
}

TEST(Bonded, BadInputIsRefused) {
  EXPECT_THROW(PositionRestraints({{0, {0, 0, 0}, -1.0}}), ValueError);
  EXPECT_THROW(ExternalField({NAN, 0, 0}), ValueError);
  System s = particles(3);
  State st;
  st.positions.resize(3);
  PositionRestraints outside({{5, {0, 0, 0}, 1.0}});
  EXPECT_THROW(outside.check(s, st), ValueError);
  s.topology.bonds = {{0, 7, 0.1, 1.0}};
  HarmonicBonds bonds;
  EXPECT_THROW(bonds.check(s, st), ValueError);
  s.topology.bonds.clear();
  st.positions.resize(2);
  EXPECT_THROW(bonds.check(s, st), ValueError);
}

}  // namespace
}  // namespace spire::sponge
