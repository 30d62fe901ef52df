// cuFFT plans, made once per problem and kept in a least-recently-used cache of bounded size.
// A plan is bound to its device and problem (type, precision, the transformed lengths, the batch);
// each execution binds it to the current stream and to a work area from Spire's allocator, so the
// cached plans hold no work memory of their own and a plan serves any stream.
#pragma once
#include <compare>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spire::cuda {

enum class FftType : int { C2C, R2C, C2R };

// One batched transform: `batch` blocks, each a row-major array of `lengths` (1 to 3 axes, each
// > 1; the real side's lengths for R2C and C2R, whose complex side halves the last one to n / 2 + 1).
// With dist == 0 the blocks are dense and consecutive (cuFFT's basic layout). Otherwise (C2C only)
// element j of block b lies at b * dist + j * stride on both sides: with dist 1 and stride = the
// number of blocks, the transform runs over a middle axis group of a dense [lengths..., batch]
// array, the batch innermost, with no transposition.
struct FftPlanKey {
  int device = 0;
  FftType type = FftType::C2C;
  bool double_precision = false;
  std::vector<int64_t> lengths;
  int64_t batch = 1;
  int64_t stride = 1, dist = 0;
  auto operator<=>(const FftPlanKey&) const = default;
};

// Runs the transform from `in` to `out` (equal for in place; C2R always overwrites `in`) on the
// current stream of the current device, which must be key.device. `inverse` picks the C2C sign
// (+1 when true); transforms are unnormalised. Throws DeviceError naming the cuFFT failure.
void fft_execute(const FftPlanKey& key, void* in, void* out, bool inverse);

// The cache's size limit (plans over all devices; 1024 by default), how many it holds, and a way
// to drop them all (their device memory is freed).
size_t fft_plan_cache_capacity();
void set_fft_plan_cache_capacity(size_t plans);
size_t fft_plan_cache_size();
void clear_fft_plan_cache();

}  // namespace spire::cuda
