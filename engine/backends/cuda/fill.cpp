// The "full" op on CUDA: constants (zeros for missing gradients in backward, ones for seeds) are
// needed on every device before any arithmetic kernel is.
#include "engine/backends/cuda/fill.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

void fill(const std::vector<Tensor>&, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& t = out[0];
  Scalar v = a.get<Scalar>("value");
  DeviceGuard guard(t.device());
  visit_dtype(t.dtype(), [&]<class T>() {
    T x = v.to<T>();
    SPIRE_CUDA_CHECK(launch_fill(t.raw_data(), t.numel(), &x, sizeof(T)), "fill kernel");
  });
}
SPIRE_REGISTER_KERNEL("full", DeviceKind::CUDA, fill);

}  // namespace
}  // namespace spire::cuda
