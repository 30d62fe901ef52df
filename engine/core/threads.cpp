#include "engine/core/threads.h"

#include <omp.h>

#include "engine/core/error.h"

namespace spire {

int num_threads() { return omp_get_max_threads(); }

void set_num_threads(int n) {
  SPIRE_CHECK(n >= 1, ValueError, "set_num_threads: the number of threads must be >= 1, got ", n);
  // OpenBLAS built for OpenMP follows omp_get_max_threads() of the calling thread, so this covers
  // GEMM as well as the engine's own loops.
  omp_set_num_threads(n);
}

}  // namespace spire
