// The cuda platform's dynamics without a GPU: its kernel bodies (integrator_kernels.cuh,
// constraint_kernels.cuh) run on the host against the cpu platform's own code.
//   - Langevin noise: the bodies' normals have the bits of MdRandom::normal3, and the noise those
//     of LangevinMiddle's expression.
//   - SHAKE, RATTLE and SETTLE bodies against Constraints::constrain_positions / velocities on a
//     water box and on constraint clusters (positions, velocities, virial; the failing bond named).
//   - Fixed-point sums of kinetic energy and momentum: the same bits in any order.
//   - The step sequence itself, advance(), the very template the device runs, here over loops on
//     the host (HostDynamics, with the cpu's forces) against VelocityVerlet (NVE, Bussi, Berendsen,
//     Nose-Hoover) and LangevinMiddle stepping the same systems: LJ fluid, constrained clusters,
//     SPC/E water with SETTLE.
// Differences left are roundings: fused multiply-adds the cpu build may use where this one does not,
// and the fixed-point sums (2^-32 per term) that a thermostat's factor depends on.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

#include "science/sponge/constraints.h"
#include "science/sponge/cuda/constraint_kernels.cuh"
#include "science/sponge/cuda/integrator_kernels.cuh"
#include "science/sponge/minimize.h"
#include "science/sponge/monte_carlo_barostat.h"
#include "science/sponge/velocities.h"
#include "science/sponge/water.h"
#include "tests/science/sponge/support_dynamics.h"

namespace spire::sponge::cuda {
namespace {

std::vector<double> flat(const std::vector<Vec3>& v) {
  std::vector<double> x(3 * v.size());
  std::memcpy(x.data(), v.data(), x.size() * sizeof(double));
  return x;
}

std::vector<Vec3> vecs(const std::vector<double>& x) {
  std::vector<Vec3> v(x.size() / 3);
  std::memcpy(v.data(), x.data(), x.size() * sizeof(double));
  return v;
}

double max_gap(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  EXPECT_EQ(a.size(), b.size());
  double gap = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) gap = std::max(gap, norm(a[i] - b[i]));
  return gap;
}

double max_gap(const Mat3& a, const Mat3& b) {
  double gap = 0;
  for (int k = 0; k < 9; ++k) gap = std::max(gap, std::abs(a.m[size_t(k)] - b.m[size_t(k)]));
  return gap;
}

double max_abs(const Mat3& a) {
  double m = 0;
  for (double v : a.m) m = std::max(m, std::abs(v));
  return m;
}

// A cluster's or water's virial into the nine fixed-point totals, as the kernels commit it.
void commit(long long* totals, const Virial9& w) {
  for (int k = 0; k < 9; ++k) accumulate(totals + k, w.w[k]);
}

Mat3 from_fixed9(const long long* totals) {
  Mat3 m;
  for (int k = 0; k < 9; ++k) m.m[size_t(k)] = from_fixed(totals[k]);
  return m;
}

// The device's side of the step, on the host: the operations advance() asks for, as loops over the
// same bodies the kernels wrap, the fixed-point sums taken term by term (integer sums: the same
// bits as the device's block sums), and the forces from the cpu's ForceField.
class HostDynamics {
 public:
  HostDynamics(const System& system, ForceField forces, const Integrator& integrator, const State& state,
               const IntegratorState& variables)
      : system_(system), forces_(std::move(forces)) {
    scheme_ = step_scheme(system, integrator, thermostat_);
    topology_ = constraint_topology(system);
    n_ = system.size();
    bond_vectors_.resize(3 * topology_.bonds.size());
    multipliers_.resize(topology_.bonds.size());
    arrays_.bonds = topology_.bonds.data();
    arrays_.cluster_begin = topology_.cluster_begin.data();
    arrays_.waters = topology_.waters.data();
    arrays_.inverse_mass = topology_.inverse_mass.data();
    arrays_.bond_vectors = bond_vectors_.data();
    arrays_.multipliers = multipliers_.data();
    arrays_.tolerance = scheme_.constraints.tolerance;
    arrays_.max_iterations = scheme_.constraints.max_iterations;
    mass_ = system.mass;
    position_ = flat(state.positions);
    velocity_ = flat(state.velocities);
    reference_.assign(position_.size(), 0);
    noise_.assign(position_.size(), 0);
    heat_ = variables.at("integrator.heat").at(0);
    if (thermostat_) thermostat_->load_state(variables);
    box_ = state.box;
    device_box_ = DeviceBox::of(box_);
    step_ = state.step;
    zero_sums();
    std::fill(failed_, failed_ + 3, LLONG_MAX);
    compute_forces();
  }

  void step() {
    advance(*this, scheme_, step_);
    step_ += 1;
  }

  std::vector<Vec3> positions() const { return vecs(position_); }
  std::vector<Vec3> velocities() const { return vecs(velocity_); }
  double heat() const { return heat_; }
  Mat3 constraint_virial() const {
    return (from_fixed9(sums_ + kPositionVirial) + from_fixed9(sums_ + kVelocityVirial)) * 0.5;
  }
  IntegratorState variables() const {
    IntegratorState out{{"integrator.heat", {heat_}}};
    if (thermostat_) thermostat_->save_state(out);
    return out;
  }
  const long long* failed() const { return failed_; }

  // ---- advance()'s operations ----
  void zero_sums() { std::fill(sums_, sums_ + kStepSlots, 0); }
  void kick_drift(double kick, double drift) {
    double* ref = scheme_.constrained ? reference_.data() : nullptr;
    for (int64_t i = 0; i < n_; ++i)
      kick_drift_particle(i, kick, drift, mass_.data(), force_.data(), velocity_.data(), position_.data(), ref);
  }
  void drift(double h) {
    for (int64_t i = 0; i < n_; ++i) drift_particle(i, h, mass_.data(), velocity_.data(), position_.data());
  }
  void kick(double h) {
    for (int64_t i = 0; i < n_; ++i) kick_particle(i, h, mass_.data(), force_.data(), velocity_.data());
  }
  void scale(double s) {
    for (int64_t i = 0; i < n_; ++i) scale_particle(i, s, mass_.data(), velocity_.data());
  }
  long long twice_kinetic(int slot) {
    for (int64_t i = 0; i < n_; ++i) accumulate(sums_ + slot, cuda::twice_kinetic(i, mass_.data(), velocity_.data()));
    return sums_[slot];
  }
  double thermostat_factor(double kinetic, int64_t at_step, int half) {
    return thermostat_->scale(kinetic, 0.5 * scheme_.dt, at_step, half);
  }
  void langevin_noise(const LangevinStep& o) {
    for (int64_t i = 0; i < n_; ++i) store3(noise_.data(), i, cuda::langevin_noise(i, o, mass_.data()));
  }
  void constrain_noise() {
    for (int64_t c = 0; c < topology_.clusters(); ++c) {
      Virial9 unused;
      note(1, rattle_cluster(arrays_, c, device_box_, reference_.data(), noise_.data(), 1, unused));
    }
    for (const SettleWater& w : topology_.waters) {
      Virial9 unused;
      settle_velocities(w, device_box_, reference_.data(), noise_.data(), 1, unused);
    }
  }
  void langevin_o(const LangevinStep& o, bool projected) {
    for (int64_t i = 0; i < n_; ++i) {
      const KineticPair k =
          langevin_o_particle(i, o, mass_.data(), projected ? noise_.data() : nullptr, velocity_.data());
      accumulate(sums_ + kKineticBefore, k.before);
      accumulate(sums_ + kKineticBefore + 1, k.after);
    }
  }
  void langevin_heat() { heat_ += langevin_heat_change(sums_ + kKineticBefore); }
  void constrain_positions(double dt, double position_factor) {
    for (int64_t c = 0; c < topology_.clusters(); ++c) {
      Virial9 w;
      note(0, shake_cluster(arrays_, c, device_box_, reference_.data(), position_.data(), velocity_.data(), dt,
                            position_factor, w));
      commit(sums_ + kPositionVirial, w);
    }
    for (size_t u = 0; u < topology_.waters.size(); ++u) {
      Virial9 w;
      if (!settle_positions(topology_.waters[u], device_box_, reference_.data(), position_.data(), velocity_.data(),
                            dt, position_factor, w))
        note(2, int64_t(u));
      commit(sums_ + kPositionVirial, w);
    }
  }
  void compute_forces() {
    State st;
    st.positions = vecs(position_);
    st.velocities.assign(st.positions.size(), Vec3{});
    st.box = box_;
    force_ = flat(forces_.compute(system_, st).forces);
  }
  void constrain_velocities(double velocity_factor, int virial_slot) {
    for (int64_t c = 0; c < topology_.clusters(); ++c) {
      Virial9 w;
      note(1, rattle_cluster(arrays_, c, device_box_, position_.data(), velocity_.data(), velocity_factor, w));
      commit(sums_ + virial_slot, w);
    }
    for (const SettleWater& water : topology_.waters) {
      Virial9 w;
      settle_velocities(water, device_box_, position_.data(), velocity_.data(), velocity_factor, w);
      commit(sums_ + virial_slot, w);
    }
  }
  void remove_com(double total_mass) {
    for (int64_t i = 0; i < n_; ++i) {
      const V3 p = particle_momentum(i, mass_.data(), velocity_.data());
      accumulate(sums_ + kMomentum, p.x);
      accumulate(sums_ + kMomentum + 1, p.y);
      accumulate(sums_ + kMomentum + 2, p.z);
    }
    const V3 v_com = com_velocity(sums_ + kMomentum, total_mass);
    heat_ -= com_kinetic(v_com, total_mass);
    for (int64_t i = 0; i < n_; ++i) remove_com_particle(i, v_com, mass_.data(), velocity_.data());
  }

 private:
  void note(int kind, int64_t failed) {
    if (failed >= 0) failed_[kind] = std::min<long long>(failed_[kind], failed);
  }

  const System& system_;
  ForceField forces_;
  StepScheme scheme_;
  ThermostatPtr thermostat_;
  ConstraintTopology topology_;
  ConstraintArrays arrays_;
  std::vector<double> bond_vectors_, multipliers_;
  int64_t n_ = 0;
  std::vector<double> mass_, position_, velocity_, force_, reference_, noise_;
  long long sums_[kStepSlots];
  long long failed_[3];
  double heat_ = 0;
  Box box_;
  DeviceBox device_box_;
  int64_t step_ = 0;
};

// ---- systems ----

// 27 "methanes" (a carbon with four hydrogens on SHAKE constraints: star clusters) and 27 rings of
// three atoms (three coupled constraints) in md units, Lennard-Jones between molecules only.
struct Clusters {
  System system;
  State state;
  std::vector<int> molecule;
  Clusters() {
    system.units = Units::md();
    state.box = Box::orthorhombic(2.4, 2.4, 2.4);
    const double a = 0.109 / std::sqrt(3.0);
    const Vec3 tetra[4] = {{a, a, a}, {a, -a, -a}, {-a, a, -a}, {-a, -a, a}};
    int mol = 0;
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 3; ++y)
        for (int z = 0; z < 3; ++z, ++mol) {
          const Vec3 site{0.8 * x + 0.1, 0.8 * y + 0.1, 0.8 * z + 0.1};
          const int c = system.add_particle(12.011, 0, "C");
          state.positions.push_back(site);
          molecule.push_back(2 * mol);
          for (const Vec3& d : tetra) {
            const int h = system.add_particle(1.008, 0, "H");
            state.positions.push_back(site + d);
            molecule.push_back(2 * mol);
            system.topology.constraints.push_back({c, h, 0.109});
          }
          // A ring: an equilateral triangle of side 0.15 with atoms of different masses.
          const Vec3 r0 = site + Vec3{0.4, 0.4, 0.4};
          const int p = system.add_particle(14.007, 0, "N"), q = system.add_particle(15.999, 0, "O"),
                    r = system.add_particle(1.008, 0, "H");
          state.positions.push_back(r0);
          state.positions.push_back(r0 + Vec3{0.15, 0, 0});
          state.positions.push_back(r0 + Vec3{0.075, 0.15 * std::sqrt(3.0) / 2, 0});
          for (int k = 0; k < 3; ++k) molecule.push_back(2 * mol + 1);
          system.topology.constraints.push_back({p, q, 0.15});
          system.topology.constraints.push_back({q, r, 0.15});
          system.topology.constraints.push_back({r, p, 0.15});
        }
    maxwell_boltzmann(system, state, 300, 17);
  }
  ForceField forces() const {
    auto lj = std::make_shared<testing::BruteForceLJ>(0.4, 0.25, 0.9, true);
    lj->set_molecules(molecule);
    return testing::force_field_of({lj});
  }
};

// 64 SPC/E waters (SETTLE) with the model's oxygen-oxygen Lennard-Jones between molecules (the
// test's own brute-force term: no charges, which the rigid geometry does not need), relaxed by 20
// FIRE iterations and given velocities at 300 K.
struct Water {
  System system;
  State state;
  std::vector<int> molecule, oxygen;
  Water() {
    WaterBoxOptions o;
    o.molecules = 64;
    o.seed = 3;
    WaterBox w = water_box(WaterModel::spce(), o);
    system = std::move(w.system);
    state = std::move(w.state);
    for (int64_t i = 0; i < system.size(); ++i) {
      molecule.push_back(int(i / 3));
      oxygen.push_back(i % 3 == 0);
    }
    ForceField ff = forces();
    FireOptions fire;
    fire.force_tolerance = 10;
    fire.max_iterations = 20;
    minimize_fire(system, state, ff, fire);
    maxwell_boltzmann(system, state, 300, 9);
  }
  ForceField forces() const {
    const WaterModel spce = WaterModel::spce();
    auto lj = std::make_shared<testing::BruteForceLJ>(spce.epsilon_o, spce.sigma_o, 0.6, true);
    lj->set_molecules(molecule);
    lj->set_active(oxygen);
    return testing::force_field_of({lj});
  }
};

// The cpu's integrator and the host run of the device's sequence from the same prepared state,
// `steps` steps each; the largest differences.
struct Gaps {
  double position = 0, velocity = 0, heat = 0, virial = 0, virial_scale = 0, variables = 0;
};
Gaps step_both(const System& system, const State& start, const std::function<ForceField()>& forces,
               MdIntegrator& integrator, int steps) {
  ForceField cpu_forces = forces();
  State cpu = start;
  integrator.prepare(system, cpu, cpu_forces);
  HostDynamics host(system, forces(), integrator, cpu, integrator.save_state());
  for (int k = 0; k < steps; ++k) {
    integrator.step(system, cpu, cpu_forces);
    host.step();
  }
  Gaps g;
  g.position = max_gap(cpu.positions, host.positions());
  g.velocity = max_gap(cpu.velocities, host.velocities());
  g.heat = std::abs(integrator.heat() - host.heat());
  g.virial = max_gap(integrator.constraint_virial(), host.constraint_virial());
  g.virial_scale = max_abs(integrator.constraint_virial());
  const IntegratorState a = integrator.save_state(), b = host.variables();
  EXPECT_EQ(a.size(), b.size());
  for (const auto& [key, values] : a) {
    const bool same_shape = b.count(key) == 1 && b.at(key).size() == values.size();
    EXPECT_TRUE(same_shape) << key;
    if (!same_shape) continue;
    for (size_t k = 0; k < values.size(); ++k) g.variables = std::max(g.variables, std::abs(values[k] - b.at(key)[k]));
  }
  for (int kind = 0; kind < 3; ++kind) EXPECT_EQ(host.failed()[kind], LLONG_MAX) << "constraint failure " << kind;
  std::printf("figure: %s, %d steps: |dr| %.2e, |dv| %.2e, |dheat| %.2e, |dW_c| %.2e of %.2e, |dvariables| %.2e\n",
              integrator.name().c_str(), steps, g.position, g.velocity, g.heat, g.virial, g.virial_scale,
              g.variables);
  return g;
}

// ---- Langevin noise ----

TEST(CudaSpongeHostLangevin, NoiseHasTheCpusBits) {
  const System system = testing::particles(50, 2.5, Units::md());
  std::vector<double> mass = system.mass;
  mass[7] = 0;  // a fixed particle draws nothing
  const double dt = 0.002, friction = 1.3, temperature = 310;
  const double kt = Units::md().boltzmann * temperature, b2 = -std::expm1(-2 * friction * dt);
  for (uint64_t seed : {0ull, 42ull, 0xDEADBEEFCAFEull})
    for (int64_t step : {int64_t(0), int64_t(1), int64_t(12345), (int64_t(1) << 40) + 3}) {
      const MdRandom random(seed);
      LangevinStep o;
      o.b2kt = b2 * kt;
      o.seed = seed;
      o.stream = MdRandom::stream(RandomTag::langevin, uint64_t(step));
      for (int64_t i = 0; i < 50; ++i) {
        const Vec3 z = random.normal3(RandomTag::langevin, uint64_t(step), uint64_t(i));
        const V3 body = philox_normal3(seed, o.stream, uint64_t(i));
        EXPECT_EQ(0, std::memcmp(&z, &body, sizeof z)) << "seed " << seed << " step " << step << " particle " << i;
        // LangevinMiddle::advance's noise: sqrt(b2 kT / m) R.
        const Vec3 cpu = mass[size_t(i)] > 0 ? std::sqrt(b2 * kt / mass[size_t(i)]) * z : Vec3{};
        const V3 noise = langevin_noise(i, o, mass.data());
        EXPECT_EQ(0, std::memcmp(&cpu, &noise, sizeof cpu)) << "seed " << seed << " step " << step << " particle " << i;
      }
    }
}

// One Langevin step of the LJ fluid (no constraints): the O update's noise and heat as the cpu's.
TEST(CudaSpongeHostLangevin, StepsFollowLangevinMiddle) {
  testing::LjFluid f;
  LangevinMiddle langevin(0.005, 1.0, 2.0, 77);
  const Gaps g = step_both(f.system, f.state, testing::LjFluid::make_forces, langevin, 20);
  EXPECT_LT(g.position, 1e-12);
  EXPECT_LT(g.velocity, 1e-10);
  EXPECT_LT(g.heat, 64 * 2 * 20 * 2.4e-10);  // two fixed-point sums of 64 terms per step
  EXPECT_NE(langevin.heat(), 0);
}

// ---- kicks, drifts and thermostats: velocity Verlet ----

TEST(CudaSpongeHostVerlet, NveStepsFollowVelocityVerlet) {
  testing::LjFluid f;
  VelocityVerlet verlet(0.005);
  const Gaps g = step_both(f.system, f.state, testing::LjFluid::make_forces, verlet, 20);
  // A dense fluid is chaotic: round-off differences grow by about a factor 10 over these steps.
  EXPECT_LT(g.position, 1e-12);
  EXPECT_LT(g.velocity, 1e-10);
  EXPECT_LT(g.heat, 1e-12);  // the centre of mass's heat: zero momentum to begin with
}

TEST(CudaSpongeHostVerlet, ThermostattedStepsFollowTheCpusThermostats) {
  const std::function<ThermostatPtr()> thermostats[] = {
      [] { return std::make_shared<BussiThermostat>(1.5, 0.05, 11); },
      [] { return std::make_shared<BerendsenThermostat>(1.5, 0.05); },
      [] { return std::make_shared<NoseHooverChain>(1.5, 0.05); },
  };
  for (const auto& make : thermostats) {
    testing::LjFluid f;
    VelocityVerlet verlet(0.005, make());
    const Gaps g = step_both(f.system, f.state, testing::LjFluid::make_forces, verlet, 20);
    // The factor follows the fixed-point kinetic energy (64 terms of 2^-33 at most) of K ~ 96.
    EXPECT_LT(g.position, 1e-11) << verlet.name();
    EXPECT_LT(g.velocity, 1e-9) << verlet.name();
    EXPECT_LT(g.variables, 1e-9) << verlet.name();
  }
}

// ---- constraints ----

TEST(CudaSpongeHostShake, ClustersMatchConstraints) {
  Clusters c;
  const Constraints cpu(c.system);
  const ConstraintTopology t = constraint_topology(c.system);
  ASSERT_EQ(t.clusters(), 54);
  ASSERT_EQ(t.bonds.size(), c.system.topology.constraints.size());
  // Clusters in order of their first constraint, bonds within in topology order.
  EXPECT_EQ(t.cluster_begin[1], 4);
  EXPECT_EQ(t.cluster_begin[2], 7);
  EXPECT_EQ(t.bond_source[4], 4);

  // A drift of 2 fs from constrained positions and velocities, then SHAKE, then RATTLE.
  State s = c.state;
  Constraints(c.system).constrain_velocities(s.box, s.positions, s.velocities, nullptr, 1);
  const double dt = 0.002;
  std::vector<Vec3> moved = s.positions;
  for (size_t i = 0; i < moved.size(); ++i) moved[i] += dt * s.velocities[i];

  std::vector<Vec3> cpu_x = moved, cpu_v = s.velocities;
  Mat3 cpu_w;
  cpu.constrain_positions(s.box, s.positions, cpu_x, &cpu_v, dt, &cpu_w, 0.5 * dt * dt);

  std::vector<double> bond_vectors(3 * t.bonds.size()), multipliers(t.bonds.size());
  ConstraintArrays a{t.bonds.data(), t.cluster_begin.data(), t.waters.data(), t.inverse_mass.data(),
                     bond_vectors.data(), multipliers.data(), 1e-10, 1000};
  const DeviceBox box = DeviceBox::of(s.box);
  const std::vector<double> reference = flat(s.positions);
  std::vector<double> x = flat(moved), v = flat(s.velocities);
  long long w[9] = {0};
  for (int64_t k = t.clusters() - 1; k >= 0; --k) {  // any order: clusters share no particle
    Virial9 part;
    EXPECT_EQ(shake_cluster(a, k, box, reference.data(), x.data(), v.data(), dt, 0.5 * dt * dt, part), -1);
    commit(w, part);
  }
  EXPECT_LT(max_gap(vecs(x), cpu_x), 1e-12);
  EXPECT_LT(max_gap(vecs(v), cpu_v), 1e-12);
  EXPECT_LT(max_gap(from_fixed9(w), cpu_w), 1e-12 * max_abs(cpu_w) + 54 * 0x1p-33);
  EXPECT_GT(max_abs(cpu_w), 1);
  EXPECT_LT(cpu.max_deviation(s.box, vecs(x)), 1e-9);

  // RATTLE at the constrained positions, on velocities with a component along every bond.
  std::vector<Vec3> kicked = cpu_v;
  for (size_t i = 0; i < kicked.size(); ++i) kicked[i] += Vec3{0.3 * std::sin(double(i)), 0.2, -0.1 * double(i % 5)};
  std::vector<Vec3> cpu_rv = kicked;
  Mat3 cpu_rw;
  cpu.constrain_velocities(s.box, cpu_x, cpu_rv, &cpu_rw, 0.5 * dt);
  std::vector<double> rv = flat(kicked);
  const std::vector<double> at = flat(cpu_x);
  long long rw[9] = {0};
  for (int64_t k = 0; k < t.clusters(); ++k) {
    Virial9 part;
    EXPECT_EQ(rattle_cluster(a, k, box, at.data(), rv.data(), 0.5 * dt, part), -1);
    commit(rw, part);
  }
  EXPECT_LT(max_gap(vecs(rv), cpu_rv), 1e-12);
  EXPECT_LT(max_gap(from_fixed9(rw), cpu_rw), 1e-12 * max_abs(cpu_rw) + 54 * 0x1p-33);
  EXPECT_LT(cpu.max_velocity_deviation(s.box, cpu_x, vecs(rv)), 1e-9);
}

TEST(CudaSpongeHostShake, ABrokenBondIsTheOneTheCpuNames) {
  Clusters c;
  const Constraints cpu(c.system);
  const ConstraintTopology t = constraint_topology(c.system);
  State s = c.state;
  std::vector<Vec3> moved = s.positions;
  // The ring of molecule 5 (constraints 5 * 7 + 4 .. 6, p-q, q-r, r-p): r moved to 0.2 from q at
  // right angles to the old q-r bond (the ring lies in the xy plane), which no correction along
  // that bond can repair.
  const Constraint& qr = c.system.topology.constraints[5 * 7 + 5];
  moved[size_t(qr.j)] = moved[size_t(qr.i)] + Vec3{0, 0, 0.2};
  std::string message;
  try {
    cpu.constrain_positions(s.box, s.positions, moved, nullptr, 0.002, nullptr, 1);
  } catch (const ValueError& e) {
    message = e.what();
  }
  ASSERT_NE(message, "");
  std::vector<double> bond_vectors(3 * t.bonds.size()), multipliers(t.bonds.size());
  ConstraintArrays a{t.bonds.data(), t.cluster_begin.data(), t.waters.data(), t.inverse_mass.data(),
                     bond_vectors.data(), multipliers.data(), 1e-10, 1000};
  const std::vector<double> reference = flat(s.positions);
  std::vector<double> x = flat(moved);
  long long first = LLONG_MAX;
  for (int64_t k = 0; k < t.clusters(); ++k) {
    Virial9 unused;
    const int64_t f = shake_cluster(a, k, DeviceBox::of(s.box), reference.data(), x.data(), nullptr, 0.002, 1, unused);
    if (f >= 0) first = std::min<long long>(first, f);
  }
  ASSERT_NE(first, LLONG_MAX);
  EXPECT_EQ(t.bond_source[size_t(first)], 5 * 7 + 5);
  const std::string named = "SHAKE: constraint " + std::to_string(t.bond_source[size_t(first)]) + " (";
  EXPECT_EQ(message.rfind(named, 0), 0u) << message << " / " << named;
}

TEST(CudaSpongeHostSettle, WaterBoxMatchesConstraints) {
  Water water;
  const Constraints cpu(water.system);
  const ConstraintTopology t = constraint_topology(water.system);
  ASSERT_EQ(t.waters.size(), 64u);
  ASSERT_EQ(t.clusters(), 0);
  const State& s = water.state;
  const double dt = 0.002;
  std::vector<Vec3> moved = s.positions;
  for (size_t i = 0; i < moved.size(); ++i)
    moved[i] += dt * s.velocities[i] + Vec3{1e-4 * std::cos(double(i)), -2e-4 * std::sin(0.3 * double(i)), 5e-5};
  std::vector<Vec3> cpu_x = moved, cpu_v = s.velocities;
  Mat3 cpu_w;
  cpu.constrain_positions(s.box, s.positions, cpu_x, &cpu_v, dt, &cpu_w, 0.5 * dt * dt);

  const DeviceBox box = DeviceBox::of(s.box);
  const std::vector<double> reference = flat(s.positions);
  std::vector<double> x = flat(moved), v = flat(s.velocities);
  long long w[9] = {0};
  for (const SettleWater& m : t.waters) {
    Virial9 part;
    EXPECT_TRUE(settle_positions(m, box, reference.data(), x.data(), v.data(), dt, 0.5 * dt * dt, part));
    commit(w, part);
  }
  const double dx = max_gap(vecs(x), cpu_x), dw = max_gap(from_fixed9(w), cpu_w);
  std::printf("figure: SETTLE positions on 64 waters: |dx| %.2e nm, |dv| %.2e nm/ps, |dW| %.2e of %.2e\n", dx,
              max_gap(vecs(v), cpu_v), dw, max_abs(cpu_w));
  EXPECT_LT(dx, 1e-12);
  EXPECT_LT(max_gap(vecs(v), cpu_v), 1e-12);
  EXPECT_LT(dw, 1e-12 * max_abs(cpu_w) + 64 * 9 * 0x1p-33);
  EXPECT_GT(max_abs(cpu_w), 10);
  EXPECT_LT(cpu.max_deviation(s.box, vecs(x)), 1e-10);

  std::vector<Vec3> kicked = cpu_v;
  for (size_t i = 0; i < kicked.size(); ++i) kicked[i] += Vec3{0.5 * std::sin(1.7 * double(i)), 0.1, 0.2};
  std::vector<Vec3> cpu_sv = kicked;
  Mat3 cpu_sw;
  cpu.constrain_velocities(s.box, cpu_x, cpu_sv, &cpu_sw, 0.5 * dt);
  std::vector<double> sv = flat(kicked);
  const std::vector<double> at = flat(cpu_x);
  long long sw[9] = {0};
  for (const SettleWater& m : t.waters) {
    Virial9 part;
    settle_velocities(m, box, at.data(), sv.data(), 0.5 * dt, part);
    commit(sw, part);
  }
  EXPECT_LT(max_gap(vecs(sv), cpu_sv), 1e-12);
  EXPECT_LT(max_gap(from_fixed9(sw), cpu_sw), 1e-12 * max_abs(cpu_sw) + 64 * 9 * 0x1p-33);
  EXPECT_LT(cpu.max_velocity_deviation(s.box, cpu_x, vecs(sv)), 1e-10);
}

// ---- whole constrained steps ----

TEST(CudaSpongeHostSteps, ConstrainedClustersFollowTheCpu) {
  Clusters c;
  const auto forces = [&c] { return c.forces(); };
  // The fixed-point sums' bounds: 2^-33 per term (the constraint virial: 54 clusters per stage;
  // Langevin's heat: 2 x 216 particles per step).
  const double virial_rounding = 54 * 0x1p-33, heat_rounding = 2 * 216 * 10 * 0x1p-33;
  VelocityVerlet verlet(0.002);
  Gaps g = step_both(c.system, c.state, forces, verlet, 10);
  EXPECT_LT(g.position, 1e-12);
  EXPECT_LT(g.velocity, 1e-10);
  EXPECT_LT(g.virial, 1e-10 * g.virial_scale + virial_rounding);
  EXPECT_GT(g.virial_scale, 1);

  LangevinMiddle langevin(0.002, 300, 5, 31);
  g = step_both(c.system, c.state, forces, langevin, 10);
  EXPECT_LT(g.position, 1e-12);
  EXPECT_LT(g.velocity, 1e-10);
  EXPECT_LT(g.heat, heat_rounding);
  EXPECT_LT(g.virial, 1e-10 * g.virial_scale + virial_rounding);
}

TEST(CudaSpongeHostSteps, RigidWaterLangevinFollowsTheCpu) {
  Water water;
  LangevinMiddle langevin(0.002, 300, 1.0, 5);
  const Gaps g = step_both(water.system, water.state, [&water] { return water.forces(); }, langevin, 5);
  EXPECT_LT(g.position, 1e-12);
  EXPECT_LT(g.velocity, 1e-10);
  EXPECT_LT(g.heat, 2 * 192 * 5 * 0x1p-33);
  EXPECT_LT(g.virial, 1e-10 * g.virial_scale + 64 * 0x1p-33);
  EXPECT_GT(g.virial_scale, 10);
}

// ---- fixed-point sums ----

TEST(CudaSpongeHostSums, KineticEnergyAndMomentumHaveTheSameBitsInAnyOrder) {
  testing::LjFluid f;
  const int64_t n = f.system.size();
  std::vector<double> mass = f.system.mass;
  mass[3] = 0;
  const std::vector<double> v = flat(f.state.velocities);
  // Three orders: forward, backward, and a stride that visits every particle once.
  std::vector<std::vector<int64_t>> orders(3, std::vector<int64_t>(size_t(n)));
  for (int64_t i = 0; i < n; ++i) {
    orders[0][size_t(i)] = i;
    orders[1][size_t(i)] = n - 1 - i;
    orders[2][size_t(i)] = (i * 37) % n;
  }
  std::vector<std::array<long long, 4>> sums;
  for (const auto& order : orders) {
    std::array<long long, 4> s{0, 0, 0, 0};
    for (int64_t i : order) {
      accumulate(&s[0], twice_kinetic(i, mass.data(), v.data()));
      const V3 p = particle_momentum(i, mass.data(), v.data());
      accumulate(&s[1], p.x);
      accumulate(&s[2], p.y);
      accumulate(&s[3], p.z);
    }
    sums.push_back(s);
  }
  EXPECT_EQ(sums[0], sums[1]);
  EXPECT_EQ(sums[0], sums[2]);
  // And the value: the plain sums within one rounding (2^-33) per term.
  double twice = 0;
  Vec3 p;
  for (int64_t i = 0; i < n; ++i) {
    twice += mass[size_t(i)] * norm2(f.state.velocities[size_t(i)]);
    if (mass[size_t(i)] != 0) p += mass[size_t(i)] * f.state.velocities[size_t(i)];
  }
  EXPECT_NEAR(from_fixed(sums[0][0]), twice, double(n) * 0x1p-33 + 1e-13 * twice);
  EXPECT_NEAR(from_fixed(sums[0][1]), p.x, double(n) * 0x1p-33 + 1e-13);
  // The centre of mass's velocity and heat as MdIntegrator::step takes them.
  double total = 0;
  for (double m : mass)
    if (m != 0) total += m;
  const V3 v_com = com_velocity(&sums[0][1], total);
  EXPECT_NEAR(v_com.y, p.y / total, (double(n) * 0x1p-33 + 1e-13) / total);
  // M |v|^2 / 2 moves by M |v| |dv| for an error dv in v_com.
  EXPECT_NEAR(com_kinetic(v_com, total), 0.5 * total * norm2(p / total), 2 * norm(p) * double(n) * 0x1p-33 / total);
}

// ---- errors: what the platform runs ----

TEST(CudaSpongeHostScheme, OtherIntegratorsAndBarostatsAreNamedConfigErrors) {
  testing::LjFluid f;
  ThermostatPtr copy;
  const StepScheme nve = step_scheme(f.system, VelocityVerlet(0.005), copy);
  EXPECT_FALSE(nve.langevin || nve.thermostat || nve.constrained);
  EXPECT_EQ(copy, nullptr);
  EXPECT_EQ(nve.total_mass, 64);
  const StepScheme bussi =
      step_scheme(f.system, VelocityVerlet(0.005, std::make_shared<BussiThermostat>(1, 1, 3)), copy);
  EXPECT_TRUE(bussi.thermostat);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->name(), "bussi");
  EXPECT_EQ(copy->degrees_of_freedom(), 3 * 64 - 3);
  EXPECT_EQ(std::dynamic_pointer_cast<BussiThermostat>(copy)->seed(), 3u);

  class Leapfrog : public Integrator {
   public:
    Leapfrog() : Integrator(0.01) {}
    std::string name() const override { return "leapfrog"; }
    void step(const System&, State&, ForceField&) override {}
  };
  try {
    step_scheme(f.system, Leapfrog(), copy);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("the integrator leapfrog has no CUDA kernels; the cuda platform runs "
                                         "velocity_verlet"),
              std::string::npos)
        << e.what();
  }
  VelocityVerlet with_barostat(0.005);
  with_barostat.set_barostat(std::make_shared<MonteCarloBarostat>(1.0, 1.0));
  try {
    step_scheme(f.system, with_barostat, copy);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("barostat runs on the cpu platform only"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::sponge::cuda
