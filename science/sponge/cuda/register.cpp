// Registers the "cuda" platform (platform.h) when libspire_sponge_cuda is loaded: programs that
// link it (the CLI, the Python module, through spire_sponge_platforms) can then run a Simulation
// with platform "cuda" or "cuda:N"; spire_sponge itself never links CUDA.
#include "science/sponge/cuda/cuda_dynamics.h"

namespace spire::sponge::cuda {
namespace {

// The run's seed is not needed: the integrators here draw their noise from their own seeds, as on
// the cpu (LangevinMiddle::seed, BussiThermostat::seed).
const bool kRegistered = [] {
  register_platform("cuda", [](const System& system, const ForceField& forces, const Integrator& integrator, uint64_t,
                               int device) -> std::unique_ptr<DeviceDynamics> {
    return std::make_unique<CudaDynamics>(system, forces, integrator, device);
  });
  return true;
}();

}  // namespace
}  // namespace spire::sponge::cuda
