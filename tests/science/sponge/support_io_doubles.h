// Test doubles for io's tests (simulation, thermo, H5MD, checkpoint): a harmonic spring Force with
// its exact virial, and a small integrator (velocity Verlet followed by a Langevin velocity update
// with Philox noise and a saved heat variable) that exercises everything a checkpoint must carry:
// positions, velocities, step (the noise counter), the seed, and integrator variables.
#pragma once
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <memory>

#include "science/sponge/force.h"
#include "science/sponge/force_field.h"
#include "science/sponge/integrator.h"
#include "science/sponge/md_random.h"
#include "science/sponge/simulation.h"

namespace spire::sponge::testing {

struct Spring {
  int i, j;
  double k, r0;
};

// E = sum k/2 (|r_ij| - r0)^2 over the springs, r_ij minimum-imaged.
class SpringForce : public Force {
 public:
  SpringForce(std::string name, std::vector<Spring> springs) : name_(std::move(name)), springs_(std::move(springs)) {}
  std::string name() const override { return name_; }
  void add(const System&, const State& state, const NeighborList*, ForceResult& out) override {
    double e = 0;
    for (const Spring& s : springs_) {
      const Vec3 d = state.box.periodic() ? state.box.min_image(state.positions[s.i] - state.positions[s.j])
                                          : state.positions[s.i] - state.positions[s.j];
      const double r = norm(d);
      e += 0.5 * s.k * (r - s.r0) * (r - s.r0);
      const Vec3 f = d * (-s.k * (r - s.r0) / r);  // on i
      out.forces[s.i] += f;
      out.forces[s.j] -= f;
      out.virial.add_outer(d, f);
    }
    out.add_energy(name_, e);
  }
  double energy(const State& state) const {
    double e = 0;
    for (const Spring& s : springs_) {
      const Vec3 d = state.box.periodic() ? state.box.min_image(state.positions[s.i] - state.positions[s.j])
                                          : state.positions[s.i] - state.positions[s.j];
      e += 0.5 * s.k * (norm(d) - s.r0) * (norm(d) - s.r0);
    }
    return e;
  }

 private:
  std::string name_;
  std::vector<Spring> springs_;
};

// Velocity Verlet, then v <- c v + sqrt((1 - c^2) kT / m) z with z from Philox(seed, step, particle);
// heat accumulates the kinetic energy the noise step adds (saved and restored).
class NoisyVerlet : public Integrator {
 public:
  NoisyVerlet(double dt, double friction, double kT, uint64_t seed)
      : Integrator(dt), friction_(friction), kT_(kT), random_(seed) {}
  std::string name() const override { return "noisy_verlet"; }
  void step(const System& system, State& state, ForceField& forces) override {
    const size_t n = state.positions.size();
    const std::vector<Vec3>& f0 = forces.result().forces;
    for (size_t i = 0; i < n; ++i)
      if (system.mass[i] > 0) state.velocities[i] += f0[i] * (0.5 * dt_ / system.mass[i]);
    for (size_t i = 0; i < n; ++i) state.positions[i] += state.velocities[i] * dt_;
    const std::vector<Vec3>& f1 = forces.compute(system, state).forces;
    for (size_t i = 0; i < n; ++i)
      if (system.mass[i] > 0) state.velocities[i] += f1[i] * (0.5 * dt_ / system.mass[i]);
    const double c = std::exp(-friction_ * dt_);
    for (size_t i = 0; i < n; ++i) {
      const double m = system.mass[i];
      if (m == 0) continue;
      const double before = 0.5 * m * dot(state.velocities[i], state.velocities[i]);
      const Vec3 z = random_.normal3(RandomTag::langevin, uint64_t(state.step), i);
      state.velocities[i] = state.velocities[i] * c + z * std::sqrt((1 - c * c) * kT_ / m);
      heat_ += 0.5 * m * dot(state.velocities[i], state.velocities[i]) - before;
    }
    state.time += dt_;
    state.step += 1;
  }
  // A nested key and an empty array, as integrators may save.
  IntegratorState save_state() const override { return {{"noise/heat", {heat_}}, {"unused", {}}}; }
  void load_state(const IntegratorState& s) override { heat_ = s.at("noise/heat").at(0); }
  double heat() const { return heat_; }

 private:
  double friction_, kT_;
  MdRandom random_;
  double heat_ = 0;
};

// Four particles (two O-H pairs) in md or lj units: "bonds" within the pairs, "springs" across.
struct Toy {
  System system;
  State state;
  std::vector<Spring> bonds = {{0, 1, 1000.0, 0.1}, {2, 3, 1000.0, 0.1}};
  std::vector<Spring> springs = {{1, 2, 5.0, 1.2}, {0, 3, 3.0, 1.4}};

  ForceField forces() const {
    ForceField ff;
    ff.add(std::make_shared<SpringForce>("bonds", bonds));
    ff.add(std::make_shared<SpringForce>("springs", springs));
    return ff;
  }
};

inline Toy toy(const Units& units = Units::md(), bool periodic = true) {
  Toy t;
  t.system.units = units;
  for (int i = 0; i < 4; ++i) t.system.add_particle(i % 2 ? 1.008 : 15.999, i % 2 ? 0.41 : -0.41, i % 2 ? "H" : "O");
  t.state.positions = {{0.1, 0.2, 0.3}, {0.19, 0.23, 0.33}, {1.4, 1.5, 1.2}, {1.45, 1.58, 1.27}};
  t.state.velocities = {{0.3, -0.2, 0.1}, {-1.1, 0.7, 0.4}, {0.05, 0.25, -0.3}, {0.9, -0.6, -1.2}};
  if (periodic) t.state.box = Box::orthorhombic(3.0, 3.2, 3.4);
  return t;
}

// Options of a Simulation that prints no progress lines, with the seed given.
inline SimulationOptions quiet(uint64_t seed) {
  SimulationOptions o;
  o.progress_seconds = 0;
  o.seed = seed;
  return o;
}

}  // namespace spire::sponge::testing
