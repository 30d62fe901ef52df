#include "engine/backends/cuda/nccl_watchdog.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/backends/cuda/nccl_api.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/parallel/runtime.h"

namespace spire::cuda {
namespace {

using Clock = std::chrono::steady_clock;

struct Pending {
  std::shared_ptr<NcclHandle> handle;
  cudaEvent_t event;
  const char* call;
  Clock::time_point queued;
};

// Heap-allocated and never destroyed: the thread may still look at it while the process exits.
struct Watchdog {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<Pending> pending;
  std::map<int, std::vector<cudaEvent_t>> spare;  // completed events per device, reused
  bool started = false;
  bool stopping = false;  // the process is exiting: CUDA may already be gone
};

Watchdog& dog() {
  static auto* w = new Watchdog();
  return *w;
}

std::string describe(const NcclHandle& h) {
  return detail::cat("communicator ", h.id, " (nccl, rank ", h.rank, " of ", h.size, ", cuda:", h.device, ")");
}

// One pass over the operations in flight: completed ones are dropped, and a failure or a timeout
// ends the job. Returns the handles to release outside the lock (the last one destroys its comm).
std::vector<std::shared_ptr<NcclHandle>> inspect(Watchdog& w) {
  std::vector<std::shared_ptr<NcclHandle>> released;
  const double limit = parallel::collective_timeout();
  const Clock::time_point now = Clock::now();
  std::vector<Pending> still;
  for (Pending& p : w.pending) {
    cudaError_t q = cudaEventQuery(p.event);
    if (q == cudaSuccess) {
      w.spare[p.handle->device].push_back(p.event);
      released.push_back(std::move(p.handle));
      continue;
    }
    if (q == cudaErrorCudartUnloading || q == cudaErrorContextIsDestroyed) {  // exiting: stop watching
      w.stopping = true;
      return released;
    }
    if (q != cudaErrorNotReady) {
      cudaGetLastError();
      parallel::abort_job(detail::cat(p.call, " on ", describe(*p.handle), " failed on the GPU: ",
                                      cudaGetErrorName(q), " (", cudaGetErrorString(q), ")"));
    }
    ncclResult_t async = ncclSuccess;
    nccl().CommGetAsyncError(p.handle->comm, &async);
    if (async != ncclSuccess && async != ncclInProgress) {
      const char* why = nccl().GetLastError(p.handle->comm);
      nccl().CommAbort(p.handle->comm);
      parallel::abort_job(detail::cat(p.call, " on ", describe(*p.handle), " failed: ", nccl().GetErrorString(async),
                                      why && *why ? detail::cat(": ", why) : std::string()));
    }
    const double waited = std::chrono::duration<double>(now - p.queued).count();
    if (limit > 0 && waited > limit) {
      nccl().CommAbort(p.handle->comm);
      parallel::abort_job(parallel::timeout_message(p.call, describe(*p.handle), limit, waited));
    }
    still.push_back(std::move(p));
  }
  w.pending = std::move(still);
  return released;
}

void run(Watchdog& w) {
  std::unique_lock<std::mutex> lock(w.mutex);
  while (!w.stopping) {
    if (w.pending.empty()) {
      w.wake.wait(lock, [&] { return !w.pending.empty() || w.stopping; });
      continue;
    }
    auto released = inspect(w);
    lock.unlock();
    released.clear();  // may destroy a communicator: outside the lock
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    lock.lock();
  }
}

void start(Watchdog& w) {
  w.started = true;
  std::atexit([] {
    Watchdog& d = dog();
    std::lock_guard<std::mutex> lock(d.mutex);
    d.stopping = true;
    d.wake.notify_all();
  });
  std::thread([&w] { run(w); }).detach();  // detached: it must never hold up the process's exit
}

}  // namespace

NcclHandle::~NcclHandle() {
  if (!comm) return;
  int previous = -1;
  cudaGetDevice(&previous);
  cudaSetDevice(device);
  nccl().CommDestroy(comm);  // waits for the operations queued on it
  if (previous >= 0) cudaSetDevice(previous);
}

void watch(const std::shared_ptr<NcclHandle>& handle, const char* call, cudaStream_t stream) {
  Watchdog& w = dog();
  cudaEvent_t event = nullptr;
  {
    std::lock_guard<std::mutex> lock(w.mutex);
    if (w.stopping) return;
    auto& spare = w.spare[handle->device];
    if (!spare.empty()) {
      event = spare.back();
      spare.pop_back();
    }
  }
  ScopedDevice on(handle->device);
  if (!event) SPIRE_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate (nccl watchdog)");
  SPIRE_CUDA_CHECK(cudaEventRecord(event, stream), "cudaEventRecord (nccl watchdog)");
  std::lock_guard<std::mutex> lock(w.mutex);
  w.pending.push_back(Pending{handle, event, call, Clock::now()});
  if (!w.started) start(w);
  w.wake.notify_all();
}

void nccl_check(ncclResult_t rc, const char* call, ncclComm_t comm) {
  if (rc == ncclSuccess) return;
  const char* why = nccl().GetLastError(comm);
  throw DeviceError(detail::cat("nccl: ", call, " failed: ", nccl().GetErrorString(rc),
                                why && *why ? detail::cat(" (", why, ")") : std::string(),
                                "; NCCL_DEBUG=WARN prints NCCL's own account"));
}

}  // namespace spire::cuda
