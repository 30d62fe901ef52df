// CPU kernels for complex parts.
#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

template <class Part>
KernelFn complex_to_real(Part part) {
  return [part](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    if (in[0].dtype() == DType::Complex64)
      map<float, c64>(out[0], [&](c64 z) { return part(z); }, in[0]);
    else
      map<double, c128>(out[0], [&](c128 z) { return part(z); }, in[0]);
  };
}

SPIRE_REGISTER_KERNEL("real", DeviceKind::CPU, complex_to_real([](auto z) { return z.real(); }));
SPIRE_REGISTER_KERNEL("imag", DeviceKind::CPU, complex_to_real([](auto z) { return z.imag(); }));

void conj_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  if (in[0].dtype() == DType::Complex64)
    map<c64, c64>(out[0], [](c64 z) { return std::conj(z); }, in[0]);
  else
    map<c128, c128>(out[0], [](c128 z) { return std::conj(z); }, in[0]);
}
SPIRE_REGISTER_KERNEL("conj", DeviceKind::CPU, conj_kernel);

void complex_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  if (in[0].dtype() == DType::Float32)
    map<c64, float, float>(out[0], [](float a, float b) { return c64(a, b); }, in[0], in[1]);
  else
    map<c128, double, double>(out[0], [](double a, double b) { return c128(a, b); }, in[0], in[1]);
}
SPIRE_REGISTER_KERNEL("complex", DeviceKind::CPU, complex_kernel);

}  // namespace
}  // namespace spire::cpu
