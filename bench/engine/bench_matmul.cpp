// Square matmul throughput; the GFLOP/s counter counts 2 n^3 flops per product.
#include <benchmark/benchmark.h>

#include "bench/engine/available.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"

using namespace spire;

namespace {

template <DType D>
void BM_Matmul(benchmark::State& state) {
  SPIRE_BENCH_REQUIRE(state, spire::matmul);
  const int64_t n = state.range(0);
  Generator gen(1);
  Tensor a = normal({n, n}, 0.0, 1.0, D, gen), b = normal({n, n}, 0.0, 1.0, D, gen);
  for (auto _ : state) benchmark::DoNotOptimize(matmul(a, b));
  state.counters["GFLOPS"] = benchmark::Counter(2.0 * double(n) * double(n) * double(n) * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Matmul<DType::Float32>)->Name("BM_Matmul/f32")->Arg(256)->Arg(1024)->Arg(2048)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Matmul<DType::Float64>)->Name("BM_Matmul/f64")->Arg(256)->Arg(1024)->Arg(2048)
    ->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
