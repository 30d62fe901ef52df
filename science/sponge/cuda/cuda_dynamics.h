// The cuda platform's dynamics (platform.h's DeviceDynamics on one GPU): positions, velocities
// and forces live on the device, the forces come from a DeviceForceField, and whole steps of the
// host integrator's scheme run there, in the same sequence of operations as md_integrator.cpp,
// velocity_verlet.cpp, langevin.cpp and constraints.cpp:
//
//   velocity_verlet, NVE or with a bussi, berendsen or nose_hoover thermostat (thermostat.h): the
//     thermostat's factor comes from a host copy of the integrator's thermostat given the kinetic
//     energy summed on the device (one small read back per half step), so its variables and random
//     draws are exactly the cpu's for the same kinetic energies;
//   langevin_middle (BAOAB): the noise drawn on the device from the cpu's Philox streams, bit for
//     bit, projected onto the constraints, its heat booked as on the cpu;
//   SHAKE/RATTLE clusters and SETTLE waters with the constraint virial; centre-of-mass motion
//     removal with its heat.
//
// Anything else (another integrator, a barostat) is a ConfigError at construction naming what the
// platform runs. Sums (kinetic energy, momentum, virials) are fixed point, so a run has the same
// bits every time; it follows the cpu's trajectory to the rounding of those sums and of the
// forces (fixed_point.cuh), which chaotic dynamics amplifies over many steps.
//
// Every call makes the platform's device current for its duration (the caller's stays current
// afterwards); work goes to the platform's own non-blocking stream.
#pragma once
#include <memory>
#include <string>

#include "science/sponge/platform.h"

namespace spire::sponge::cuda {

class CudaDynamics : public DeviceDynamics {
 public:
  // ConfigError when there is no such CUDA device, or for an integrator, thermostat, barostat or
  // force term this platform does not run; Constraints' ValueErrors for bad constraints.
  CudaDynamics(const System& system, const ForceField& forces, const Integrator& integrator, int device);
  ~CudaDynamics() override;
  CudaDynamics(const CudaDynamics&) = delete;
  CudaDynamics& operator=(const CudaDynamics&) = delete;

  std::string device() const override;
  void upload(const State& state, const IntegratorState& variables) override;
  // ValueError naming the constraint, as the cpu's, when SHAKE, RATTLE or SETTLE failed in these
  // steps (the state is then not usable: upload another).
  void run(int64_t steps) override;
  void download(State& state, ForceResult& forces, IntegratorState& variables, Mat3& constraint_virial) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace spire::sponge::cuda
