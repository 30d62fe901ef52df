// The C++ side shared by the indexing launchers: Temporaries (device memory from Spire's allocator),
// and the nonzero kernel.
#include "engine/backends/cuda/indexing.h"

#include "engine/backends/cuda/loop.h"
#include "engine/core/allocator.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {

namespace {
Allocator& device_allocator() {
  int dev = 0;
  SPIRE_CUDA_CHECK(cudaGetDevice(&dev), "cudaGetDevice");
  return allocator_for(Device{DeviceKind::CUDA, dev});
}
}  // namespace

void* Temporaries::get(size_t bytes) {
  if (bytes == 0) bytes = 1;
  blocks_.reserve(blocks_.size() + 1);  // so that push_back cannot throw after the allocation
  void* p = device_allocator().allocate(bytes);
  blocks_.emplace_back(p, bytes);
  return p;
}

// Freed in reverse order on the current device, which the kernel's DeviceGuard still holds.
Temporaries::~Temporaries() {
  if (blocks_.empty()) return;
  try {
    Allocator& a = device_allocator();
    for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it) a.deallocate(it->first, it->second);
  } catch (...) {
    // A destructor must not throw; the only failure is a CUDA runtime already torn down.
  }
}

namespace {

void nonzero_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;  // no nonzeros, or a 0-d x (rows of no coordinates)
  SPIRE_CHECK(x.dim() <= kMaxDims, ValueError, "nonzero: CUDA tensors of at most ", kMaxDims,
              " dimensions, got shape ", shape_str(x.shape()));
  DeviceGuard guard(y.device());
  Temporaries temps;
  Loop<1> L = make_loop<1>(x.shape(), {x});
  check_launch(launch_nonzero(L, int(x.dim()), x.shape().data(), y.shape()[0], y.data<int64_t>(), temps),
               "nonzero");
}
SPIRE_REGISTER_KERNEL("nonzero", DeviceKind::CUDA, nonzero_kernel);

}  // namespace
}  // namespace spire::cuda
