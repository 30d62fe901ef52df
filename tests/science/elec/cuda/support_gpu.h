// Whether the FDTD GPU suite has its device. It carries the ctest label `cuda`, which `make test`
// leaves out on machines without a GPU and `make gpu-test` runs where there is one, so a missing
// device when it does run is a failure, never a reason to skip.
#pragma once
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

namespace spire::elec::testing {

inline bool have_gpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();  // clear the error a machine without a driver leaves behind
  return ok;
}

}  // namespace spire::elec::testing

#define REQUIRE_GPU()                               \
  ASSERT_TRUE(::spire::elec::testing::have_gpu()) \
      << "no CUDA device visible: the elec GPU tests (ctest label cuda, make gpu-test) need one"
