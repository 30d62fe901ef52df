// Streams: the current stream per device and thread (kernels, copies and the allocator use it), a
// guard that makes a stream current for a scope, and the pool user streams are drawn from.
#pragma once
#include <cuda_runtime_api.h>

#include <utility>

namespace spire::cuda {

// Devices per process the backend keeps per-device state for (streams, allocator statistics).
constexpr int kMaxDevices = 64;

// The stream Spire's work on the current device goes to from this thread; the legacy default
// stream (0) until a StreamGuard says otherwise.
cudaStream_t current_stream();
void set_current_stream(cudaStream_t s);
// The same for a given device (which need not be current).
cudaStream_t current_stream_on(int device);
void set_current_stream_on(int device, cudaStream_t s);

class StreamGuard {
 public:
  explicit StreamGuard(cudaStream_t s) : previous_(current_stream()) { set_current_stream(s); }
  ~StreamGuard() { set_current_stream(previous_); }
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  cudaStream_t previous_;
};

// CUDA's priority range on `device`: {lowest, highest}; numerically, highest <= lowest (CUDA counts
// down: -5 runs before 0).
std::pair<int, int> stream_priority_range(int device);

// A stream on `device` with `priority` (clamped into the device's range), from a pool of
// kStreamsPerPriority streams per device and priority handed out round robin. Pooled streams are
// never destroyed: memory is freed on the stream it was allocated on, possibly long after the
// object a user held has gone, so a stream handle must stay valid for the whole process. They are
// blocking streams (ordered with the legacy default stream, where Spire's work goes unless told
// otherwise), so a tensor made on the default stream is safe to use on a user stream; user
// streams still run concurrently with each other.
constexpr int kStreamsPerPriority = 32;
cudaStream_t pooled_stream(int device, int priority);

}  // namespace spire::cuda
