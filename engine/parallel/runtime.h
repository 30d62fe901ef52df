// The parallel runtime: one call that works the same under `mpirun -n N` (or srun, or any launcher
// that starts MPI ranks) and in a plain process (world size 1, no launcher, MPI not started).
//
//   parallel::init();                       // idempotent
//   auto& world = parallel::world();        // rank(), size(), collectives
//   parallel::local_rank();                 // rank among the ranks on this node (picks the GPU)
//
// Failures bring the whole job down rather than hanging it: an exception that escapes on one rank
// is printed with the rank and the job is aborted (MPI_Abort); a collective that does not complete
// within the timeout aborts the job with a message naming the collective, the communicator and the
// time waited.
#pragma once
#include <memory>
#include <string>

#include "engine/parallel/communicator.h"

namespace spire::parallel {

struct InitOptions {
  // "auto": MPI when a launcher started this process (its environment says so), else "self".
  std::string backend = "auto";
  double timeout_seconds = 600;  // per collective; <= 0 waits forever. SPIRE_COLLECTIVE_TIMEOUT overrides.
};

void init(const InitOptions& options = {});
bool is_initialized();
void finalize();  // collective; safe to call twice; also run at exit
std::shared_ptr<Communicator> world_ptr();
Communicator& world();  // initialises with defaults on first use
int rank();
int size();
int local_rank();
double collective_timeout();
// What every backend says of a collective that did not complete within the timeout: `call` on
// `communicator` (as "communicator 3 (mpi, rank 0 of 2)"), the limit and the seconds waited.
std::string timeout_message(const std::string& call, const std::string& communicator, double limit, double waited);
// Prints "spire rank r of n: <message>" to stderr and ends every rank of the job.
[[noreturn]] void abort_job(const std::string& message, int code = 1);

}  // namespace spire::parallel
