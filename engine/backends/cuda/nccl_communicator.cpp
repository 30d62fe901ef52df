#include "engine/backends/cuda/nccl_communicator.h"

#include <cstring>
#include <exception>
#include <vector>

#include "engine/autodiff/mode.h"
#include "engine/backends/cuda/nccl_api.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/backends/cuda/stream.h"
#include "engine/ops/elementwise.h"
#include "engine/parallel/buffers.h"
#include "engine/parallel/runtime.h"

namespace spire::cuda {
namespace {

using parallel::ReduceOp;
using parallel::Work;

// NCCL's element type for a dtype, and how many of them make one element (complex numbers travel
// as pairs of reals; they are only ever moved, never reduced, by NCCL).
struct Wire {
  ncclDataType_t type;
  size_t per_element;
};

Wire wire(DType t) {
  switch (t) {
    case DType::Bool: return {ncclUint8, 1};
    case DType::Int32: return {ncclInt32, 1};
    case DType::Int64: return {ncclInt64, 1};
    case DType::Float32: return {ncclFloat32, 1};
    case DType::Float64: return {ncclFloat64, 1};
    case DType::Complex64: return {ncclFloat32, 2};
    case DType::Complex128: return {ncclFloat64, 2};
  }
  throw DTypeError("nccl: no NCCL type for this dtype");
}

size_t wire_count(DType t, int64_t elements) { return size_t(elements) * wire(t).per_element; }

// Integers and bool: every order gives the same result, so NCCL's reductions are deterministic.
bool exact_in_any_order(DType t) { return t == DType::Bool || t == DType::Int32 || t == DType::Int64; }

ncclRedOp_t native_op(DType t, ReduceOp op) {
  if (t == DType::Bool) return op == ReduceOp::Min ? ncclMin : ncclMax;  // and / or on 0 and 1
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean: return ncclSum;  // mean is refused for integers before it gets here
    case ReduceOp::Max: return ncclMax;
    case ReduceOp::Min: return ncclMin;
  }
  return ncclSum;
}

// The elements [offset, offset + count) of a contiguous tensor.
Tensor piece(const Tensor& t, int64_t offset, int64_t count) {
  return make_view(t, {count}, {1}, t.offset() + offset);
}

char* bytes_at(const Tensor& t, int64_t element) {
  return static_cast<char*>(t.raw_data()) + size_t(element) * t.itemsize();
}

// Chunk j of n elements among `size` ranks (the MPI backend's split: the first n % size chunks
// have one element more).
struct Chunks {
  std::vector<int64_t> count, displ;
};
Chunks split_evenly(int64_t n, int size) {
  Chunks c;
  const int64_t base = n / size, extra = n % size;
  for (int j = 0, off = 0; j < size; ++j) {
    c.count.push_back(base + (j < extra));
    c.displ.push_back(off);
    off += int(c.count.back());
  }
  return c;
}

void copy_on_stream(const Tensor& src, const Tensor& dst, cudaStream_t stream) {
  if (src.nbytes() == 0 || src.raw_data() == dst.raw_data()) return;
  SPIRE_CUDA_CHECK(cudaMemcpyAsync(dst.raw_data(), src.raw_data(), src.nbytes(), cudaMemcpyDeviceToDevice, stream),
                   "cudaMemcpyAsync (nccl)");
}

// Sends and receives between ncclGroupStart and ncclGroupEnd progress together (no ordering
// between them can deadlock). A call that throws inside still closes the group.
class GroupScope {
 public:
  GroupScope() : exceptions_(std::uncaught_exceptions()) { nccl_check(nccl().GroupStart(), "ncclGroupStart"); }
  ~GroupScope() noexcept(false) {
    ncclResult_t rc = nccl().GroupEnd();
    if (std::uncaught_exceptions() == exceptions_) nccl_check(rc, "ncclGroupEnd");
  }

 private:
  int exceptions_;
};

// Work queued on the communicator's stream, finished when `event` is reached there.
class EventWork final : public Work {
 public:
  EventWork(int device, cudaEvent_t event, Tensor keep) : device_(device), event_(event), keep_(std::move(keep)) {}
  ~EventWork() override {
    try {
      wait();
    } catch (const std::exception& e) {
      parallel::abort_job(std::string("nccl: a dropped operation could not be waited for: ") + e.what());
    }
  }
  // The current stream waits for the operation; the host does not.
  void wait() override {
    if (!event_) return;
    ScopedDevice on(device_);
    SPIRE_CUDA_CHECK(cudaStreamWaitEvent(current_stream(), event_, 0), "cudaStreamWaitEvent (nccl)");
    cudaEventDestroy(event_);
    event_ = nullptr;
    keep_ = Tensor();  // freed on its own stream, which now comes after the operation
  }
  bool done() override {
    if (!event_) return true;
    cudaError_t q = cudaEventQuery(event_);
    if (q == cudaErrorNotReady) return false;
    SPIRE_CUDA_CHECK(q, "cudaEventQuery (nccl)");
    return true;
  }

 private:
  int device_;
  cudaEvent_t event_;
  Tensor keep_;
};

void check_peer(int peer, const parallel::Communicator& c, const char* call, const char* role) {
  parallel::check_rank(peer, c.size(), call, role);
  SPIRE_CHECK(peer != c.rank(), ValueError, call, ": rank ", peer, " is this rank; a blocking message to oneself "
              "can never be matched (use permute, or copy the tensor)");
}

const bool registered = [] {
  parallel::register_communicator_backend(
      DeviceKind::CUDA, [](parallel::Communicator& over, Device d) -> std::shared_ptr<parallel::Communicator> {
        return NcclCommunicator::bootstrap(over, d);
      });
  return true;
}();

}  // namespace

NcclCommunicator::NcclCommunicator(std::shared_ptr<NcclHandle> handle) : handle_(std::move(handle)) {
  handle_->id = id();
}

std::shared_ptr<NcclCommunicator> NcclCommunicator::adopt(std::shared_ptr<NcclHandle> handle) {
  std::shared_ptr<NcclCommunicator> c(new NcclCommunicator(std::move(handle)));
  enrol(c);
  return c;
}

std::shared_ptr<NcclCommunicator> NcclCommunicator::bootstrap(parallel::Communicator& over, Device device) {
  SPIRE_CHECK(device.kind == DeviceKind::CUDA, DeviceError, "nccl: communicators work on CUDA devices, not ",
              device.str());
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) cudaGetLastError();
  SPIRE_CHECK(err == cudaSuccess && device.index < count, DeviceError, "nccl: no ", device.str(), " on this machine (",
              err == cudaSuccess ? detail::cat(count, " CUDA devices") : std::string(cudaGetErrorString(err)),
              "), so no NCCL communicator can be made for it");
  nccl();  // loaded (or refused, naming why) on every rank before the collective broadcast below
  // Rank 0's unique id, sent to every rank over the CPU communicator (16 int64 carry its 128 bytes).
  static_assert(sizeof(ncclUniqueId) % sizeof(int64_t) == 0);
  ncclUniqueId unique{};
  if (over.rank() == 0) nccl_check(nccl().GetUniqueId(&unique), "ncclGetUniqueId");
  Tensor wire_id = zeros({int64_t(sizeof unique / sizeof(int64_t))}, DType::Int64, kCPU);
  std::memcpy(wire_id.raw_data(), &unique, sizeof unique);
  over.broadcast(wire_id, 0);
  std::memcpy(&unique, wire_id.raw_data(), sizeof unique);

  auto handle = std::make_shared<NcclHandle>();
  handle->device = device.index;
  handle->rank = over.rank();
  handle->size = over.size();
  ScopedDevice on(device.index);
  nccl_check(nccl().CommInitRank(&handle->comm, over.size(), unique, over.rank()),
             "ncclCommInitRank (every rank needs a GPU of its own: device cuda:local_rank() on each node)");
  return adopt(std::move(handle));
}

cudaStream_t NcclCommunicator::side_stream() {
  if (!side_) {
    ScopedDevice on(handle_->device);
    // Non-blocking: work on the legacy default stream must not wait for it, or nothing overlaps.
    SPIRE_CUDA_CHECK(cudaStreamCreateWithFlags(&side_, cudaStreamNonBlocking), "cudaStreamCreate (nccl)");
  }
  return side_;
}

void NcclCommunicator::native_reduce(const Tensor& in, Tensor& out, ReduceOp op, bool gather, const char* call) {
  const DType t = in.dtype();
  cudaStream_t stream = current_stream();
  if (gather)
    nccl_check(nccl().AllReduce(in.raw_data(), out.raw_data(), wire_count(t, in.numel()), wire(t).type,
                             native_op(t, op), comm(), stream),
               call, comm());
  else
    nccl_check(nccl().ReduceScatter(in.raw_data(), out.raw_data(), wire_count(t, out.numel()), wire(t).type,
                                 native_op(t, op), comm(), stream),
               call, comm());
  watch(handle_, call, stream);
}

void NcclCommunicator::ordered_reduce(const Tensor& in, Tensor& out, ReduceOp op, bool gather, const char* call) {
  const int n = size(), r = rank();
  const DType t = in.dtype();
  const Wire w = wire(t);
  cudaStream_t stream = current_stream();
  const Chunks c = split_evenly(in.numel(), n);  // equal chunks when scattering (checked by the caller)
  const int64_t mine = c.count[r];
  Tensor slots = empty({n, mine}, t, device());  // slot i: rank i's piece of my chunk
  {
    GroupScope group;
    for (int j = 0; j < n; ++j) {
      if (j == r) continue;
      nccl_check(nccl().Send(bytes_at(in, c.displ[j]), wire_count(t, c.count[j]), w.type, j, comm(), stream), call, comm());
      nccl_check(nccl().Recv(bytes_at(slots, int64_t(j) * mine), wire_count(t, mine), w.type, j, comm(), stream), call,
                 comm());
    }
  }
  Tensor dst = gather ? piece(out, c.displ[r], mine) : out;
  {
    NoGradGuard no_grad;  // Spire's kernels on the current stream, in the CPU backend's order
    auto slot = [&](int i) { return i == r ? piece(in, c.displ[r], mine) : piece(slots, int64_t(i) * mine, mine); };
    Tensor acc = slot(0);
    for (int i = 1; i < n; ++i) {
      switch (op) {
        case ReduceOp::Sum:
        case ReduceOp::Mean: acc = add(acc, slot(i)); break;
        case ReduceOp::Max: acc = maximum(acc, slot(i)); break;
        case ReduceOp::Min: acc = minimum(acc, slot(i)); break;
      }
    }
    if (op == ReduceOp::Mean) acc = div(acc, Scalar(double(n)));
    copy_on_stream(acc, dst, stream);
  }
  if (gather) {
    GroupScope group;
    for (int j = 0; j < n; ++j) {
      if (j == r) continue;
      nccl_check(nccl().Send(bytes_at(out, c.displ[r]), wire_count(t, mine), w.type, j, comm(), stream), call, comm());
      nccl_check(nccl().Recv(bytes_at(out, c.displ[j]), wire_count(t, c.count[j]), w.type, j, comm(), stream), call,
                 comm());
    }
  }
  watch(handle_, call, stream);
}

void NcclCommunicator::all_reduce(Tensor& buffer, ReduceOp op) {
  parallel::check_buffer(buffer, device(), "all_reduce", "buffer");
  parallel::check_reduce_dtype(buffer.dtype(), op, "all_reduce");
  if (buffer.numel() == 0) return;  // one rank still goes through NCCL: world size 1 is how it is tested
  ScopedDevice on(handle_->device);
  if (exact_in_any_order(buffer.dtype())) native_reduce(buffer, buffer, op, true, "all_reduce");
  else ordered_reduce(buffer, buffer, op, true, "all_reduce");
}

std::unique_ptr<Work> NcclCommunicator::all_reduce_async(Tensor& buffer, ReduceOp op) {
  Tensor b = buffer;
  return on_side_stream(buffer, [this, b, op]() mutable { all_reduce(b, op); });
}

std::unique_ptr<Work> NcclCommunicator::on_side_stream(const Tensor& keep, const std::function<void()>& queue) {
  ScopedDevice on(handle_->device);
  cudaStream_t caller = current_stream(), side = side_stream();
  cudaEvent_t ready = nullptr, done = nullptr;
  SPIRE_CUDA_CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming), "cudaEventCreate (nccl)");
  SPIRE_CUDA_CHECK(cudaEventRecord(ready, caller), "cudaEventRecord (nccl)");
  SPIRE_CUDA_CHECK(cudaStreamWaitEvent(side, ready, 0), "cudaStreamWaitEvent (nccl)");
  cudaEventDestroy(ready);  // released once reached; the wait is already queued
  {
    StreamGuard guard(side);
    queue();
  }
  SPIRE_CUDA_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate (nccl)");
  SPIRE_CUDA_CHECK(cudaEventRecord(done, side), "cudaEventRecord (nccl)");
  return std::make_unique<EventWork>(handle_->device, done, keep);
}

void NcclCommunicator::all_gather(const Tensor& in, Tensor& out) {
  parallel::check_buffer(in, device(), "all_gather", "input");
  parallel::check_buffer(out, device(), "all_gather", "output");
  parallel::check_same_dtype(in, out, "all_gather");
  parallel::check_all_gather_shapes(in, out, size());
  if (in.numel() == 0) return;
  ScopedDevice on(handle_->device);
  cudaStream_t stream = current_stream();
  nccl_check(nccl().AllGather(in.raw_data(), out.raw_data(), wire_count(in.dtype(), in.numel()), wire(in.dtype()).type,
                           comm(), stream),
             "all_gather", comm());
  watch(handle_, "all_gather", stream);
}

void NcclCommunicator::reduce_scatter(const Tensor& in, Tensor& out, ReduceOp op) {
  parallel::check_buffer(in, device(), "reduce_scatter", "input");
  parallel::check_buffer(out, device(), "reduce_scatter", "output");
  parallel::check_same_dtype(in, out, "reduce_scatter");
  parallel::check_reduce_dtype(in.dtype(), op, "reduce_scatter");
  parallel::check_reduce_scatter_shapes(in, out, size());
  if (out.numel() == 0) return;
  ScopedDevice on(handle_->device);
  if (exact_in_any_order(in.dtype())) native_reduce(in, out, op, false, "reduce_scatter");
  else ordered_reduce(in, out, op, false, "reduce_scatter");
}

void NcclCommunicator::all_to_all(const Tensor& in, Tensor& out) {
  parallel::check_buffer(in, device(), "all_to_all", "input");
  parallel::check_buffer(out, device(), "all_to_all", "output");
  parallel::check_same_dtype(in, out, "all_to_all");
  parallel::check_all_to_all_shapes(in, out, size());
  if (in.numel() == 0) return;
  const int n = size(), r = rank();
  const int64_t chunk = in.numel() / n;
  const DType t = in.dtype();
  ScopedDevice on(handle_->device);
  cudaStream_t stream = current_stream();
  copy_on_stream(piece(in, r * chunk, chunk), piece(out, r * chunk, chunk), stream);
  if (n > 1) {
    GroupScope group;
    for (int j = 0; j < n; ++j) {
      if (j == r) continue;
      nccl_check(nccl().Send(bytes_at(in, j * chunk), wire_count(t, chunk), wire(t).type, j, comm(), stream),
                 "all_to_all", comm());
      nccl_check(nccl().Recv(bytes_at(out, j * chunk), wire_count(t, chunk), wire(t).type, j, comm(), stream),
                 "all_to_all", comm());
    }
  }
  watch(handle_, "all_to_all", stream);
}

void NcclCommunicator::broadcast(Tensor& buffer, int root) {
  parallel::check_buffer(buffer, device(), "broadcast", "buffer");
  parallel::check_rank(root, size(), "broadcast", "root");
  if (buffer.numel() == 0) return;
  ScopedDevice on(handle_->device);
  cudaStream_t stream = current_stream();
  const DType t = buffer.dtype();
  nccl_check(nccl().Broadcast(buffer.raw_data(), buffer.raw_data(), wire_count(t, buffer.numel()), wire(t).type, root,
                           comm(), stream),
             "broadcast", comm());
  watch(handle_, "broadcast", stream);
}

void NcclCommunicator::send(const Tensor& buffer, int dst, int tag) {
  parallel::check_buffer(buffer, device(), "send", "buffer");
  check_peer(dst, *this, "send", "destination");
  (void)tag;  // NCCL matches in queue order (file comment)
  ScopedDevice on(handle_->device);
  cudaStream_t stream = current_stream();
  const DType t = buffer.dtype();
  nccl_check(nccl().Send(buffer.raw_data(), wire_count(t, buffer.numel()), wire(t).type, dst, comm(), stream), "send",
             comm());
  watch(handle_, "send", stream);
}

void NcclCommunicator::recv(Tensor& buffer, int src, int tag) {
  parallel::check_buffer(buffer, device(), "recv", "buffer");
  check_peer(src, *this, "recv", "source");
  (void)tag;
  ScopedDevice on(handle_->device);
  cudaStream_t stream = current_stream();
  const DType t = buffer.dtype();
  nccl_check(nccl().Recv(buffer.raw_data(), wire_count(t, buffer.numel()), wire(t).type, src, comm(), stream), "recv",
             comm());
  watch(handle_, "recv", stream);
}

std::unique_ptr<Work> NcclCommunicator::isend(const Tensor& buffer, int dst, int tag) {
  Tensor b = buffer;
  return on_side_stream(buffer, [this, b, dst, tag] { send(b, dst, tag); });
}

std::unique_ptr<Work> NcclCommunicator::irecv(Tensor& buffer, int src, int tag) {
  Tensor b = buffer;
  return on_side_stream(buffer, [this, b, src, tag]() mutable { recv(b, src, tag); });
}

void NcclCommunicator::barrier() {
  ScopedDevice on(handle_->device);
  cudaStream_t stream = current_stream();
  Tensor token = zeros({1}, DType::Int32, device());
  nccl_check(nccl().AllReduce(token.raw_data(), token.raw_data(), 1, ncclInt32, ncclSum, comm(), stream), "barrier",
             comm());
  watch(handle_, "barrier", stream);
  SPIRE_CUDA_CHECK(cudaStreamSynchronize(stream), "cudaStreamSynchronize (nccl barrier)");  // the watchdog times it
}

std::shared_ptr<parallel::Communicator> NcclCommunicator::split(int color, int key) {
  std::shared_ptr<parallel::Communicator> cpu = origin();
  SPIRE_CHECK(cpu, ValueError, "nccl split: the CPU communicator this one was made over is gone");
  std::shared_ptr<parallel::Communicator> cpu_part = cpu->split(color, key);
  ScopedDevice on(handle_->device);
  ncclComm_t part = nullptr;
  nccl_check(nccl().CommSplit(comm(), color < 0 ? NCCL_SPLIT_NOCOLOR : color, key, &part, nullptr), "ncclCommSplit",
             comm());
  if (color < 0) return nullptr;
  auto handle = std::make_shared<NcclHandle>();
  handle->comm = part;
  handle->device = handle_->device;
  nccl_check(nccl().CommUserRank(part, &handle->rank), "ncclCommUserRank", part);
  nccl_check(nccl().CommCount(part, &handle->size), "ncclCommCount", part);
  std::shared_ptr<NcclCommunicator> c = adopt(std::move(handle));
  c->set_origin(cpu_part, /*owning=*/true);  // nobody else holds the CPU half
  return c;
}

}  // namespace spire::cuda
