// Page-locked host memory: what lets host<->device copies run asynchronously (DMA straight from or
// into the buffer). cudaHostAlloc is slow (it maps pages for the device and may synchronise), so
// freed blocks are cached by power-of-two size, as the CPU allocator does. A block handed back
// while an asynchronous copy may still read or write it is not reused until that copy is done:
// every async copy records an event on its stream against the block (record_pinned_use).
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>

namespace spire::cuda {

void* pinned_alloc(size_t bytes);   // throws DeviceError (no GPU, no driver, out of memory)
void pinned_free(void* p) noexcept;
// Whether p points into a live block from pinned_alloc.
bool is_pinned_ptr(const void* p);
// Marks the block holding p as in use by work queued on `s` so far (on `device`).
void record_pinned_use(const void* p, int device, cudaStream_t s);
// Returns cached blocks whose copies are done to the system.
void pinned_empty_cache();

struct PinnedStats {
  size_t allocated = 0, cached = 0;
};
PinnedStats pinned_stats();

}  // namespace spire::cuda
