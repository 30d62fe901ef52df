#include "engine/core/matmul_precision.h"

#include <atomic>

#include "engine/core/error.h"

namespace spire {
namespace {
// Read by every float32 product on a GPU, possibly from several threads: an atomic, not a mutex.
std::atomic<MatmulPrecision> g_precision{MatmulPrecision::Highest};
}  // namespace

void set_float32_matmul_precision(const std::string& precision) {
  if (precision == "highest") g_precision.store(MatmulPrecision::Highest);
  else if (precision == "high") g_precision.store(MatmulPrecision::High);
  else
    throw ValueError(detail::cat("set_float32_matmul_precision: expected \"highest\" or \"high\", got \"",
                                 precision, "\""));
}

std::string get_float32_matmul_precision() {
  return g_precision.load() == MatmulPrecision::High ? "high" : "highest";
}

MatmulPrecision float32_matmul_precision() { return g_precision.load(); }

}  // namespace spire
