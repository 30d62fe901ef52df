// NumPy's default generator (SeedSequence -> PCG64 -> Generator.uniform), bit for bit, so that
// reset(seed=s) gives Gymnasium's initial states: Gymnasium seeds each environment's np_random with
// np.random.default_rng-style PCG64(SeedSequence(seed)) and draws the initial state with uniform().
#pragma once
#include <array>
#include <cstdint>
#include <vector>

namespace spire::rl {

// numpy.random.SeedSequence with the default pool size (4 words) and no spawn key.
class SeedSequence {
 public:
  // entropy: the seed's 32-bit words, least significant first (NumPy's _coerce_to_uint32_array).
  explicit SeedSequence(std::vector<uint32_t> entropy);
  static SeedSequence from_seed(uint64_t seed);
  // generate_state(n_words, np.uint64): n_words 64-bit words.
  std::vector<uint64_t> generate_state_u64(int n_words) const;
  std::vector<uint32_t> generate_state_u32(int n_words) const;
  const std::array<uint32_t, 4>& pool() const { return pool_; }

 private:
  std::array<uint32_t, 4> pool_{};
};

// numpy.random.PCG64: a 128-bit LCG with the XSL-RR output function.
class PCG64 {
 public:
  explicit PCG64(const SeedSequence& seq);
  uint64_t next64();
  // Generator.random(): 53 random bits as a double in [0, 1).
  double next_double() { return static_cast<double>(next64() >> 11) * (1.0 / 9007199254740992.0); }
  unsigned __int128 state() const { return state_; }
  unsigned __int128 increment() const { return inc_; }

 private:
  unsigned __int128 state_ = 0, inc_ = 0;
};

// The np_random of a Gymnasium environment: the draws the classic-control environments use.
class Generator {
 public:
  explicit Generator(uint64_t seed) : bits_(SeedSequence::from_seed(seed)) {}
  // Seeded from the operating system's entropy (Gymnasium's reset() without a seed on a fresh env).
  static Generator from_entropy();
  explicit Generator(const SeedSequence& seq) : bits_(seq) {}
  // Generator.uniform(low, high): low + (high - low) * random().
  double uniform(double low, double high) { return low + (high - low) * bits_.next_double(); }
  double random() { return bits_.next_double(); }
  // An integer in [0, n), n >= 1 (Lemire's multiply-shift with rejection; not NumPy's stream).
  int64_t below(int64_t n);
  // A standard normal draw (Box-Muller; not NumPy's ziggurat stream).
  double normal();
  PCG64& bit_generator() { return bits_; }

 private:
  PCG64 bits_;
};

}  // namespace spire::rl
