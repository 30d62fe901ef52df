// The C++ side of a launch: engine tensors described as a Loop for the nvcc side, and the check
// that turns a launcher's cudaError_t into a DeviceError naming the op.
#pragma once
#include <initializer_list>
#include <vector>

#include "engine/backends/cuda/kernel_abi.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/core/tensor.h"

namespace spire::cuda {

Elem elem(DType t);

// A loop over `out` (allocated contiguous by the dispatcher) and `ins`, each broadcast to out's
// shape (infer has already checked that they broadcast). Dimensions contiguous across every
// operand are merged. Throws ValueError if more than kMaxDims dimensions remain.
template <int N>
Loop<N> make_loop(const Tensor& out, std::initializer_list<Tensor> ins);

// The same over an explicit shape, for kernels whose output is not operand 0's shape source.
template <int N>
Loop<N> make_loop(const Shape& shape, const std::vector<Tensor>& operands);

// Checks a launcher's result: `what` names the op ("cuda kernel for 'add'").
inline void check_launch(cudaError_t err, const std::string& op) {
  if (err != cudaSuccess) throw_cuda_error(err, ("kernel for '" + op + "'").c_str());
}

}  // namespace spire::cuda
