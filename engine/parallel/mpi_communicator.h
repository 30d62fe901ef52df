// The MPI backend: collectives among the ranks of an MPI communicator, on CPU tensors of every
// dtype (bool travels as MPI_C_BOOL, complex as MPI_C_FLOAT_COMPLEX / MPI_C_DOUBLE_COMPLEX).
//
// Determinism. MPI_Allreduce's reduction order is the implementation's choice (it can differ with
// the message size, the rank count and even between ranks), so Sum and Mean do not use it by
// default. all_reduce is a reduce-scatter followed by an all-gather: the buffer is cut into
// size() chunks, chunk j of every rank goes to rank j, rank j folds the size() pieces in rank
// order ((x0 + x1) + x2) + ..., and each reduced chunk goes to every rank. Each element is reduced
// once, in rank order, on one rank, so every rank gets the same bits on every run. Every rank
// sends and receives (size-1)/size of the buffer twice, the volume of the bandwidth-optimal ring
// MPI uses for large buffers. Buffers over 4 MiB go through in 4 MiB windows (the folded pieces
// stay in cache). Buffers of at most 64 KiB / size() are exchanged whole and folded on every rank
// in rank order (the same bits, one message latency), in messages of at most 4000 bytes, which
// OpenMPI's shared-memory transport sends eagerly (a larger message waits for the receiver's
// answer); the synchronous all_reduce does this without the per-call allocations and locks of a
// Work. The exchanges are MPI_Isend/MPI_Irecv on an internal duplicate of the communicator (user
// send/recv can never match them): measured faster on OpenMPI 4.1 than MPI_Ialltoallv +
// MPI_Iallgatherv. reduce_scatter is MPI_Ialltoall and the same fold. SPIRE_ALLREDUCE=mpi switches
// all_reduce to MPI_Iallreduce (reduction order up to MPI; the results may differ in the last bits
// between runs and ranks).
//
// Timeouts. Every blocking call runs as a nonblocking MPI call polled with MPI_Testall until it
// completes or collective_timeout() passes; then abort_job names the call, the communicator and
// the seconds waited, and the whole job ends rather than hangs.
#pragma once
#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "engine/parallel/communicator.h"

namespace spire::parallel {

// The thread support MPI granted (MPI_THREAD_*), or -1 when this process has not started MPI.
// Below MPI_THREAD_MULTIPLE the backends serialise their MPI calls with one lock.
int mpi_thread_level();

// A call in flight whose later messages are posted as its earlier ones complete (an all_reduce's
// windows and gathers). Every blocking call and every test on the communicator advances all of
// them, in the order they started, as MPI's progress rule does for its own calls: so calls in
// flight together complete whatever order each rank waits for them in.
class Progressive {
 public:
  virtual ~Progressive() = default;
  virtual bool advance() = 0;  // true once complete (then no longer tracked)
};

class MpiCommunicator final : public Communicator {
 public:
  // Takes ownership of `comm` (freed with the communicator unless it is a predefined one).
  static std::shared_ptr<MpiCommunicator> adopt(MPI_Comm comm);
  ~MpiCommunicator() override;

  MPI_Comm comm() const { return comm_; }
  // A duplicate of comm() for the point-to-point messages inside collectives, so they can never
  // match the user's send/recv.
  MPI_Comm internal_comm() const { return internal_; }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  std::string backend() const override { return "mpi"; }
  Device device() const override { return kCPU; }

  void all_reduce(Tensor& buffer, ReduceOp op) override;
  std::unique_ptr<Work> all_reduce_async(Tensor& buffer, ReduceOp op) override;
  void all_gather(const Tensor& in, Tensor& out) override;
  void reduce_scatter(const Tensor& in, Tensor& out, ReduceOp op) override;
  void all_to_all(const Tensor& in, Tensor& out) override;
  void broadcast(Tensor& buffer, int root) override;
  void send(const Tensor& buffer, int dst, int tag) override;
  void recv(Tensor& buffer, int src, int tag) override;
  std::unique_ptr<Work> isend(const Tensor& buffer, int dst, int tag) override;
  std::unique_ptr<Work> irecv(Tensor& buffer, int src, int tag) override;
  void barrier() override;
  std::shared_ptr<Communicator> split(int color, int key) override;

  // One communicator per axis of a Cartesian grid over this communicator's ranks (row-major, no
  // reordering: rank r has the coordinates of r in `shape`). Collective. Used by DeviceMesh.
  std::vector<std::shared_ptr<Communicator>> cartesian_axes(const std::vector<int>& shape,
                                                            std::vector<int>& coords);

  // With SPIRE_DISTRIBUTED_DEBUG (call_check.h): the ranks compare the call they are making, and a
  // mismatch is a ValueError on every rank. Collective; a no-op when the check is off.
  void check_same_call(const char* call, const Tensor* tensor, int64_t detail = -1);

  // The scatter tag t of the next all_reduce (its gather uses t + 1) on internal_comm(): calls are
  // numbered in program order, the same on every rank, and the tags cycle through [0, 32000), so
  // up to 16000 all_reduces may be in flight at once.
  int all_reduce_tags();

  // Tracks a started call until its advance() returns true; progress() advances every tracked call.
  void track(Progressive* call);
  void progress();

  // Polls `requests` until all complete; past the collective timeout, aborts the job naming `call`.
  void await(MPI_Request* requests, int n, const char* call, MPI_Status* statuses = MPI_STATUSES_IGNORE);

 private:
  explicit MpiCommunicator(MPI_Comm comm);
  MPI_Comm comm_;
  MPI_Comm internal_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  std::atomic<uint32_t> all_reduce_calls_{0};
  std::mutex progress_mutex_;               // held while calls advance
  std::vector<Progressive*> in_flight_;     // started order
  std::atomic<int> in_flight_count_{0};     // lets progress() skip the lock when nothing is in flight
};

}  // namespace spire::parallel
