// Work across the trees (or leaves) of a batch on a pool of threads. Each index touches only its
// own tree and generator, so results do not depend on the thread count or on which thread runs
// which index. Small batches stay on the calling thread.
//
// Why not OpenMP: a parallel region ends at a barrier that every thread of the team must reach, so
// on a loaded machine one thread the scheduler starts late holds up the whole search (milliseconds,
// against microseconds of work per tree). Here the calling thread takes part and waits only for the
// indices already claimed; a worker that wakes after the work is gone just goes back to sleep.
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>

namespace spire::rl {

// Below this many indices per thread a step of the batched search runs serially.
constexpr int64_t kTreesPerThread = 4;

// The engine's thread count (OpenMP's, which SPIRE's CPU kernels use).
int default_threads();

// The threads a search step uses: `requested` (0: default_threads()), at most one per
// `per_thread` indices.
inline int search_threads(int requested, int64_t n, int64_t per_thread = kTreesPerThread) {
  const int64_t t = requested > 0 ? requested : default_threads();
  return static_cast<int>(std::max<int64_t>(1, std::min(t, n / per_thread)));
}

// body(i) for every i in [0, n) on up to `threads` threads (the caller's included); returns when
// all are done. An exception is rethrown on the calling thread (the one of the lowest index, so
// which error surfaces does not depend on scheduling). Called from inside a worker, or while
// another thread's call holds the pool, it runs serially.
void parallel_over_impl(int64_t n, int threads, const std::function<void(int64_t)>& body);

template <class Body>
void parallel_over(int64_t n, int threads, Body&& body) {
  if (threads <= 1 || n < 2) {
    for (int64_t i = 0; i < n; ++i) body(i);
    return;
  }
  parallel_over_impl(n, threads, std::function<void(int64_t)>(std::ref(body)));
}

}  // namespace spire::rl
