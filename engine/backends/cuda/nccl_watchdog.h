// NCCL collectives return as soon as they are queued on a stream, so a rank that never joins one
// does not make the call hang: it makes the GPU wait, and the host finds out at its next
// synchronisation, forever. The watchdog keeps the job from hanging there, as the MPI backend's
// polled calls do (engine/parallel/runtime.h): every queued NCCL operation is recorded with an
// event behind it; a thread checks the oldest ones, and when one has not completed within the
// collective timeout, or NCCL reports an asynchronous error (a peer died, a network failed), it
// aborts the NCCL communicator and ends the whole job with a message naming the call.
#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <memory>
#include <string>

namespace spire::cuda {

// An NCCL communicator handle, destroyed (ncclCommDestroy) when the last holder lets go: the
// communicator object and every operation still in flight on it.
struct NcclHandle {
  ncclComm_t comm = nullptr;
  int device = 0;
  int64_t id = 0;   // the Spire communicator's id, for messages
  int rank = 0, size = 1;
  ~NcclHandle();
};

// Records that `call` was queued on `stream` (on the handle's device) just now: an event is
// recorded there, and the watchdog follows it until it completes.
void watch(const std::shared_ptr<NcclHandle>& handle, const char* call, cudaStream_t stream);

// Throws DeviceError for an NCCL result other than success, naming the call and NCCL's reason.
void nccl_check(ncclResult_t rc, const char* call, ncclComm_t comm = nullptr);

}  // namespace spire::cuda
