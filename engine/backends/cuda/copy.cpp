// The "copy" kernel on CUDA tensors: a view of any strides (transposes, slices, broadcasts, an
// offset) into the contiguous output the dispatcher allocated, bits unchanged.
#include "engine/backends/cuda/cast.h"
#include "engine/backends/cuda/elementwise.h"

namespace spire::cuda {
namespace {

void copy_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  run_map<2>("copy", in, out, in[0].dtype(), launch_cast);
}
SPIRE_REGISTER_KERNEL("copy", DeviceKind::CUDA, copy_kernel);

}  // namespace
}  // namespace spire::cuda
