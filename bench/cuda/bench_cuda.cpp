// The CUDA backend against the libraries and the hardware under it, on one GPU in one run
// (`make gpu-test` runs it; figures go to bench/RESULTS.md):
//   GEMM        Spire's matmul against cublasSgemm/cublasDgemm called directly      (goal >= 0.95x)
//   elementwise Spire's add (3 streams of memory) against a device-to-device copy   (goal >= 0.85x
//               of the copy's bandwidth, both counted as bytes moved)
//   FFT         Spire's fftn/rfftn against cufftExecC2C/R2C called directly          (goal >= 0.95x)
//   dispatch    eager overhead of one small op, host time per call
//   MLP         one training step of the 4x256 tanh MLP (batch 1024, float32): forward, backward, Adam
// GPU times come from CUDA events around each iteration (manual time); the dispatch benchmark is
// host time over many calls with one synchronisation at the end.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>

#include "engine/autodiff/backward.h"
#include "engine/core/transfer.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/fft.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"
#include "engine/optim/adam.h"

using namespace spire;

namespace {

const Device kGPU{DeviceKind::CUDA, 0};

bool gpu_ready(benchmark::State& state) {
  if (cuda_available()) return true;
  state.SkipWithError(("no GPU: " + unavailable_reason(DeviceKind::CUDA)).c_str());
  return false;
}

// Times `body` per iteration with CUDA events on the legacy default stream (where Spire's kernels
// and the direct library calls below both run).
template <class Body>
void time_on_gpu(benchmark::State& state, Body body) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  body();  // warm-up: plans, handles, the allocator's pool
  cudaDeviceSynchronize();
  for (auto _ : state) {
    cudaEventRecord(start, 0);
    body();
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    state.SetIterationTime(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

Tensor gpu_normal(const Shape& shape, DType t, uint64_t seed) {
  Generator gen(seed);
  return to(normal(shape, 0.0, 1.0, t, gen), kGPU);
}

// ---- GEMM ----------------------------------------------------------------------------------------

template <DType T>
void BM_GemmSpire(benchmark::State& state) {
  if (!gpu_ready(state)) return;
  int64_t n = state.range(0);
  Tensor a = gpu_normal({n, n}, T, 1), b = gpu_normal({n, n}, T, 2);
  time_on_gpu(state, [&] { benchmark::DoNotOptimize(matmul(a, b)); });
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * n * n * n * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
}

template <DType T>
void BM_GemmCublas(benchmark::State& state) {
  if (!gpu_ready(state)) return;
  int64_t n = state.range(0);
  Tensor a = gpu_normal({n, n}, T, 1), b = gpu_normal({n, n}, T, 2), c = gpu_normal({n, n}, T, 3);
  cublasHandle_t h;
  cublasCreate(&h);
  int m = int(n);
  // Row-major C = A B is column-major C^T = B^T A^T: the same call Spire's kernel makes.
  time_on_gpu(state, [&] {
    if constexpr (T == DType::Float32) {
      float one = 1, zero = 0;
      cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, static_cast<const float*>(b.raw_data()), m,
                  static_cast<const float*>(a.raw_data()), m, &zero, static_cast<float*>(c.raw_data()), m);
    } else {
      double one = 1, zero = 0;
      cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one, static_cast<const double*>(b.raw_data()), m,
                  static_cast<const double*>(a.raw_data()), m, &zero, static_cast<double*>(c.raw_data()), m);
    }
  });
  cublasDestroy(h);
  state.counters["TFLOP/s"] = benchmark::Counter(2.0 * n * n * n * 1e-12, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- Elementwise bandwidth -----------------------------------------------------------------------

void BM_AddSpire(benchmark::State& state) {
  if (!gpu_ready(state)) return;
  int64_t n = state.range(0);
  Tensor a = gpu_normal({n}, DType::Float32, 1), b = gpu_normal({n}, DType::Float32, 2);
  time_on_gpu(state, [&] { benchmark::DoNotOptimize(add(a, b)); });
  state.counters["GB/s"] = benchmark::Counter(3.0 * 4 * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_CopyDeviceToDevice(benchmark::State& state) {
  if (!gpu_ready(state)) return;
  int64_t n = state.range(0);
  Tensor a = gpu_normal({n}, DType::Float32, 1), c = gpu_normal({n}, DType::Float32, 2);
  time_on_gpu(state, [&] { cudaMemcpyAsync(c.raw_data(), a.raw_data(), 4 * n, cudaMemcpyDeviceToDevice, 0); });
  state.counters["GB/s"] = benchmark::Counter(2.0 * 4 * n * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- FFT -------------------------------------------------------------------------------------------

void BM_Fft2Spire(benchmark::State& state) {
  if (!gpu_ready(state)) return;
  int64_t n = state.range(0);
  Tensor x = cast(gpu_normal({n, n}, DType::Float32, 5), DType::Complex64);
  time_on_gpu(state, [&] { benchmark::DoNotOptimize(fftn(x, {0, 1})); });
  state.counters["elements/s"] = benchmark::Counter(double(n) * n, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Fft2Cufft(benchmark::State& state) {
  if (!gpu_ready(state)) return;
  int n = int(state.range(0));
  Tensor x = to(zeros({n, n}, DType::Complex64), kGPU), y = to(zeros({n, n}, DType::Complex64), kGPU);
  cufftHandle plan;
  cufftPlan2d(&plan, n, n, CUFFT_C2C);
  time_on_gpu(state, [&] {
    cufftExecC2C(plan, static_cast<cufftComplex*>(x.raw_data()), static_cast<cufftComplex*>(y.raw_data()), CUFFT_FORWARD);
  });
  cufftDestroy(plan);
  state.counters["elements/s"] = benchmark::Counter(double(n) * n, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- Dispatch overhead and the MLP step --------------------------------------------------------------

void BM_DispatchSmallAdd(benchmark::State& state) {
  if (!gpu_ready(state)) return;
  Tensor a = gpu_normal({16}, DType::Float32, 1), b = gpu_normal({16}, DType::Float32, 2);
  for (auto _ : state) benchmark::DoNotOptimize(add(a, b));
  synchronize(kGPU);
}

void BM_MlpTrainStep(benchmark::State& state) {
  if (!gpu_ready(state)) return;
  constexpr int64_t kBatch = 1024, kWidth = 256, kLayers = 4;
  Tensors params;  // W1, b1, ..., W4, b4, as bench/engine/bench_mlp.cpp
  for (int l = 0; l < kLayers; ++l) {
    params.push_back(mul(gpu_normal({kWidth, kWidth}, DType::Float32, 10 + l), Scalar(1.0 / 16)).set_requires_grad(true));
    params.push_back(to(zeros({kWidth}), kGPU).set_requires_grad(true));
  }
  optim::Adam adam(params);
  Tensor x = gpu_normal({kBatch, kWidth}, DType::Float32, 7);
  time_on_gpu(state, [&] {
    Tensor h = x;
    for (int l = 0; l < kLayers; ++l) {
      h = add(matmul(h, params[2 * l]), params[2 * l + 1]);
      if (l + 1 < kLayers) h = tanh(h);
    }
    adam.zero_grad();
    mean(mul(h, h)).backward();
    adam.step();
  });
}

BENCHMARK(BM_GemmSpire<DType::Float32>)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmCublas<DType::Float32>)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmSpire<DType::Float64>)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GemmCublas<DType::Float64>)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AddSpire)->Arg(1 << 26)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_CopyDeviceToDevice)->Arg(1 << 26)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Fft2Spire)->Arg(2048)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Fft2Cufft)->Arg(2048)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DispatchSmallAdd)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MlpTrainStep)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace
