// Reading back the named arrays of an IntegratorState (integrator.h) that integrators, thermostats
// and barostats save, with an error naming the missing or malformed entry, so a checkpoint written
// for another integrator is refused rather than half loaded.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "science/sponge/integrator.h"

namespace spire::sponge {

inline const std::vector<double>& saved_values(const IntegratorState& state, const std::string& key, size_t size) {
  auto it = state.find(key);
  SPIRE_CHECK(it != state.end(), ValueError, "load_state: the saved state has no '", key,
              "' (was it saved by another integrator, thermostat or barostat?)");
  SPIRE_CHECK(it->second.size() == size, ValueError, "load_state: '", key, "' holds ", it->second.size(),
              " values where ", size, " were expected");
  return it->second;
}

inline double saved_value(const IntegratorState& state, const std::string& key) {
  return saved_values(state, key, 1)[0];
}

}  // namespace spire::sponge
