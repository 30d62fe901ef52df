// Events: markers recorded on a stream, for ordering one stream after another and for timing.
// Exposed to the engine as opaque handles through BackendHooks (device.cpp).
#pragma once
#include <cuda_runtime_api.h>

namespace spire::cuda {

// `timing`: whether elapsed_ms may be asked of it (timing costs a little at record time).
cudaEvent_t event_create(int device, bool timing);
void event_destroy(int device, cudaEvent_t e) noexcept;
void event_record(int device, cudaEvent_t e, cudaStream_t s);
void event_synchronize(int device, cudaEvent_t e);
bool event_query(int device, cudaEvent_t e);
// Milliseconds from `start` to `end`; both must have been recorded with timing and completed.
float event_elapsed_ms(int device, cudaEvent_t start, cudaEvent_t end);

void stream_synchronize(int device, cudaStream_t s);
bool stream_query(int device, cudaStream_t s);
void stream_wait_event(int device, cudaStream_t s, cudaEvent_t e);

}  // namespace spire::cuda
