// Smooth PME: Madelung constants of NaCl and CsCl (published values), agreement with Ewald at a
// tight tolerance (energy, forces, virial), forces and virial against finite differences of the
// PME energy itself, OpenMM's mesh sizes for a tolerance, and the same bits on any thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>

#include "engine/core/error.h"
#include "science/sponge/ewald.h"
#include "science/sponge/force_field.h"
#include "science/sponge/pme.h"

namespace spire::sponge {
namespace {

constexpr double kMadelungNaCl = 1.7475645946331821906;  // Zucker 1975; OEIS A085469
constexpr double kMadelungCsCl = 1.7626747730709883980;  // OEIS A181152

ForceResult evaluate(Force& force, const System& system, const State& state) {
  ForceResult out;
  out.reset(system.size());
  force.check(system, state);
  force.add(system, state, nullptr, out);
  return out;
}

double energy_at(Force& force, const System& system, const State& state) {
  ForceResult out;
  out.reset(system.size());
  force.add(system, state, nullptr, out);
  return out.energy();
}

TEST(Pme, MadelungNaCl) {
  System system;
  system.units = Units::lj();
  State state;
  const int cells = 2;
  for (int x = 0; x < 2 * cells; ++x)
    for (int y = 0; y < 2 * cells; ++y)
      for (int z = 0; z < 2 * cells; ++z) {
        const bool cation = (x + y + z) % 2 == 0;
        system.add_particle(1.0, cation ? 1.0 : -1.0, cation ? "Na" : "Cl");
        state.positions.push_back({0.5 * x + 0.13, 0.5 * y + 0.07, 0.5 * z + 0.21});  // off the mesh points
      }
  state.box = Box::orthorhombic(cells, cells, cells);
  PmeCoulomb pme({.cutoff = 1.0, .alpha = 4.6, .grid = {60, 60, 60}, .order = 8});
  const ForceResult r = evaluate(pme, system, state);
  EXPECT_NEAR(-r.energy() * 0.5 / (system.size() / 2.0), kMadelungNaCl, 1e-8);
  for (const Vec3& f : r.forces) EXPECT_LT(norm(f), 1e-6);
}

TEST(Pme, MadelungCsCl) {
  System system;
  system.units = Units::lj();
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
  PmeCoulomb pme({.cutoff = 1.5, .alpha = 2.8, .grid = {45, 45, 45}, .order = 8});
  const double r0 = std::sqrt(3.0) / 2;
  EXPECT_NEAR(-evaluate(pme, system, state).energy() * r0 / (system.size() / 2.0), kMadelungCsCl, 1e-8);
}

struct Random {
  System system;
  State state;
};

// Random charges with two bonded chains (exclusions and 1-4 pairs) and a net charge.
Random random_charges(int n, bool triclinic, double net_charge, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1), qd(-1, 1);
  Random r;
  double total = 0;
  for (int i = 0; i < n; ++i) {
    const double q = qd(rng);
    total += q;
    r.system.add_particle(1.0, q, "X");
  }
  for (int i = 0; i < n; ++i) r.system.charge[size_t(i)] += (net_charge - total) / n;
  r.state.box = triclinic ? Box::triclinic({2.2, 0, 0}, {0.5, 2.0, 0}, {-0.4, 0.6, 2.1}) : Box::orthorhombic(2.2, 2.0, 2.1);
  for (int i = 0; i < n; ++i) r.state.positions.push_back(r.state.box.from_fractional({u(rng), u(rng), u(rng)}));
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

TEST(Pme, AgreesWithEwaldAtTightTolerance) {
  for (bool triclinic : {false, true}) {
    Random r = random_charges(60, triclinic, 0.4, 31 + triclinic);
    EwaldCoulomb ewald({.cutoff = 0.95, .alpha = 3.5, .kmax = {19, 19, 19}});
    PmeCoulomb pme({.cutoff = 0.95, .alpha = 3.5, .grid = {64, 60, 64}, .order = 8});
    const ForceResult e = evaluate(ewald, r.system, r.state), p = evaluate(pme, r.system, r.state);
    EXPECT_NEAR(p.energy(), e.energy(), 1e-8 * std::fabs(e.energy())) << "triclinic " << triclinic;
    double rms = 0, worst = 0;
    for (size_t i = 0; i < e.forces.size(); ++i) {
      rms += norm2(e.forces[i]);
      worst = std::max(worst, norm(p.forces[i] - e.forces[i]));
    }
    rms = std::sqrt(rms / e.forces.size());
    EXPECT_LT(worst, 1e-6 * rms) << "triclinic " << triclinic;
    for (int k = 0; k < 9; ++k)
      EXPECT_NEAR(p.virial.m[k], e.virial.m[k], 1e-7 * std::fabs(e.virial.trace())) << "triclinic " << triclinic;
  }
}

TEST(Pme, ForcesAreMinusTheGradient) {
  for (bool triclinic : {false, true}) {
    Random r = random_charges(40, triclinic, 0.7, 41 + triclinic);
    PmeCoulomb pme({.cutoff = 0.95, .tolerance = 1e-4});  // OpenMM's mesh; order 5
    const ForceResult out = evaluate(pme, r.system, r.state);
    const double h = 1e-6;
    double worst = 0, scale = 0;
    for (int i = 0; i < 40; i += 3)
      for (int a = 0; a < 3; ++a) {
        State s = r.state;
        s.positions[size_t(i)][a] += h;
        const double ep = energy_at(pme, r.system, s);
        s.positions[size_t(i)][a] -= 2 * h;
        const double em = energy_at(pme, r.system, s);
        const double fd = -(ep - em) / (2 * h);
        worst = std::max(worst, std::fabs(fd - out.forces[size_t(i)][a]));
        scale = std::max(scale, std::fabs(fd));
      }
    EXPECT_LT(worst, 1e-6 * scale) << "triclinic " << triclinic;
  }
}

TEST(Pme, VirialIsTheBoxDerivative) {
  for (bool triclinic : {false, true}) {
    Random r = random_charges(40, triclinic, 0.7, 51 + triclinic);
    PmeCoulomb pme({.cutoff = 0.95, .tolerance = 1e-4});
    const ForceResult out = evaluate(pme, r.system, r.state);
    const double h = 1e-6;
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
          return energy_at(pme, r.system, s);
        };
        const double fd = -(deformed(h) - deformed(-h)) / (2 * h);
        EXPECT_NEAR(out.virial(b, a), fd, 2e-6 * std::fabs(out.virial.trace()) + 1e-6)
            << "component " << a << b << " triclinic " << triclinic;
      }
  }
}

// OpenMM 8.6.1's CPU platform chooses these meshes (getPMEParametersInContext after an energy
// evaluation, rc = 1 nm: raw 17 -> 18, 25 -> 25, 37 -> 40; over L = 2..8 nm also 26 -> 27, 22 -> 22).
TEST(Pme, MeshSizesAsOpenMM) {
  const double alpha = ewald_alpha(1.0, 5e-4);
  EXPECT_NEAR(alpha, 2.628260884878466, 1e-12);
  EXPECT_EQ(pme_grid(Box::orthorhombic(2.0, 3.0, 4.5), alpha, 5e-4), (std::array<int, 3>{18, 25, 40}));
  EXPECT_EQ(pme_fft_size(37), 40);
  EXPECT_EQ(pme_fft_size(17), 18);
  EXPECT_EQ(pme_fft_size(49), 49);
  EXPECT_EQ(pme_fft_size(26), 27);
  EXPECT_EQ(pme_fft_size(22), 22);
  EXPECT_EQ(pme_fft_size(121), 125);
  EXPECT_EQ(pme_fft_size(62), 63);
  PmeCoulomb pme({.cutoff = 1.0});
  Random r = random_charges(20, false, 0, 3);
  r.state.box = Box::orthorhombic(2.0, 3.0, 4.5);
  evaluate(pme, r.system, r.state);
  EXPECT_EQ(pme.grid(), (std::array<int, 3>{18, 25, 40}));
}

// Large enough that every stage runs threaded (a 50^3 mesh, 2e5 pairs).
TEST(Pme, SameBitsOnAnyThreadCount) {
  Random r = random_charges(1400, true, 0.3, 9);
  PmeCoulomb pme({.cutoff = 0.95, .tolerance = 1e-5});
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const ForceResult one = evaluate(pme, r.system, r.state);
  omp_set_num_threads(3);
  const ForceResult three = evaluate(pme, r.system, r.state);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.energy(), three.energy());
  for (size_t i = 0; i < one.forces.size(); ++i) EXPECT_EQ(one.forces[i], three.forces[i]);
  EXPECT_EQ(one.virial.m, three.virial.m);
}

// The production path: a ForceField with its cell-list neighbour list (cutoff + skin) gives what
// the brute-force pair list gives.
TEST(Pme, ThroughAForceFieldAndItsNeighbourList) {
  Random r = random_charges(300, true, 0.2, 17);
  auto pme = std::make_shared<PmeCoulomb>(PmeOptions{.cutoff = 0.85});
  ForceField field(0.1);
  field.add(pme);
  field.check(r.system, r.state);
  const ForceResult& listed = field.compute(r.system, r.state);
  ASSERT_NE(field.neighbors(), nullptr);
  PmeCoulomb reference({.cutoff = 0.85});
  const ForceResult brute = evaluate(reference, r.system, r.state);
  EXPECT_NEAR(listed.energy(), brute.energy(), 1e-12 * std::fabs(brute.energy()));
  for (size_t i = 0; i < brute.forces.size(); ++i)
    EXPECT_LT(norm(listed.forces[i] - brute.forces[i]), 1e-10 * (1 + norm(brute.forces[i])));
}

// Pairs beyond the cutoff are skipped, not added as zeros: a list with a wider reach (a larger
// skin, or one built earlier) gives the same bits as long as the rows keep their order.
TEST(Pme, DirectSumDoesNotDependOnTheListsReach) {
  Random r = random_charges(400, false, 0.0, 23);
  ErfTable table(3.2, 0.9);
  BrutePairList tight, wide;
  tight.build(r.system, r.state, 0.9);
  wide.build(r.system, r.state, 1.05);
  ASSERT_GT(wide.view().offsets[400], tight.view().offsets[400]);
  PairAccumulator acc;
  ForceResult a, b;
  a.reset(400);
  b.reset(400);
  const double ea = add_ewald_direct(r.system, r.state, tight.view(), table, acc, a);
  const double eb = add_ewald_direct(r.system, r.state, wide.view(), table, acc, b);
  EXPECT_EQ(ea, eb);
  for (size_t i = 0; i < 400; ++i) EXPECT_EQ(a.forces[i], b.forces[i]);
  EXPECT_EQ(a.virial.m, b.virial.m);
}

TEST(Pme, BadInputIsRefused) {
  EXPECT_THROW(PmeCoulomb({.cutoff = 1, .order = 2}), ValueError);
  EXPECT_THROW(PmeCoulomb({.cutoff = 1, .order = 13}), ValueError);
  EXPECT_THROW(PmeCoulomb({.cutoff = 1, .grid = {4, 32, 32}}), ValueError);
  EXPECT_THROW(PmeCoulomb({.cutoff = 1, .alpha = -2}), ValueError);
  Random r = random_charges(10, false, 0, 1);
  r.state.box = Box::none();
  PmeCoulomb pme;
  EXPECT_THROW(pme.check(r.system, r.state), ValueError);
}

}  // namespace
}  // namespace spire::sponge
