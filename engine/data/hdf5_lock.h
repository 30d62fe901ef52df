// Debian's HDF5 is the serial build, whose C library is not thread-safe: every call into it, from
// any part of Spire (datasets, checkpoints), must hold this one process-wide lock. Recursive, so
// helpers that call HDF5 may nest.
#pragma once
#include <mutex>

namespace spire::data {

std::recursive_mutex& hdf5_mutex();

}  // namespace spire::data
