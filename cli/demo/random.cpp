// Step: counter-based random numbers: right moments, and the same bits for the same seed.
#include <cmath>
#include <cstring>

#include "cli/demo/demo.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::cli::demo {
namespace {

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

SPIRE_DEMO_STEP(60, "random", "Random numbers with a seed (Philox)", [](Context& c) {
  if (!c.needs_ops({"normal", "uniform", "sum", "mul"})) return;
  const int64_t n = 1'000'000;
  Generator gen(42);
  Tensor z = normal({n}, 0.0, 1.0, DType::Float64, gen);
  double mean = sum(z).item<double>() / double(n);
  double var = sum(z * z).item<double>() / double(n) - mean * mean;
  c.out << "  " << n << " standard normals, seed 42: first three " << slice(z, 0, 0, 3).str() << "\n";
  // Five standard errors: sd(mean) = 1/sqrt(n), sd(var) ~ sqrt(2/n).
  c.check("sample mean of N(0, 1)", mean, 0.0, 5.0 / std::sqrt(double(n)));
  c.check("sample variance of N(0, 1)", var, 1.0, 5.0 * std::sqrt(2.0 / double(n)));

  Generator g1(7), g2(7), g3(7, /*stream=*/1);
  Tensor u1 = uniform({1000}, 0, 1, DType::Float32, g1), u2 = uniform({1000}, 0, 1, DType::Float32, g2);
  Tensor u3 = uniform({1000}, 0, 1, DType::Float32, g3);
  c.check("same seed, same bits (1 = yes)", double(same_bits(u1, u2)), 1, 0);
  c.check("another stream differs (1 = yes)", double(!same_bits(u1, u3)), 1, 0);
});

}  // namespace
}  // namespace spire::cli::demo
