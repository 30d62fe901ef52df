// `spire pde generate` across MPI ranks: run under mpirun, every rank takes its share of the
// samples and rank 0 joins them; the file must equal the one a single process writes.
//
//   flow_generate OUT [REFERENCE]
//
// writes OUT (a small Burgers dataset with random initial fields and some rejected samples) and,
// given REFERENCE (the same run in one process), exits 1 unless rank 0 finds OUT identical to it.
#include <cstdio>
#include <string>

#include "engine/parallel/runtime.h"
#include "science/flow/generate.h"
#include "science/flow/output.h"

using namespace spire;
using namespace spire::flow;

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: flow_generate OUT [REFERENCE]\n");
    return 2;
  }
  parallel::init();
  PdeJob job;
  // Burgers with random initial fields; the bound rejects the samples that start above 1.2.
  job.problem.equations = {"dt(u) + dx(0.5*u^2) - 0.05*dx(dx(u)) = 0"};
  job.discretization.nx = 32, job.discretization.x0 = 0, job.discretization.x1 = 1;
  job.time.t_end = 0.02, job.time.dt = 1e-3, job.time.snapshots = 3, job.time.bound = 1.2;
  job.initial = {{"u", "random"}};
  GenerateSettings settings;
  settings.samples = 9, settings.seed = 4, settings.threads = 2;
  GenerateReport report = generate(job, argv[1], settings);
  int status = 0;
  if (parallel::rank() == 0) {
    long rejected = 0;
    for (auto& [reason, n] : report.rejected) rejected += n;
    std::printf("%d ranks: %ld samples kept, %ld rejected\n", parallel::size(), report.accepted, rejected);
    if (argc > 2) {
      SolutionSet a = read_solutions(argv[1]), b = read_solutions(argv[2]);
      bool same = a.solutions.size() == b.solutions.size() && a.rejected == b.rejected;
      for (size_t s = 0; same && s < a.solutions.size(); ++s)
        same = a.solutions[s].t == b.solutions[s].t && a.solutions[s].fields == b.solutions[s].fields;
      std::printf(same ? "same as the reference\n" : "DIFFERENT from the reference\n");
      status = same ? 0 : 1;
    }
  }
  parallel::finalize();
  return status;
}
