#include "engine/backends/cuda/stream.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <vector>

#include "engine/backends/cuda/runtime.h"
#include "engine/core/error.h"

namespace spire::cuda {
namespace {

// Per thread, per device: a thread that switches devices keeps each device's stream.
thread_local std::array<cudaStream_t, kMaxDevices> current{};

int device_now() {
  int d = 0;
  SPIRE_CUDA_CHECK(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}

size_t slot(int device) {
  SPIRE_CHECK(device >= 0 && device < kMaxDevices, DeviceError, "cuda: device index ", device,
              " is outside the ", kMaxDevices, " devices Spire keeps state for");
  return size_t(device);
}

struct Pool {
  std::vector<cudaStream_t> streams;  // grows lazily up to kStreamsPerPriority
  size_t next = 0;
};

}  // namespace

cudaStream_t current_stream() { return current[slot(device_now())]; }
void set_current_stream(cudaStream_t s) { current[slot(device_now())] = s; }
cudaStream_t current_stream_on(int device) { return current[slot(device)]; }
void set_current_stream_on(int device, cudaStream_t s) { current[slot(device)] = s; }

std::pair<int, int> stream_priority_range(int device) {
  ScopedDevice on(device);
  int lowest = 0, highest = 0;
  SPIRE_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &highest), "cudaDeviceGetStreamPriorityRange");
  return {lowest, highest};
}

cudaStream_t pooled_stream(int device, int priority) {
  auto [lowest, highest] = stream_priority_range(device);
  priority = std::clamp(priority, highest, lowest);
  static std::mutex mu;
  static auto* pools = new std::map<std::pair<int, int>, Pool>();  // never destroyed (see header)
  std::lock_guard lock(mu);
  Pool& p = (*pools)[{device, priority}];
  size_t i = p.next++ % kStreamsPerPriority;
  if (i < p.streams.size()) return p.streams[i];
  ScopedDevice on(device);
  cudaStream_t s = nullptr;
  SPIRE_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamDefault, priority), "creating a stream");
  p.streams.push_back(s);
  return s;
}

}  // namespace spire::cuda
