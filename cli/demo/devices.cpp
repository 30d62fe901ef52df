// Step: the devices found, and a round trip through the GPU where there is one.
#include "cli/demo/demo.h"
#include "engine/ops/device.h"

namespace spire::cli::demo {
namespace {

SPIRE_DEMO_STEP(70, "devices", "Devices", [](Context& c) {
  c.out << "  cpu\n";
  int n = cuda_device_count();
  for (int i = 0; i < n; ++i) c.out << "  " << device_description(Device{DeviceKind::CUDA, i}) << "\n";
  if (n == 0) {
    c.out << "  (" << unavailable_reason(DeviceKind::CUDA) << "; the tour ran on the CPU)\n";
    return;
  }
  Tensor x = from_vector<double>({1.0, 2.0, 3.0}, {3});
  Tensor back = to(to(x, "cuda"), kCPU);
  c.check("cpu -> cuda -> cpu round trip, element 2", back.to_vector()[2], 3.0, 0.0);
});

}  // namespace
}  // namespace spire::cli::demo
