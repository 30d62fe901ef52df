#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {
SPIRE_REGISTER_KERNEL("copy", DeviceKind::CPU,
                      [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
                        copy_into(in[0], out[0]);
                      });
}  // namespace
}  // namespace spire::cpu
