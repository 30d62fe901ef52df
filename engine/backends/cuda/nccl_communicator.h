// The NCCL backend: collectives among the ranks' GPUs on CUDA tensors. Made by
// Communicator::on(cuda:i) over a CPU communicator of the same ranks (MPI, or the one-rank self
// world): rank 0 draws NCCL's unique id, the CPU communicator broadcasts it, and every rank joins
// with its own GPU (NCCL allows one rank per GPU; local_rank() is the usual choice).
//
// Streams. Every call is queued on the caller's current stream on the communicator's device and
// returns without waiting for the GPU; later work on that stream sees the results, as with any
// kernel. all_reduce_async, isend and irecv run on the communicator's own stream after the work
// queued so far on the current one; their Work's wait() makes the current stream wait for them
// (the host waits only when it reads the data), done() asks without waiting. The buffer must stay
// untouched until then, and the Work keeps it alive.
//
// Determinism. Sum, mean, max and min of floating and complex values do not use NCCL's own
// reductions, whose order depends on the algorithm NCCL picks for the size and topology. As in the
// MPI backend, the buffer is cut into size() chunks, chunk j of every rank goes to rank j (grouped
// ncclSend/ncclRecv), rank j folds the pieces in rank order ((x0 + x1) + x2) + ... with Spire's
// own kernels (mean then divides by size()), and the reduced chunks go to every rank. So a
// reduction gives the CPU backend's bits, on every rank and every run. Integer and bool
// reductions are exact in any order and use NCCL's (bool sum and max are or, min is and).
//
// Point-to-point. NCCL has no tags: messages between two ranks are matched in the order they were
// queued, so `tag` is checked for range and otherwise not used; and the receiver must give the
// sender's size (NCCL cannot tell it). A blocking send to oneself is refused, as in the other
// backends.
//
// Failure. A call that does not complete within the collective timeout, or that NCCL reports as
// failed, ends the job with a message naming it (nccl_watchdog.h).
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>

#include "engine/backends/cuda/nccl_watchdog.h"
#include "engine/parallel/communicator.h"

namespace spire::cuda {

class NcclCommunicator final : public parallel::Communicator {
 public:
  // Collective over `over`'s ranks, each passing its own device.
  static std::shared_ptr<NcclCommunicator> bootstrap(parallel::Communicator& over, Device device);

  int rank() const override { return handle_->rank; }
  int size() const override { return handle_->size; }
  std::string backend() const override { return "nccl"; }
  Device device() const override { return Device{DeviceKind::CUDA, handle_->device}; }
  ncclComm_t comm() const { return handle_->comm; }

  void all_reduce(Tensor& buffer, parallel::ReduceOp op) override;
  std::unique_ptr<parallel::Work> all_reduce_async(Tensor& buffer, parallel::ReduceOp op) override;
  void all_gather(const Tensor& in, Tensor& out) override;
  void reduce_scatter(const Tensor& in, Tensor& out, parallel::ReduceOp op) override;
  void all_to_all(const Tensor& in, Tensor& out) override;
  void broadcast(Tensor& buffer, int root) override;
  void send(const Tensor& buffer, int dst, int tag) override;
  void recv(Tensor& buffer, int src, int tag) override;
  std::unique_ptr<parallel::Work> isend(const Tensor& buffer, int dst, int tag) override;
  std::unique_ptr<parallel::Work> irecv(Tensor& buffer, int src, int tag) override;
  // Waits (the host) until every rank has reached it, within the collective timeout.
  void barrier() override;
  // ncclCommSplit, paired with the same split of the CPU communicator this one was made over (so
  // the new one's CPU side exists too, for on(cpu) and later bootstraps).
  std::shared_ptr<parallel::Communicator> split(int color, int key) override;

 private:
  explicit NcclCommunicator(std::shared_ptr<NcclHandle> handle);
  static std::shared_ptr<NcclCommunicator> adopt(std::shared_ptr<NcclHandle> handle);
  // The stream of all_reduce_async, isend and irecv (created once, never destroyed: memory
  // allocated on it is freed on it, possibly after this communicator is gone).
  cudaStream_t side_stream();
  // Queues the rank-order reduction of `in` (size() chunks of `out`'s size, or the whole buffer
  // gathered back when `gather`) on the current stream; see the file comment.
  void ordered_reduce(const Tensor& in, Tensor& out, parallel::ReduceOp op, bool gather, const char* call);
  // The same with NCCL's reductions (integers and bool).
  void native_reduce(const Tensor& in, Tensor& out, parallel::ReduceOp op, bool gather, const char* call);
  // Queues `queue`'s work on side_stream() after the caller's stream's work so far; the Work
  // keeps `keep` alive.
  std::unique_ptr<parallel::Work> on_side_stream(const Tensor& keep, const std::function<void()>& queue);

  std::shared_ptr<NcclHandle> handle_;
  cudaStream_t side_ = nullptr;
};

}  // namespace spire::cuda
