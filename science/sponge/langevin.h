// Langevin dynamics by the BAOAB splitting (Leimkuhler and Matthews, Appl. Math. Res. Express
// 2013, 34; J. Chem. Phys. 138, 174102), the scheme of OpenMM's LangevinMiddleIntegrator:
//
//   B  v += dt/2 F/m
//   A  r += dt/2 v
//   O  v = a v + sqrt((1 - a^2) k_B T / m) R,   a = exp(-gamma dt)   (the noise projected onto
//      the constraints at the step's starting positions, which satisfy them)
//   A  r += dt/2 v,  then SHAKE/SETTLE (v += correction / dt)
//   B  F = F(r),  v += dt/2 F/m,  then RATTLE/SETTLE on v
//
// Putting the whole thermostat in the middle makes the configurational distribution exact for
// harmonic systems and accurate to O(dt^2) otherwise, better than schemes with the noise at the
// ends; OpenMM reports the leapfrog half-step velocities, this class the whole-step ones after
// the last B (OpenMM's positions, the same trajectory). friction = 0 is velocity Verlet.
//
// Noise: the standard normals of particle i at step n are Philox draws (stream "langevin",
// counter n, index 2i and 2i + 1) under the seed: the same for any thread count and on restart.
// Heat: the kinetic-energy change of every O step (md_integrator.h's conserved quantity).
#pragma once
#include <cstdint>

#include "science/sponge/md_integrator.h"
#include "science/sponge/md_random.h"

namespace spire::sponge {

class LangevinMiddle : public MdIntegrator {
 public:
  // dt > 0, temperature > 0, friction >= 0 (1 / time unit: 1/ps in md).
  LangevinMiddle(double dt, double temperature, double friction, uint64_t seed, DynamicsOptions options = {});
  std::string name() const override { return "langevin_middle"; }
  double temperature() const { return temperature_; }
  double friction() const { return friction_; }
  uint64_t seed() const { return random_.seed(); }
  // The kinetic energy of the velocities just after the latest step's O update (OpenMM's
  // LangevinMiddle reports these "middle" velocities): Maxwell-Boltzmann exactly for a harmonic
  // system, while the whole-step velocities' kinetic energy is low by O(dt^2) (about
  // (omega dt)^2 / 4 per mode of frequency omega: 0.3% for dense LJ at dt = 0.005).
  double middle_kinetic_energy() const { return middle_kinetic_; }

 protected:
  void advance(const System& system, State& state, ForceField& forces) override;

 private:
  double temperature_, friction_;
  MdRandom random_;
  std::vector<Vec3> noise_;
  double middle_kinetic_ = 0;
};

}  // namespace spire::sponge
