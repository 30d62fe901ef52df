// Collectives on CUDA tensors go through the NCCL backend, made over the world communicator.
// CudaBackendNccl runs on any machine (without a GPU the backend says so by name); CudaNccl* need
// a GPU and run at world size 1, where every call still goes through NCCL (one rank cannot check
// the exchanges of several: tests/parallel checks them with the MPI backend, whose chunking and
// rank-order fold the NCCL backend shares, and the registry's CUDA parity test runs every collective
// op and its derivatives against the CPU).
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "engine/autodiff/backward.h"
#include "engine/core/transfer.h"
#include "engine/nn/functional/loss.h"
#include "engine/nn/layers/linear.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "engine/optim/sgd.h"
#include "engine/parallel/collectives.h"
#include "engine/parallel/data_parallel.h"

namespace spire {
namespace {

namespace par = spire::parallel;
const Device kGPU{DeviceKind::CUDA, 0};

// Bitwise equality of two tensors' values (on any devices).
bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = contiguous(to(a, kCPU)), y = contiguous(to(b, kCPU));
  return x.shape() == y.shape() && x.dtype() == y.dtype() &&
         std::memcmp(x.raw_data(), y.raw_data(), x.nbytes()) == 0;
}

TEST(CudaBackendNccl, CudaTensorsFindTheNcclBackendOrHearWhyNot) {
  par::Communicator& world = par::world();
  if (cuda_available()) {
    auto nccl = world.on(kGPU);
    EXPECT_EQ(nccl->backend(), "nccl");
    EXPECT_EQ(nccl->size(), world.size());
    EXPECT_EQ(nccl->rank(), world.rank());
    EXPECT_EQ(nccl->device(), kGPU);
    EXPECT_EQ(world.on(kGPU), nccl) << "made once, then kept";
    EXPECT_EQ(nccl->on(kCPU).get(), &world) << "and it leads back to the CPU communicator";
    return;
  }
  try {
    world.on(kGPU);
    ADD_FAILURE() << "a communicator for cuda:0 was made without a GPU";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("nccl: no cuda:0 on this machine"), std::string::npos) << e.what();
  }
  try {
    par::all_reduce(from_vector<float>({1, 2}, {2}), "sum", world);  // CPU tensors are unaffected
  } catch (const std::exception& e) {
    ADD_FAILURE() << e.what();
  }
}

TEST(CudaNccl, EveryCallAtWorldSizeOne) {
  auto comm = par::world().on(kGPU);
  ASSERT_EQ(comm->size(), 1);
  Tensor host = rules::sample({4, 3}, -1, 1, 3, DType::Float64);
  for (DType dt : {DType::Float64, DType::Float32, DType::Complex64, DType::Int64, DType::Int32, DType::Bool}) {
    Tensor x = to(cast(mul(host, 10.0), dt), kGPU);
    for (const char* op : {"sum", "mean", "max", "min"}) {
      par::ReduceOp r = par::reduce_op_from_name(op);
      if ((r == par::ReduceOp::Mean && !is_inexact(dt)) || (r != par::ReduceOp::Sum && r != par::ReduceOp::Mean && is_complex(dt)))
        continue;
      Tensor b = copy(x);
      comm->all_reduce(b, r);
      EXPECT_TRUE(same_bits(b, x)) << op << " " << name(dt);
      Tensor c = copy(x);
      comm->all_reduce_async(c, r)->wait();
      EXPECT_TRUE(same_bits(c, x)) << "async " << op << " " << name(dt);
      Tensor s = empty(x.shape(), dt, kGPU);
      comm->reduce_scatter(x, s, r);
      EXPECT_TRUE(same_bits(s, x)) << "reduce_scatter " << op << " " << name(dt);
    }
    Tensor g = empty(x.shape(), dt, kGPU), a = empty(x.shape(), dt, kGPU), b = copy(x);
    comm->all_gather(x, g);
    comm->all_to_all(x, a);
    comm->broadcast(b, 0);
    EXPECT_TRUE(same_bits(g, x)) << "all_gather " << name(dt);
    EXPECT_TRUE(same_bits(a, x)) << "all_to_all " << name(dt);
    EXPECT_TRUE(same_bits(b, x)) << "broadcast " << name(dt);
  }
  comm->barrier();
  EXPECT_THROW(comm->send(to(host, kGPU), 0, 0), ValueError);  // to oneself: never matched
  auto part = comm->split(0, 0);
  ASSERT_TRUE(part);
  EXPECT_EQ(part->backend(), "nccl");
  EXPECT_EQ(part->size(), 1);
  EXPECT_EQ(part->on(kCPU)->size(), 1);
  EXPECT_EQ(comm->split(-1, 0), nullptr);
  Tensor y = to(host, kGPU);
  part->all_reduce(y, par::ReduceOp::Sum);
  EXPECT_TRUE(same_bits(y, host));
}

TEST(CudaNccl, CollectiveOpsAndTheirGradientsMatchTheCpu) {
  Tensor host = transpose(rules::sample({3, 4}, -1, 1, 5, DType::Float64), 0, 1);  // strided
  Tensor gpu = to(host, kGPU);
  EXPECT_TRUE(same_bits(par::all_reduce(gpu, "mean"), par::all_reduce(host, "mean")));
  EXPECT_TRUE(same_bits(par::all_gather(gpu, 1), par::all_gather(host, 1)));
  EXPECT_TRUE(same_bits(par::reduce_scatter(gpu, 0, "sum"), par::reduce_scatter(host, 0, "sum")));
  EXPECT_TRUE(same_bits(par::all_to_all(gpu, 0, 1), par::all_to_all(host, 0, 1)));
  EXPECT_TRUE(same_bits(par::broadcast(gpu, 0), par::broadcast(host, 0)));
  EXPECT_TRUE(same_bits(par::permute(gpu, {}), par::permute(host, {})));
  auto grad_of = [](const Tensor& v) {
    Tensor x = v.detach().set_requires_grad(true);
    Tensor loss = sum(mul(par::all_reduce(mul(x, x), "sum"), par::all_gather(x, 0)));
    return autodiff::grad({loss}, {x})[0];
  };
  EXPECT_TRUE(same_bits(grad_of(gpu), grad_of(host)));
}

TEST(CudaNccl, DataParallelTrainsOnTheGpuAsOnTheCpu) {
  auto train = [](Device d) {
    Generator g(7);
    auto net = std::make_shared<nn::Linear>(4, 2, true, DType::Float64, &g);
    auto dp = std::make_shared<par::DataParallel>(net);
    dp->to(d);  // after wrapping: the buckets follow
    optim::SGD opt(dp->parameters(), {.lr = 0.1, .momentum = 0.9});
    Tensor x = to(rules::sample({8, 4}, -1, 1, 11, DType::Float64), d);
    Tensor y = to(rules::sample({8, 2}, -1, 1, 12, DType::Float64), d);
    for (int s = 0; s < 3; ++s) {
      opt.zero_grad();
      nn::functional::mse_loss((*dp)(x), y).backward();
      opt.step();
    }
    return to(concat({reshape(net->weight, {-1}), net->bias}, 0), kCPU);
  };
  Tensor cpu = train(kCPU), gpu = train(kGPU);
  // cuBLAS and the CPU's GEMM round differently; the collectives themselves add nothing at one rank.
  EXPECT_LT(amax(abs(sub(gpu, cpu))).item<double>(), 1e-12);
}

}  // namespace
}  // namespace spire
