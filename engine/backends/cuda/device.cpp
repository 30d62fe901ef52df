// What the CUDA backend tells the engine when libspire_cuda is loaded: how many devices there are
// (zero, with the reason, when there is no GPU or no driver), how to select and synchronise one,
// how to copy between host and device memory, page-locked host memory, streams and events.
#include <mutex>
#include <string>

#include "engine/backends/cuda/event.h"
#include "engine/backends/cuda/pinned.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/backends/cuda/stream.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

// The device count cannot change during a process; asking once also keeps the "no driver" error
// from resurfacing on every query.
struct Probe {
  int count = 0;
  std::string reason;
};

const Probe& probe() {
  static const Probe p = [] {
    Probe r;
    cudaError_t err = cudaGetDeviceCount(&r.count);
    if (err != cudaSuccess) {
      cudaGetLastError();
      r.count = 0;
      // The runtime's own strings mislead in the common cases ("insufficient" for "absent").
      std::string name = cudaGetErrorName(err);
      if (err == cudaErrorInsufficientDriver)
        r.reason = "no NVIDIA driver, or one older than this CUDA runtime (" + name + ")";
      else if (err == cudaErrorNoDevice)
        r.reason = "no CUDA-capable GPU detected (" + name + ")";
      else
        r.reason = name + ": " + cudaGetErrorString(err);
    }
    return r;
  }();
  return p;
}

int current_device() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return d;
}

void set_device(int d) { SPIRE_CUDA_CHECK(cudaSetDevice(d), "cudaSetDevice"); }

std::string device_name(int d) {
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, d) != cudaSuccess) {
    cudaGetLastError();
    return "unknown";
  }
  return prop.name;
}

size_t total_memory(int d) {
  cudaDeviceProp prop{};
  SPIRE_CUDA_CHECK(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
  return prop.totalGlobalMem;
}

// Every copy goes on the current stream of the device involved: device memory is allocated in
// that stream's order (allocator.cpp), and the kernels that made or will read the data run there.
// A copy returns before it is done only when asked to and when its host side is page-locked; then
// the pinned block records an event so that it is not reused before the copy has finished.
// Otherwise the stream is synchronised: pageable memory may be read by the DMA engine after
// cudaMemcpyAsync returns on some systems, and callers expect to read a device->host result at once.
void host_device_copy(const void* src, void* dst, size_t bytes, int device, cudaMemcpyKind kind,
                      const void* host_side, bool non_blocking, const char* what) {
  if (!bytes) return;
  ScopedDevice on(device);
  cudaStream_t s = current_stream();
  SPIRE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, s), what);
  if (non_blocking && is_pinned_ptr(host_side)) {
    record_pinned_use(host_side, device, s);
    return;
  }
  SPIRE_CUDA_CHECK(cudaStreamSynchronize(s), what);
}

void host_to_device(const void* src, Device, void* dst, Device to, size_t bytes, bool non_blocking) {
  host_device_copy(src, dst, bytes, to.index, cudaMemcpyHostToDevice, src, non_blocking, "copy cpu -> cuda");
}

void device_to_host(const void* src, Device from, void* dst, Device, size_t bytes, bool non_blocking) {
  host_device_copy(src, dst, bytes, from.index, cudaMemcpyDeviceToHost, dst, non_blocking, "copy cuda -> cpu");
}

void device_to_device(const void* src, Device from, void* dst, Device to, size_t bytes, bool) {
  if (!bytes) return;
  if (from.index == to.index) {
    // Stream-ordered and never host-synchronous: later work on the stream sees the bytes, and the
    // source, freed on this stream too, stays until the copy has read it.
    ScopedDevice on(to.index);
    SPIRE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, current_stream()),
                     "copy cuda -> cuda");
    return;
  }
  // Between GPUs the two devices' streams know nothing of each other: wait until the source is
  // written, copy on the destination's stream, and wait again so that the source may be freed (on
  // its own stream) at once. Rare enough that the two synchronisations do not matter.
  stream_synchronize(from.index, current_stream_on(from.index));
  ScopedDevice on(to.index);
  cudaStream_t s = current_stream();
  SPIRE_CUDA_CHECK(cudaMemcpyPeerAsync(dst, to.index, src, from.index, bytes, s), "copy between GPUs");
  SPIRE_CUDA_CHECK(cudaStreamSynchronize(s), "copy between GPUs");
}

cudaStream_t as_stream(void* h) { return static_cast<cudaStream_t>(h); }
cudaEvent_t as_event(void* h) { return static_cast<cudaEvent_t>(h); }

const bool registered = [] {
  BackendHooks h;
  h.name = "cuda";
  h.device_count = [] { return probe().count; };
  h.unavailable_reason = [] { return probe().reason; };
  h.current_device = current_device;
  h.set_device = set_device;
  h.synchronize = [](int d) {
    ScopedDevice on(d);
    SPIRE_CUDA_CHECK(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  };
  h.device_name = device_name;
  h.total_memory = total_memory;
  h.host_alloc = pinned_alloc;
  h.host_free = pinned_free;
  h.stream_create = [](int d, int priority) -> void* { return pooled_stream(d, priority); };
  h.stream_priority_range = stream_priority_range;
  h.current_stream = [](int d) -> void* { return current_stream_on(d); };
  h.set_current_stream = [](int d, void* s) { set_current_stream_on(d, as_stream(s)); };
  h.stream_synchronize = [](int d, void* s) { stream_synchronize(d, as_stream(s)); };
  h.stream_query = [](int d, void* s) { return stream_query(d, as_stream(s)); };
  h.stream_wait_event = [](int d, void* s, void* e) { stream_wait_event(d, as_stream(s), as_event(e)); };
  h.event_create = [](int d, bool timing) -> void* { return event_create(d, timing); };
  h.event_destroy = [](int d, void* e) { event_destroy(d, as_event(e)); };
  h.event_record = [](int d, void* e, void* s) { event_record(d, as_event(e), as_stream(s)); };
  h.event_synchronize = [](int d, void* e) { event_synchronize(d, as_event(e)); };
  h.event_query = [](int d, void* e) { return event_query(d, as_event(e)); };
  h.event_elapsed_ms = [](int d, void* a, void* b) { return event_elapsed_ms(d, as_event(a), as_event(b)); };
  register_backend(DeviceKind::CUDA, std::move(h));
  register_copy(DeviceKind::CPU, DeviceKind::CUDA, host_to_device);
  register_copy(DeviceKind::CUDA, DeviceKind::CPU, device_to_host);
  register_copy(DeviceKind::CUDA, DeviceKind::CUDA, device_to_device);
  return true;
}();

}  // namespace
}  // namespace spire::cuda
