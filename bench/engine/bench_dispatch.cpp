// Eager dispatch overhead: one tiny op, so the time is all bookkeeping (inference, allocation,
// kernel lookup, autodiff record), not arithmetic.
#include <benchmark/benchmark.h>

#include "engine/ops/elementwise.h"

using namespace spire;

namespace {

void BM_AddTiny(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = ones({n}), b = ones({n});
  for (auto _ : state) benchmark::DoNotOptimize(add(a, b));
}
BENCHMARK(BM_AddTiny)->Arg(1)->Arg(8);

// The same op when an input requires grad, so a graph node is recorded as well.
void BM_AddTinyRecorded(benchmark::State& state) {
  const int64_t n = state.range(0);
  Tensor a = ones({n}), b = ones({n});
  a.set_requires_grad(true);
  for (auto _ : state) benchmark::DoNotOptimize(add(a, b));
}
BENCHMARK(BM_AddTinyRecorded)->Arg(1)->Arg(8);

}  // namespace
