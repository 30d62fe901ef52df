// relu and relu_backward on CUDA tensors (relu.cu).
#include "engine/backends/cuda/elementwise.h"
#include "engine/backends/cuda/relu.h"

namespace spire::cuda {
namespace {

void relu_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<2>("relu", in, out, out[0].dtype(), launch_relu);
}
SPIRE_REGISTER_KERNEL("relu", DeviceKind::CUDA, relu_kernel);

void relu_backward_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<3>("relu_backward", in, out, out[0].dtype(), launch_relu_backward);
}
SPIRE_REGISTER_KERNEL("relu_backward", DeviceKind::CUDA, relu_backward_kernel);

}  // namespace
}  // namespace spire::cuda
