// The parallel runtime in one process: without a launcher init() picks the self backend and does
// not start MPI (under a launcher it picks MPI), and a one-rank world's collectives are copies. The
// multi-rank behaviour is tested by spire_parallel_tests under mpirun (tests/parallel).
#include <gtest/gtest.h>

#include <mpi.h>

#include <cstdlib>

#include "engine/parallel/call_check.h"
#include "engine/parallel/mesh.h"
#include "engine/parallel/runtime.h"
#include "engine/parallel/self_communicator.h"
#include "tests/common/expect_error.h"

using namespace spire;
using parallel::ReduceOp;

namespace {

bool under_launcher() { return std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_RANK"); }

TEST(ParallelRuntime, AutoPicksSelfInAPlainProcessAndMpiUnderALauncher) {
  parallel::init();
  parallel::init();  // idempotent
  EXPECT_TRUE(parallel::is_initialized());
  const bool launched = under_launcher();
  EXPECT_EQ(parallel::world().backend(), launched ? "mpi" : "self");
  int mpi_started = 0;
  MPI_Initialized(&mpi_started);
  EXPECT_EQ(bool(mpi_started), launched) << "MPI starts only under a launcher";
  EXPECT_GE(parallel::rank(), 0);
  EXPECT_LT(parallel::rank(), parallel::size());
  if (!launched) {
    EXPECT_EQ(parallel::size(), 1);
    EXPECT_EQ(parallel::local_rank(), 0);
  }
  EXPECT_EQ(parallel::world().device(), kCPU);
}

TEST(ParallelRuntime, InitRejectsUnknownBackend) {
  parallel::finalize();
  EXPECT_THROW(parallel::init({.backend = "tcp"}), ValueError);
  EXPECT_FALSE(parallel::is_initialized());
  parallel::init({.backend = "self", .timeout_seconds = 7});
  if (!std::getenv("SPIRE_COLLECTIVE_TIMEOUT")) EXPECT_EQ(parallel::collective_timeout(), 7);
  parallel::finalize();
  parallel::finalize();  // safe twice
  EXPECT_FALSE(parallel::is_initialized());
}

TEST(SelfCommunicator, CollectivesAreCopies) {
  auto c = parallel::SelfCommunicator::create();
  Tensor x = from_vector<double>({1.5, -2, 3}, {3});
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Mean, ReduceOp::Max, ReduceOp::Min}) {
    c->all_reduce(x, op);
    EXPECT_EQ(x.to_vector(), (std::vector<double>{1.5, -2, 3}));
  }
  c->all_reduce_async(x, ReduceOp::Sum)->wait();
  EXPECT_EQ(x.to_vector(), (std::vector<double>{1.5, -2, 3}));
  Tensor out = zeros({3}, DType::Float64);
  c->all_gather(x, out);
  EXPECT_EQ(out.to_vector(), x.to_vector());
  Tensor rs = zeros({3}, DType::Float64);
  c->reduce_scatter(x, rs, ReduceOp::Sum);
  EXPECT_EQ(rs.to_vector(), x.to_vector());
  Tensor a2a = zeros({3}, DType::Float64);
  c->all_to_all(x, a2a);
  EXPECT_EQ(a2a.to_vector(), x.to_vector());
  c->broadcast(x, 0);
  c->barrier();
  EXPECT_EQ(x.to_vector(), (std::vector<double>{1.5, -2, 3}));
}

TEST(SelfCommunicator, RefusesWhatOneRankCannotDo) {
  auto c = parallel::SelfCommunicator::create();
  Tensor x = zeros({2}, DType::Complex64);
  EXPECT_THROW(c->all_reduce(x, ReduceOp::Max), ValueError);
  Tensor i = zeros({2}, DType::Int64);
  EXPECT_THROW(c->all_reduce(i, ReduceOp::Mean), DTypeError);
  c->all_reduce(i, ReduceOp::Sum);
  EXPECT_THROW(c->send(i, 0, 0), ValueError);
  EXPECT_THROW(c->recv(i, 0, 0), ValueError);
  EXPECT_THROW(c->broadcast(i, 1), ValueError);
  Tensor wrong = zeros({3}, DType::Int64);
  EXPECT_THROW(c->all_gather(i, wrong), ShapeError);
  Tensor f = zeros({2});
  EXPECT_THROW(c->all_gather(i, f), DTypeError);
}

TEST(SelfCommunicator, SplitMakesANewCommunicator) {
  auto c = parallel::SelfCommunicator::create();
  auto s = c->split(3, 0);
  ASSERT_TRUE(s);
  EXPECT_NE(s->id(), c->id());
  EXPECT_EQ(s->size(), 1);
  EXPECT_EQ(parallel::Communicator::find(s->id()).get(), s.get());
  EXPECT_EQ(c->split(-1, 0), nullptr);
  const int64_t gone = s->id();
  s.reset();
  EXPECT_THROW(parallel::Communicator::find(gone), ValueError);
}

TEST(ParallelRuntime, MeshOverOneRankHasAxesOfSizeOne) {
  parallel::finalize();
  parallel::init({.backend = "self"});  // one rank, launcher or not
  parallel::DeviceMesh mesh({1, 1}, {"data", "model"});
  EXPECT_EQ(mesh.coords(), (std::vector<int>{0, 0}));
  EXPECT_EQ(mesh.comm("data").size(), 1);
  EXPECT_EQ(mesh.comm("model").backend(), "self");
  EXPECT_EQ(mesh.axis("model"), 1);
  EXPECT_THROW(mesh.comm("pipe"), ValueError);
  EXPECT_THROW(parallel::DeviceMesh({2}, {"data"}), ValueError);
  EXPECT_THROW(parallel::DeviceMesh({1}, {"a", "b"}), ValueError);
}

}  // namespace

// SPIRE_DISTRIBUTED_DEBUG's comparison of the ranks' calls (the gathering is tested on 2 ranks).
TEST(ParallelCallCheck, MismatchesNameBothCalls) {
  using namespace spire::parallel;
  Tensor a = ones({4, 3}), b = ones({4, 2}), c = zeros({4, 3}, DType::Float64), big = ones({1, 1, 1, 1, 1, 1, 1, 1, 2});
  const CallFingerprint ar = call_fingerprint("all_reduce", &a, int64_t(ReduceOp::Sum));
  check_fingerprints("all_reduce", {ar, ar, ar});  // agreement: nothing raised
  expect_error_naming<ValueError>(
      [&] { check_fingerprints("all_reduce", {ar, ar, call_fingerprint("all_reduce", &b, int64_t(ReduceOp::Sum))}); },
      {"rank 0 calls all_reduce with float32 [4, 3] (sum)", "rank 2 calls all_reduce with float32 [4, 2] (sum)"});
  expect_error_naming<ValueError>(
      [&] { check_fingerprints("all_reduce", {ar, call_fingerprint("all_reduce", &a, int64_t(ReduceOp::Max))}); },
      {"rank 1 calls all_reduce with float32 [4, 3] (max)"});
  expect_error_naming<ValueError>(
      [&] { check_fingerprints("broadcast", {call_fingerprint("broadcast", &c, 1), ar}); },
      {"rank 0 calls broadcast with float64 [4, 3] from root 1", "rank 1 calls all_reduce"});
  expect_error_naming<ValueError>(
      [&] {
        check_fingerprints("barrier", {call_fingerprint("barrier", nullptr, -1), call_fingerprint("all_gather", &big, -1)});
      },
      {"rank 0 calls barrier,", "rank 1 calls all_gather with float32 [2 elements in 9 dimensions]"});
}
