// CPU kernels for random draws. Element i is a function of (seed, stream, offset + i / per_block)
// and its position in that block only (see engine/random/philox.h), so any split of the blocks over
// threads gives the same bits, and so does a CUDA kernel computing one block per thread.
//
// Blocks are made kBatch at a time in structure-of-arrays form, so that the transforms (uniform
// scaling, Box-Muller) vectorise across blocks.
#include <algorithm>
#include <cstring>
#include <tuple>

#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"
#include "engine/random/philox.h"

namespace spire::cpu {
namespace {

constexpr int kBatch = 16;

// Words w[j][l] of blocks index + l, l < kBatch; equal to philox::block(seed, stream, index + l)[j].
struct Batch {
  alignas(64) uint32_t w[4][kBatch];
};

void philox_batch(uint64_t seed, uint64_t stream, uint64_t index, Batch& b) {
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int l = 0; l < kBatch; ++l) {
    uint64_t i = index + uint64_t(l);
    b.w[0][l] = uint32_t(i);
    b.w[1][l] = uint32_t(i >> 32);
    b.w[2][l] = uint32_t(stream);
    b.w[3][l] = uint32_t(stream >> 32);
  }
  for (int r = 0; r < 10; ++r) {
    if (r > 0) k0 += philox::kW0, k1 += philox::kW1;
#pragma omp simd
    for (int l = 0; l < kBatch; ++l) {
      uint64_t p0 = uint64_t(philox::kM0) * b.w[0][l], p1 = uint64_t(philox::kM1) * b.w[2][l];
      uint32_t n0 = uint32_t(p1 >> 32) ^ b.w[1][l] ^ k0, n2 = uint32_t(p0 >> 32) ^ b.w[3][l] ^ k1;
      b.w[1][l] = uint32_t(p1);
      b.w[3][l] = uint32_t(p0);
      b.w[0][l] = n0;
      b.w[2][l] = n2;
    }
  }
}

struct Coordinates {
  uint64_t seed, stream, offset;
  explicit Coordinates(const Attrs& a)
      : seed(uint64_t(a.get<int64_t>("seed"))),
        stream(uint64_t(a.get<int64_t>("stream"))),
        offset(uint64_t(a.get<int64_t>("offset"))) {}
};

// Fills n elements of out, per_block per Philox block: make(batch, tmp) writes the kBatch *
// per_block elements of one batch into tmp (element 4 l + j of a float32 uniform batch comes
// from word j of block l), and the valid ones are copied out.
template <class T, int PerBlock, class Make>
void fill_batches(T* out, int64_t n, const Coordinates& at, Make make) {
  constexpr int64_t per_batch = int64_t(kBatch) * PerBlock;
  int64_t batches = (n + per_batch - 1) / per_batch;
  parallel_for(batches, n, [&](int64_t q) {
    Batch b;
    philox_batch(at.seed, at.stream, at.offset + uint64_t(q) * kBatch, b);
    alignas(64) T tmp[per_batch];
    make(b, tmp);
    int64_t i0 = q * per_batch;
    std::copy(tmp, tmp + std::min(per_batch, n - i0), out + i0);
  });
}

void uniform_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  double low = a.get<double>("low"), high = a.get<double>("high");
  int64_t n = out[0].numel();
  if (out[0].dtype() == DType::Float32) {
    philox::UnitScale<float> scale{float(low), float(high)};
    fill_batches<float, 4>(out[0].data<float>(), n, at, [&](const Batch& b, float* t) {
      float v[4][kBatch];
      for (int j = 0; j < 4; ++j)
#pragma omp simd
        for (int l = 0; l < kBatch; ++l) v[j][l] = scale(philox::unit_float(b.w[j][l]));
      for (int l = 0; l < kBatch; ++l)
        for (int j = 0; j < 4; ++j) t[4 * l + j] = v[j][l];
    });
  } else {
    philox::UnitScale<double> scale{low, high};
    fill_batches<double, 2>(out[0].data<double>(), n, at, [&](const Batch& b, double* t) {
      double v[2][kBatch];
      for (int j = 0; j < 2; ++j)
#pragma omp simd
        for (int l = 0; l < kBatch; ++l) v[j][l] = scale(philox::unit_double(b.w[2 * j][l], b.w[2 * j + 1][l]));
      for (int l = 0; l < kBatch; ++l)
        for (int j = 0; j < 2; ++j) t[2 * l + j] = v[j][l];
    });
  }
}

// Box-Muller (philox::box_muller) for kBatch pairs of uniforms, in three loops: the logarithm
// and the sine and cosine vectorise; the square root is a loop of its own because with errno
// semantics it does not.
template <class U1, class U2>
void box_muller_batch(U1 u1, U2 u2, double (&z0)[kBatch], double (&z1)[kBatch]) {
  double r[kBatch], sn[kBatch], cs[kBatch];
#pragma omp simd
  for (int l = 0; l < kBatch; ++l) {
    r[l] = philox::box_muller_r2(u1(l));
    philox::detail::sincos_turns(u2(l), sn[l], cs[l]);
  }
  for (int l = 0; l < kBatch; ++l) r[l] = std::sqrt(r[l]);
#pragma omp simd
  for (int l = 0; l < kBatch; ++l) {
    z0[l] = r[l] * cs[l];
    z1[l] = r[l] * sn[l];
  }
}

// float32 takes two pairs of 32-bit uniforms per block (elements 4l..4l+3 are the cos and sin
// branches of pair (w0, w1), then of pair (w2, w3)); float64 one pair of 64-bit uniforms (elements
// 2l, 2l+1).
void normal_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  double mean = a.get<double>("mean"), sd = a.get<double>("std");
  int64_t n = out[0].numel();
  if (out[0].dtype() == DType::Float32) {
    float m = float(mean), s = float(sd);
    fill_batches<float, 4>(out[0].data<float>(), n, at, [&](const Batch& b, float* t) {
      for (int pair = 0; pair < 2; ++pair) {
        double z0[kBatch], z1[kBatch];
        box_muller_batch([&](int l) { return double(philox::unit_float_open0(b.w[2 * pair][l])); },
                         [&](int l) { return double(philox::unit_float(b.w[2 * pair + 1][l])); }, z0, z1);
        for (int l = 0; l < kBatch; ++l) {
          t[4 * l + 2 * pair] = std::fma(float(z0[l]), s, m);
          t[4 * l + 2 * pair + 1] = std::fma(float(z1[l]), s, m);
        }
      }
    });
  } else {
    fill_batches<double, 2>(out[0].data<double>(), n, at, [&](const Batch& b, double* t) {
      double z0[kBatch], z1[kBatch];
      box_muller_batch([&](int l) { return philox::unit_double_open0(b.w[0][l], b.w[1][l]); },
                       [&](int l) { return philox::unit_double(b.w[2][l], b.w[3][l]); }, z0, z1);
      for (int l = 0; l < kBatch; ++l) {
        t[2 * l] = std::fma(z0[l], sd, mean);
        t[2 * l + 1] = std::fma(z1[l], sd, mean);
      }
    });
  }
}

// x < p 2^32 on 32-bit words: P(true) = ceil(p 2^32) / 2^32, exact for p = 0 and p = 1.
void bernoulli_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  uint64_t threshold = uint64_t(std::ceil(a.get<double>("p") * 0x1.0p32));
  fill_batches<bool, 4>(out[0].data<bool>(), out[0].numel(), at, [&](const Batch& b, bool* t) {
    for (int j = 0; j < 4; ++j)
      for (int l = 0; l < kBatch; ++l) t[4 * l + j] = uint64_t(b.w[j][l]) < threshold;
  });
}

void randint_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  int64_t low = a.get<int64_t>("low");
  uint64_t range = uint64_t(a.get<int64_t>("high")) - uint64_t(low);
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      fill_batches<T, 1>(out[0].data<T>(), out[0].numel(), at, [&](const Batch& b, T* t) {
        for (int l = 0; l < kBatch; ++l) {
          philox::Block blk{{b.w[0][l], b.w[1][l], b.w[2][l], b.w[3][l]}};
          t[l] = T(int64_t(uint64_t(low) + philox::bounded(blk, range)));
        }
      });
    }
  });
}

// Sorting i.i.d. 128-bit keys gives a uniformly random order (up to key ties, probability about
// n^2 2^-129, broken by index so the result is still a permutation).
void permutation_kernel(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Coordinates at(a);
  int64_t n = out[0].numel();
  using Key = std::tuple<uint64_t, uint64_t, int64_t>;
  std::vector<Key> keys(n);
  fill_batches<Key, 1>(keys.data(), n, at, [&](const Batch& b, Key* t) {
    for (int l = 0; l < kBatch; ++l)
      t[l] = {(uint64_t(b.w[0][l]) << 32) | b.w[1][l], (uint64_t(b.w[2][l]) << 32) | b.w[3][l], 0};
  });
  for (int64_t i = 0; i < n; ++i) std::get<2>(keys[i]) = i;
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
