// Moving bytes between devices, and what the engine knows about backends it does not link.
//
// The engine never links a GPU runtime. A backend library (libspire_cuda) registers, when it is
// loaded, its copy functions (a table indexed by source and destination kind) and a few device
// queries. A build without the backend, or a machine without a GPU or driver, therefore still
// loads the engine and answers "no CUDA" instead of failing.
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "engine/core/device.h"

namespace spire {

// Copies `bytes` contiguous bytes from `src` on device `from` to `dst` on device `to`, ordered on
// the device's current stream. By default it returns once the bytes are in place (host-synchronous),
// so the caller may read or free `src` at once; a copy between two device buffers is only
// stream-ordered, which is all later kernels on that stream need. With `non_blocking`, a copy whose
// host side is page-locked (pin_memory) returns at once: the host buffer must then stay untouched
// until the stream has passed the copy (synchronize it, or an event recorded after).
using CopyFn = std::function<void(const void* src, Device from, void* dst, Device to, size_t bytes,
                                  bool non_blocking)>;

void register_copy(DeviceKind from, DeviceKind to, CopyFn fn);
bool has_copy(DeviceKind from, DeviceKind to);
// Runs the registered copy, or throws DeviceError saying which backend is missing.
void copy_bytes(const void* src, Device from, void* dst, Device to, size_t bytes, bool non_blocking = false);

// Device queries a backend provides. Every function must work (and not throw) when the backend's
// library is present but there is no device or no driver: device_count then returns 0.
struct BackendHooks {
  std::string name;                             // "cuda"
  std::function<int()> device_count;
  std::function<std::string()> unavailable_reason;  // why device_count() is 0 ("" otherwise)
  std::function<int()> current_device;
  std::function<void(int)> set_device;
  std::function<void(int)> synchronize;
  std::function<std::string(int)> device_name;  // "NVIDIA H100 80GB HBM3"
  std::function<size_t(int)> total_memory;      // bytes of memory on the device

  // Page-locked host memory (cudaHostAlloc): what makes host<->device copies asynchronous.
  std::function<void*(size_t)> host_alloc;  // throws DeviceError when the backend cannot pin
  std::function<void(void*)> host_free;

  // Streams and events as opaque handles (a cudaStream_t / cudaEvent_t); a null stream handle is
  // the device's default stream. Streams come from a per-device pool and are never destroyed, so a
  // handle stays valid as long as the process (memory freed on a stream needs the stream alive).
  std::function<void*(int device, int priority)> stream_create;
  std::function<std::pair<int, int>(int device)> stream_priority_range;  // {lowest, highest}
  std::function<void*(int device)> current_stream;  // this thread's current stream on `device`
  std::function<void(int device, void* stream)> set_current_stream;
  std::function<void(int device, void* stream)> stream_synchronize;
  std::function<bool(int device, void* stream)> stream_query;  // true when all its work is done
  std::function<void(int device, void* stream, void* event)> stream_wait_event;
  std::function<void*(int device, bool timing)> event_create;
  std::function<void(int device, void* event)> event_destroy;  // never throws
  std::function<void(int device, void* event, void* stream)> event_record;
  std::function<void(int device, void* event)> event_synchronize;
  std::function<bool(int device, void* event)> event_query;
  std::function<float(int device, void* start, void* end)> event_elapsed_ms;
};

void register_backend(DeviceKind kind, BackendHooks hooks);
// The hooks of a loaded backend, or DeviceError naming `what` and why there is none.
const BackendHooks& backend_hooks(DeviceKind kind, const char* what);
// Whether the backend's library is loaded in this process (CPU: always).
bool backend_loaded(DeviceKind kind);
// Devices of that kind usable now (CPU: 1; a kind whose backend is not loaded: 0).
int device_count(DeviceKind kind);
bool device_available(Device d);
// Why a kind has no usable device ("" when it has one): backend not built, no driver, no device.
std::string unavailable_reason(DeviceKind kind);
// Throws DeviceError naming `what` and why `d` cannot be used (backend not built, no device, no
// driver, index out of range).
void require_device(Device d, const char* what);
// Waits until all work queued on `d` is done (no-op on CPU).
void synchronize(Device d);
// A human-readable name ("cpu", "cuda:0 (NVIDIA H100 80GB HBM3)").
std::string device_description(Device d);

bool cuda_available();
int cuda_device_count();

// Makes `d` its backend's current device for a scope, so allocations land there (no-op on CPU).
class DeviceGuard {
 public:
  explicit DeviceGuard(Device d);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  Device device_;
  int previous_ = -1;
};

}  // namespace spire
