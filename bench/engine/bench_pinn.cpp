// The PINN step of bench/RESULTS.md from C++: u: R^d -> R, 4 tanh layers of 64 units and a linear
// output, float32, on 4096 points; loss = mean((laplacian(u)(x) - s)^2) with the forward Laplacian
// (autodiff/differential.h), and its gradient w.r.t. the 10 parameters by reverse mode. Next to it,
// the plain forward pass u(x) and the loss alone, for d = 2, 8, 32.
#include <benchmark/benchmark.h>

#include <cmath>

#include "engine/autodiff/differential.h"
#include "engine/autodiff/functional.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"

using namespace spire;

namespace {

constexpr int64_t kPoints = 4096, kWidth = 64, kHidden = 4;

struct Pinn {
  Tensor x, s;
  Tensors params;  // W0, b0, ..., W4, b4
  explicit Pinn(int64_t d) {
    Generator gen(5);
    x = uniform({kPoints, d}, -1.0, 1.0, DType::Float32, gen);
    s = mul(sum(sin(mul(x, M_PI)), {-1}, true), -M_PI * M_PI);
    int64_t fan_in = d;
    for (int l = 0; l <= kHidden; ++l) {
      int64_t fan_out = l < kHidden ? kWidth : 1;
      params.push_back(normal({fan_in, fan_out}, 0.0, 1.0 / std::sqrt(double(fan_in)), DType::Float32, gen));
      params.push_back(normal({fan_out}, 0.0, 0.1, DType::Float32, gen));
      fan_in = fan_out;
    }
  }
};

Tensor net(const Tensors& p, const Tensor& x) {
  Tensor h = x;
  for (int l = 0; l <= kHidden; ++l) {
    h = add(matmul(h, p[2 * l]), p[2 * l + 1]);
    if (l < kHidden) h = tanh(h);
  }
  return h;
}

Function loss(const Pinn& m) {
  Tensor x = m.x, s = m.s;
  return [x, s](const Tensors& p) {
    Tensor r = sub(laplacian([&p](const Tensor& pts) { return net(p, pts); })(x), s);
    return Tensors{mean(mul(r, r))};
  };
}

std::vector<int> all_params() {
  std::vector<int> a;
  for (int i = 0; i < 2 * (kHidden + 1); ++i) a.push_back(i);
  return a;
}

void BM_PinnForward(benchmark::State& state) {
  Pinn m(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(net(m.params, m.x));
}

void BM_PinnLaplacian(benchmark::State& state) {
  Pinn m(state.range(0));
  Function f = loss(m);
  for (auto _ : state) benchmark::DoNotOptimize(f(m.params));
}

void BM_PinnStep(benchmark::State& state) {
  Pinn m(state.range(0));
  Function g = value_and_grad(loss(m), all_params());
  for (auto _ : state) benchmark::DoNotOptimize(g(m.params));
}

BENCHMARK(BM_PinnForward)->Arg(2)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PinnLaplacian)->Arg(2)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_PinnStep)->Arg(2)->Arg(8)->Arg(32)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
