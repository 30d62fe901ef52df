// The C++ side shared by the elementwise kernels (arithmetic, unary, binary, compare, complex,
// relu, cast, copy): a registered kernel turns its tensors into a Loop, makes the output's device
// current and calls one launcher from a .cu file.
#pragma once
#include <string>
#include <vector>

#include "engine/backends/cuda/loop.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {

// What a launcher returns for a dtype it has no instantiation for. infer admits only the dtypes the
// kernels take, so reaching it is an internal error, reported as the CPU kernels report it.
constexpr cudaError_t kNoKernelForDtype = cudaErrorNotSupported;

inline void check_elementwise(cudaError_t err, const char* op, DType t) {
  if (err == cudaSuccess) return;  // the common case builds no strings
  SPIRE_CHECK(err != kNoKernelForDtype, DTypeError, op, ": internal: no CUDA kernel for ", name(t));
  check_launch(err, op);
}

// Runs launch(loop) over out[0] and `in` (broadcast to out[0]'s shape) on out[0]'s device. `t` is
// the dtype named if the launcher has no kernel for it.
template <int N, class Launch>
void run_map(const char* op, const std::vector<Tensor>& in, std::vector<Tensor>& out, DType t,
             Launch&& launch) {
  Tensor& o = out[0];
  DeviceGuard guard(o.device());
  std::vector<Tensor> operands{o};
  operands.insert(operands.end(), in.begin(), in.end());
  Loop<N> L = make_loop<N>(o.shape(), operands);
  check_elementwise(launch(L), op, t);
}

}  // namespace spire::cuda
