#include "engine/data/hdf5_lock.h"

namespace spire::data {

std::recursive_mutex& hdf5_mutex() {
  static std::recursive_mutex m;
  return m;
}

}  // namespace spire::data
