#include "reinforcement/envs/np_random.h"

#include <cmath>
#include <numbers>
#include <random>

namespace spire::rl {
namespace {
// numpy/random/bit_generator.pyx: the SeedSequence hash constants.
constexpr uint32_t kInitA = 0x43b0d7e5, kMultA = 0x931e8875, kInitB = 0x8b51f9dd, kMultB = 0x58f38ded;
constexpr uint32_t kMixMultL = 0xca01f9dd, kMixMultR = 0x4973f715;
constexpr int kXShift = 16;

uint32_t hashmix(uint32_t value, uint32_t& hash_const) {
  value ^= hash_const;
  hash_const *= kMultA;
  value *= hash_const;
  value ^= value >> kXShift;
  return value;
}
uint32_t mix(uint32_t x, uint32_t y) {
  uint32_t r = kMixMultL * x - kMixMultR * y;
  r ^= r >> kXShift;
  return r;
}

// numpy/random/src/pcg64: PCG_DEFAULT_MULTIPLIER_128.
constexpr unsigned __int128 kMultiplier =
    (static_cast<unsigned __int128>(2549297995355413924ULL) << 64) | 4865540595714422341ULL;
}  // namespace

SeedSequence::SeedSequence(std::vector<uint32_t> entropy) {
  if (entropy.empty()) entropy.push_back(0);
  uint32_t hash_const = kInitA;
  const size_t n = pool_.size();
  for (size_t i = 0; i < n; ++i) pool_[i] = hashmix(i < entropy.size() ? entropy[i] : 0u, hash_const);
  for (size_t src = 0; src < n; ++src)
    for (size_t dst = 0; dst < n; ++dst)
      if (src != dst) pool_[dst] = mix(pool_[dst], hashmix(pool_[src], hash_const));
  for (size_t src = n; src < entropy.size(); ++src)
    for (size_t dst = 0; dst < n; ++dst) pool_[dst] = mix(pool_[dst], hashmix(entropy[src], hash_const));
}

SeedSequence SeedSequence::from_seed(uint64_t seed) {
  std::vector<uint32_t> words{static_cast<uint32_t>(seed)};
  if (seed >> 32) words.push_back(static_cast<uint32_t>(seed >> 32));
  return SeedSequence(std::move(words));
}

std::vector<uint32_t> SeedSequence::generate_state_u32(int n_words) const {
  std::vector<uint32_t> out(static_cast<size_t>(n_words));
  uint32_t hash_const = kInitB;
  for (size_t i = 0; i < out.size(); ++i) {
    uint32_t v = pool_[i % pool_.size()];
    v ^= hash_const;
    hash_const *= kMultB;
    v *= hash_const;
    v ^= v >> kXShift;
    out[i] = v;
  }
  return out;
}

std::vector<uint64_t> SeedSequence::generate_state_u64(int n_words) const {
  auto w = generate_state_u32(2 * n_words);  // viewed as little-endian uint64, as NumPy does
  std::vector<uint64_t> out(static_cast<size_t>(n_words));
  for (size_t i = 0; i < out.size(); ++i) out[i] = w[2 * i] | (static_cast<uint64_t>(w[2 * i + 1]) << 32);
  return out;
}

PCG64::PCG64(const SeedSequence& seq) {
  auto v = seq.generate_state_u64(4);
  unsigned __int128 initstate = (static_cast<unsigned __int128>(v[0]) << 64) | v[1];
  unsigned __int128 initseq = (static_cast<unsigned __int128>(v[2]) << 64) | v[3];
  // pcg_setseq_128_srandom_r
  inc_ = (initseq << 1) | 1;
  state_ = 0;
  state_ = state_ * kMultiplier + inc_;
  state_ += initstate;
  state_ = state_ * kMultiplier + inc_;
}

uint64_t PCG64::next64() {
  state_ = state_ * kMultiplier + inc_;
  uint64_t hi = static_cast<uint64_t>(state_ >> 64), lo = static_cast<uint64_t>(state_);
  unsigned rot = static_cast<unsigned>(state_ >> 122);
  uint64_t x = hi ^ lo;
  return (x >> rot) | (x << ((64 - rot) & 63));
}

Generator Generator::from_entropy() {
  std::random_device rd;
  return Generator(SeedSequence({rd(), rd(), rd(), rd()}));
}

int64_t Generator::below(int64_t n) {
  const uint64_t range = static_cast<uint64_t>(n);
  unsigned __int128 m = static_cast<unsigned __int128>(bits_.next64()) * range;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < range) {
    const uint64_t threshold = (0 - range) % range;
    while (low < threshold) {
      m = static_cast<unsigned __int128>(bits_.next64()) * range;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<int64_t>(m >> 64);
}

double Generator::normal() {
  double u1 = 1.0 - random();  // in (0, 1]
  double u2 = random();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

}  // namespace spire::rl
