// Constraints (constraints.h) in every integrator: SETTLE keeps rigid water to round-off and agrees
// with SHAKE/RATTLE solving the same three constraints; SHAKE/RATTLE hold coupled clusters to the
// tolerance with relative velocities orthogonal to the bonds; energy errors still scale as dt^2;
// the constraint virial of free rigid molecules equals -2 K_rot (so 2 K + tr W = 2 K_trans, the
// ideal-gas pressure of the molecules); Langevin on rigid water gives (6N - 3) / 2 k_B T; prepare()
// repairs a distorted start and changes no bit of a valid one; errors name what is wrong.
#include <gtest/gtest.h>

#include <omp.h>

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/bussi.h"
#include "science/sponge/langevin.h"
#include "science/sponge/observables.h"
#include "science/sponge/reaction_field.h"
#include "science/sponge/velocity_verlet.h"
#include "tests/science/sponge/support_dynamics.h"

namespace spire::sponge {
namespace {

// SPC/E's geometry and masses (Berendsen, Grigera and Straatsma 1987).
constexpr double kDoh = 0.1, kDhh = 0.1632980861, kMassO = 15.9994, kMassH = 1.008;

struct Molecules {
  System system;
  State state;
  std::vector<int> molecule;                       // per particle
  std::vector<testing::Springs::Spring> springs;   // intramolecular, for chains
};

// n^3 rigid waters on a grid in a cube of side box_length (nm), random orientations, atom
// velocities from a Gaussian at temperature T (prepare() removes their bond components). With
// settle = false the same waters are three Constraint entries each (SHAKE/RATTLE).
Molecules water_box(int n, double box_length, double temperature, uint64_t seed, bool settle) {
  Molecules m;
  m.system.units = Units::md();
  m.state.box = Box::orthorhombic(box_length, box_length, box_length);
  MdRandom random(seed);
  const double a = box_length / n, h = std::sqrt(kDoh * kDoh - 0.25 * kDhh * kDhh);
  const Vec3 local[3] = {{0, 0, 0}, {0.5 * kDhh, h, 0}, {-0.5 * kDhh, h, 0}};
  int count = 0;
  for (int x = 0; x < n; ++x)
    for (int y = 0; y < n; ++y)
      for (int z = 0; z < n; ++z, ++count) {
        // A uniformly random rotation from a normalised Gaussian quaternion.
        double q[4];
        random.normals(RandomTag::langevin, 7, uint64_t(2 * count), q[0], q[1]);
        random.normals(RandomTag::langevin, 7, uint64_t(2 * count + 1), q[2], q[3]);
        const double qn = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        const double w = q[0] / qn, i = q[1] / qn, j = q[2] / qn, k = q[3] / qn;
        auto rotate = [&](const Vec3& v) {
          return Vec3{(1 - 2 * (j * j + k * k)) * v.x + 2 * (i * j - k * w) * v.y + 2 * (i * k + j * w) * v.z,
                      2 * (i * j + k * w) * v.x + (1 - 2 * (i * i + k * k)) * v.y + 2 * (j * k - i * w) * v.z,
                      2 * (i * k - j * w) * v.x + 2 * (j * k + i * w) * v.y + (1 - 2 * (i * i + j * j)) * v.z};
        };
        const Vec3 centre{(x + 0.5) * a, (y + 0.5) * a, (z + 0.5) * a};
        const int o = m.system.add_particle(kMassO, 0, "OW");
        const int h1 = m.system.add_particle(kMassH, 0, "HW");
        const int h2 = m.system.add_particle(kMassH, 0, "HW");
        for (int s = 0; s < 3; ++s) {
          m.molecule.push_back(count);
          m.state.positions.push_back(centre + rotate(local[s]));
          const double sd = std::sqrt(m.system.units.boltzmann * temperature / m.system.mass[size_t(o + s)]);
          m.state.velocities.push_back(sd * random.normal3(RandomTag::langevin, 8, uint64_t(3 * count + s)));
        }
        if (settle) {
          m.system.topology.waters.push_back({o, h1, h2, kDoh, kDhh});
        } else {
          m.system.topology.constraints.push_back({o, h1, kDoh});
          m.system.topology.constraints.push_back({o, h2, kDoh});
          m.system.topology.constraints.push_back({h1, h2, kDhh});
        }
      }
  return m;
}

// Oxygen-oxygen Lennard-Jones (SPC/E's), shifted-force at 0.45 nm.
ForceField oxygen_lj(const System& system) {
  auto lj = std::make_shared<testing::BruteForceLJ>(0.650169, 0.316557, 0.45, true);
  std::vector<int> active;
  for (int t : system.type) active.push_back(system.type_names[size_t(t)] == "OW");
  lj->set_active(active);
  return testing::force_field_of({lj});
}

TEST(Settle, KeepsWaterRigidToRoundOff) {
  Molecules w = water_box(3, 0.95, 300, 1, true);
  ForceField ff = oxygen_lj(w.system);
  VelocityVerlet vv(0.002);
  vv.prepare(w.system, w.state, ff);
  EXPECT_EQ(vv.degrees_of_freedom(), 6 * 27 - 3);
  double worst = 0, worst_v = 0;
  for (int s = 0; s < 300; ++s) {
    vv.step(w.system, w.state, ff);
    worst = std::max(worst, vv.constraints().max_deviation(w.state.box, w.state.positions));
    worst_v = std::max(worst_v, vv.constraints().max_velocity_deviation(w.state.box, w.state.positions, w.state.velocities));
  }
  std::printf("figure: SETTLE 27 waters 300 steps: largest |r - d| / d %.1e, |e.v| / |v| %.1e\n", worst, worst_v);
  EXPECT_LT(worst, 1e-13);
  EXPECT_LT(worst_v, 1e-12);
}

// SETTLE is the analytic solution of SHAKE's and RATTLE's equations for a rigid triangle, so the
// two trajectories agree to SHAKE's tolerance (amplified a little by the dynamics).
TEST(Settle, AgreesWithShakeAndRattle) {
  Molecules a = water_box(3, 0.95, 300, 2, true), b = water_box(3, 0.95, 300, 2, false);
  ForceField fa = oxygen_lj(a.system), fb = oxygen_lj(b.system);
  VelocityVerlet settle(0.002);
  DynamicsOptions tight;
  tight.constraints.tolerance = 1e-14;
  VelocityVerlet shake(0.002, nullptr, tight);
  settle.prepare(a.system, a.state, fa);
  shake.prepare(b.system, b.state, fb);
  double dx = 0, dv = 0;
  for (int s = 0; s < 50; ++s) {
    settle.step(a.system, a.state, fa);
    shake.step(b.system, b.state, fb);
  }
  for (size_t i = 0; i < a.state.positions.size(); ++i) {
    dx = std::max(dx, norm(a.state.positions[i] - b.state.positions[i]));
    dv = std::max(dv, norm(a.state.velocities[i] - b.state.velocities[i]));
  }
  std::printf("figure: SETTLE vs SHAKE/RATTLE after 50 steps: |dx| %.1e nm, |dv| %.1e nm/ps\n", dx, dv);
  EXPECT_LT(dx, 1e-10);
  EXPECT_LT(dv, 1e-8);
  Mat3 wa = settle.constraint_virial(), wb = shake.constraint_virial();
  for (int k = 0; k < 9; ++k) EXPECT_NEAR(wa.m[size_t(k)], wb.m[size_t(k)], 1e-6 * std::abs(wa.trace())) << k;
}

// Chains of four atoms (three bond constraints each, one cluster) and rigid triangles by SHAKE,
// held together by 1-3 springs and pushed around by LJ between molecules.
Molecules chains(double temperature, uint64_t seed) {
  Molecules m;
  m.system.units = Units::md();
  m.state.box = Box::orthorhombic(1.6, 1.6, 1.6);
  MdRandom random(seed);
  const double masses[4] = {12.011, 14.007, 12.011, 15.999};
  int mol = 0;
  for (int x = 0; x < 2; ++x)
    for (int y = 0; y < 2; ++y)
      for (int z = 0; z < 2; ++z, ++mol) {
        const Vec3 corner{0.8 * x + 0.2, 0.8 * y + 0.2, 0.8 * z + 0.2};
        const int base = int(m.system.size());
        if (mol % 2 == 0) {  // a zig-zag chain
          for (int a = 0; a < 4; ++a) {
            m.system.add_particle(masses[a], 0, "C");
            m.molecule.push_back(mol);
            m.state.positions.push_back(corner + Vec3{0.125 * a, 0.08 * (a % 2), 0.01 * a});
          }
          for (int a = 0; a < 3; ++a) {
            const double len = norm(m.state.positions[size_t(base + a + 1)] - m.state.positions[size_t(base + a)]);
            m.system.topology.constraints.push_back({base + a, base + a + 1, len});
          }
          // 1-3 springs keep the chain's angles soft but present.
          for (int a = 0; a < 2; ++a) {
            const double r0 = norm(m.state.positions[size_t(base + a + 2)] - m.state.positions[size_t(base + a)]);
            m.springs.push_back({base + a, base + a + 2, r0, 2000.0});
          }
        } else {  // a triangle
          for (int a = 0; a < 3; ++a) {
            m.system.add_particle(masses[a + 1], 0, "C");
            m.molecule.push_back(mol);
            m.state.positions.push_back(corner + Vec3{0.15 * (a == 1), 0.15 * (a == 2), 0.02 * a});
          }
          for (int a = 0; a < 3; ++a) {
            const int i = base + a, j = base + (a + 1) % 3;
            m.system.topology.constraints.push_back({i, j, norm(m.state.positions[size_t(j)] - m.state.positions[size_t(i)])});
          }
        }
      }
  for (int64_t i = 0; i < m.system.size(); ++i) {
    const double sd = std::sqrt(m.system.units.boltzmann * temperature / m.system.mass[size_t(i)]);
    m.state.velocities.push_back(sd * random.normal3(RandomTag::langevin, 9, uint64_t(i)));
  }
  return m;
}

// LJ between molecules and the chains' 1-3 springs.
ForceField chain_forces(const Molecules& m) {
  auto lj = std::make_shared<testing::BruteForceLJ>(0.5, 0.3, 0.75, true);
  lj->set_molecules(m.molecule);
  return testing::force_field_of({lj, std::make_shared<testing::Springs>(m.springs)});
}

TEST(ShakeRattle, HoldClustersToTheTolerance) {
  Molecules m = chains(300, 3);
  ForceField ff = chain_forces(m);
  VelocityVerlet vv(0.001);
  vv.prepare(m.system, m.state, ff);
  EXPECT_EQ(vv.constraints().count(), 4 * 3 + 4 * 3);
  EXPECT_EQ(vv.degrees_of_freedom(), 3 * 28 - 24 - 3);
  double worst = 0, worst_v = 0;
  for (int s = 0; s < 400; ++s) {
    vv.step(m.system, m.state, ff);
    worst = std::max(worst, vv.constraints().max_deviation(m.state.box, m.state.positions));
    worst_v = std::max(worst_v, vv.constraints().max_velocity_deviation(m.state.box, m.state.positions, m.state.velocities));
  }
  std::printf("figure: SHAKE/RATTLE chains and triangles 400 steps: largest |r - d| / d %.1e, |e.v| / |v| %.1e\n",
              worst, worst_v);
  EXPECT_LT(worst, 1e-10);
  EXPECT_LT(worst_v, 1e-10);
}

// RMS of E(t) - E(0) over 0.2 ps of NVE.
double constrained_energy_error(const Molecules& start, double dt, bool water) {
  Molecules m = start;
  ForceField ff = water ? oxygen_lj(m.system) : chain_forces(m);
  DynamicsOptions tight;
  tight.constraints.tolerance = 1e-13;
  VelocityVerlet vv(dt, nullptr, tight);
  vv.prepare(m.system, m.state, ff);
  const double e0 = vv.conserved_energy(m.system, m.state, ff);
  double sum = 0;
  const int steps = int(std::lround(0.2 / dt));
  for (int s = 0; s < steps; ++s) {
    vv.step(m.system, m.state, ff);
    const double e = vv.conserved_energy(m.system, m.state, ff) - e0;
    sum += e * e;
  }
  return std::sqrt(sum / steps);
}

// RATTLE and SETTLE keep velocity Verlet symplectic: its energy error still falls as dt^2.
TEST(ShakeRattle, EnergyErrorStillScalesAsDtSquared) {
  for (bool water : {true, false}) {
    const Molecules start = water ? water_box(3, 0.95, 300, 4, true) : chains(300, 4);
    const double coarse = constrained_energy_error(start, water ? 0.002 : 0.001, water);
    const double fine = constrained_energy_error(start, water ? 0.001 : 0.0005, water);
    std::printf("figure: NVE with %s: rms energy error %.3e -> %.3e when dt halves, ratio %.2f (dt^2: 4)\n",
                water ? "SETTLE water" : "SHAKE chains", coarse, fine, coarse / fine);
    EXPECT_NEAR(coarse / fine, 4.0, 0.4) << (water ? "water" : "chains");
  }
}

// Without other forces a rigid body's constraint forces are its centripetal and Coriolis forces:
// sum_a r_a . f_a = d/dt sum_a m_a r_a . v_a - 2 K_rot = -2 K_rot (r_a . v_a stays 0 about the
// centre of mass). So 2 K + tr W_c = 2 K_trans: the pressure of free molecules is the ideal gas's
// of their centres, which the constraint virial must reproduce.
TEST(ConstraintVirial, FreeRigidMoleculesHaveTheIdealGasPressureOfTheirCentres) {
  for (bool settle : {true, false}) {
    Molecules w = water_box(3, 0.95, 300, 5, settle);
    ForceField none(0.0);
    DynamicsOptions options = testing::keep_com_motion();
    options.constraints.tolerance = 1e-13;
    VelocityVerlet vv(0.0005, nullptr, options);
    vv.prepare(w.system, w.state, none);
    for (int s = 0; s < 20; ++s) {
      vv.step(w.system, w.state, none);
      double twice_k = 0, twice_k_trans = 0;
      for (size_t mol = 0; mol < 27; ++mol) {
        Vec3 p;
        double mass = 0;
        for (size_t a = 3 * mol; a < 3 * mol + 3; ++a) {
          twice_k += w.system.mass[a] * norm2(w.state.velocities[a]);
          p += w.system.mass[a] * w.state.velocities[a];
          mass += w.system.mass[a];
        }
        twice_k_trans += norm2(p) / mass;
      }
      const double trace = vv.constraint_virial().trace();
      ASSERT_NEAR(twice_k + trace, twice_k_trans, 1e-4 * (twice_k - twice_k_trans))
          << (settle ? "SETTLE" : "SHAKE") << " step " << s;
    }
  }
}

TEST(Settle, LangevinGivesTheTemperatureOfSixDegreesPerWater) {
  Molecules w = water_box(3, 0.95, 300, 6, true);
  ForceField ff = oxygen_lj(w.system);
  LangevinMiddle langevin(0.002, 300, 25.0, 31);
  langevin.prepare(w.system, w.state, ff);
  for (int s = 0; s < 200; ++s) langevin.step(w.system, w.state, ff);
  std::vector<double> k;
  for (int s = 0; s < 4000; ++s) {
    langevin.step(w.system, w.state, ff);
    k.push_back(langevin.middle_kinetic_energy());  // the canonical velocities (langevin.h)
    ASSERT_LT(langevin.constraints().max_deviation(w.state.box, w.state.positions), 1e-13);
  }
  testing::expect_canonical(k, 6 * 27 - 3, constants::kBoltzmann * 300, "langevin SETTLE 27 waters 300 K");
}

// The conserved quantity (K + U - heat) of LangevinMiddle stays put with constraints only when the
// O step acts on constrained velocities: friction and noise applied to the velocity along rigid bonds
// (which SHAKE then removes) would count heat that never entered the system. Its drift is then the
// integration error alone, as for the deterministic VelocityVerlet + Bussi, and the middle kinetic
// energy has the temperature of the constrained degrees of freedom.
TEST(Settle, LangevinConservedQuantityDoesNotDriftWithConstraints) {
  // SPC/E's charges with a reaction field: the hydrogens' forces point along the rigid bonds, which
  // is what the projection is about (with Lennard-Jones on the oxygens alone there is nothing to see).
  Molecules w = water_box(3, 0.95, 300, 12, true);
  for (int64_t p = 0; p < w.system.size(); ++p) w.system.charge[size_t(p)] = p % 3 == 0 ? -0.8476 : 0.4238;
  w.system.topology.exclude_bonded(0.5, 0.5);
  ForceField ff(0.02);
  const ForceField lj = oxygen_lj(w.system);
  for (const ForcePtr& t : lj.terms()) ff.add(t);
  ReactionFieldOptions rf;
  rf.cutoff = 0.45;
  ff.add(std::make_shared<ReactionFieldCoulomb>(rf));
  LangevinMiddle langevin(0.002, 300, 5.0, 41);
  langevin.prepare(w.system, w.state, ff);
  for (int s = 0; s < 200; ++s) langevin.step(w.system, w.state, ff);
  const double start = langevin.conserved_energy(w.system, w.state, ff);
  double middle = 0, whole = 0;
  const int steps = 1000;  // 2 ps
  for (int s = 0; s < steps; ++s) {
    langevin.step(w.system, w.state, ff);
    middle += langevin.middle_kinetic_energy() / steps;
    whole += 0.5 * kinetic_tensor(w.system, w.state.velocities).trace() / steps;
  }
  const double drift = langevin.conserved_energy(w.system, w.state, ff) - start;
  // kT is 2.5 kJ/mol: 27 rigid waters drift by much less than kT over 2 ps. Before the projection,
  // this system drifted by about 200 kJ/mol per ps, and the middle kinetic energy ran 9% hot.
  EXPECT_LT(std::abs(drift), 0.5) << "conserved quantity drift over 2 ps";
  EXPECT_NEAR(middle / whole, 1.0, 0.02) << "middle " << middle << " whole " << whole;
}

TEST(Constraints, PrepareRepairsADistortedStartAndLeavesAValidOneAlone) {
  Molecules w = water_box(2, 0.8, 300, 7, true), c = chains(300, 7);
  w.state.positions[1] += Vec3{0.004, -0.002, 0.001};  // stretch a water
  c.state.positions[2] += Vec3{0.003, 0.0, -0.002};   // and a chain
  for (Molecules* m : {&w, &c}) {
    ForceField ff(0.0);
    VelocityVerlet vv(0.001);
    vv.prepare(m->system, m->state, ff);
    EXPECT_LT(vv.constraints().max_deviation(m->state.box, m->state.positions), 1e-10);
    EXPECT_LT(vv.constraints().max_velocity_deviation(m->state.box, m->state.positions, m->state.velocities), 1e-10);
    const State valid = m->state;
    VelocityVerlet again(0.001);
    again.prepare(m->system, m->state, ff);
    EXPECT_TRUE(testing::same_bits(valid.positions, m->state.positions));
    EXPECT_TRUE(testing::same_bits(valid.velocities, m->state.velocities));
  }
}

TEST(Constraints, RestartBitForBitWithSettleShakeAndBussi) {
  auto run = [](int first, int second) {
    Molecules w = water_box(2, 1.2, 300, 8, true);
    Molecules c = chains(300, 8);
    // Both kinds in one system: waters after the chains, in a corner of their own.
    c.state.box = Box::orthorhombic(3.2, 3.2, 3.2);
    const int64_t offset = c.system.size();
    for (int64_t i = 0; i < w.system.size(); ++i) {
      c.system.add_particle(w.system.mass[size_t(i)], 0, w.system.type_names[size_t(w.system.type[size_t(i)])]);
      c.molecule.push_back(100 + w.molecule[size_t(i)]);
      c.state.positions.push_back(w.state.positions[size_t(i)] + Vec3{1.8, 1.8, 1.8});
      c.state.velocities.push_back(w.state.velocities[size_t(i)]);
    }
    for (RigidWater rw : w.system.topology.waters) {
      rw.o += int(offset), rw.h1 += int(offset), rw.h2 += int(offset);
      c.system.topology.waters.push_back(rw);
    }
    ForceField ff = chain_forces(c);
    VelocityVerlet vv(0.001, std::make_shared<BussiThermostat>(300, 0.1, 12));
    for (int s = 0; s < first; ++s) vv.step(c.system, c.state, ff);
    if (second == 0) return c.state;
    ForceField ff2 = chain_forces(c);
    VelocityVerlet next(0.001, std::make_shared<BussiThermostat>(300, 0.1, 12));
    next.load_state(vv.save_state());
    for (int s = 0; s < second; ++s) next.step(c.system, c.state, ff2);
    return c.state;
  };
  const State whole = run(40, 0), split = run(15, 25);
  EXPECT_TRUE(testing::same_bits(whole.positions, split.positions));
  EXPECT_TRUE(testing::same_bits(whole.velocities, split.velocities));
}

// 216 waters are four chunks of the parallel constraint loops: one thread or two, the same bits,
// virial included (partial sums per fixed chunk, added in chunk order).
TEST(Constraints, SameBitsForAnyThreadCount) {
  for (bool settle : {true, false}) {
    auto run = [&](int threads) {
      const int saved = omp_get_max_threads();
      omp_set_num_threads(threads);
      Molecules w = water_box(6, 1.9, 300, 11, settle);
      ForceField none(0.0);
      VelocityVerlet vv(0.002);
      for (int s = 0; s < 5; ++s) vv.step(w.system, w.state, none);
      omp_set_num_threads(saved);
      return std::make_pair(w.state, vv.constraint_virial());
    };
    const auto [one, w1] = run(1);
    const auto [two, w2] = run(2);
    EXPECT_TRUE(testing::same_bits(one.positions, two.positions)) << settle;
    EXPECT_TRUE(testing::same_bits(one.velocities, two.velocities)) << settle;
    EXPECT_EQ(w1.m, w2.m) << settle;
  }
}

TEST(Constraints, RejectBadTopologies) {
  auto expect_error = [](const System& system, const char* text) {
    try {
      Constraints c(system);
      FAIL() << "no error; expected one mentioning " << text;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  Molecules w = water_box(1, 1.0, 300, 9, true);
  System s = w.system;
  s.mass[2] = 2.014;  // HD water
  expect_error(s, "hydrogens of masses");
  s = w.system;
  s.topology.constraints.push_back({0, 1, 0.1});
  expect_error(s, "also in a Constraint");
  s = w.system;
  s.topology.waters[0].d_hh = 0.25;
  expect_error(s, "d_hh < 2 d_oh");
  s = w.system;
  s.topology.waters.clear();
  s.topology.constraints.push_back({0, 1, -0.1});
  expect_error(s, "length");
  s.topology.constraints = {{0, 1, 0.1}};
  s.mass[0] = s.mass[1] = 0;
  expect_error(s, "two fixed");

  // A step far too long for the forces: SHAKE cannot converge and says so.
  Molecules c = chains(300, 10);
  for (Vec3& v : c.state.velocities) v *= 200.0;
  ForceField ff(0.0);
  VelocityVerlet vv(0.01);
  try {
    for (int s2 = 0; s2 < 5; ++s2) vv.step(c.system, c.state, ff);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("SHAKE"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::sponge
