// Step: matrix multiplication speed (GEMM through Eigen/OpenBLAS), checked entry by entry.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "cli/demo/demo.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"

namespace spire::cli::demo {
namespace {

SPIRE_DEMO_STEP(50, "matmul", "Matrix multiply: speed and accuracy", [](Context& c) {
  if (!c.needs_ops({"matmul", "uniform"})) return;
  const int64_t n = 512;
  Generator gen(2024);
  for (DType dt : {DType::Float64, DType::Float32}) {
    Tensor a = uniform({n, n}, -1, 1, dt, gen), b = uniform({n, n}, -1, 1, dt, gen);
    Tensor out = matmul(a, b);  // warm-up: thread pool, pages
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      auto t0 = std::chrono::steady_clock::now();
      out = matmul(a, b);
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::string tag = std::string(name(dt)) + " " + std::to_string(n) + "x" + std::to_string(n);
    c.figure(tag + " matmul time (best of 3)", best * 1e3, "ms");
    c.figure(tag + " matmul rate", 2.0 * double(n) * n * n / best * 1e-9, "GFLOP/s");
    // 16 entries recomputed here in double precision, independently of the GEMM library.
    std::vector<double> av = a.to_vector(), bv = b.to_vector(), cv = out.to_vector();
    double err = 0;
    for (int k = 0; k < 16; ++k) {
      int64_t i = (k * 131) % n, j = (k * 197 + 7) % n;
      double ref = 0;
      for (int64_t l = 0; l < n; ++l) ref += av[i * n + l] * bv[l * n + j];
      err = std::max(err, std::abs(cv[i * n + j] - ref));
    }
    c.check(tag + " max entry error (16 entries)", err, 0.0, dt == DType::Float64 ? 1e-12 : 1e-4);
  }
});

}  // namespace
}  // namespace spire::cli::demo
