// The constraint kernels (constraint_kernels.cuh): one thread per SHAKE/RATTLE cluster or SETTLE
// water around the bodies, the virial committed per block in fixed point, failures by atomic
// minimum.
#include "science/sponge/cuda/constraint_kernels.cuh"
#include "science/sponge/cuda/integrator_kernels.cuh"
#include "science/sponge/cuda/launch.cuh"

namespace spire::sponge::cuda {
namespace {

// The thread's virial into the totals (every thread of the block calls it when there are totals).
__device__ void commit_virial(const ConstraintOutputs& out, const Virial9& w) {
  if (!out.virial) return;  // the same for every thread: a launch parameter
  long long v[9];
  for (int k = 0; k < 9; ++k) v[k] = to_fixed(w.w[k]);
  block_commit<9>(out.virial, v);
}

__device__ void report_failure(long long* slot, int64_t index) { atomicMin(slot, (long long)index); }

__global__ void shake_kernel(ConstraintArrays a, int64_t clusters, DeviceBox box, const double* reference,
                             double* positions, double* velocities, double dt, double position_factor,
                             ConstraintOutputs out) {
  const int64_t c = item_index();
  Virial9 w;
  if (c < clusters) {
    const int64_t failed = shake_cluster(a, c, box, reference, positions, velocities, dt, position_factor, w);
    if (failed >= 0) report_failure(out.failed + 0, failed);
  }
  commit_virial(out, w);
}

__global__ void settle_positions_kernel(ConstraintArrays a, int64_t waters, DeviceBox box, const double* reference,
                                        double* positions, double* velocities, double dt, double position_factor,
                                        ConstraintOutputs out) {
  const int64_t u = item_index();
  Virial9 w;
  if (u < waters && !settle_positions(a.waters[u], box, reference, positions, velocities, dt, position_factor, w))
    report_failure(out.failed + 2, u);
  commit_virial(out, w);
}

__global__ void rattle_kernel(ConstraintArrays a, int64_t clusters, DeviceBox box, const double* positions,
                              double* velocities, double velocity_factor, ConstraintOutputs out) {
  const int64_t c = item_index();
  Virial9 w;
  if (c < clusters) {
    const int64_t failed = rattle_cluster(a, c, box, positions, velocities, velocity_factor, w);
    if (failed >= 0) report_failure(out.failed + 1, failed);
  }
  commit_virial(out, w);
}

__global__ void settle_velocities_kernel(ConstraintArrays a, int64_t waters, DeviceBox box, const double* positions,
                                         double* velocities, double velocity_factor, ConstraintOutputs out) {
  const int64_t u = item_index();
  Virial9 w;
  if (u < waters) settle_velocities(a.waters[u], box, positions, velocities, velocity_factor, w);
  commit_virial(out, w);
}

}  // namespace

void launch_constrain_positions(const ConstraintArrays& a, int64_t clusters, int64_t waters, const DeviceBox& box,
                                const double* reference, double* positions, double* velocities, double dt,
                                double position_factor, const ConstraintOutputs& outputs, cudaStream_t stream) {
  if (clusters > 0) {
    shake_kernel<<<blocks_for(clusters), kThreads, 0, stream>>>(a, clusters, box, reference, positions, velocities, dt,
                                                                 position_factor, outputs);
    SPIRE_CUDA_CHECK(cudaGetLastError(), "SHAKE");
  }
  if (waters > 0) {
    settle_positions_kernel<<<blocks_for(waters), kThreads, 0, stream>>>(a, waters, box, reference, positions,
                                                                         velocities, dt, position_factor, outputs);
    SPIRE_CUDA_CHECK(cudaGetLastError(), "SETTLE (positions)");
  }
}

void launch_constrain_velocities(const ConstraintArrays& a, int64_t clusters, int64_t waters, const DeviceBox& box,
                                 const double* positions, double* velocities, double velocity_factor,
                                 const ConstraintOutputs& outputs, cudaStream_t stream) {
  if (clusters > 0) {
    rattle_kernel<<<blocks_for(clusters), kThreads, 0, stream>>>(a, clusters, box, positions, velocities,
                                                                  velocity_factor, outputs);
    SPIRE_CUDA_CHECK(cudaGetLastError(), "RATTLE");
  }
  if (waters > 0) {
    settle_velocities_kernel<<<blocks_for(waters), kThreads, 0, stream>>>(a, waters, box, positions, velocities,
                                                                          velocity_factor, outputs);
    SPIRE_CUDA_CHECK(cudaGetLastError(), "SETTLE (velocities)");
  }
}

}  // namespace spire::sponge::cuda
