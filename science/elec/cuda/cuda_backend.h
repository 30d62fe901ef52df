// The CUDA backend of the cuda platform's engine (backend.h): device memory on one GPU, the
// per-sample bodies of yee_kernels.cuh as kernels on the backend's own non-blocking stream.
//
//   update        one thread per sample, consecutive threads along the contiguous axis (coalesced
//                 loads and stores of every field, psi and coefficient array), every component of
//                 the half step in one kernel (an H thread reads the E samples its three curls
//                 share once from cache);
//   add_sources   one thread per entry of a layer (distinct samples);
//   zero_walls    one thread per sample of the largest wall plane, every pair of the plan;
//   energy        one thread per 4096-sample chunk summing in index order (the CPU's order).
// Uploads up to 4 MiB go through a ring of pinned staging buffers (the host does not wait for the
// device); larger ones, and downloads, wait for the stream. Every call makes the backend's device
// current for its duration.
#pragma once
#include <memory>

#include "science/elec/cuda/backend.h"

namespace spire::elec::cuda {

// ConfigError when there is no CUDA device `device` (naming how many there are) or the runtime
// cannot be used.
template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend(int device);

// Kernels index samples with 32-bit integers: a lattice may have at most this many samples.
inline constexpr int64_t kMaxCudaSamples = (int64_t(1) << 32) - 1;

}  // namespace spire::elec::cuda
