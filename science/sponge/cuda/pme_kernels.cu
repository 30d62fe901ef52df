// The PME kernels: thin wrappers around the bodies of pme_kernels.cuh.
#include "science/sponge/cuda/launch.cuh"
#include "science/sponge/cuda/pme_kernels.cuh"

namespace spire::sponge::cuda {

void launch_pme_spline(const PmeArgs& a, int64_t particles, cudaStream_t stream) {
  launch_each(particles, stream, "pme: splines", [=] __device__(int64_t p) { pme_spline(a, p); });
}

void launch_pme_spread(const PmeArgs& a, int64_t particles, cudaStream_t stream) {
  launch_each(particles, stream, "pme: spreading", [=] __device__(int64_t p) { pme_spread(a, p); });
}

void launch_pme_to_real(const PmeArgs& a, cudaStream_t stream) {
  launch_each(a.c.points(), stream, "pme: mesh to doubles", [=] __device__(int64_t m) { pme_to_real(a, m); });
}

void launch_pme_convolve(const PmeArgs& a, cudaStream_t stream) {
  launch_each_tallied(a.c.spectrum_points(), a.slots, stream, "pme: convolution",
                      [=] __device__(int64_t m, Tally& t) { pme_convolve(a, m, t); });
}

void launch_pme_interpolate(const PmeArgs& a, int64_t particles, cudaStream_t stream) {
  launch_each(particles, stream, "pme: forces", [=] __device__(int64_t p) { pme_interpolate(a, p); });
}

}  // namespace spire::sponge::cuda
