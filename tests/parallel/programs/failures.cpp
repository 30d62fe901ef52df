// Jobs that must fail, and how (ctest checks their output; see ../CMakeLists.txt). Run on 2 ranks:
//   failures skip    rank 1 skips an all_reduce: rank 0 must abort the job at the collective timeout
//   failures raise   rank 1 throws while rank 0 waits in a barrier: the job must end with rank 1's message
//   failures mismatch  the ranks all-reduce buffers of different shapes; with SPIRE_DISTRIBUTED_DEBUG
//                      the job must end with a message naming both calls
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "engine/parallel/runtime.h"

using namespace spire;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  parallel::init();
  auto& world = parallel::world();
  if (world.size() != 2) {
    std::fprintf(stderr, "run on 2 ranks\n");
    return 2;
  }
  if (mode == "skip") {
    if (world.rank() == 0) {
      Tensor x = ones({8});
      world.all_reduce(x, parallel::ReduceOp::Sum);
    } else {
      std::this_thread::sleep_for(std::chrono::seconds(25));  // long past rank 0's timeout
    }
  } else if (mode == "raise") {
    if (world.rank() == 1) throw std::runtime_error("deliberate failure on rank 1");
    world.barrier();
  } else if (mode == "mismatch") {
    Tensor x = ones({world.rank() == 0 ? 4 : 5});
    world.all_reduce(x, parallel::ReduceOp::Sum);
  } else {
    std::fprintf(stderr, "usage: failures skip|raise|mismatch\n");
    return 2;
  }
  std::printf("rank %d: the job was not aborted\n", world.rank());
  return 0;
}
