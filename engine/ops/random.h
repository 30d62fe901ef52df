// Random numbers from a counter-based generator (Philox-4x32-10) keyed by (seed, stream): the
// value at position i depends only on (seed, stream, i), so draws are the same on every run,
// thread count and device. A Generator advances its counter by what each draw consumed, in
// 128-bit blocks: float32 uniform and normal and bernoulli take 4 elements per block, float64
// uniform and normal 2, randint and permutation 1 (engine/random/philox.h has the formulas).
// A Generator is not synchronised: give each thread its own (a stream each) or lock around it.
#pragma once
#include <cstdint>

#include "engine/core/tensor.h"

namespace spire {

class Generator {
 public:
  explicit Generator(uint64_t seed = 0, uint64_t stream = 0) : seed_(seed), stream_(stream) {}
  uint64_t seed() const { return seed_; }
  uint64_t stream() const { return stream_; }
  uint64_t offset() const { return offset_; }
  void set_offset(uint64_t o) { offset_ = o; }  // for checkpoints: restore where a run stopped
  // Reserves `n` 128-bit Philox blocks and returns the first block's index.
  uint64_t reserve(uint64_t n) {
    uint64_t o = offset_;
    offset_ += n;
    return o;
  }

 private:
  uint64_t seed_, stream_, offset_ = 0;
};

// The process-wide default generator (seeded by manual_seed).
Generator& default_generator();
void manual_seed(uint64_t seed);

// Draws land on `device`; a draw gives the same bits there as on the CPU.
Tensor uniform(const Shape& shape, double low = 0.0, double high = 1.0, DType dtype = DType::Float32,
               Generator& gen = default_generator(), Device device = kCPU);
Tensor normal(const Shape& shape, double mean = 0.0, double std = 1.0, DType dtype = DType::Float32,
              Generator& gen = default_generator(), Device device = kCPU);
Tensor bernoulli(const Shape& shape, double p, Generator& gen = default_generator(), Device device = kCPU);  // bool
Tensor randint(const Shape& shape, int64_t low, int64_t high, DType dtype = DType::Int64,
               Generator& gen = default_generator(), Device device = kCPU);
Tensor permutation(int64_t n, Generator& gen = default_generator(), Device device = kCPU);  // int64

}  // namespace spire
