// Communicators: a group of ranks and the collectives among them, over a transport that HPC centres
// already run (MPI for CPU tensors; NCCL for CUDA tensors, bootstrapped over MPI). Spire never
// invents its own transport. The world communicator comes from parallel::init() (runtime.h);
// split() makes sub-communicators (groups of ranks, the axes of a device mesh).
//
// Buffers: every call takes contiguous tensors on the communicator's device, with the same dtype on
// every rank and the shapes stated per call. Calls are collective: every rank of the communicator
// makes the same calls in the same order. Results are deterministic: a reduction combines the ranks'
// values in rank order, so the same inputs give the same bits on every run and on every rank.
//
// Chunked collectives split along dimension 0 in rank order:
//   all_gather:     in [n, ...]          -> out [size*n, ...]   (rank r's input is out chunk r)
//   reduce_scatter: in [size*n, ...]     -> out [n, ...]        (rank r gets the reduced chunk r)
//   all_to_all:     in [size*n, ...]     -> out [size*n, ...]   (in chunk j goes to rank j, where it
//                                                                is out chunk r of the sender r)
//
// Ops (engine/parallel/collectives.h) name a communicator by id() in their attributes; ids are
// unique for the process's life and find() maps them back while the communicator is alive.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engine/core/tensor.h"

namespace spire::parallel {

enum class ReduceOp { Sum, Mean, Max, Min };
ReduceOp reduce_op_from_name(const std::string& name);  // "sum", "mean", "max", "min"; ValueError otherwise
const char* name(ReduceOp op);

// An operation in flight (all_reduce_async). wait() blocks until it is complete (and rethrows its
// error); a Work dropped unwaited is waited for by its destructor.
class Work {
 public:
  virtual ~Work() = default;
  virtual void wait() = 0;
  virtual bool done() = 0;  // non-blocking test
};

class Communicator : public std::enable_shared_from_this<Communicator> {
 public:
  virtual ~Communicator();
  int64_t id() const { return id_; }
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual std::string backend() const = 0;  // "self", "mpi", "nccl"
  virtual Device device() const = 0;        // where its buffers live (kCPU for MPI)

  // In place on `buffer` (Mean divides the sum by size()).
  virtual void all_reduce(Tensor& buffer, ReduceOp op) = 0;
  virtual std::unique_ptr<Work> all_reduce_async(Tensor& buffer, ReduceOp op) = 0;
  virtual void all_gather(const Tensor& in, Tensor& out) = 0;
  virtual void reduce_scatter(const Tensor& in, Tensor& out, ReduceOp op) = 0;
  virtual void all_to_all(const Tensor& in, Tensor& out) = 0;
  virtual void broadcast(Tensor& buffer, int root) = 0;  // in place: root's values everywhere
  virtual void send(const Tensor& buffer, int dst, int tag) = 0;
  virtual void recv(Tensor& buffer, int src, int tag) = 0;
  // Point-to-point without waiting (MPI_Isend / MPI_Irecv): the Work completes when the message has
  // left (isend) or arrived in `buffer` (irecv). The buffer must stay untouched until then; the Work
  // keeps it alive. Messages between two ranks with the same tag arrive in the order sent. wait()
  // checks a received message's size against the buffer, as recv does.
  virtual std::unique_ptr<Work> isend(const Tensor& buffer, int dst, int tag) = 0;
  virtual std::unique_ptr<Work> irecv(Tensor& buffer, int src, int tag) = 0;
  virtual void barrier() = 0;
  // MPI_Comm_split: ranks with the same color form a communicator, ordered by (key, rank).
  // Collective over this communicator. color < 0 returns nullptr for that rank (MPI_UNDEFINED).
  virtual std::shared_ptr<Communicator> split(int color, int key) = 0;

  // The communicator of the same ranks, in the same order, for buffers on `device`: this one when
  // device() matches; else the one the backend registered for that device kind makes, bootstrapped
  // over this one (NCCL for CUDA: rank 0's unique id broadcast over MPI), kept for this
  // communicator's life. Collective the first time for a device (every rank of this communicator
  // asks, each for its own device); the collective ops call it with their tensors' device, so a
  // program written for CPU tensors runs over NCCL when its tensors are on GPUs.
  std::shared_ptr<Communicator> on(Device device);

  // The live communicator with this id; ValueError naming the id when it is gone or never existed.
  static std::shared_ptr<Communicator> find(int64_t id);

 protected:
  Communicator();  // assigns the id
  // Backends call this once the object is owned by a shared_ptr, so find() can return it.
  static void enrol(const std::shared_ptr<Communicator>& c);
  // A device communicator says which communicator it was made over (on() of its own device kind's
  // siblings goes back there); `owning` keeps that one alive (a split's, which nobody else holds).
  void set_origin(const std::shared_ptr<Communicator>& origin, bool owning);
  std::shared_ptr<Communicator> origin() const { return origin_.lock(); }
  // Makes `twin` what on(twin->device()) returns (a backend's split pairs its two halves).
  void adopt_twin(const std::shared_ptr<Communicator>& twin);

 private:
  int64_t id_;
  std::mutex twins_mutex_;
  std::map<std::pair<int, int>, std::shared_ptr<Communicator>> twins_;  // by (kind, index)
  std::weak_ptr<Communicator> origin_;
  std::shared_ptr<Communicator> origin_owned_;
};

// Makes the communicator for buffers on `device` over the ranks of `over` (collective over them).
using CommunicatorFactory = std::function<std::shared_ptr<Communicator>(Communicator& over, Device device)>;
// A device backend (libspire_cuda: NCCL) registers its factory when it is loaded.
void register_communicator_backend(DeviceKind kind, CommunicatorFactory make);

}  // namespace spire::parallel
