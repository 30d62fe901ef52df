// add, sub, mul, div and neg on CUDA tensors: every dtype, as the CPU kernels (arithmetic.cu).
#include "engine/backends/cuda/arithmetic.h"
#include "engine/backends/cuda/elementwise.h"

namespace spire::cuda {
namespace {

KernelFn arithmetic(const char* op, ArithOp which) {
  return [op, which](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    run_map<3>(op, in, out, out[0].dtype(), [&](const Loop<3>& L) { return launch_arithmetic(which, L); });
  };
}

SPIRE_REGISTER_KERNEL("add", DeviceKind::CUDA, arithmetic("add", ArithOp::Add));
SPIRE_REGISTER_KERNEL("sub", DeviceKind::CUDA, arithmetic("sub", ArithOp::Sub));
SPIRE_REGISTER_KERNEL("mul", DeviceKind::CUDA, arithmetic("mul", ArithOp::Mul));
SPIRE_REGISTER_KERNEL("div", DeviceKind::CUDA, arithmetic("div", ArithOp::Div));

void neg_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<2>("neg", in, out, out[0].dtype(), launch_neg);
}
SPIRE_REGISTER_KERNEL("neg", DeviceKind::CUDA, neg_kernel);

}  // namespace
}  // namespace spire::cuda
