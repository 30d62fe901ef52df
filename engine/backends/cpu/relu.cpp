// CPU kernels for relu and relu_backward: one branch-free pass each, so the loops vectorise.
#include <concepts>

#include "engine/backends/cpu/loops.h"
#include "engine/backends/cpu/vmath.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

template <class T> concept Real = std::floating_point<T>;
template <class T> concept Integer = std::same_as<T, int32_t> || std::same_as<T, int64_t>;

// x <= 0 is false for NaN, which therefore passes through (torch.relu is clamp_min(x, 0)).
void relu_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (Real<T> || Integer<T>)
      map<T, T>(out[0], [](T x) { return vmath::select(x <= T(0), T(0), x); }, in[0]);
  });
}
SPIRE_REGISTER_KERNEL("relu", DeviceKind::CPU, relu_kernel);

// PyTorch's threshold_backward(grad, x, 0): 0 where x <= 0, grad elsewhere (a NaN x passes grad).
void relu_backward_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  visit_dtype(out[0].dtype(), [&]<class T>() {
    if constexpr (Real<T> || Integer<T>)
      map<T, T, T>(out[0], [](T g, T x) { return vmath::select(x <= T(0), T(0), g); }, in[0], in[1]);
  });
}
SPIRE_REGISTER_KERNEL("relu_backward", DeviceKind::CPU, relu_backward_kernel);

}  // namespace
}  // namespace spire::cpu
