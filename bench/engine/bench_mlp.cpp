// The 4-layer, 256-wide tanh MLP of bench/RESULTS.md at batch 1024, float32: x -> tanh(x W1 + b1)
// -> tanh(. W2 + b2) -> tanh(. W3 + b3) -> . W4 + b4; loss = mean(out * out). Gradient of the loss
// w.r.t. all 8 parameters, and a Hessian-vector product along a random direction.
#include <benchmark/benchmark.h>

#include "bench/engine/available.h"
#include "engine/autodiff/functional.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"

using namespace spire;

namespace {

constexpr int64_t kBatch = 1024, kWidth = 256, kLayers = 4;

struct Mlp {
  Tensor x;
  Tensors params;  // W1, b1, ..., W4, b4
  Tensors direction;
  Mlp() {
    Generator gen(4);
    x = normal({kBatch, kWidth}, 0.0, 1.0, DType::Float32, gen);
    for (int l = 0; l < kLayers; ++l) {
      params.push_back(normal({kWidth, kWidth}, 0.0, 1.0 / 16.0, DType::Float32, gen));  // 1/sqrt(256)
      params.push_back(zeros({kWidth}));
    }
    for (const Tensor& p : params) direction.push_back(normal(p.shape(), 0.0, 1.0, DType::Float32, gen));
  }
  Function loss() const {
    Tensor xin = x;
    return [xin](const Tensors& p) {
      Tensor h = xin;
      for (int l = 0; l < kLayers; ++l) {
        h = add(matmul(h, p[2 * l]), p[2 * l + 1]);
        if (l + 1 < kLayers) h = tanh(h);
      }
      return Tensors{mean(mul(h, h))};
    };
  }
};

std::vector<int> all_params() {
  std::vector<int> a;
  for (int i = 0; i < 2 * kLayers; ++i) a.push_back(i);
  return a;
}

bool mlp_available(benchmark::State& state) {
  for (const void* f : {reinterpret_cast<const void*>(&spire::matmul), reinterpret_cast<const void*>(&spire::tanh),
                        reinterpret_cast<const void*>(&spire::mean)})
    if (f == nullptr) {
      state.SkipWithError("matmul, tanh or mean is not in libspire_engine yet");
      return false;
    }
  return true;
}

void BM_MlpForward(benchmark::State& state) {
  if (!mlp_available(state)) return;
  Mlp m;
  Function f = m.loss();
  for (auto _ : state) benchmark::DoNotOptimize(f(m.params));
}

void BM_MlpGrad(benchmark::State& state) {
  if (!mlp_available(state)) return;
  Mlp m;
  Function g = grad(m.loss(), all_params());
  for (auto _ : state) benchmark::DoNotOptimize(g(m.params));
}

void BM_MlpHvp(benchmark::State& state) {
  if (!mlp_available(state)) return;
  Mlp m;
  Function f = m.loss();
  for (auto _ : state) benchmark::DoNotOptimize(hvp(f, m.params, m.direction));
}

BENCHMARK(BM_MlpForward)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MlpGrad)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MlpHvp)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
