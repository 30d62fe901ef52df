// CPU kernels for random draws. Element i is a function of (seed, stream, offset + i / per_block)
// and its position in that block only, so any split of the blocks over threads gives the same bits.
#include <algorithm>
#include <tuple>

#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"
#include "engine/random/philox.h"

namespace spire::cpu {
namespace {

struct Coordinates {
  uint64_t seed, stream, offset;
  explicit Coordinates(const Attrs& a)
      : seed(uint64_t(a.get<int64_t>("seed"))),
        stream(uint64_t(a.get<int64_t>("stream"))),
        offset(uint64_t(a.get<int64_t>("offset"))) {}
  philox::Block operator()(int64_t b) const { return philox::block(seed, stream, offset + uint64_t(b)); }
};

// Runs fill(block_index, first_element, count) for every block that `n` elements of `per_block`
// each need; count is per_block except perhaps for the last block.
template <class Fill>
void for_each_block(int64_t n, int64_t per_block, Fill fill) {
  int64_t blocks = (n + per_block - 1) / per_block;
#pragma omp parallel for schedule(static) if (n >= kParallelGrain)
  for (int64_t b = 0; b < blocks; ++b) fill(b, b * per_block, std::min(per_block, n - b * per_block));
}

void uniform_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  double low = a.get<double>("low"), high = a.get<double>("high");
  int64_t n = out[0].numel();
  if (out[0].dtype() == DType::Float32) {
    float* p = out[0].data<float>();
    float lo = float(low), hi = float(high);
    for_each_block(n, 4, [&](int64_t b, int64_t i0, int64_t k) {
      philox::Block r = at(b);
      for (int64_t j = 0; j < k; ++j) p[i0 + j] = philox::scale_unit(philox::unit_float(r[j]), lo, hi);
    });
  } else {
    double* p = out[0].data<double>();
    for_each_block(n, 2, [&](int64_t b, int64_t i0, int64_t k) {
      philox::Block r = at(b);
      for (int64_t j = 0; j < k; ++j)
        p[i0 + j] = philox::scale_unit(philox::unit_double(r[2 * j], r[2 * j + 1]), low, high);
    });
  }
}

// Box-Muller pairs: float32 takes two pairs of 32-bit uniforms per block, float64 one pair of
// 64-bit uniforms. Even elements get the cosine branch, odd ones the sine branch.
void normal_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  double mean = a.get<double>("mean"), sd = a.get<double>("std");
  int64_t n = out[0].numel();
  if (out[0].dtype() == DType::Float32) {
    float* p = out[0].data<float>();
    float m = float(mean), s = float(sd);
    for_each_block(n, 4, [&](int64_t b, int64_t i0, int64_t k) {
      philox::Block r = at(b);
      float z[4];
      for (int pair = 0; pair < 2; ++pair) {
        double z0, z1;
        philox::box_muller(philox::unit_float_open0(r[2 * pair]), philox::unit_float(r[2 * pair + 1]), z0, z1);
        z[2 * pair] = float(z0);
        z[2 * pair + 1] = float(z1);
      }
      for (int64_t j = 0; j < k; ++j) p[i0 + j] = std::fma(z[j], s, m);
    });
  } else {
    double* p = out[0].data<double>();
    for_each_block(n, 2, [&](int64_t b, int64_t i0, int64_t k) {
      philox::Block r = at(b);
      double z[2];
      philox::box_muller(philox::unit_double_open0(r[0], r[1]), philox::unit_double(r[2], r[3]), z[0], z[1]);
      for (int64_t j = 0; j < k; ++j) p[i0 + j] = std::fma(z[j], sd, mean);
    });
  }
}

// x < p 2^32 on 32-bit words: P(true) = ceil(p 2^32) / 2^32, exact for p = 0 and p = 1.
void bernoulli_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  uint64_t threshold = uint64_t(std::ceil(a.get<double>("p") * 0x1.0p32));
  bool* p = out[0].data<bool>();
  for_each_block(out[0].numel(), 4, [&](int64_t b, int64_t i0, int64_t k) {
    philox::Block r = at(b);
    for (int64_t j = 0; j < k; ++j) p[i0 + j] = uint64_t(r[j]) < threshold;
  });
}

void randint_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  int64_t low = a.get<int64_t>("low");
  uint64_t range = uint64_t(a.get<int64_t>("high")) - uint64_t(low);
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      T* p = out[0].data<T>();
      for_each_block(out[0].numel(), 1, [&](int64_t b, int64_t i0, int64_t) {
        p[i0] = T(int64_t(uint64_t(low) + philox::bounded(at(b), range)));
      });
    }
  });
}

// Sorting i.i.d. 128-bit keys gives a uniformly random order (up to key ties, probability about
// n^2 2^-129, broken by index so the result is still a permutation).
void permutation_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  int64_t n = out[0].numel();
  std::vector<std::tuple<uint64_t, uint64_t, int64_t>> keys(n);
  for_each_block(n, 1, [&](int64_t b, int64_t i0, int64_t) {
    philox::Block r = at(b);
    keys[i0] = {(uint64_t(r[0]) << 32) | r[1], (uint64_t(r[2]) << 32) | r[3], i0};
  });
  std::sort(keys.begin(), keys.end());
  int64_t* p = out[0].data<int64_t>();
  for (int64_t i = 0; i < n; ++i) p[i] = std::get<2>(keys[i]);
}

SPIRE_REGISTER_KERNEL("uniform", DeviceKind::CPU, uniform_kernel);
SPIRE_REGISTER_KERNEL("normal", DeviceKind::CPU, normal_kernel);
SPIRE_REGISTER_KERNEL("bernoulli", DeviceKind::CPU, bernoulli_kernel);
SPIRE_REGISTER_KERNEL("randint", DeviceKind::CPU, randint_kernel);
SPIRE_REGISTER_KERNEL("permutation", DeviceKind::CPU, permutation_kernel);

}  // namespace
}  // namespace spire::cpu
