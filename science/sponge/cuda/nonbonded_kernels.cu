// The nonbonded kernels: thin wrappers around the bodies of nonbonded_kernels.cuh.
#include "science/sponge/cuda/launch.cuh"
#include "science/sponge/cuda/nonbonded_kernels.cuh"

namespace spire::sponge::cuda {

void launch_nonbonded_rows(const NonbondedArgs& a, int64_t rows, cudaStream_t stream) {
  launch_each_tallied(rows, a.slots, stream, "nonbonded rows",
                      [=] __device__(int64_t i, Tally& t) { nonbonded_row(a, i, t); });
}

void launch_ewald_exclusions(const ExclusionArgs& a, int64_t pairs, cudaStream_t stream) {
  launch_each_tallied(pairs, a.slots, stream, "ewald excluded pairs",
                      [=] __device__(int64_t k, Tally& t) { ewald_exclusion(a, k, t); });
}

void launch_pairs14(const Pair14Args& a, int64_t pairs, cudaStream_t stream) {
  launch_each_tallied(pairs, a.slots, stream, "1-4 pairs", [=] __device__(int64_t k, Tally& t) { pair14(a, k, t); });
}

}  // namespace spire::sponge::cuda
