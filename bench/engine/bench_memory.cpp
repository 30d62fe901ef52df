// Memory-bound work on 2^24 float32 (64 MiB per array, far beyond cache): the machine's bandwidth
// (memcpy and a STREAM triad written here, OpenMP over the same threads the engine uses) next to
// the engine's elementwise ops, plus a 2^20-point float64 rfft. bytes_per_second counts the
// minimum traffic (each input read once, the output written once), as STREAM does.
#include <benchmark/benchmark.h>

#include <omp.h>

#include <cstring>
#include <vector>

#include "bench/engine/available.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/fft.h"
#include "engine/ops/random.h"

using namespace spire;

namespace {

constexpr int64_t kN = int64_t(1) << 24;

void BM_StreamCopy(benchmark::State& state) {
  std::vector<float> x(kN, 1.0f), y(kN, 0.0f);
  for (auto _ : state) {
#pragma omp parallel
    {
      // Static split: each thread copies its contiguous share.
      int t = 0, nt = 1;
#ifdef _OPENMP
      t = omp_get_thread_num();
      nt = omp_get_num_threads();
#endif
      int64_t lo = kN * t / nt, hi = kN * (t + 1) / nt;
      std::memcpy(y.data() + lo, x.data() + lo, size_t(hi - lo) * sizeof(float));
    }
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t(sizeof(float)));
}

void BM_StreamTriad(benchmark::State& state) {
  std::vector<float> a(kN, 0.0f), b(kN, 1.0f), c(kN, 2.0f);
  const float s = 3.0f;
  for (auto _ : state) {
    float* pa = a.data();
    const float *pb = b.data(), *pc = c.data();
#pragma omp parallel for simd schedule(static)
    for (int64_t i = 0; i < kN; ++i) pa[i] = pb[i] + s * pc[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kN * 3 * int64_t(sizeof(float)));
}

Tensor input() {
  Generator gen(2);
  return uniform({kN}, -1.0, 1.0, DType::Float32, gen);
}

void BM_AxpbScalar(benchmark::State& state) {  // y = x * a + b, scalars a, b
  Tensor x = input();
  for (auto _ : state) benchmark::DoNotOptimize(add(mul(x, 1.5), 0.25));
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t(sizeof(float)));
}

void BM_Exp(benchmark::State& state) {
  SPIRE_BENCH_REQUIRE(state, spire::exp);
  Tensor x = input();
  for (auto _ : state) benchmark::DoNotOptimize(exp(x));
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t(sizeof(float)));
}

void BM_Tanh(benchmark::State& state) {
  SPIRE_BENCH_REQUIRE(state, spire::tanh);
  Tensor x = input();
  for (auto _ : state) benchmark::DoNotOptimize(tanh(x));
  state.SetBytesProcessed(state.iterations() * kN * 2 * int64_t(sizeof(float)));
}

void BM_Rfft(benchmark::State& state) {  // 2^20 float64 points
  SPIRE_BENCH_REQUIRE(state, spire::rfft);
  const int64_t n = state.range(0);
  Generator gen(3);
  Tensor x = normal({n}, 0.0, 1.0, DType::Float64, gen);
  benchmark::DoNotOptimize(rfft(x));  // plan once, outside the timing (plans are cached)
  for (auto _ : state) benchmark::DoNotOptimize(rfft(x));
}

#define SPIRE_MEM_BENCH(f) BENCHMARK(f)->Unit(benchmark::kMillisecond)->UseRealTime()
SPIRE_MEM_BENCH(BM_StreamCopy);
SPIRE_MEM_BENCH(BM_StreamTriad);
SPIRE_MEM_BENCH(BM_AxpbScalar);
SPIRE_MEM_BENCH(BM_Exp);
SPIRE_MEM_BENCH(BM_Tanh);
BENCHMARK(BM_Rfft)->Arg(1 << 20)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
