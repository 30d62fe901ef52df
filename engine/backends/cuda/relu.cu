// relu and its backward on the GPU, as the CPU kernels: x <= 0 is false for NaN, so a NaN input
// passes through relu (torch.relu is clamp_min(x, 0)) and passes its gradient through the backward
// (PyTorch's threshold_backward(grad, x, 0)).
#include "engine/backends/cuda/arithmetic.cuh"
#include "engine/backends/cuda/elementwise.cuh"
#include "engine/backends/cuda/relu.h"

namespace spire::cuda {
namespace {

struct Relu { template <class T> SPIRE_HD T operator()(T x) const { return x <= T(0) ? T(0) : x; } };
struct ReluBackward { template <class T> SPIRE_HD T operator()(T g, T x) const { return x <= T(0) ? T(0) : g; } };

}  // namespace

cudaError_t launch_relu(const Loop<2>& L) {
  return visit_elem(L.elem[0], [&]<class T>() -> cudaError_t {
    if constexpr (is_floating_v<T> || is_integer_v<T>) return launch_map<T, T>(L, Relu{});
    else return cudaErrorNotSupported;
  });
}

cudaError_t launch_relu_backward(const Loop<3>& L) {
  return visit_elem(L.elem[0], [&]<class T>() -> cudaError_t {
    if constexpr (is_floating_v<T> || is_integer_v<T>) return launch_map<T, T, T>(L, ReluBackward{});
    else return cudaErrorNotSupported;
  });
}

}  // namespace spire::cuda
