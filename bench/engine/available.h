// Engine functions the benchmarks call, re-declared weak: while a family is still being written
// the benchmark binary links anyway, and a benchmark whose function is missing reports
// "not in libspire_engine" (SkipWithError) instead of the binary failing to link or crashing.
#pragma once
#include <benchmark/benchmark.h>

#include <string>

#include "engine/ops/elementwise.h"
#include "engine/ops/fft.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"

namespace spire {
__attribute__((weak)) Tensor exp(const Tensor& x);
__attribute__((weak)) Tensor tanh(const Tensor& x);
__attribute__((weak)) Tensor matmul(const Tensor& a, const Tensor& b);
__attribute__((weak)) Tensor mean(const Tensor& x, const Axes& axes, bool keepdims);
__attribute__((weak)) Tensor rfft(const Tensor& x, int64_t axis, const std::string& norm);
}  // namespace spire

// Skips the benchmark (with a message) when `fn` is not defined in the engine library.
#define SPIRE_BENCH_REQUIRE(state, fn)                                              \
  do {                                                                              \
    if (reinterpret_cast<const void*>(&fn) == nullptr) {                            \
      (state).SkipWithError(#fn " is not in libspire_engine yet");                  \
      return;                                                                       \
    }                                                                               \
  } while (0)
