#include "engine/parallel/self_communicator.h"

#include <cstring>

#include "engine/parallel/buffers.h"

namespace spire::parallel {
namespace {

class DoneWork final : public Work {
 public:
  void wait() override {}
  bool done() override { return true; }
};

void copy_bytes(const Tensor& in, Tensor& out) {
  if (in.nbytes() && in.raw_data() != out.raw_data()) std::memcpy(out.raw_data(), in.raw_data(), in.nbytes());
}

}  // namespace

std::shared_ptr<SelfCommunicator> SelfCommunicator::create() {
  std::shared_ptr<SelfCommunicator> c(new SelfCommunicator());
  enrol(c);
  return c;
}

// One rank: the sum, mean, max and min of one value are the value.
void SelfCommunicator::all_reduce(Tensor& buffer, ReduceOp op) {
  check_buffer(buffer, kCPU, "all_reduce", "buffer");
  check_reduce_dtype(buffer.dtype(), op, "all_reduce");
}

std::unique_ptr<Work> SelfCommunicator::all_reduce_async(Tensor& buffer, ReduceOp op) {
  all_reduce(buffer, op);
  return std::make_unique<DoneWork>();
}

void SelfCommunicator::all_gather(const Tensor& in, Tensor& out) {
  check_buffer(in, kCPU, "all_gather", "input");
  check_buffer(out, kCPU, "all_gather", "output");
  check_same_dtype(in, out, "all_gather");
  check_all_gather_shapes(in, out, 1);
  copy_bytes(in, out);
}

void SelfCommunicator::reduce_scatter(const Tensor& in, Tensor& out, ReduceOp op) {
  check_buffer(in, kCPU, "reduce_scatter", "input");
  check_buffer(out, kCPU, "reduce_scatter", "output");
  check_same_dtype(in, out, "reduce_scatter");
  check_reduce_dtype(in.dtype(), op, "reduce_scatter");
  check_reduce_scatter_shapes(in, out, 1);
  copy_bytes(in, out);
}

void SelfCommunicator::all_to_all(const Tensor& in, Tensor& out) {
  check_buffer(in, kCPU, "all_to_all", "input");
  check_buffer(out, kCPU, "all_to_all", "output");
  check_same_dtype(in, out, "all_to_all");
  check_all_to_all_shapes(in, out, 1);
  copy_bytes(in, out);
}

void SelfCommunicator::broadcast(Tensor& buffer, int root) {
  check_buffer(buffer, kCPU, "broadcast", "buffer");
  check_rank(root, 1, "broadcast", "root");
}

void SelfCommunicator::send(const Tensor& buffer, int dst, int tag) {
  check_rank(dst, 1, "send", "destination");
  throw ValueError("send: rank 0 cannot send to itself on a communicator of one rank (backend self): "
                   "nothing could receive it");
}

void SelfCommunicator::recv(Tensor& buffer, int src, int tag) {
  check_rank(src, 1, "recv", "source");
  throw ValueError("recv: rank 0 cannot receive from itself on a communicator of one rank (backend self): "
                   "nothing could send it");
}

std::unique_ptr<Work> SelfCommunicator::isend(const Tensor& buffer, int dst, int tag) {
  send(buffer, dst, tag);  // raises: there is no other rank
  return nullptr;
}

std::unique_ptr<Work> SelfCommunicator::irecv(Tensor& buffer, int src, int tag) {
  recv(buffer, src, tag);  // raises: there is no other rank
  return nullptr;
}

std::shared_ptr<Communicator> SelfCommunicator::split(int color, int key) {
  if (color < 0) return nullptr;
  return create();
}

}  // namespace spire::parallel
