// The main of spire_parallel_tests: starts the runtime (MPI under mpirun), runs every test on every
// rank, and fails every rank's exit status when a test failed on any rank. Rank 0 prints the usual
// report; the other ranks print only their failures, prefixed with their rank.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine/parallel/runtime.h"

namespace {

class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}
  // The name is kept from OnTestStart: asking gtest for the current test inside OnTestPartResult
  // takes a lock gtest already holds there, which deadlocked the failing rank.
  void OnTestStart(const ::testing::TestInfo& info) override { test_ = info.name(); }
  void OnTestPartResult(const ::testing::TestPartResult& r) override {
    if (!r.failed()) return;
    std::fprintf(stderr, "[rank %d] %s:%d: failure in %s\n%s\n", rank_, r.file_name() ? r.file_name() : "?",
                 r.line_number(), test_.c_str(), r.message());
  }

 private:
  int rank_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  spire::parallel::init();
  const int rank = spire::parallel::rank();
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }
  int failed = RUN_ALL_TESTS() != 0;
  spire::Tensor any = spire::full({1}, failed, spire::DType::Int32);
  spire::parallel::world().all_reduce(any, spire::parallel::ReduceOp::Max);
  failed = any.item<int>();
  if (rank == 0 && failed) std::fprintf(stderr, "spire_parallel_tests: a test failed on some rank\n");
  spire::parallel::finalize();
  return failed;
}
