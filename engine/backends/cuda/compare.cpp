// Comparison, logic and classification kernels on CUDA tensors (compare.cu).
#include "engine/backends/cuda/compare.h"
#include "engine/backends/cuda/elementwise.h"

namespace spire::cuda {
namespace {

KernelFn compare(const char* op, CompareOp which) {
  return [op, which](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    run_map<3>(op, in, out, in[0].dtype(), [&](const Loop<3>& L) { return launch_compare(which, L); });
  };
}
KernelFn predicate(const char* op, PredicateOp which) {
  return [op, which](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    run_map<2>(op, in, out, in[0].dtype(), [&](const Loop<2>& L) { return launch_predicate(which, L); });
  };
}

SPIRE_REGISTER_KERNEL("eq", DeviceKind::CUDA, compare("eq", CompareOp::Eq));
SPIRE_REGISTER_KERNEL("ne", DeviceKind::CUDA, compare("ne", CompareOp::Ne));
SPIRE_REGISTER_KERNEL("lt", DeviceKind::CUDA, compare("lt", CompareOp::Lt));
SPIRE_REGISTER_KERNEL("le", DeviceKind::CUDA, compare("le", CompareOp::Le));
SPIRE_REGISTER_KERNEL("gt", DeviceKind::CUDA, compare("gt", CompareOp::Gt));
SPIRE_REGISTER_KERNEL("ge", DeviceKind::CUDA, compare("ge", CompareOp::Ge));
SPIRE_REGISTER_KERNEL("logical_and", DeviceKind::CUDA, compare("logical_and", CompareOp::LogicalAnd));
SPIRE_REGISTER_KERNEL("logical_or", DeviceKind::CUDA, compare("logical_or", CompareOp::LogicalOr));
SPIRE_REGISTER_KERNEL("logical_xor", DeviceKind::CUDA, compare("logical_xor", CompareOp::LogicalXor));
SPIRE_REGISTER_KERNEL("logical_not", DeviceKind::CUDA, predicate("logical_not", PredicateOp::LogicalNot));
SPIRE_REGISTER_KERNEL("isnan", DeviceKind::CUDA, predicate("isnan", PredicateOp::IsNan));
SPIRE_REGISTER_KERNEL("isfinite", DeviceKind::CUDA, predicate("isfinite", PredicateOp::IsFinite));

}  // namespace
}  // namespace spire::cuda
