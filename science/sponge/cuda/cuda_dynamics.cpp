// The cuda platform's steps (cuda_dynamics.h): the device's operations of the step sequence
// advance() (integrator_kernels.cuh, the same code the host tests run with loops) as launches of
// the kernels of integrator_kernels.cuh and constraint_kernels.cuh and DeviceForceField::compute,
// and the state's way to and from the host.
#include "science/sponge/cuda/cuda_dynamics.h"

#include <cuda_runtime_api.h>

#include <climits>
#include <vector>

#include "engine/backends/cuda/runtime.h"
#include "engine/core/error.h"
#include "science/sponge/cuda/constraint_kernels.cuh"
#include "science/sponge/cuda/device_box.cuh"
#include "science/sponge/cuda/device_buffer.h"
#include "science/sponge/cuda/device_force_field.h"
#include "science/sponge/cuda/integrator_kernels.cuh"
#include "science/sponge/saved_state.h"

namespace spire::sponge::cuda {
namespace {

static_assert(sizeof(Vec3) == 3 * sizeof(double), "State arrays are copied as arrays of doubles");

// Failures by kind (constraint_kernels.cuh's outputs.failed): SHAKE bond, RATTLE bond, SETTLE water.
constexpr int kFailureSlots = 3;

// The device's index checked against the machine's devices.
void check_device(int device) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();
    throw ConfigError(detail::cat("platform cuda: no usable CUDA device here (", cudaGetErrorName(err), ": ",
                                  cudaGetErrorString(err), "); run on platform \"cpu\""));
  }
  SPIRE_CHECK(count > 0, ConfigError, "platform cuda: this machine has no CUDA device; run on platform \"cpu\"");
  SPIRE_CHECK(device >= 0 && device < count, ConfigError, "platform cuda:", device, ": this machine has ", count,
              " CUDA device", count == 1 ? "" : "s", ", cuda:0", count > 1 ? detail::cat(" to cuda:", count - 1) : "");
}

// A few values of pinned host memory, for reads that wait on the stream.
class PinnedSlots {
 public:
  explicit PinnedSlots(size_t n) {
    SPIRE_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), n * sizeof(long long)),
                     "cudaMallocHost (sponge)");
  }
  ~PinnedSlots() { cudaFreeHost(data_); }
  PinnedSlots(const PinnedSlots&) = delete;
  PinnedSlots& operator=(const PinnedSlots&) = delete;
  long long* data() { return data_; }

 private:
  long long* data_ = nullptr;
};

}  // namespace

struct CudaDynamics::Impl {
  int device = 0;
  std::string description;
  cudaStream_t stream = nullptr;

  StepScheme scheme;
  ThermostatPtr thermostat;  // a copy of the integrator's (velocity Verlet's; null: none)
  int64_t n = 0;

  // Constraints, as Constraints lays them out.
  ConstraintTopology topology;
  ConstraintArrays arrays;  // device pointers into `mem`

  // Everything in device (or pinned) memory, freed with its device current (~Impl).
  struct Memory {
    DeviceBuffer<ConstrainedBond> bonds;
    DeviceBuffer<int64_t> cluster_begin;
    DeviceBuffer<SettleWater> waters;
    DeviceBuffer<double> inverse_mass, bond_vectors, multipliers;
    DeviceBuffer<double> mass, position, velocity, force, reference, noise, heat;
    DeviceBuffer<long long> sums, failed;
    PinnedSlots pinned{kStepSlots + kFailureSlots};
    std::unique_ptr<DeviceForceField> forces;
  };
  std::unique_ptr<Memory> mem;

  Box box;
  DeviceBox device_box;
  double time = 0;
  int64_t step = 0;
  int64_t first_step_of_chunk = 0;

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  // No throwing here (a destructor): the device is switched by hand rather than by ScopedDevice.
  ~Impl() {
    int previous = -1;
    const bool switched =
        cudaGetDevice(&previous) == cudaSuccess && previous != device && cudaSetDevice(device) == cudaSuccess;
    if (stream) cudaStreamSynchronize(stream);
    mem.reset();  // the force field's work is on the stream: it goes first
    if (stream) cudaStreamDestroy(stream);
    if (switched) cudaSetDevice(previous);
    cudaGetLastError();
  }

  // ---- the Ops of advance() (integrator_kernels.cuh): kernel launches on the stream ----

  int64_t waters() const { return int64_t(topology.waters.size()); }
  void zero_sums() { mem->sums.zero(stream); }
  void kick_drift(double kick, double drift) {
    launch_kick_drift(n, kick, drift, mem->mass.data(), mem->force.data(), mem->velocity.data(), mem->position.data(),
                      scheme.constrained ? mem->reference.data() : nullptr, stream);
  }
  void drift(double h) { launch_drift(n, h, mem->mass.data(), mem->velocity.data(), mem->position.data(), stream); }
  void kick(double h) { launch_kick(n, h, mem->mass.data(), mem->force.data(), mem->velocity.data(), stream); }
  void scale(double s) { launch_scale(n, s, mem->mass.data(), mem->velocity.data(), stream); }
  long long twice_kinetic(int slot) {
    launch_twice_kinetic(n, mem->mass.data(), mem->velocity.data(), mem->sums.data() + slot, stream);
    SPIRE_CUDA_CHECK(cudaMemcpyAsync(mem->pinned.data(), mem->sums.data() + slot, sizeof(long long),
                                     cudaMemcpyDeviceToHost, stream),
                     "cudaMemcpyAsync (sponge kinetic energy)");
    SPIRE_CUDA_CHECK(cudaStreamSynchronize(stream), "cudaStreamSynchronize (sponge kinetic energy)");
    return mem->pinned.data()[0];
  }
  double thermostat_factor(double kinetic, int64_t at_step, int half) {
    return thermostat->scale(kinetic, 0.5 * scheme.dt, at_step, half);
  }
  void langevin_noise(const LangevinStep& o) {
    launch_langevin_noise(n, o, mem->mass.data(), mem->noise.data(), stream);
  }
  void constrain_noise() {
    launch_constrain_velocities(arrays, topology.clusters(), waters(), device_box, mem->reference.data(),
                                mem->noise.data(), 1, {nullptr, mem->failed.data()}, stream);
  }
  void langevin_o(const LangevinStep& o, bool projected) {
    launch_langevin_o(n, o, mem->mass.data(), projected ? mem->noise.data() : nullptr, mem->velocity.data(),
                      mem->sums.data() + kKineticBefore, stream);
  }
  void langevin_heat() { launch_langevin_heat(mem->sums.data() + kKineticBefore, mem->heat.data(), stream); }
  void constrain_positions(double dt, double position_factor) {
    launch_constrain_positions(arrays, topology.clusters(), waters(), device_box, mem->reference.data(),
                               mem->position.data(), mem->velocity.data(), dt, position_factor,
                               {mem->sums.data() + kPositionVirial, mem->failed.data()}, stream);
  }
  void compute_forces() { mem->forces->compute(mem->position.data(), box, mem->force.data()); }
  void constrain_velocities(double velocity_factor, int virial_slot) {
    launch_constrain_velocities(arrays, topology.clusters(), waters(), device_box, mem->position.data(),
                                mem->velocity.data(), velocity_factor,
                                {mem->sums.data() + virial_slot, mem->failed.data()}, stream);
  }
  void remove_com(double mass_total) {
    launch_momentum(n, mem->mass.data(), mem->velocity.data(), mem->sums.data() + kMomentum, stream);
    launch_remove_com(n, mass_total, mem->mass.data(), mem->sums.data() + kMomentum, mem->velocity.data(),
                      mem->heat.data(), stream);
  }

  // A failed constraint in the steps since the last check, named as the cpu names it.
  void check_failures() {
    long long* f = mem->pinned.data() + kStepSlots;
    mem->failed.download(f, kFailureSlots, stream);
    if (f[0] == LLONG_MAX && f[1] == LLONG_MAX && f[2] == LLONG_MAX) return;
    const long long shake = f[0], rattle = f[1], settle = f[2];
    rearm_failures();
    const std::string when =
        detail::cat(" (on ", description, ", within steps ", first_step_of_chunk + 1, " to ", step, ")");
    if (shake != LLONG_MAX) {
      const ConstrainedBond& b = topology.bonds[size_t(shake)];
      throw ValueError(detail::cat("SHAKE: constraint ", topology.bond_source[size_t(shake)], " (particles ", b.i, "-",
                                   b.j, ", length ", b.length, ") did not converge to tolerance ",
                                   scheme.constraints.tolerance, " in ", scheme.constraints.max_iterations,
                                   " iterations", when, "; the time step is likely too long or the forces too large"));
    }
    if (settle != LLONG_MAX)
      throw ValueError(detail::cat("SETTLE: rigid water ", settle, " (oxygen ", topology.waters[size_t(settle)].o,
                                   ") moved too far from its geometry in one step to be solved", when,
                                   "; the time step is likely too long or the forces too large"));
    const ConstrainedBond& b = topology.bonds[size_t(rattle)];
    throw ValueError(detail::cat("RATTLE: the velocities of constraint ", topology.bond_source[size_t(rattle)],
                                 " (particles ", b.i, "-", b.j, ") did not converge to tolerance ",
                                 scheme.constraints.tolerance, " in ", scheme.constraints.max_iterations,
                                 " iterations", when));
  }

  void rearm_failures() {
    const std::vector<long long> none(kFailureSlots, LLONG_MAX);
    mem->failed.upload(none, stream);
  }
};

CudaDynamics::CudaDynamics(const System& system, const ForceField& forces, const Integrator& integrator, int device)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  // What it runs: checked before any device work, so the message is the same on machines without one.
  system.check();
  m.scheme = step_scheme(system, integrator, m.thermostat);
  m.n = system.size();

  check_device(device);
  m.device = device;
  spire::cuda::ScopedDevice on(device);
  cudaDeviceProp props{};
  SPIRE_CUDA_CHECK(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
  m.description = detail::cat("cuda:", device, " (", props.name, ")");
  SPIRE_CUDA_CHECK(cudaStreamCreateWithFlags(&m.stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (sponge)");
  m.mem = std::make_unique<Impl::Memory>();

  m.topology = constraint_topology(system);
  m.mem->bonds.upload(m.topology.bonds, m.stream);
  m.mem->cluster_begin.upload(m.topology.cluster_begin, m.stream);
  m.mem->waters.upload(m.topology.waters, m.stream);
  m.mem->inverse_mass.upload(m.topology.inverse_mass, m.stream);
  m.mem->bond_vectors.resize(3 * m.topology.bonds.size());
  m.mem->multipliers.resize(m.topology.bonds.size());
  m.arrays.bonds = m.mem->bonds.data();
  m.arrays.cluster_begin = m.mem->cluster_begin.data();
  m.arrays.waters = m.mem->waters.data();
  m.arrays.inverse_mass = m.mem->inverse_mass.data();
  m.arrays.bond_vectors = m.mem->bond_vectors.data();
  m.arrays.multipliers = m.mem->multipliers.data();
  m.arrays.tolerance = m.scheme.constraints.tolerance;
  m.arrays.max_iterations = m.scheme.constraints.max_iterations;

  const size_t n3 = 3 * size_t(m.n);
  m.mem->mass.upload(system.mass, m.stream);
  m.mem->position.resize(n3);
  m.mem->velocity.resize(n3);
  m.mem->force.resize(n3);
  if (m.scheme.constrained) m.mem->reference.resize(n3);
  if (m.scheme.langevin && m.scheme.constrained) m.mem->noise.resize(n3);
  m.mem->heat.resize(1);
  m.mem->heat.zero(m.stream);
  m.mem->sums.resize(kStepSlots);
  m.mem->sums.zero(m.stream);  // no constraint virial before the first step
  m.mem->failed.resize(kFailureSlots);
  m.rearm_failures();
  m.mem->forces = std::make_unique<DeviceForceField>(system, forces, m.stream);
  SPIRE_CUDA_CHECK(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (sponge setup)");
}

CudaDynamics::~CudaDynamics() = default;

std::string CudaDynamics::device() const { return impl_->description; }

void CudaDynamics::upload(const State& state, const IntegratorState& variables) {
  Impl& m = *impl_;
  SPIRE_CHECK(int64_t(state.positions.size()) == m.n && int64_t(state.velocities.size()) == m.n, ValueError,
              "platform cuda: the state has ", state.positions.size(), " positions and ", state.velocities.size(),
              " velocities for a system of ", m.n, " particles");
  const double heat = saved_value(variables, "integrator.heat");
  if (m.thermostat) m.thermostat->load_state(variables);
  spire::cuda::ScopedDevice on(m.device);
  m.mem->position.upload(reinterpret_cast<const double*>(state.positions.data()), 3 * size_t(m.n), m.stream);
  m.mem->velocity.upload(reinterpret_cast<const double*>(state.velocities.data()), 3 * size_t(m.n), m.stream);
  m.mem->heat.upload(&heat, 1, m.stream);
  m.box = state.box;
  m.device_box = DeviceBox::of(state.box);
  m.time = state.time;
  m.step = state.step;
  m.mem->forces->compute(m.mem->position.data(), m.box, m.mem->force.data());
  SPIRE_CUDA_CHECK(cudaStreamSynchronize(m.stream), "cudaStreamSynchronize (sponge upload)");
}

void CudaDynamics::run(int64_t steps) {
  Impl& m = *impl_;
  SPIRE_CHECK(steps >= 1, ValueError, "platform cuda: run(", steps, "): the number of steps must be >= 1");
  spire::cuda::ScopedDevice on(m.device);
  m.first_step_of_chunk = m.step;
  for (int64_t k = 0; k < steps; ++k) {
    advance(m, m.scheme, m.step);
    m.time += m.scheme.dt;
    m.step += 1;
  }
  m.check_failures();
}

void CudaDynamics::download(State& state, ForceResult& forces, IntegratorState& variables, Mat3& constraint_virial) {
  Impl& m = *impl_;
  spire::cuda::ScopedDevice on(m.device);
  const size_t n = size_t(m.n);
  state.positions.resize(n);
  state.velocities.resize(n);
  forces.forces.resize(n);
  m.mem->position.download(reinterpret_cast<double*>(state.positions.data()), 3 * n, m.stream);
  m.mem->velocity.download(reinterpret_cast<double*>(state.velocities.data()), 3 * n, m.stream);
  m.mem->force.download(reinterpret_cast<double*>(forces.forces.data()), 3 * n, m.stream);
  state.box = m.box;
  state.time = m.time;
  state.step = m.step;
  m.mem->forces->download(forces);

  double heat = 0;
  m.mem->heat.download(&heat, 1, m.stream);
  variables.clear();
  variables["integrator.heat"] = {heat};
  if (m.thermostat) m.thermostat->save_state(variables);

  long long* sums = m.mem->pinned.data();
  m.mem->sums.download(sums, kStepSlots, m.stream);
  // MdIntegrator::finish_step: the mean of the position and velocity stages.
  for (int k = 0; k < 9; ++k)
    constraint_virial.m[size_t(k)] =
        (from_fixed(sums[kPositionVirial + k]) + from_fixed(sums[kVelocityVirial + k])) * 0.5;
}

}  // namespace spire::sponge::cuda
