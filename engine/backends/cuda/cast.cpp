// The "cast" kernel on CUDA tensors: any dtype to any dtype, values converted as on the CPU.
#include "engine/backends/cuda/cast.h"
#include "engine/backends/cuda/elementwise.h"

namespace spire::cuda {
namespace {

void cast_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<2>("cast", in, out, in[0].dtype(), launch_cast);
}
SPIRE_REGISTER_KERNEL("cast", DeviceKind::CUDA, cast_kernel);

}  // namespace
}  // namespace spire::cuda
