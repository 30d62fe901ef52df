// The world of a plain process: one rank, no transport. Collectives reduce over a single rank, so
// they are copies (or nothing, in place); point-to-point to oneself is refused, since a blocking
// send to yourself can never be matched. Used when no launcher started the process (and for
// axes of size 1 of a device mesh built over it).
#pragma once
#include "engine/parallel/communicator.h"

namespace spire::parallel {

class SelfCommunicator final : public Communicator {
 public:
  static std::shared_ptr<SelfCommunicator> create();

  int rank() const override { return 0; }
  int size() const override { return 1; }
  std::string backend() const override { return "self"; }
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
  void barrier() override {}
  std::shared_ptr<Communicator> split(int color, int key) override;

 private:
  SelfCommunicator() = default;
};

}  // namespace spire::parallel
