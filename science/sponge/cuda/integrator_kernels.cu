// The integrators' kernels (integrator_kernels.cuh): thin wrappers, one thread per particle, around
// the bodies; the ones that sum commit their fixed-point terms per block.
#include "science/sponge/cuda/integrator_kernels.cuh"
#include "science/sponge/cuda/launch.cuh"

namespace spire::sponge::cuda {
namespace {

// Every thread of the block reaches block_commit, so none returns early.
__global__ void twice_kinetic_kernel(int64_t n, const double* mass, const double* velocity, long long* total) {
  const int64_t i = item_index();
  const long long v[1] = {i < n ? to_fixed(twice_kinetic(i, mass, velocity)) : 0};
  block_commit<1>(total, v);
}

__global__ void langevin_o_kernel(int64_t n, LangevinStep o, const double* mass, const double* noise, double* velocity,
                                  long long* kinetic) {
  const int64_t i = item_index();
  long long v[2] = {0, 0};
  if (i < n) {
    const KineticPair k = langevin_o_particle(i, o, mass, noise, velocity);
    v[0] = to_fixed(k.before), v[1] = to_fixed(k.after);
  }
  block_commit<2>(kinetic, v);
}

__global__ void momentum_kernel(int64_t n, const double* mass, const double* velocity, long long* momentum) {
  const int64_t i = item_index();
  long long v[3] = {0, 0, 0};
  if (i < n) {
    const V3 p = particle_momentum(i, mass, velocity);
    v[0] = to_fixed(p.x), v[1] = to_fixed(p.y), v[2] = to_fixed(p.z);
  }
  block_commit<3>(momentum, v);
}

// LangevinMiddle's heat_ += middle_kinetic_ - before, both kinetic energies halves of the sums.
__global__ void langevin_heat_kernel(const long long* kinetic, double* heat) { *heat += langevin_heat_change(kinetic); }

// Every thread works out v_com from the sums (three divisions: cheaper than another launch); the
// first also books the kinetic energy removed as heat, as MdIntegrator::step does.
__global__ void remove_com_kernel(int64_t n, double total_mass, const double* mass, const long long* momentum,
                                  double* velocity, double* heat) {
  const int64_t i = item_index();
  if (i >= n) return;
  const V3 v_com = com_velocity(momentum, total_mass);
  if (i == 0) *heat -= com_kinetic(v_com, total_mass);
  remove_com_particle(i, v_com, mass, velocity);
}

}  // namespace

void launch_kick_drift(int64_t n, double kick, double drift, const double* mass, const double* force, double* velocity,
                       double* position, double* reference, cudaStream_t stream) {
  launch_each(n, stream, "kick and drift", [=] __device__(int64_t i) {
    kick_drift_particle(i, kick, drift, mass, force, velocity, position, reference);
  });
}

void launch_kick(int64_t n, double h, const double* mass, const double* force, double* velocity, cudaStream_t stream) {
  launch_each(n, stream, "kick", [=] __device__(int64_t i) { kick_particle(i, h, mass, force, velocity); });
}

void launch_drift(int64_t n, double h, const double* mass, const double* velocity, double* position,
                  cudaStream_t stream) {
  launch_each(n, stream, "drift", [=] __device__(int64_t i) { drift_particle(i, h, mass, velocity, position); });
}

void launch_scale(int64_t n, double s, const double* mass, double* velocity, cudaStream_t stream) {
  launch_each(n, stream, "velocity scaling", [=] __device__(int64_t i) { scale_particle(i, s, mass, velocity); });
}

void launch_twice_kinetic(int64_t n, const double* mass, const double* velocity, long long* total,
                          cudaStream_t stream) {
  if (n <= 0) return;
  twice_kinetic_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, mass, velocity, total);
  SPIRE_CUDA_CHECK(cudaGetLastError(), "kinetic energy");
}

void launch_langevin_noise(int64_t n, const LangevinStep& o, const double* mass, double* noise, cudaStream_t stream) {
  launch_each(n, stream, "langevin noise", [=] __device__(int64_t i) {
    const V3 r = langevin_noise(i, o, mass);
    noise[3 * i] = r.x, noise[3 * i + 1] = r.y, noise[3 * i + 2] = r.z;
  });
}

void launch_langevin_o(int64_t n, const LangevinStep& o, const double* mass, const double* noise, double* velocity,
                       long long* kinetic, cudaStream_t stream) {
  if (n <= 0) return;
  langevin_o_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, o, mass, noise, velocity, kinetic);
  SPIRE_CUDA_CHECK(cudaGetLastError(), "langevin O update");
}

void launch_langevin_heat(const long long* kinetic, double* heat, cudaStream_t stream) {
  langevin_heat_kernel<<<1, 1, 0, stream>>>(kinetic, heat);
  SPIRE_CUDA_CHECK(cudaGetLastError(), "langevin heat");
}

void launch_momentum(int64_t n, const double* mass, const double* velocity, long long* momentum, cudaStream_t stream) {
  if (n <= 0) return;
  momentum_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, mass, velocity, momentum);
  SPIRE_CUDA_CHECK(cudaGetLastError(), "centre-of-mass momentum");
}

void launch_remove_com(int64_t n, double total_mass, const double* mass, const long long* momentum, double* velocity,
                       double* heat, cudaStream_t stream) {
  if (n <= 0) return;
  remove_com_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, total_mass, mass, momentum, velocity, heat);
  SPIRE_CUDA_CHECK(cudaGetLastError(), "centre-of-mass removal");
}

}  // namespace spire::sponge::cuda
