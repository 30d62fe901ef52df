// pow, pow_scalar, atan2, maximum, minimum, where and clamp on CUDA tensors (binary.cu). The host
// side settles what the CPU kernels settle per call: which exact form an exponent takes, and the
// clamp bounds in the element type.
#include <limits>

#include "engine/backends/cuda/binary.h"
#include "engine/backends/cuda/elementwise.h"

namespace spire::cuda {
namespace {

void pow_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<3>("pow", in, out, out[0].dtype(), launch_pow);
}
SPIRE_REGISTER_KERNEL("pow", DeviceKind::CUDA, pow_kernel);

// The CPU kernel's choice of form, test for test.
PowForm pow_form(const Scalar& p) {
  const bool real_p = p.kind() != DType::Complex128 || p.to_complex().imag() == 0;
  const double d = p.to_double();
  if (!real_p) return PowForm::General;
  if (d == 1) return PowForm::Identity;
  if (d == 2) return PowForm::Square;
  if (d == 3) return PowForm::Cube;
  if (d == -1) return PowForm::Reciprocal;
  if (d == -2) return PowForm::ReciprocalSquare;
  if (d == 0.5) return PowForm::Sqrt;
  if (d == 0) return PowForm::One;
  return PowForm::General;
}

void pow_scalar_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
  const Scalar& p = attrs.get<Scalar>("exponent");
  visit_dtype(out[0].dtype(), [&]<class T>() {
    T e = p.to<T>();
    run_map<2>("pow_scalar", in, out, out[0].dtype(),
               [&](const Loop<2>& L) { return launch_pow_scalar(L, pow_form(p), &e, p.to_int()); });
  });
}
SPIRE_REGISTER_KERNEL("pow_scalar", DeviceKind::CUDA, pow_scalar_kernel);

void atan2_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<3>("atan2", in, out, out[0].dtype(), launch_atan2);
}
SPIRE_REGISTER_KERNEL("atan2", DeviceKind::CUDA, atan2_kernel);

KernelFn extremum(const char* op, bool is_max) {
  return [op, is_max](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    run_map<3>(op, in, out, out[0].dtype(), [&](const Loop<3>& L) { return launch_extremum(L, is_max); });
  };
}
SPIRE_REGISTER_KERNEL("maximum", DeviceKind::CUDA, extremum("maximum", true));
SPIRE_REGISTER_KERNEL("minimum", DeviceKind::CUDA, extremum("minimum", false));

void where_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<4>("where", in, out, out[0].dtype(), launch_where);
}
SPIRE_REGISTER_KERNEL("where", DeviceKind::CUDA, where_kernel);

// A missing bound is the type's extreme, as on the CPU.
void clamp_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      using Lim = std::numeric_limits<T>;
      T lo = attrs.has("lo") ? attrs.get<Scalar>("lo").to<T>() : (Lim::has_infinity ? -Lim::infinity() : Lim::lowest());
      T hi = attrs.has("hi") ? attrs.get<Scalar>("hi").to<T>() : (Lim::has_infinity ? Lim::infinity() : Lim::max());
      run_map<2>("clamp", in, out, out[0].dtype(), [&](const Loop<2>& L) { return launch_clamp(L, &lo, &hi); });
    } else {
      throw DTypeError(std::string("clamp: internal: no CUDA kernel for ") + name(out[0].dtype()));
    }
  });
}
SPIRE_REGISTER_KERNEL("clamp", DeviceKind::CUDA, clamp_kernel);

}  // namespace
}  // namespace spire::cuda
