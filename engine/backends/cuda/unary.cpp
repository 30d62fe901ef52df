// Unary math kernels on CUDA tensors (unary.cu): one registration per op, all through launch_unary.
#include "engine/backends/cuda/elementwise.h"
#include "engine/backends/cuda/unary.h"

namespace spire::cuda {
namespace {

KernelFn unary(const char* op, UnaryOp which) {
  return [op, which](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    run_map<2>(op, in, out, in[0].dtype(), [&](const Loop<2>& L) { return launch_unary(which, L); });
  };
}

#define SPIRE_CUDA_UNARY(name, which) SPIRE_REGISTER_KERNEL(name, DeviceKind::CUDA, unary(name, UnaryOp::which))
SPIRE_CUDA_UNARY("exp", Exp);
SPIRE_CUDA_UNARY("expm1", Expm1);
SPIRE_CUDA_UNARY("log", Log);
SPIRE_CUDA_UNARY("log1p", Log1p);
SPIRE_CUDA_UNARY("reciprocal", Reciprocal);
SPIRE_CUDA_UNARY("square", Square);
SPIRE_CUDA_UNARY("sqrt", Sqrt);
SPIRE_CUDA_UNARY("rsqrt", Rsqrt);
SPIRE_CUDA_UNARY("sin", Sin);
SPIRE_CUDA_UNARY("cos", Cos);
SPIRE_CUDA_UNARY("tan", Tan);
SPIRE_CUDA_UNARY("asin", Asin);
SPIRE_CUDA_UNARY("acos", Acos);
SPIRE_CUDA_UNARY("atan", Atan);
SPIRE_CUDA_UNARY("sinh", Sinh);
SPIRE_CUDA_UNARY("cosh", Cosh);
SPIRE_CUDA_UNARY("tanh", Tanh);
SPIRE_CUDA_UNARY("sigmoid", Sigmoid);
SPIRE_CUDA_UNARY("softplus", Softplus);
SPIRE_CUDA_UNARY("erf", Erf);
SPIRE_CUDA_UNARY("abs", Abs);
SPIRE_CUDA_UNARY("sign", Sign);
SPIRE_CUDA_UNARY("angle", Angle);
SPIRE_CUDA_UNARY("floor", Floor);
SPIRE_CUDA_UNARY("ceil", Ceil);
SPIRE_CUDA_UNARY("round", Round);
#undef SPIRE_CUDA_UNARY

}  // namespace
}  // namespace spire::cuda
