// Random draws on the device: one thread per Philox block, computing the block from its
// coordinates and writing that block's elements. Philox and every transform come from
// engine/random/philox.h, shared with the CPU; the transforms are built from correctly rounded
// operations with every fma explicit (and nothing here a contractible a * b + c), so the default
// nvcc flags (no fast math) give the CPU's bits.
#include "engine/backends/cuda/indexing.cuh"
#include "engine/backends/cuda/random.h"
#include "engine/random/philox.h"

namespace spire::cuda {
using namespace indexing;  // the helpers of indexing.cuh

namespace {

__device__ inline philox::Block block_at(const PhiloxAt& at, int64_t q) {
  return philox::block(at.seed, at.stream, at.offset + uint64_t(q));
}

SPIRE_HD inline int64_t blocks_of(int64_t n, int64_t per_block) { return (n + per_block - 1) / per_block; }

#define SPIRE_FOR_EACH_BLOCK(q, count) \
  for (int64_t q = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; q < (count); q += int64_t(gridDim.x) * blockDim.x)

__global__ void uniform_f32_kernel(float* out, int64_t n, PhiloxAt at, philox::UnitScale<float> scale) {
  SPIRE_FOR_EACH_BLOCK(q, blocks_of(n, 4)) {
    philox::Block b = block_at(at, q);
    for (int j = 0; j < 4 && 4 * q + j < n; ++j) out[4 * q + j] = scale(philox::unit_float(b[j]));
  }
}

__global__ void uniform_f64_kernel(double* out, int64_t n, PhiloxAt at, philox::UnitScale<double> scale) {
  SPIRE_FOR_EACH_BLOCK(q, blocks_of(n, 2)) {
    philox::Block b = block_at(at, q);
    for (int j = 0; j < 2 && 2 * q + j < n; ++j) out[2 * q + j] = scale(philox::unit_double(b[2 * j], b[2 * j + 1]));
  }
}

// Elements 4q + 2 pair (cos branch) and 4q + 2 pair + 1 (sin branch) from uniforms (w[2 pair],
// w[2 pair + 1]), transformed in double and rounded once to float, then scaled with one fma.
__global__ void normal_f32_kernel(float* out, int64_t n, PhiloxAt at, float mean, float sd) {
  SPIRE_FOR_EACH_BLOCK(q, blocks_of(n, 4)) {
    philox::Block b = block_at(at, q);
    for (int pair = 0; pair < 2; ++pair) {
      double z0, z1;
      philox::box_muller(double(philox::unit_float_open0(b[2 * pair])), double(philox::unit_float(b[2 * pair + 1])),
                         z0, z1);
      int64_t i = 4 * q + 2 * pair;
      if (i < n) out[i] = std::fma(float(z0), sd, mean);
      if (i + 1 < n) out[i + 1] = std::fma(float(z1), sd, mean);
    }
  }
}

__global__ void normal_f64_kernel(double* out, int64_t n, PhiloxAt at, double mean, double sd) {
  SPIRE_FOR_EACH_BLOCK(q, blocks_of(n, 2)) {
    philox::Block b = block_at(at, q);
    double z0, z1;
    philox::box_muller(philox::unit_double_open0(b[0], b[1]), philox::unit_double(b[2], b[3]), z0, z1);
    out[2 * q] = std::fma(z0, sd, mean);
    if (2 * q + 1 < n) out[2 * q + 1] = std::fma(z1, sd, mean);
  }
}

__global__ void bernoulli_kernel(bool* out, int64_t n, PhiloxAt at, uint64_t threshold) {
  SPIRE_FOR_EACH_BLOCK(q, blocks_of(n, 4)) {
    philox::Block b = block_at(at, q);
    for (int j = 0; j < 4 && 4 * q + j < n; ++j) out[4 * q + j] = uint64_t(b[j]) < threshold;
  }
}

template <class T>
__global__ void randint_kernel(T* out, int64_t n, PhiloxAt at, int64_t low, uint64_t range) {
  SPIRE_FOR_EACH_BLOCK(q, n) {
    out[q] = T(int64_t(uint64_t(low) + philox::bounded(block_at(at, q), range)));
  }
}

// The two 64-bit halves of block i's 128-bit key: k0 = (w0 w1), k1 = (w2 w3).
__global__ void permutation_keys_kernel(int64_t n, PhiloxAt at, uint64_t* k0, uint64_t* k1) {
  SPIRE_FOR_EACH_BLOCK(i, n) {
    philox::Block b = block_at(at, i);
    k0[i] = (uint64_t(b[0]) << 32) | b[1];
    k1[i] = (uint64_t(b[2]) << 32) | b[3];
  }
}

__global__ void gather_keys_kernel(int64_t n, const uint64_t* keys, const int64_t* order, uint64_t* out) {
  SPIRE_FOR_EACH_BLOCK(i, n) { out[i] = keys[order[i]]; }
}

#undef SPIRE_FOR_EACH_BLOCK

}  // namespace

cudaError_t launch_uniform(Elem t, void* out, int64_t n, PhiloxAt at, double low, double high) {
  if (n <= 0) return cudaSuccess;
  cudaStream_t stream = current_stream();
  if (t == Elem::Float32) {
    philox::UnitScale<float> scale{float(low), float(high)};  // as the CPU builds it, on the host
    uniform_f32_kernel<<<blocks_for(blocks_of(n, 4)), kThreads, 0, stream>>>(static_cast<float*>(out), n, at, scale);
  } else if (t == Elem::Float64) {
    philox::UnitScale<double> scale{low, high};
    uniform_f64_kernel<<<blocks_for(blocks_of(n, 2)), kThreads, 0, stream>>>(static_cast<double*>(out), n, at, scale);
  } else {
    return cudaErrorInvalidValue;  // the op refuses other dtypes first
  }
  return cudaGetLastError();
}

cudaError_t launch_normal(Elem t, void* out, int64_t n, PhiloxAt at, double mean, double std) {
  if (n <= 0) return cudaSuccess;
  cudaStream_t stream = current_stream();
  if (t == Elem::Float32)
    normal_f32_kernel<<<blocks_for(blocks_of(n, 4)), kThreads, 0, stream>>>(static_cast<float*>(out), n, at,
                                                                             float(mean), float(std));
  else if (t == Elem::Float64)
    normal_f64_kernel<<<blocks_for(blocks_of(n, 2)), kThreads, 0, stream>>>(static_cast<double*>(out), n, at, mean,
                                                                             std);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

cudaError_t launch_bernoulli(bool* out, int64_t n, PhiloxAt at, uint64_t threshold) {
  if (n <= 0) return cudaSuccess;
  bernoulli_kernel<<<blocks_for(blocks_of(n, 4)), kThreads, 0, current_stream()>>>(out, n, at, threshold);
  return cudaGetLastError();
}

cudaError_t launch_randint(Elem t, void* out, int64_t n, PhiloxAt at, int64_t low, uint64_t range) {
  if (n <= 0) return cudaSuccess;
  cudaStream_t stream = current_stream();
  if (t == Elem::Int32)
    randint_kernel<int32_t><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<int32_t*>(out), n, at, low, range);
  else if (t == Elem::Int64)
    randint_kernel<int64_t><<<blocks_for(n), kThreads, 0, stream>>>(static_cast<int64_t*>(out), n, at, low, range);
  else
    return cudaErrorInvalidValue;
  return cudaGetLastError();
}

// A least-significant-first radix sort in two stable passes: by k1, then by k0. The second pass
// keeps the first pass's order among equal k0, and the first kept index order among equal k1, so
// the result is ordered by (k0, k1, i), the CPU's order.
cudaError_t launch_permutation(int64_t* out, int64_t n, PhiloxAt at, Temporaries& temps) {
  if (n <= 0) return cudaSuccess;
  cudaStream_t stream = current_stream();
  size_t words = size_t(n) * sizeof(uint64_t);
  auto* k0 = static_cast<uint64_t*>(temps.get(words));
  auto* k1 = static_cast<uint64_t*>(temps.get(words));
  auto* sorted = static_cast<uint64_t*>(temps.get(words));
  auto* order_in = static_cast<int64_t*>(temps.get(words));
  auto* order = static_cast<int64_t*>(temps.get(words));
  cudaError_t err;
  permutation_keys_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, at, k0, k1);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  iota_kernel<<<blocks_for(n), kThreads, 0, stream>>>(order_in, n);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  if ((err = stable_sort_pairs(k1, sorted, order_in, order, n, 64, temps)) != cudaSuccess) return err;
  gather_keys_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, k0, order, k1);  // k1 is free again
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  return stable_sort_pairs(k1, sorted, order, out, n, 64, temps);
}

}  // namespace spire::cuda
