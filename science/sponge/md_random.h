// Random numbers for dynamics: Philox-4x32-10 (engine/random/philox.h) keyed by the seed its owner
// holds, with counter = (stream, index). The stream names the consumer and the step it draws for;
// the index names the particle (or the draw within a step). Nothing is carried between draws, so a
// run restarted at step n draws exactly what the uninterrupted run drew there, with no generator
// state in checkpoints, and a particle's noise does not depend on how particles are split over
// threads.
//
// Stream word: the consumer's tag in the top 8 bits, its counter (step, or 2 step + half for
// thermostats acting at both half steps, or the barostat's attempt) in the low 56 bits.
#pragma once
#include <array>
#include <cstdint>

#include "engine/random/philox.h"
#include "science/sponge/vec3.h"

namespace spire::sponge {

// Four standard normals from the Philox blocks 2 draw and 2 draw + 1 of (seed, stream), Box-Muller
// on each block's two 53-bit uniforms: what draw gets depends on (seed, stream, draw) alone.
inline std::array<double, 4> philox_normal4(uint64_t seed, uint64_t stream, uint64_t draw) {
  std::array<double, 4> z;
  for (int half = 0; half < 2; ++half) {
    const philox::Block b = philox::block(seed, stream, 2 * draw + uint64_t(half));
    philox::box_muller(philox::unit_double_open0(b[0], b[1]), philox::unit_double(b[2], b[3]), z[2 * half],
                       z[2 * half + 1]);
  }
  return z;
}

enum class RandomTag : uint8_t {
  langevin = 1,
  bussi = 2,
  monte_carlo_barostat = 3,
};

class MdRandom {
 public:
  explicit MdRandom(uint64_t seed = 0) : seed_(seed) {}
  uint64_t seed() const { return seed_; }

  static uint64_t stream(RandomTag tag, uint64_t counter) {
    return (uint64_t(tag) << 56) | (counter & ((uint64_t(1) << 56) - 1));
  }
  philox::Block block(RandomTag tag, uint64_t counter, uint64_t index) const {
    return philox::block(seed_, stream(tag, counter), index);
  }
  // Two independent standard normals from one block (Box-Muller on two 53-bit uniforms).
  void normals(RandomTag tag, uint64_t counter, uint64_t index, double& z0, double& z1) const {
    philox::Block b = block(tag, counter, index);
    philox::box_muller(philox::unit_double_open0(b[0], b[1]), philox::unit_double(b[2], b[3]), z0, z1);
  }
  // Three standard normals for particle i: blocks 2i and 2i + 1 (the fourth normal is unused).
  Vec3 normal3(RandomTag tag, uint64_t counter, uint64_t particle) const {
    const std::array<double, 4> z = philox_normal4(seed_, stream(tag, counter), particle);
    return {z[0], z[1], z[2]};
  }
  // Two uniforms in [0, 1) from one block.
  void uniforms(RandomTag tag, uint64_t counter, uint64_t index, double& u0, double& u1) const {
    philox::Block b = block(tag, counter, index);
    u0 = philox::unit_double(b[0], b[1]);
    u1 = philox::unit_double(b[2], b[3]);
  }

 private:
  uint64_t seed_;
};

}  // namespace spire::sponge
