// RL runs that must end early, and how (ctest checks their output; see ../CMakeLists.txt). Run on
// 2 ranks with the policy multi_actor_single_learner (actor 1 lives on rank 1):
//   rl_failures raise       actor 1 throws: the job ends with its message and rank 1, no hang
//   rl_failures interrupt   rank 1 gets SIGINT: the run stops cleanly on every rank
#include <cstdio>
#include <string>

#include "engine/parallel/runtime.h"
#include "reinforcement/dataflow/trainer.h"
#include "tests/common/rl_probe_algorithm.h"

using namespace spire;
using namespace spire::rl;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "raise" && mode != "interrupt") {
    std::fprintf(stderr, "usage: rl_failures raise|interrupt\n");
    return 2;
  }
  parallel::init();
  dataflow::TrainerSettings s;
  s.run.actors = 2;
  s.run.envs_per_actor = 2;
  s.run.total_steps = int64_t(1) << 40;  // only the fault can end it
  s.policy = "multi_actor_single_learner";
  s.evaluation.episodes = 0;
  auto fault = mode == "raise" ? fixtures::FaultyProbe::Fault::Raise : fixtures::FaultyProbe::Fault::Interrupt;
  dataflow::Trainer trainer(std::make_shared<fixtures::FaultyProbe>(s.run, fault), s);
  dataflow::Summary summary = trainer.train();
  std::printf("rank %d: stopped (%s) after %lld updates\n", parallel::rank(), summary.stop_reason.c_str(),
              static_cast<long long>(summary.updates));
  return 0;
}
