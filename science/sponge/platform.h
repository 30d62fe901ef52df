// Platforms: where a Simulation's steps run (OpenMM's Platform). "cpu" is this library's own
// kernels, the reference every other platform is tested against. Other platforms live in their
// own libraries (libspire_sponge_cuda: "cuda"), which register a factory here when they are
// loaded, so spire_sponge itself never links CUDA and one build serves machines with and without
// a GPU.
//
// A platform runs whole steps on its device: the System, the force terms and the integrator are
// uploaded once; positions, velocities and forces stay on the device between steps, and the host
// State is brought up to date only when something on the host needs it (a reporter, a callback,
// the end of run()). The Simulation (simulation.h) decides when; the platform never reports.
//
// What a platform must give back is what the CPU path leaves behind after the same steps: the
// state, the forces with their energies per term and virial, the integrator's variables (heat,
// thermostat; Integrator::save_state's keys) and the constraint virial, so that observables,
// logs, trajectories and checkpoints are written by the same host code on every platform, and a
// checkpoint written on one platform restarts on another.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "science/sponge/integrator.h"

namespace spire::sponge {

// "cpu", or a registered platform's name with an optional device index: "cuda", "cuda:1".
struct PlatformChoice {
  std::string name = "cpu";
  int device = 0;
};
// ConfigError naming the text and the platforms this build has when `text` is not one of them (or
// has a bad device index).
PlatformChoice parse_platform(const std::string& text);

class DeviceDynamics {
 public:
  virtual ~DeviceDynamics() = default;
  // The device in words, for logs: "cuda:0 (NVIDIA H100 80GB HBM3)".
  virtual std::string device() const = 0;
  // Takes `state` and the integrator's `variables` (Integrator::save_state()) as the device's own
  // and computes the forces there. Called before the first step and whenever the host changed the
  // state (a callback's modify_state(), restore()).
  virtual void upload(const State& state, const IntegratorState& variables) = 0;
  // Advances `steps` >= 1 steps on the device, as Integrator::step would on the CPU.
  virtual void run(int64_t steps) = 0;
  // The device's current state (positions, velocities, box, time, step) into `state`; the forces,
  // energies per term (the CPU terms' names, in their order) and virial at it into `forces`; the
  // integrator's variables into `variables`; the constraint virial of the latest step.
  virtual void download(State& state, ForceResult& forces, IntegratorState& variables, Mat3& constraint_virial) = 0;
};

// Makes the platform's dynamics for a system, its force field and its integrator (whose type and
// settings the platform reads; it may not run every kind: ConfigError naming what it cannot run
// and what it can). `seed` is the run's (SimulationOptions::seed), `device` the index to run on.
using DeviceDynamicsFactory = std::function<std::unique_ptr<DeviceDynamics>(
    const System& system, const ForceField& forces, const Integrator& integrator, uint64_t seed, int device)>;

// Called by a platform library's static initialiser. Registering a name twice replaces it.
void register_platform(const std::string& name, DeviceDynamicsFactory factory);
// "cpu" first, then the registered platforms in name order.
std::vector<std::string> platforms();
// The registered platform's dynamics; ConfigError for "cpu" (which has none: the Simulation runs
// its own integrator) or a name no library registered, naming the ones there are.
std::unique_ptr<DeviceDynamics> make_device_dynamics(const PlatformChoice& platform, const System& system,
                                                     const ForceField& forces, const Integrator& integrator,
                                                     uint64_t seed);

}  // namespace spire::sponge
