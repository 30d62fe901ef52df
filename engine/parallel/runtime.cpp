#include "engine/parallel/runtime.h"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <mutex>

#include "engine/parallel/mpi_communicator.h"
#include "engine/parallel/self_communicator.h"

namespace spire::parallel {
namespace {

struct State {
  bool initialized = false;
  bool we_started_mpi = false;  // only then do we finalise it
  int thread_level = -1;
  int local_rank = 0;
  double timeout = 600;
  std::shared_ptr<Communicator> world;
  bool handlers_installed = false;
};

// Heap-allocated: the exit handler and the terminate handler may run after static destructors.
State& state() {
  static State* s = new State();
  return *s;
}
std::recursive_mutex& state_mutex() {
  static auto* m = new std::recursive_mutex();
  return *m;
}

bool env_set(const char* name) {
  const char* v = std::getenv(name);
  return v && *v;
}

// The environment each common launcher gives the processes it starts.
bool launched_by_mpi_launcher() {
  if (env_set("OMPI_COMM_WORLD_SIZE") || env_set("PMIX_RANK") || env_set("PMI_RANK") || env_set("PMI_SIZE") ||
      env_set("MPI_LOCALNRANKS") || env_set("MV2_COMM_WORLD_SIZE"))
    return true;
  // srun sets SLURM_PROCID for any job step; only a step of several tasks is a parallel job.
  const char* ntasks = std::getenv("SLURM_NTASKS");
  return env_set("SLURM_PROCID") && ntasks && std::atoi(ntasks) > 1;
}

double timeout_from(const InitOptions& o) {
  const char* v = std::getenv("SPIRE_COLLECTIVE_TIMEOUT");
  if (!v || !*v) return o.timeout_seconds;
  char* end = nullptr;
  double t = std::strtod(v, &end);
  SPIRE_CHECK(end && *end == '\0', ValueError, "SPIRE_COLLECTIVE_TIMEOUT='", v,
              "' is not a number of seconds (<= 0 waits forever)");
  return t;
}

bool mpi_running() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

// An exception that escapes on one rank ends the job with its message: the other ranks would
// otherwise wait for this one in their next collective until the timeout.
[[noreturn]] void on_terminate() {
  std::string what = "terminate called without an active exception";
  if (std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = std::string("uncaught exception: ") + x.what();
    } catch (...) {
      what = "uncaught exception of a type not derived from std::exception";
    }
  }
  abort_job(what, 1);
}

void finalize_at_exit() {
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  if (state().initialized) finalize();
}

}  // namespace

int mpi_thread_level() { return state().thread_level; }

void init(const InitOptions& options) {
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  State& s = state();
  if (s.initialized) return;
  const std::string& b = options.backend;
  SPIRE_CHECK(b == "auto" || b == "mpi" || b == "self", ValueError, "parallel::init: unknown backend '", b,
              "'; allowed: auto (mpi under a launcher, else self), mpi, self");
  s.timeout = timeout_from(options);
  int already = 0;
  MPI_Initialized(&already);
  const bool use_mpi = b == "mpi" || (b == "auto" && (already || launched_by_mpi_launcher()));
  if (use_mpi) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    SPIRE_CHECK(!finalized, ValueError,
                "parallel::init: MPI was finalized in this process and cannot be started again");
    int provided = 0;
    if (!already) {
      // Threads may issue collectives (data parallel's gradient buckets); ask for full support
      // and serialise our own calls when MPI grants less.
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
      s.we_started_mpi = true;
    } else {
      MPI_Query_thread(&provided);  // someone else (mpi4py, the host program) started MPI
    }
    s.thread_level = provided;
    MPI_Comm world = MPI_COMM_NULL, node = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);  // our own context: user MPI traffic cannot match ours
    s.world = MpiCommunicator::adopt(world);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &s.local_rank);
    MPI_Comm_free(&node);
  } else {
    s.world = SelfCommunicator::create();
    s.local_rank = 0;
  }
  if (!s.handlers_installed) {
    std::set_terminate(on_terminate);
    std::atexit(finalize_at_exit);
    s.handlers_installed = true;
  }
  s.initialized = true;
}

bool is_initialized() {
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  return state().initialized;
}

void finalize() {
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  State& s = state();
  if (!s.initialized) return;
  const bool mpi = s.world && s.world->backend() == "mpi";
  if (mpi && mpi_running()) s.world->barrier();  // no rank leaves while others still talk to it
  s.world.reset();
  s.initialized = false;
  if (s.we_started_mpi && mpi_running()) MPI_Finalize();
}

std::shared_ptr<Communicator> world_ptr() {
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  if (!state().initialized) init();
  return state().world;
}

Communicator& world() { return *world_ptr(); }
int rank() { return world().rank(); }
int size() { return world().size(); }

int local_rank() {
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  if (!state().initialized) init();
  return state().local_rank;
}

double collective_timeout() {
  std::lock_guard<std::recursive_mutex> lock(state_mutex());
  if (state().initialized) return state().timeout;
  return timeout_from(InitOptions{});
}

std::string timeout_message(const std::string& call, const std::string& communicator, double limit, double waited) {
  char w[32];
  std::snprintf(w, sizeof w, "%.1f", waited);
  return detail::cat(call, " on ", communicator, " did not complete within the collective timeout of ", limit,
                     " s (waited ", w, " s): a rank skipped it, called collectives in a different order, or died. "
                     "The timeout is SPIRE_COLLECTIVE_TIMEOUT or init(timeout=...)");
}

void abort_job(const std::string& message, int code) {
  int r = 0, n = 1;
  const bool mpi = mpi_running();
  if (mpi) {
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
  }
  std::fprintf(stderr, "spire rank %d of %d: %s\n", r, n, message.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  if (mpi) MPI_Abort(MPI_COMM_WORLD, code == 0 ? 1 : code);
  std::_Exit(code);
}

}  // namespace spire::parallel
