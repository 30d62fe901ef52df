// Gymnasium's two spaces of the classic-control environments: Box (float32 bounds and shape) and
// Discrete(n, start). One class with a kind, so that environments and bindings hold either by value.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "reinforcement/envs/np_random.h"

namespace spire::rl {

class Space {
 public:
  enum class Kind { Box, Discrete };

  // Box(low, high) of float32 elements; low and high have one entry per element (row-major shape).
  static Space box(std::vector<float> low, std::vector<float> high, std::vector<int64_t> shape);
  // Box(low, high, shape) with scalar bounds, as gymnasium.spaces.Box(low=-2.0, high=2.0, shape=(1,)).
  static Space box(float low, float high, std::vector<int64_t> shape);
  static Space discrete(int64_t n, int64_t start = 0);

  Kind kind() const { return kind_; }
  bool is_box() const { return kind_ == Kind::Box; }
  bool is_discrete() const { return kind_ == Kind::Discrete; }
  // Box
  const std::vector<float>& low() const { return low_; }
  const std::vector<float>& high() const { return high_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t size() const;  // elements of a Box sample; 1 for Discrete
  // Discrete
  int64_t n() const { return n_; }
  int64_t start() const { return start_; }

  bool contains(int64_t a) const;                  // Discrete: start <= a < start + n
  bool contains(std::span<const float> x) const;   // Box: right size and low <= x <= high elementwise
  // Samples with the space's own generator (seed() it for reproducible draws). Box elements are
  // uniform when bounded on both sides, normal when unbounded, shifted exponential when one-sided.
  int64_t sample_discrete();
  std::vector<float> sample_box();
  void seed(std::optional<uint64_t> seed);

  // "Box(-1.0, 1.0, (1,), float32)" / "Discrete(3)", as Gymnasium prints them.
  std::string to_string() const;

 private:
  Kind kind_ = Kind::Discrete;
  std::vector<float> low_, high_;
  std::vector<int64_t> shape_;
  int64_t n_ = 1, start_ = 0;
  std::optional<Generator> rng_;
  Generator& rng();
};

}  // namespace spire::rl
