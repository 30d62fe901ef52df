// `spire md`: molecular dynamics from job files (science/sponge).
//   spire md run job.toml [-o DIR] [--steps N] [--resume] [--quiet] [--platform NAME]
//       builds the job's system, minimises it and draws velocities when the job says, and runs it,
//       printing the thermo log and progress lines with the speed in ns/day (tau/day in lj units);
//       writes DIR/thermo.csv, the H5MD trajectory and checkpoints (file names from the job's
//       [output]). DIR defaults to the job file's name without its extension, beside it.
//       Ctrl-C stops after the step in progress, writes a checkpoint and exits with code 130; the
//       same command with --resume (or [run] resume = true) continues from it to the job's total
//       steps, appending to the files. --platform runs the steps on another platform than the job's
//       [run] platform ("cpu", "cuda", "cuda:1": science/sponge/platform.h); a checkpoint written on
//       one platform resumes on any other.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "engine/core/error.h"
#include "science/sponge/job.h"

namespace spire::cli {
namespace {

namespace fs = std::filesystem;
using namespace spire::sponge;

// Set by SIGINT; Simulation::run reads it before every step. A lock-free atomic, so the handler
// may store to it.
std::atomic<bool> interrupt_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_interrupt(int) { interrupt_requested.store(true, std::memory_order_relaxed); }

// SIGINT stops the run cleanly while this lives; a second Ctrl-C (the handler is reset after the
// first) ends the process at once.
class InterruptGuard {
 public:
  InterruptGuard() {
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    installed_ = sigaction(SIGINT, &action, &previous_) == 0;
  }
  ~InterruptGuard() {
    if (installed_) sigaction(SIGINT, &previous_, nullptr);
  }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

struct RunOptions {
  std::string job, out;
  int64_t steps = -1;
  bool resume = false, quiet = false;
  std::string platform;  // "" for the job's
};

std::string format(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

std::string speed_text(const Units& units, double per_day) {
  return units.time == "ps" ? format("%.4g ns/day", per_day / 1000) : format("%.4g", per_day) + " " + units.time + "/day";
}

// One line on what the job is: the system, the forces, the dynamics, the length of the run.
std::string describe(const MdJob& job, const Simulation& sim) {
  std::string s = std::to_string(sim.system().size()) + " particles (" + job.system.builder;
  if (job.system.builder == "lattice") s += " " + job.system.lattice.kind;
  if (job.system.builder == "water") s += " " + job.system.water.model;
  s += "), " + job.units.name + " units; forces:";
  for (const ForcePtr& f : sim.force_field().terms()) s += " " + f->name();
  if (sim.force_field().terms().empty()) s += " none";
  if (job.forces.coulomb.enabled) s += " (" + job.forces.coulomb.method + ")";
  s += "; " + sim.integrator().name() + ", dt = " + format("%g", job.integrator.dt) + " " + job.units.time;
  s += "; platform " + sim.device();
  return s;
}

int run(RunOptions o) {
  MdJob job = load_md_job(o.job);
  if (o.steps >= 0) job.run.steps = o.steps, job.run.time = 0;
  if (o.quiet) job.run.progress_seconds = 0;
  if (!o.platform.empty()) job.run.platform = parse_platform(o.platform);
  const std::string out = !o.out.empty() ? o.out : fs::path(o.job).replace_extension("").string();
  fs::create_directories(out);
  const bool resume = o.resume || job.run.resume;
  const std::string checkpoint = checkpoint_path(job, out);
  SPIRE_CHECK(resume || !fs::exists(checkpoint), ValueError, "md run: ", checkpoint,
              " exists from an earlier run; pass --resume (or set [run] resume = true) to continue it to the job's "
              "steps, or choose another folder with -o");
  if (resume && !fs::exists(checkpoint) && !o.quiet)
    std::cout << "no checkpoint at " << checkpoint << " to resume from: starting the run" << std::endl;

  interrupt_requested.store(false);
  InterruptGuard guard;
  JobRun r = start_job(job, out, resume, o.quiet ? nullptr : &std::cout, &interrupt_requested);
  Simulation& sim = *r.simulation;
  sim.prepare();  // makes the platform's device now, so the description names it (and a missing GPU stops here)
  const int64_t total = total_steps(job), remaining = r.remaining_steps(job);
  if (!o.quiet) {
    std::cout << "md run " << o.job << ": " << describe(job, sim) << std::endl;
    if (r.minimization) {
      const MinimizeResult& m = *r.minimization;
      std::cout << "minimised (" << job.minimize.method << "): " << m.iterations << " iterations, energy "
                << format("%.8g", m.energy) << " " << job.units.energy << ", max force " << format("%.4g", m.max_force)
                << (m.converged ? "" : " (not converged: " + m.stop_reason + ")") << std::endl;
    }
    if (r.resumed)
      std::cout << "resuming from " << checkpoint << " at step " << sim.state().step << ": " << remaining
                << " steps to go of " << total << std::endl;
    else
      std::cout << total << " steps, writing to " << out << std::endl;
  }
  sim.run(remaining);
  if (sim.interrupted()) {
    std::cerr << "spire: md run stopped at step " << sim.state().step << " of " << total << " (Ctrl-C); checkpoint "
              << checkpoint << " written. Continue with: spire md run " << o.job << " -o " << out << " --resume"
              << std::endl;
    return 130;  // 128 + SIGINT, as shells report a run ended by Ctrl-C
  }
  if (!o.quiet) {
    std::cout << "done: step " << sim.state().step << ", " << remaining << " steps at "
              << speed_text(job.units, sim.speed_per_day()) << "; wrote";
    if (!job.thermo.file.empty()) std::cout << " " << (fs::path(out) / job.thermo.file).string();
    if (job.h5md.enabled) std::cout << " " << (fs::path(out) / job.h5md.file).string();
    std::cout << " " << checkpoint << std::endl;
  }
  return 0;
}

SPIRE_CLI_COMMAND(55, [](CLI::App& app) -> std::function<int()> {
  auto* cmd = app.add_subcommand("md", "molecular dynamics: run TOML job files (LJ fluids, water boxes, PDB systems)");
  cmd->require_subcommand(1);
  auto o = std::make_shared<RunOptions>();
  auto* rn = cmd->add_subcommand("run", "run the MD job a TOML file describes; writes the thermo log, H5MD "
                                        "trajectory and checkpoints; Ctrl-C stops cleanly after a checkpoint");
  rn->add_option("job", o->job, "the job file (.toml)")->required()->check(CLI::ExistingFile);
  rn->add_option("-o,--out", o->out, "the output folder (default: the job file's path without .toml)");
  rn->add_option("--steps", o->steps, "the run's total steps, instead of the job's [run] steps or time")
      ->check(CLI::NonNegativeNumber);
  rn->add_flag("--resume", o->resume, "continue from the checkpoint in the output folder when there is one");
  rn->add_flag("--quiet", o->quiet, "no thermo log or progress on the terminal (the files are written)");
  rn->add_option("--platform", o->platform,
                 "where the steps run, instead of the job's [run] platform: " + detail::join(platforms()) +
                     " (a device index after a colon: cuda:1)");
  return [=]() -> int { return run(*o); };
});

}  // namespace
}  // namespace spire::cli
