// Barostats (monte_carlo_barostat.h, berendsen_barostat.h): the Monte Carlo barostat's volume
// distribution of an ideal gas, p(V) ~ V^N exp(-P V / kT), so <V> = (N + 1) kT / P and
// var V = (N + 1) (kT / P)^2, for atoms (lj units), rigid molecules (md units, bar) and one axis at
// a time; Berendsen's relaxation of an ideal gas against the exact recursion and its continuous
// limit; scaling groups; restart bit for bit; errors.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/berendsen_barostat.h"
#include "science/sponge/bussi.h"
#include "science/sponge/monte_carlo_barostat.h"
#include "science/sponge/velocity_verlet.h"
#include "tests/science/sponge/support_dynamics.h"

namespace spire::sponge {
namespace {

// n particles at rest, spread through a cube of side `side`.
State ideal_gas_state(int n, double side) {
  State st;
  st.box = Box::orthorhombic(side, side, side);
  MdRandom random(77);
  for (int i = 0; i < n; ++i) {
    double u0, u1, u2, u3;
    random.uniforms(RandomTag::langevin, 1, uint64_t(2 * i), u0, u1);
    random.uniforms(RandomTag::langevin, 1, uint64_t(2 * i + 1), u2, u3);
    st.positions.push_back(Vec3{u0, u1, u2} * side);
    st.velocities.push_back({});
  }
  return st;
}

// Volumes after each of `moves` barostat moves (one per step; the particles stand still).
std::vector<double> volumes(const System& system, State& state, ForceField& ff, BarostatPtr barostat, int moves) {
  VelocityVerlet vv(0.001, nullptr, testing::keep_com_motion());
  vv.set_barostat(std::move(barostat));
  vv.prepare(system, state, ff);
  for (int s = 0; s < 2000; ++s) vv.step(system, state, ff);  // find the step size and the equilibrium
  std::vector<double> v;
  for (int s = 0; s < moves; ++s) {
    vv.step(system, state, ff);
    v.push_back(state.box.volume());
  }
  return v;
}

void expect_ideal_gas_volumes(const std::vector<double>& v, double groups, double kt_over_p, const char* who) {
  const auto s = testing::series_stats(v);
  const double mean = (groups + 1) * kt_over_p, variance = (groups + 1) * kt_over_p * kt_over_p;
  std::printf("figure: %s <V> %.5g +- %.2g (exact %.5g), var V %.4g +- %.2g (exact %.4g)\n", who, s.mean,
              s.mean_error, mean, s.variance, s.variance_error, variance);
  EXPECT_NEAR(s.mean, mean, 4 * s.mean_error) << who;
  EXPECT_NEAR(s.variance, variance, 4 * s.variance_error) << who;
  EXPECT_LT(s.mean_error, 0.02 * mean) << who << ": too few samples to tell";
}

TEST(MonteCarloBarostat, IdealGasAtomsHaveTheGammaVolumeDistribution) {
  const int n = 20;
  const double kT = 1.2, pressure = 0.5;
  System system = testing::particles(n, 1.0);
  State state = ideal_gas_state(n, 6.0);
  ForceField ff(0.0);
  MonteCarloBarostatOptions options;
  options.frequency = 1;
  options.scaling = BarostatScaling::atom;
  options.seed = 3;
  auto barostat = std::make_shared<MonteCarloBarostat>(pressure, kT, options);
  const auto v = volumes(system, state, ff, barostat, 60000);
  EXPECT_EQ(barostat->group_count(), n);
  expect_ideal_gas_volumes(v, n, kT / pressure, "MC barostat ideal gas N=20 (lj)");
  const double rate = double(barostat->accepted()) / double(barostat->attempts());
  EXPECT_GT(rate, 0.25);
  EXPECT_LT(rate, 0.75);
}

// Rigid dimers held by stiff springs, scaled by molecule: their centres are an ideal gas of
// N_mol particles, the springs never change, in md units with the pressure in bar.
TEST(MonteCarloBarostat, MoleculesScaleAsOneInMdUnits) {
  const int molecules = 12;
  System system;
  std::vector<testing::Springs::Spring> springs;
  State state = ideal_gas_state(molecules, 0.7);
  std::vector<Vec3> centres = state.positions;
  state.positions.clear();
  state.velocities.clear();
  for (int m = 0; m < molecules; ++m) {
    const int a = system.add_particle(14.0, 0, "N"), b = system.add_particle(14.0, 0, "N");
    system.topology.bonds.push_back({a, b, 0.11, 3e5});
    springs.push_back({a, b, 0.11, 3e5});
    state.positions.push_back(centres[size_t(m)]);
    state.positions.push_back(centres[size_t(m)] + Vec3{0.11, 0, 0});
    state.velocities.resize(state.positions.size());
  }
  ForceField ff = testing::force_field_of({std::make_shared<testing::Springs>(springs)});
  const double temperature = 300, bar = 2000;
  MonteCarloBarostatOptions options;
  options.frequency = 1;
  options.seed = 5;
  auto barostat = std::make_shared<MonteCarloBarostat>(bar, temperature, options);
  const auto v = volumes(system, state, ff, barostat, 60000);
  EXPECT_EQ(barostat->group_count(), molecules);
  expect_ideal_gas_volumes(v, molecules, constants::kBoltzmann * temperature / (bar * constants::kBar),
                           "MC barostat 12 dimers by molecule (md, 2000 bar)");
  // The dimers kept their length (each moved as one).
  for (int m = 0; m < molecules; ++m)
    EXPECT_NEAR(norm(state.positions[size_t(2 * m + 1)] - state.positions[size_t(2 * m)]), 0.11, 1e-12);
}

// One axis: V = A L_x with A fixed, so L_x is Gamma distributed exactly as V was; y and z never move.
TEST(MonteCarloBarostat, AnisotropicScalesOneAxisAtATime) {
  const int n = 20;
  const double kT = 1.0;
  System system = testing::particles(n, 1.0);
  State state = ideal_gas_state(n, 5.0);
  ForceField ff(0.0);
  MonteCarloBarostatOptions options;
  options.frequency = 1;
  options.scaling = BarostatScaling::atom;
  options.seed = 8;
  auto barostat = std::make_shared<MonteCarloBarostat>(Vec3{0.8, 5.0, 5.0}, std::array<bool, 3>{true, false, false},
                                                       kT, options);
  EXPECT_EQ(barostat->name(), "monte_carlo_anisotropic");
  const auto v = volumes(system, state, ff, barostat, 60000);
  EXPECT_EQ(state.box.b().y, 5.0);
  EXPECT_EQ(state.box.c().z, 5.0);
  expect_ideal_gas_volumes(v, n, kT / 0.8, "MC anisotropic barostat x only, ideal gas N=20");

  // All three axes at one pressure: <V | L_y, L_z> = (N + 1) kT / P whatever the shape.
  State state3 = ideal_gas_state(n, 5.0);
  options.seed = 9;
  auto three = std::make_shared<MonteCarloBarostat>(Vec3{0.8, 0.8, 0.8}, std::array<bool, 3>{true, true, true}, kT,
                                                    options);
  const auto v3 = volumes(system, state3, ff, three, 60000);
  expect_ideal_gas_volumes(v3, n, kT / 0.8, "MC anisotropic barostat xyz, ideal gas N=20");
}

// Without forces the kinetic energy K is constant and P = 2 K / (3 V), so Berendsen's
// mu = 1 - r (P0 - 2 K / (3 V)), r = beta dt / (3 tau), and V' = mu^3 V exactly; in the limit of small
// steps V(t) = c + (V0 - c) exp(-beta P0 t / tau), c = 2 K / (3 P0).
TEST(BerendsenBarostat, IdealGasRelaxesToThePressure) {
  const int n = 50;
  System system = testing::particles(n, 1.0);
  State state = ideal_gas_state(n, 4.0);
  MdRandom random(12);
  for (int i = 0; i < n; ++i) state.velocities[size_t(i)] = random.normal3(RandomTag::langevin, 3, uint64_t(i));
  double k = 0;
  for (const Vec3& v : state.velocities) k += 0.5 * norm2(v);
  ForceField ff(0.0);
  const double p0 = 2.0, beta = 0.5, tau = 1.0, dt = 0.001;
  BerendsenBarostatOptions options;
  options.compressibility = beta;
  options.time_constant = tau;
  options.scaling = BarostatScaling::atom;
  auto barostat = std::make_shared<BerendsenBarostat>(p0, options);
  VelocityVerlet vv(dt, nullptr, testing::keep_com_motion());
  vv.set_barostat(barostat);
  vv.prepare(system, state, ff);
  const double c = 2 * k / (3 * p0), v0 = state.box.volume(), r = beta * dt / (3 * tau);
  double v_discrete = v0;
  for (int s = 1; s <= 3000; ++s) {
    vv.step(system, state, ff);
    const double mu = 1 - r * (p0 - 2 * k / (3 * v_discrete));
    v_discrete *= mu * mu * mu;
    ASSERT_NEAR(state.box.volume(), v_discrete, 1e-11 * v0) << "step " << s;
    if (s % 1000 == 0) {
      const double continuous = c + (v0 - c) * std::exp(-beta * p0 * s * dt / tau);
      EXPECT_NEAR(state.box.volume(), continuous, 2e-3 * std::abs(v0 - c)) << "t = " << s * dt;
    }
  }
  // 40 relaxation times on: P = P0 to round-off.
  for (int s = 0; s < 20000; ++s) vv.step(system, state, ff);
  EXPECT_NEAR(2 * k / (3 * state.box.volume()), p0, 1e-8);
}

// Each axis to its own reference pressure: an ideal gas whose kinetic tensor is anisotropic
// (P_aa = K2_aa / V) with P0_a = K2_aa / V_t for one target V_t reaches V = V_t with every
// P_aa = P0_a, the axes having moved by different factors.
TEST(BerendsenBarostat, AnisotropicCouplesEachAxisToItsPressure) {
  const int n = 40;
  System system = testing::particles(n, 1.0);
  State state = ideal_gas_state(n, 4.0);
  MdRandom random(13);
  for (int i = 0; i < n; ++i) {
    const Vec3 z = random.normal3(RandomTag::langevin, 4, uint64_t(i));
    state.velocities[size_t(i)] = {z.x, 2 * z.y, 0.5 * z.z};  // hot along y, cold along z
  }
  Mat3 k2;
  for (const Vec3& v : state.velocities) k2.add_outer(v, v);
  const double target = 0.6 * state.box.volume();
  const Vec3 p0{k2(0, 0) / target, k2(1, 1) / target, k2(2, 2) / target};
  ForceField ff(0.0);
  BerendsenBarostatOptions options;
  options.compressibility = 0.5 / p0.x;
  options.time_constant = 0.5;
  options.scaling = BarostatScaling::atom;
  VelocityVerlet vv(0.002, nullptr, testing::keep_com_motion());
  vv.set_barostat(std::make_shared<BerendsenBarostat>(p0, options));
  vv.prepare(system, state, ff);
  for (int s = 0; s < 30000; ++s) vv.step(system, state, ff);
  const double v = state.box.volume();
  EXPECT_NEAR(v, target, 1e-8 * target);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(k2(a, a) / v, p0[a], 1e-8 * p0[a]) << "axis " << a;
  // Every axis moved as d ln L_a = -r P0_a (1 - V_t / V) dt with a common factor, so
  // ln(L_a / L_a0) = ln(V_t / V0) P0_a / sum P0 (to first order in the per-step change).
  const double widths[3] = {state.box.a().x, state.box.b().y, state.box.c().z};
  for (int a = 0; a < 3; ++a)
    EXPECT_NEAR(std::log(widths[a] / 4.0), std::log(0.6) * p0[a] / (p0.x + p0.y + p0.z), 0.01 * std::abs(std::log(0.6)))
        << "axis " << a;
}

TEST(Barostat, ScalingGroups) {
  System system = testing::particles(7, 1.0);
  system.topology.bonds.push_back({0, 1, 1.0, 1.0});
  system.topology.angles.push_back({1, 2, 3, 1.0, 1.0});
  system.topology.constraints.push_back({4, 5, 1.0});
  State state = ideal_gas_state(7, 5.0);
  BerendsenBarostat by_molecule(1.0);
  by_molecule.setup(system, state);
  EXPECT_EQ(by_molecule.group_count(), 3);  // {0, 1, 2, 3}, {4, 5}, {6}
  BerendsenBarostatOptions options;
  options.scaling = BarostatScaling::atom;
  BerendsenBarostat by_atom(1.0, options);
  by_atom.setup(system, state);
  EXPECT_EQ(by_atom.group_count(), 6);  // atoms, but {4, 5} together

  // A molecule split across the boundary is made whole before its centre is taken: atoms at
  // x = 0.2 and 9.8 in a box of 10 are a molecule centred at x = 0 (not 5), so shrinking the box
  // about the origin leaves their x alone while y = z = 5 move with the box.
  System pair = testing::particles(2, 1.0);
  pair.topology.bonds.push_back({0, 1, 1.0, 1.0});
  State split;
  split.box = Box::orthorhombic(10, 10, 10);
  split.positions = {{0.2, 5, 5}, {9.8, 5, 5}};
  split.velocities.resize(2);
  ForceField ff(0.0);
  VelocityVerlet vv(0.001, nullptr, testing::keep_com_motion());
  auto barostat = std::make_shared<BerendsenBarostat>(1.0);  // P = 0 < 1: shrinks
  vv.set_barostat(barostat);
  vv.step(pair, split, ff);
  const double mu = barostat->last_scaling()(0, 0);
  EXPECT_LT(mu, 1.0);
  EXPECT_NEAR(split.positions[0].x, 0.2, 1e-14);
  EXPECT_NEAR(split.positions[1].x, 9.8, 1e-14);
  EXPECT_NEAR(split.positions[0].y, 5 * mu, 1e-14);
  EXPECT_NEAR(split.box.a().x, 10 * mu, 1e-14);
}

TEST(MonteCarloBarostat, RestartsBitForBit) {
  auto run = [](int first, int second) {
    testing::LjFluid f;
    MonteCarloBarostatOptions options;
    options.frequency = 5;
    options.seed = 21;
    auto make = [&] {
      auto vv = std::make_unique<VelocityVerlet>(0.005, std::make_shared<BussiThermostat>(1.0, 0.1, 2));
      vv->set_barostat(std::make_shared<MonteCarloBarostat>(1.0, 1.0, options));
      return vv;
    };
    auto vv = make();
    for (int s = 0; s < first; ++s) vv->step(f.system, f.state, f.forces);
    if (second > 0) {
      auto next = make();
      next->load_state(vv->save_state());
      testing::LjFluid g;
      g.state = f.state;
      for (int s = 0; s < second; ++s) next->step(g.system, g.state, g.forces);
      return std::make_pair(g.state, next->conserved_energy(g.system, g.state, g.forces));
    }
    return std::make_pair(f.state, vv->conserved_energy(f.system, f.state, f.forces));
  };
  const auto [whole, e_whole] = run(100, 0);
  const auto [split, e_split] = run(37, 63);
  EXPECT_TRUE(testing::same_bits(whole.positions, split.positions));
  EXPECT_TRUE(testing::same_bits(whole.velocities, split.velocities));
  EXPECT_TRUE(whole.box == split.box);
  EXPECT_NE(whole.box.volume(), 4.5 * 4.5 * 4.5);  // the barostat did move the box
  EXPECT_EQ(e_whole, e_split);
}

TEST(Barostat, RejectsBadInput) {
  EXPECT_THROW(MonteCarloBarostat(1.0, -300), ValueError);
  EXPECT_THROW(MonteCarloBarostat(Vec3{1, 1, 1}, {false, false, false}, 300), ValueError);
  MonteCarloBarostatOptions zero;
  zero.frequency = 0;
  EXPECT_THROW(MonteCarloBarostat(1.0, 300, zero), ValueError);
  BerendsenBarostatOptions bad;
  bad.compressibility = 0;
  EXPECT_THROW(BerendsenBarostat(1.0, bad), ValueError);
  // No periodic box: no volume to change.
  System system = testing::particles(2, 1.0);
  State state;
  state.positions = {{0, 0, 0}, {1, 0, 0}};
  ForceField ff(0.0);
  VelocityVerlet vv(0.001);
  vv.set_barostat(std::make_shared<MonteCarloBarostat>(1.0, 1.0));
  try {
    vv.prepare(system, state, ff);
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("periodic box"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::sponge
