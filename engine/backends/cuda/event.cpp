#include "engine/backends/cuda/event.h"

#include "engine/backends/cuda/runtime.h"

namespace spire::cuda {

cudaEvent_t event_create(int device, bool timing) {
  ScopedDevice on(device);
  cudaEvent_t e = nullptr;
  SPIRE_CUDA_CHECK(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming),
                   "creating an event");
  return e;
}

void event_destroy(int device, cudaEvent_t e) noexcept {
  if (!e) return;
  // Safe while work before the event is still queued: CUDA releases it once the event completes.
  // Called from destructors, so no throwing; at process exit the runtime may already be gone.
  int previous = -1;
  if (cudaGetDevice(&previous) == cudaSuccess && previous != device) cudaSetDevice(device);
  if (cudaEventDestroy(e) != cudaSuccess) cudaGetLastError();
  if (previous >= 0 && previous != device) cudaSetDevice(previous);
}

void event_record(int device, cudaEvent_t e, cudaStream_t s) {
  ScopedDevice on(device);
  SPIRE_CUDA_CHECK(cudaEventRecord(e, s), "recording an event");
}

void event_synchronize(int device, cudaEvent_t e) {
  ScopedDevice on(device);
  SPIRE_CUDA_CHECK(cudaEventSynchronize(e), "waiting for an event");
}

bool event_query(int device, cudaEvent_t e) {
  ScopedDevice on(device);
  cudaError_t err = cudaEventQuery(e);
  if (err == cudaErrorNotReady) {
    cudaGetLastError();  // not an error: the work before the event is still running
    return false;
  }
  SPIRE_CUDA_CHECK(err, "querying an event");
  return true;
}

float event_elapsed_ms(int device, cudaEvent_t start, cudaEvent_t end) {
  ScopedDevice on(device);
  float ms = 0;
  SPIRE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, end),
                   "elapsed time between events (both need timing enabled, to be recorded, and done)");
  return ms;
}

void stream_synchronize(int device, cudaStream_t s) {
  ScopedDevice on(device);
  SPIRE_CUDA_CHECK(cudaStreamSynchronize(s), "synchronizing a stream");
}

bool stream_query(int device, cudaStream_t s) {
  ScopedDevice on(device);
  cudaError_t err = cudaStreamQuery(s);
  if (err == cudaErrorNotReady) {
    cudaGetLastError();
    return false;
  }
  SPIRE_CUDA_CHECK(err, "querying a stream");
  return true;
}

void stream_wait_event(int device, cudaStream_t s, cudaEvent_t e) {
  ScopedDevice on(device);
  SPIRE_CUDA_CHECK(cudaStreamWaitEvent(s, e, 0), "making a stream wait for an event");
}

}  // namespace spire::cuda
