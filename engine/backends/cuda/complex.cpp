// real, imag, conj and complex on CUDA tensors (complex.cu).
#include "engine/backends/cuda/complex.h"
#include "engine/backends/cuda/elementwise.h"

namespace spire::cuda {
namespace {

KernelFn part(const char* op, ComplexPart which) {
  return [op, which](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    run_map<2>(op, in, out, in[0].dtype(), [&](const Loop<2>& L) { return launch_complex_part(which, L); });
  };
}
SPIRE_REGISTER_KERNEL("real", DeviceKind::CUDA, part("real", ComplexPart::Real));
SPIRE_REGISTER_KERNEL("imag", DeviceKind::CUDA, part("imag", ComplexPart::Imag));

void conj_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<2>("conj", in, out, in[0].dtype(), launch_conj);
}
SPIRE_REGISTER_KERNEL("conj", DeviceKind::CUDA, conj_kernel);

void complex_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<3>("complex", in, out, in[0].dtype(), launch_make_complex);
}
SPIRE_REGISTER_KERNEL("complex", DeviceKind::CUDA, complex_kernel);

}  // namespace
}  // namespace spire::cuda
