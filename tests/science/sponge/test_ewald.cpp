// Ewald summation: Madelung constants of NaCl and CsCl (published values), forces and virial
// against finite differences of the energy, the direct-space table against erfc, the excluded-pair
// and 1-4 corrections against plain Coulomb, the neutralising background (a charged cell's energy
// does not depend on alpha), and the same bits on one thread and on several.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>

#include "engine/core/error.h"
#include "science/sponge/ewald.h"

namespace spire::sponge {
namespace {

// Madelung constants per nearest-neighbour distance (Zucker, J. Phys. A 8, 1734 (1975); OEIS
// A085469 and A181152).
constexpr double kMadelungNaCl = 1.7475645946331821906;
constexpr double kMadelungCsCl = 1.7626747730709883980;

System ionic_system(int n, Units units) {
  System s;
  s.units = units;
  for (int i = 0; i < n; ++i) s.add_particle(1.0, 0.0, "ion");
  return s;
}

// Rock salt: n^3 conventional cells of edge 1, ions of charge +-1.
void rock_salt(int cells, System& system, State& state) {
  system = ionic_system(0, Units::lj());
  for (int x = 0; x < 2 * cells; ++x)
    for (int y = 0; y < 2 * cells; ++y)
      for (int z = 0; z < 2 * cells; ++z) {
        const bool cation = (x + y + z) % 2 == 0;
        system.add_particle(1.0, cation ? 1.0 : -1.0, cation ? "Na" : "Cl");
        state.positions.push_back({0.5 * x, 0.5 * y, 0.5 * z});
      }
  state.box = Box::orthorhombic(cells, cells, cells);
}

ForceResult evaluate(Force& force, const System& system, const State& state) {
  ForceResult out;
  out.reset(system.size());
  force.check(system, state);
  force.add(system, state, nullptr, out);
  return out;
}

TEST(Ewald, MadelungNaCl) {
  System system;
  State state;
  rock_salt(2, system, state);  // 64 ions, L = 2, r0 = 1/2
  EwaldCoulomb ewald({.cutoff = 1.0, .tolerance = 1e-10});
  const ForceResult r = evaluate(ewald, system, state);
  const double pairs = system.size() / 2.0;
  EXPECT_NEAR(-r.energy() * 0.5 / pairs, kMadelungNaCl, 1e-9);
  for (const Vec3& f : r.forces) EXPECT_LT(norm(f), 1e-9);  // every ion at a centre of symmetry
}

TEST(Ewald, MadelungCsCl) {
  System system = ionic_system(0, Units::lj());
  State state;
  const int cells = 3;
  for (int x = 0; x < cells; ++x)
    for (int y = 0; y < cells; ++y)
      for (int z = 0; z < cells; ++z) {
        system.add_particle(1.0, 1.0, "Cs");
        state.positions.push_back({double(x), double(y), double(z)});
        system.add_particle(1.0, -1.0, "Cl");
        state.positions.push_back({x + 0.5, y + 0.5, z + 0.5});
      }
  state.box = Box::orthorhombic(cells, cells, cells);
  EwaldCoulomb ewald({.cutoff = 1.5, .tolerance = 1e-10});
  const ForceResult r = evaluate(ewald, system, state);
  const double r0 = std::sqrt(3.0) / 2;
  EXPECT_NEAR(-r.energy() * r0 / (system.size() / 2.0), kMadelungCsCl, 1e-9);
}

// A random cell of charges with a few molecules: exclusions, 1-4 pairs, optionally a net charge.
struct Random {
  System system;
  State state;
};

Random random_charges(int n, bool triclinic, double net_charge, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), qd(-1, 1);
  Random r;
  r.system.units = Units::md();
  double total = 0;
  for (int i = 0; i < n; ++i) {
    const double q = qd(rng);
    total += q;
    r.system.add_particle(1.0, q, "X");
  }
  for (int i = 0; i < n; ++i) r.system.charge[size_t(i)] += (net_charge - total) / n;
  r.state.box = triclinic ? Box::triclinic({2.2, 0, 0}, {0.5, 2.0, 0}, {-0.4, 0.6, 2.1}) : Box::orthorhombic(2.2, 2.0, 2.1);
  for (int i = 0; i < n; ++i)
    r.state.positions.push_back(r.state.box.from_fractional({u(rng), u(rng), u(rng)}));
  // Chains of four bonded particles at the start: 0-1-2-3 and 4-5-6-7, bond length ~0.15.
  for (int c = 0; c < 2; ++c) {
    for (int k = 1; k < 4; ++k) {
      const int i = 4 * c + k;
      Vec3 step{u(rng) - 0.5, u(rng) - 0.5, u(rng) - 0.5};
      r.state.positions[size_t(i)] = r.state.positions[size_t(i - 1)] + step * (0.15 / norm(step));
      r.system.topology.bonds.push_back({i - 1, i, 0.15, 1000.0});
    }
  }
  r.system.topology.exclude_bonded(0.8333, 0.5);
  return r;
}

double energy_at(Force& force, const System& system, const State& state) {
  ForceResult out;
  out.reset(system.size());
  force.add(system, state, nullptr, out);
  return out.energy();
}

TEST(Ewald, ForcesAreMinusTheGradient) {
  for (bool triclinic : {false, true}) {
    Random r = random_charges(40, triclinic, 0.7, 11 + triclinic);
    EwaldCoulomb ewald({.cutoff = 0.95, .tolerance = 1e-5});
    const ForceResult out = evaluate(ewald, r.system, r.state);
    const double h = 1e-6;
    double worst = 0, scale = 0;
    for (int i = 0; i < 40; i += 5)
      for (int a = 0; a < 3; ++a) {
        State s = r.state;
        s.positions[size_t(i)][a] += h;
        const double ep = energy_at(ewald, r.system, s);
        s.positions[size_t(i)][a] -= 2 * h;
        const double em = energy_at(ewald, r.system, s);
        const double fd = -(ep - em) / (2 * h);
        worst = std::max(worst, std::fabs(fd - out.forces[size_t(i)][a]));
        scale = std::max(scale, std::fabs(fd));
      }
    EXPECT_LT(worst, 1e-6 * scale) << "triclinic " << triclinic;
  }
}

// W_ab = -dU/d(eps_ab) with positions and box deformed by (1 + eps): upper-triangular components
// keep the box in reduced form, and the virial is symmetric.
TEST(Ewald, VirialIsTheBoxDerivative) {
  for (bool triclinic : {false, true}) {
    Random r = random_charges(40, triclinic, 0.7, 21 + triclinic);
    EwaldCoulomb ewald({.cutoff = 0.95, .tolerance = 1e-6});
    const ForceResult out = evaluate(ewald, r.system, r.state);
    const double h = 1e-6;
    for (int a = 0; a < 3; ++a)
      for (int b = a; b < 3; ++b) {
        auto deformed = [&](double e) {
          Mat3 mu = Mat3::identity();
          mu(a, b) += e;
          State s = r.state;
          s.box = r.state.box.scaled(mu);
          for (Vec3& p : s.positions) {
            const Vec3 q = p;
            for (int k = 0; k < 3; ++k) p[k] = mu(k, 0) * q.x + mu(k, 1) * q.y + mu(k, 2) * q.z;
          }
          return energy_at(ewald, r.system, s);
        };
        const double fd = -(deformed(h) - deformed(-h)) / (2 * h);
        EXPECT_NEAR(out.virial(b, a), fd, 2e-6 * std::fabs(out.virial.trace()) + 1e-6)
            << "component " << a << b << " triclinic " << triclinic;
        EXPECT_NEAR(out.virial(a, b), out.virial(b, a), 1e-9 * std::fabs(out.virial.trace()));
      }
  }
}

// With the background term a charged cell's energy is independent of alpha (all that alpha
// changes is how the same sum is split), which fails without it by pi Q^2 / (2 V) (1/a1^2 - 1/a2^2).
TEST(Ewald, ChargedCellEnergyDoesNotDependOnAlpha) {
  Random r = random_charges(30, true, 1.3, 5);
  // Both alphas large enough that the direct sum's truncation (erfc(alpha rc)) is below 1e-9.
  EwaldCoulomb a({.cutoff = 0.95, .alpha = 4.5, .kmax = {21, 21, 21}});
  EwaldCoulomb b({.cutoff = 0.95, .alpha = 5.0, .kmax = {23, 23, 23}});
  const double ea = evaluate(a, r.system, r.state).energy(), eb = evaluate(b, r.system, r.state).energy();
  EXPECT_NEAR(ea, eb, 1e-9 * std::fabs(ea));
  const double jump = M_PI * 1.3 * 1.3 / (2 * r.state.box.volume()) * (1 / (4.5 * 4.5) - 1 / (5.0 * 5.0)) * constants::kCoulomb;
  EXPECT_GT(jump, 1e5 * 1e-9 * std::fabs(ea));  // the test would notice a missing background term
}

// Excluding a pair removes exactly its nearest-image plain Coulomb energy; a 1-4 pair then adds
// back scale k q_i q_j / r.
TEST(Ewald, ExclusionsRemoveThePlainCoulombPair) {
  Random r = random_charges(30, false, 0.0, 8);
  r.system.topology = Topology{};
  EwaldCoulomb ewald({.cutoff = 0.95, .tolerance = 1e-8});
  const double full = evaluate(ewald, r.system, r.state).energy();
  const int i = 3, j = 17;
  const double dist = norm(r.state.box.min_image(r.state.positions[j] - r.state.positions[i]));
  const double plain = constants::kCoulomb * r.system.charge[i] * r.system.charge[j] / dist;
  r.system.topology.exclusions = {{i, j}};
  const double excluded = evaluate(ewald, r.system, r.state).energy();
  EXPECT_NEAR(full - excluded, plain, 1e-9 * std::fabs(full));
  r.system.topology.pairs14 = {{i, j, 0.5, 0.5}};
  const double scaled = evaluate(ewald, r.system, r.state).energy();
  EXPECT_NEAR(scaled - excluded, 0.5 * plain, 1e-9 * std::fabs(full));
  // A 1-4 pair that is not excluded is refused.
  r.system.topology.exclusions.clear();
  EXPECT_THROW(ewald.check(r.system, r.state), ValueError);
}

TEST(Ewald, TableMatchesErfc) {
  const double alpha = 3.1, rc = 1.2;
  ErfTable table(alpha, rc);
  double worst_e = 0, worst_f = 0;
  for (int k = 1; k < 5000; ++k) {
    const double r = 0.02 + (rc - 0.02) * k / 5000.0;
    const double exact = std::erfc(alpha * r) / r;
    const double exact_f = std::erfc(alpha * r) / (r * r) + 2 * alpha / std::sqrt(M_PI) * std::exp(-alpha * alpha * r * r) / r;
    worst_e = std::max(worst_e, std::fabs((1 / r - table.value(r)) - exact) * r);
    worst_f = std::max(worst_f, std::fabs((1 / (r * r) + table.derivative(r)) - exact_f) * r * r);
  }
  EXPECT_LT(worst_e, 1e-13);  // relative to the bare 1/r and 1/r^2
  EXPECT_LT(worst_f, 1e-10);
}

// The direct-space sum against an O(N^2) loop with erfc.
TEST(Ewald, DirectSumMatchesBruteForce) {
  Random r = random_charges(50, true, 0.0, 3);
  const double alpha = 3.0, rc = 0.95;
  ErfTable table(alpha, rc);
  BrutePairList list;
  list.build(r.system, r.state, rc + 0.1);  // with a skin: pairs beyond the cutoff are skipped
  PairAccumulator acc;
  ForceResult out;
  out.reset(r.system.size());
  const double e = add_ewald_direct(r.system, r.state, list.view(), table, acc, out);
  double ref = 0;
  std::vector<Vec3> f(r.system.size());
  for (int i = 0; i < 50; ++i)
    for (int j = i + 1; j < 50; ++j) {
      if (r.system.topology.excluded(i, j)) continue;
      const Vec3 d = r.state.box.min_image(r.state.positions[j] - r.state.positions[i]);
      const double x = norm(d);
      if (x >= rc) continue;
      const double kqq = constants::kCoulomb * r.system.charge[i] * r.system.charge[j];
      ref += kqq * std::erfc(alpha * x) / x;
      const double s = kqq * (std::erfc(alpha * x) / x + 2 * alpha / std::sqrt(M_PI) * std::exp(-alpha * alpha * x * x)) / (x * x);
      f[i] -= s * d;
      f[j] += s * d;
    }
  EXPECT_NEAR(e, ref, 1e-11 * std::fabs(ref));
  for (int i = 0; i < 50; ++i)
    for (int a = 0; a < 3; ++a) EXPECT_NEAR(out.forces[i][a], f[i][a], 1e-8 * (1 + std::fabs(f[i][a])));
}

// Large enough that the reciprocal sum runs threaded.
TEST(Ewald, SameBitsOnAnyThreadCount) {
  Random r = random_charges(300, true, 0.3, 9);
  EwaldCoulomb ewald({.cutoff = 0.95, .tolerance = 1e-5});
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const ForceResult one = evaluate(ewald, r.system, r.state);
  omp_set_num_threads(std::max(2, threads));
  const ForceResult many = evaluate(ewald, r.system, r.state);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.energy(), many.energy());
  for (size_t i = 0; i < one.forces.size(); ++i) EXPECT_EQ(one.forces[i], many.forces[i]);
  EXPECT_EQ(one.virial.m, many.virial.m);
}

TEST(Ewald, BadInputIsRefused) {
  EXPECT_THROW(EwaldCoulomb({.cutoff = -1}), ValueError);
  EXPECT_THROW(EwaldCoulomb({.cutoff = 1, .tolerance = 0.7}), ValueError);
  EXPECT_THROW(EwaldCoulomb({.cutoff = 1, .kmax = {5, 0, 5}}), ValueError);
  Random r = random_charges(10, false, 0, 1);
  EwaldCoulomb big({.cutoff = 1.5});
  EXPECT_THROW(big.check(r.system, r.state), ValueError);  // beyond half the box
  r.state.box = Box::none();
  EwaldCoulomb ewald;
  EXPECT_THROW(ewald.check(r.system, r.state), ValueError);
}

}  // namespace
}  // namespace spire::sponge
