// Random draws for initial conditions and dataset families: a sequence of Philox blocks keyed by
// (seed, stream), one block per draw, so a draw depends only on (seed, stream, its position) and
// sample i is drawn the same on any thread, rank or restart.
//
// Streams: (sample << 12) | (purpose << 8) | index. Purposes keep the draws of one sample apart
// (each field's random initial condition, a family's coefficients), so adding a draw to one never
// shifts another.
#pragma once
#include <cmath>
#include <cstdint>

#include "engine/random/philox.h"

namespace spire::flow {

enum class DrawPurpose : uint64_t { Initial = 0, Family = 1 };

inline uint64_t draw_stream(uint64_t sample, DrawPurpose purpose, int index) {
  return (sample << 12) | (uint64_t(purpose) << 8) | (uint64_t(index) & 0xffu);
}

class Draws {
 public:
  Draws(uint64_t seed, uint64_t stream) : seed_(seed), stream_(stream) {}

  double uniform() {  // [0, 1)
    philox::Block b = next();
    return philox::unit_double(b[0], b[1]);
  }
  double uniform(double low, double high) { return philox::UnitScale<double>(low, high)(uniform()); }
  long integer(long range) { return long(philox::bounded(next(), uint64_t(range))); }  // 0..range-1
  bool chance(double p) { return uniform() < p; }
  double normal() {
    philox::Block b = next();
    double z0, z1;
    philox::box_muller(philox::unit_double_open0(b[0], b[1]), philox::unit_double(b[2], b[3]), z0, z1);
    return z0;
  }
  double exponential() {  // rate 1
    philox::Block b = next();
    return -std::log(philox::unit_double_open0(b[0], b[1]));
  }

 private:
  philox::Block next() { return philox::block(seed_, stream_, index_++); }
  uint64_t seed_, stream_, index_ = 0;
};

}  // namespace spire::flow
