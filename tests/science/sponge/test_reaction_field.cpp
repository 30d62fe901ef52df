// Reaction field: energy and forces against an O(N^2) sum of OpenMM's formula (excluded pairs left
// out, 1-4 pairs plain Coulomb), forces and virial against finite differences, the pair energy
// vanishing at the cutoff, and OpenMM's k_rf and c_rf.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "engine/core/error.h"
#include "science/sponge/reaction_field.h"

namespace spire::sponge {
namespace {

struct Random {
  System system;
  State state;
};

enum class Shape { None, Orthorhombic, Triclinic };

Random random_charges(int n, Shape shape, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), qd(-1, 1);
  Random r;
  for (int i = 0; i < n; ++i) r.system.add_particle(1.0, qd(rng), "X");
  if (shape == Shape::Orthorhombic) r.state.box = Box::orthorhombic(2.2, 2.0, 2.1);
  if (shape == Shape::Triclinic) r.state.box = Box::triclinic({2.2, 0, 0}, {0.5, 2.0, 0}, {-0.4, 0.6, 2.1});
  for (int i = 0; i < n; ++i)
    r.state.positions.push_back(shape == Shape::None ? Vec3{2.2 * u(rng), 2.0 * u(rng), 2.1 * u(rng)}
                                                     : r.state.box.from_fractional({u(rng), u(rng), u(rng)}));
  for (int c = 0; c < 2; ++c)
    for (int k = 1; k < 4; ++k) {
      const int i = 4 * c + k;
      Vec3 step{u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5};
      r.state.positions[size_t(i)] = r.state.positions[size_t(i - 1)] + step * (0.15 / norm(step));
      r.system.topology.bonds.push_back({i - 1, i, 0.15, 1000.0});
    }
  r.system.topology.exclude_bonded(0.8333, 0.5);
  return r;
}

ForceResult evaluate(Force& force, const System& system, const State& state) {
  ForceResult out;
  out.reset(system.size());
  force.check(system, state);
  force.add(system, state, nullptr, out);
  return out;
}

TEST(ReactionField, ConstantsAsOpenMM) {
  ReactionFieldCoulomb rf({.cutoff = 1.2, .epsilon_solvent = 78.3});
  const double krf = (78.3 - 1) / (2 * 78.3 + 1) / (1.2 * 1.2 * 1.2);
  EXPECT_DOUBLE_EQ(rf.k_rf(), krf);
  EXPECT_DOUBLE_EQ(rf.c_rf(), 3 * 78.3 / ((2 * 78.3 + 1) * 1.2));  // OpenMM's crf
  ReactionFieldCoulomb conductor({.cutoff = 1.2, .epsilon_solvent = INFINITY});
  EXPECT_DOUBLE_EQ(conductor.k_rf(), 0.5 / (1.2 * 1.2 * 1.2));
  EXPECT_DOUBLE_EQ(conductor.c_rf(), 1.5 / 1.2);
  // The pair energy goes to zero at the cutoff.
  const double rc = 1.2;
  EXPECT_NEAR(1 / rc + rf.k_rf() * rc * rc - rf.c_rf(), 0, 1e-15);
}

TEST(ReactionField, MatchesBruteForce) {
  for (Shape shape : {Shape::None, Shape::Orthorhombic, Shape::Triclinic}) {
    Random r = random_charges(60, shape, 7 + int(shape));
    const double rc = 0.9;
    ReactionFieldCoulomb rf({.cutoff = rc, .epsilon_solvent = 78.3});
    const ForceResult out = evaluate(rf, r.system, r.state);
    const double k = constants::kCoulomb;
    double energy = 0;
    std::vector<Vec3> f(60);
    auto add = [&](int i, int j, double e, double s, const Vec3& d) {
      energy += e;
      f[i] -= s * d;
      f[j] += s * d;
    };
    for (int i = 0; i < 60; ++i)
      for (int j = i + 1; j < 60; ++j) {
        if (r.system.topology.excluded(i, j)) continue;
        const Vec3 d = r.state.box.min_image(r.state.positions[j] - r.state.positions[i]);
        const double x = norm(d);
        if (x >= rc) continue;
        const double kqq = k * r.system.charge[i] * r.system.charge[j];
        add(i, j, kqq * (1 / x + rf.k_rf() * x * x - rf.c_rf()), kqq * (1 / (x * x * x) - 2 * rf.k_rf()), d);
      }
    ASSERT_FALSE(r.system.topology.pairs14.empty());
    for (const Pair14& p : r.system.topology.pairs14) {
      const Vec3 d = r.state.box.min_image(r.state.positions[p.j] - r.state.positions[p.i]);
      const double x = norm(d), kqq = p.coulomb_scale * k * r.system.charge[p.i] * r.system.charge[p.j];
      add(p.i, p.j, kqq / x, kqq / (x * x * x), d);
    }
    EXPECT_NEAR(out.energy_of("coulomb"), energy, 1e-12 * std::fabs(energy));
    for (int i = 0; i < 60; ++i)
      for (int a = 0; a < 3; ++a) EXPECT_NEAR(out.forces[i][a], f[i][a], 1e-10 * (1 + std::fabs(f[i][a])));
  }
}

TEST(ReactionField, ForcesAreMinusTheGradient) {
  Random r = random_charges(40, Shape::Orthorhombic, 13);
  ReactionFieldCoulomb rf({.cutoff = 0.9});
  const ForceResult out = evaluate(rf, r.system, r.state);
  const double h = 1e-6;
  for (int i = 0; i < 40; i += 3)
    for (int a = 0; a < 3; ++a) {
      State s = r.state;
      s.positions[size_t(i)][a] += h;
      const double ep = evaluate(rf, r.system, s).energy();
      s.positions[size_t(i)][a] -= 2 * h;
      const double em = evaluate(rf, r.system, s).energy();
      const double fd = -(ep - em) / (2 * h);
      EXPECT_NEAR(out.forces[size_t(i)][a], fd, 1e-6 * (1 + std::fabs(fd))) << "particle " << i;
    }
}

TEST(ReactionField, VirialIsTheBoxDerivative) {
  Random r = random_charges(40, Shape::Triclinic, 3);
  ReactionFieldCoulomb rf({.cutoff = 0.9});
  const ForceResult out = evaluate(rf, r.system, r.state);
  const double h = 1e-7;
  for (int a = 0; a < 3; ++a)
    for (int b = a; b < 3; ++b) {
      auto deformed = [&](double e) {
        Mat3 mu = Mat3::identity();
        mu(a, b) += e;
        State s = r.state;
        s.box = r.state.box.scaled(mu);
        for (Vec3& p : s.positions) {
          const Vec3 x = p;
          for (int k = 0; k < 3; ++k) p[k] = mu(k, 0) * x.x + mu(k, 1) * x.y + mu(k, 2) * x.z;
        }
        ForceResult o;
        o.reset(40);
        rf.add(r.system, s, nullptr, o);
        return o.energy();
      };
      const double fd = -(deformed(h) - deformed(-h)) / (2 * h);
      EXPECT_NEAR(out.virial(b, a), fd, 1e-6 * std::fabs(out.virial.trace()) + 1e-6) << a << b;
    }
}

TEST(ReactionField, BadInputIsRefused) {
  EXPECT_THROW(ReactionFieldCoulomb({.cutoff = 1, .epsilon_solvent = 0.5}), ValueError);
  EXPECT_THROW(ReactionFieldCoulomb({.cutoff = 0}), ValueError);
  Random r = random_charges(10, Shape::Orthorhombic, 1);
  r.system.charge.pop_back();
  ReactionFieldCoulomb rf;
  EXPECT_THROW(rf.check(r.system, r.state), ValueError);
}

}  // namespace
}  // namespace spire::sponge
