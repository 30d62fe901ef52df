// Where the system is: positions, velocities, the box (which a barostat changes), time and step.
#pragma once
#include <cstdint>
#include <vector>

#include "science/sponge/box.h"
#include "science/sponge/vec3.h"

namespace spire::sponge {

struct State {
  std::vector<Vec3> positions, velocities;
  Box box;
  double time = 0;
  int64_t step = 0;
};

}  // namespace spire::sponge
