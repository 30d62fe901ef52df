// Launchers of the random draws, compiled by nvcc. Element i of a draw is a function of the Philox
// coordinates (seed, stream, offset + i / per_block) and of i's place in its block, exactly as on
// the CPU (engine/backends/cpu/random.cpp), so a draw has the same bits on both backends.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/indexing.h"
#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

// Where a draw starts: Philox key and stream, and the index of its first block.
struct PhiloxAt {
  uint64_t seed = 0, stream = 0, offset = 0;
};

// float32 (4 per block) or float64 (2 per block) in [low, high).
cudaError_t launch_uniform(Elem t, void* out, int64_t n, PhiloxAt at, double low, double high);
// float32 (4 per block: two Box-Muller pairs) or float64 (2 per block: one pair).
cudaError_t launch_normal(Elem t, void* out, int64_t n, PhiloxAt at, double mean, double std);
// bool, 4 per block: word < threshold (= ceil(p 2^32), computed on the host as the CPU does).
cudaError_t launch_bernoulli(bool* out, int64_t n, PhiloxAt at, uint64_t threshold);
// int32 or int64, one block per element: low + floor(U range) (philox::bounded).
cudaError_t launch_randint(Elem t, void* out, int64_t n, PhiloxAt at, int64_t low, uint64_t range);
// 0..n-1 ordered by the 128-bit key of block i, ties by i: the CPU's std::sort on (k0, k1, i).
cudaError_t launch_permutation(int64_t* out, int64_t n, PhiloxAt at, Temporaries& temps);

}  // namespace spire::cuda
