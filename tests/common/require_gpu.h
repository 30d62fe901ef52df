// Whether a GPU suite has its device. The GPU suites (test_*_gpu.cpp of every package) carry the
// ctest label `cuda`, which `make test` leaves out on machines without a GPU and `make gpu-test`
// runs where there is one, so a missing device when they do run is a failure, never a reason to
// skip: REQUIRE_GPU() asserts it.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace spire::fixtures {

inline bool have_gpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();  // clear the error a machine without a driver leaves behind
  return ok;
}

}  // namespace spire::fixtures

#define REQUIRE_GPU()                          \
  ASSERT_TRUE(::spire::fixtures::have_gpu()) \
      << "no CUDA device visible: the GPU tests (ctest label cuda, make gpu-test) need one"
