// `spire em`: electromagnetics (FDTD) from job files (science/elec).
//   spire em run job.toml [-o PATH] [--resume] [--threads N] [--quiet] [--platform NAME]
//       builds the job's problem (science/elec/job.h), runs it to [run] until (or
//       until_after_sources), printing progress (step, simulated time, fraction done, million
//       cell-updates per second, ETA) every [run] progress seconds, and writes the results file
//       (every monitor's arrays; science/elec/job_run.h) to [output] file or PATH. Checkpoints go
//       to [run] checkpoint every [run] checkpoint_every (steps or wall time) and at the end.
//       Ctrl-C or SIGTERM stops after the step in progress, writes a checkpoint and exits with code
//       130; the same command with --resume continues from it (bit for bit the run that was not
//       stopped), also past a finished run's end when [run] until was raised.
//   spire em check job.toml [--platform NAME]
//       parses and builds the job and prints what it is: the lattice, the time step and the steps
//       to run, the memory, the materials, sources and monitors, the files it would write.
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "engine/core/error.h"
#include "engine/core/threads.h"
#include "engine/train/progress_bar.h"
#include "science/elec/checkpoint.h"
#include "science/elec/job.h"
#include "science/elec/job_run.h"

namespace spire::cli {
namespace {

namespace fs = std::filesystem;
using namespace spire::elec;

// Set by SIGINT or SIGTERM; run_job reads it before every step. A lock-free atomic, so the handler
// may store to it.
std::atomic<bool> stop_requested{false};
static_assert(std::atomic<bool>::is_always_lock_free);

extern "C" void on_stop_signal(int) { stop_requested.store(true, std::memory_order_relaxed); }

// SIGINT and SIGTERM stop the run cleanly while this lives (a batch system's SIGTERM before the
// kill gets a checkpoint too); a second signal (the handlers reset after the first) ends the
// process at once.
class StopSignals {
 public:
  StopSignals() {
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESETHAND;
    int_ = sigaction(SIGINT, &action, &previous_int_) == 0;
    term_ = sigaction(SIGTERM, &action, &previous_term_) == 0;
  }
  ~StopSignals() {
    if (int_) sigaction(SIGINT, &previous_int_, nullptr);
    if (term_) sigaction(SIGTERM, &previous_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

 private:
  struct sigaction previous_int_ {}, previous_term_ {};
  bool int_ = false, term_ = false;
};

std::string format(const char* f, double x) {
  char b[64];
  std::snprintf(b, sizeof b, f, x);
  return b;
}

std::string bytes_text(double b) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (b >= 1024 && u < 4) b /= 1024, ++u;
  return format(u == 0 ? "%.0f" : "%.3g", b) + " " + units[u];
}

std::string vec_text(const Vec3& v) { return "(" + format("%g", v.x) + ", " + format("%g", v.y) + ", " + format("%g", v.z) + ")"; }

std::string medium_text(const Medium& m) {
  if (m.is_pec()) return "pec";
  if (m.is_pmc()) return "pmc";
  std::string s = "epsilon " + format("%g", m.epsilon_diag.x);
  if (m.epsilon_diag.y != m.epsilon_diag.x || m.epsilon_diag.z != m.epsilon_diag.x) s += " " + vec_text(m.epsilon_diag);
  if (m.mu_diag.x != 1 || m.mu_diag.y != 1 || m.mu_diag.z != 1) s += ", mu " + vec_text(m.mu_diag);
  if (m.has_D_conductivity()) s += ", D-conductivity " + vec_text(m.D_conductivity_diag);
  for (const Susceptibility& x : m.E_susceptibilities) s += ", " + x.describe();
  return s;
}

// What the job is: printed by `check` and at the start of `run`.
void describe(const EmJob& job, const JobRun& run, std::ostream& out) {
  const Simulation& sim = run.simulation();
  const YeeLattice& lat = sim.lattice();
  std::string axes;
  for (int a = 0; a < 3; ++a)
    if (lat.has_axis(a)) axes += std::string(axes.empty() ? "" : " x ") + std::to_string(lat.n(a));
  out << "lattice: " << to_string(lat.dimensions()) << ", " << axes << " = " << lat.samples() << " cells at resolution "
      << format("%g", lat.resolution()) << " (dx = " << format("%g", lat.dx()) << " a), " << to_string(sim.precision())
      << " on " << sim.platform() << (sim.complex_fields() ? ", complex (Bloch) fields" : "") << "\n";
  out << "time: dt = " << format("%g", sim.dt()) << " (Courant " << format("%g", sim.courant()) << "), to t = "
      << format("%g", run.end_time()) << ": " << run.total_steps() << " steps, "
      << format("%.4g", double(lat.samples()) * double(run.total_steps()) / 1e6) << " M cell-updates\n";
  out << "memory: about " << bytes_text(estimate_memory_bytes(run)) << "\n";
  const Geometry& g = job.problem.geometry;
  out << "materials: default " << medium_text(g.default_medium());
  for (size_t i = 0; i < job.material_names.size(); ++i) out << (i ? "; " : "; defined: ") << job.material_names[i];
  out << "\n";
  for (size_t i = 0; i < g.size(); ++i)
    out << "  geometry[" << i << "]: " << medium_text(g.media()[size_t(g.medium_index(i))]) << "\n";
  for (size_t i = 0; i < job.problem.sources.size(); ++i) {
    const Source& s = job.problem.sources[i];
    const ProfileSpec& p = job.source_profiles[i];
    out << "source[" << i << "]: " << to_string(s.component) << " at " << vec_text(s.center) << ", " << p.kind
        << " f = " << format("%g", p.frequency) << (p.kind == "gaussian" ? ", fwidth " + format("%g", p.fwidth) : "")
        << "\n";
  }
  if (!job.problem.plane_waves.empty()) out << "plane waves: " << job.problem.plane_waves.size() << "\n";
  if (!job.problem.ports.empty()) out << "ports: " << job.problem.ports.size() << "\n";
  for (const MonitorSpec& m : job.monitors)
    out << "monitor " << m.name << ": " << to_string(m.kind)
        << (m.frequencies.empty() ? "" : ", " + std::to_string(m.frequencies.size()) + " frequencies")
        << (m.kind == MonitorKind::snapshots ? " every " + std::to_string(m.every) + " steps to " + m.file : "") << "\n";
  out << "output: " << job.output << "; checkpoint " << job.run.checkpoint << std::endl;
}

struct RunOptions {
  std::string job, output, platform;
  int threads = 0;
  bool resume = false, quiet = false;
};

int run(const RunOptions& o) {
  EmJob job = load_em_job(o.job);
  if (!o.output.empty()) set_output(job, o.output);
  if (o.threads > 0) set_num_threads(o.threads);
  const std::string checkpoint = job.run.checkpoint;
  SPIRE_CHECK(o.resume || !fs::exists(checkpoint), ValueError, "em run: ", checkpoint,
              " exists from an earlier run; pass --resume to continue it (to the job's end), or delete it to start "
              "afresh");
  for (const std::string& f : {job.output, checkpoint})
    if (const fs::path dir = fs::path(f).parent_path(); !dir.empty()) fs::create_directories(dir);

  stop_requested.store(false);
  StopSignals signals;
  JobRun r(job, o.platform);
  const bool resumed = o.resume && fs::exists(checkpoint);
  if (resumed) restore_checkpoint(checkpoint, r);
  Simulation& sim = r.simulation();
  const int64_t total = r.total_steps();
  if (!o.quiet) {
    std::cout << "em run " << o.job << "\n";
    describe(job, r, std::cout);
    if (resumed)
      std::cout << "resuming from " << checkpoint << " at step " << sim.steps() << " (t = " << format("%g", sim.time())
                << "): " << std::max<int64_t>(0, total - sim.steps()) << " steps to go of " << total << std::endl;
    else if (o.resume)
      std::cout << "no checkpoint at " << checkpoint << " to resume from: starting the run" << std::endl;
  }

  RunControl control = run_control(job);
  control.stop = &stop_requested;
  if (o.quiet) control.progress_seconds = 0;
  control.progress = [](const RunProgress& p) {
    std::cout << "step " << p.step << "/" << p.total_steps << " ("
              << format("%.1f", 100.0 * double(p.step) / double(std::max<int64_t>(1, p.total_steps))) << "%), t = "
              << format("%.5g", p.time) << " of " << format("%.5g", p.end_time) << ", "
              << format("%.4g", p.cell_updates_per_second / 1e6) << " M cell-updates/s, ETA "
              << train::ProgressBar::format_time(p.eta_seconds) << std::endl;
  };
  const RunOutcome outcome = run_job(r, control);
  if (!outcome.completed) {
    std::cerr << "spire: em run stopped at step " << sim.steps() << " of " << total << " (t = " << format("%g", sim.time())
              << "); checkpoint " << checkpoint << " written. Continue with: spire em run " << o.job
              << (o.output.empty() ? "" : " -o " + o.output) << " --resume" << std::endl;
    return 130;  // 128 + SIGINT, as shells report a run ended by Ctrl-C
  }
  r.finish();
  write_results(job.output, r);
  if (!o.quiet) {
    for (const MonitorObjects& m : r.monitor_objects()) {
      if (!m.harminv) continue;
      try {
        for (const HarmonicMode& mode : m.harminv->modes())
          std::cout << "harminv " << m.spec->name << ": frequency " << format("%.8g", mode.frequency) << ", decay "
                    << format("%.4g", mode.decay) << ", Q " << format("%.5g", mode.q) << ", |amplitude| "
                    << format("%.4g", std::abs(mode.amplitude)) << ", error " << format("%.2g", mode.error) << "\n";
      } catch (const ValueError& e) {
        std::cout << "harminv " << m.spec->name << ": " << e.what() << "\n";
      }
    }
    std::cout << "done: step " << sim.steps() << " (t = " << format("%g", sim.time()) << "), " << outcome.steps
              << " steps in " << format("%.3g", outcome.seconds) << " s ("
              << format("%.4g", outcome.last.cell_updates_per_second / 1e6) << " M cell-updates/s); wrote "
              << job.output << " and " << checkpoint << std::endl;
  }
  return 0;
}

struct CheckOptions {
  std::string job, platform;
};

int check(const CheckOptions& o) {
  const std::string& path = o.job;
  const std::string& platform = o.platform;
  const EmJob job = load_em_job(path);
  JobRun r(job, platform);
  std::cout << "em check " << path << ": ok\n";
  describe(job, r, std::cout);
  return 0;
}

SPIRE_CLI_COMMAND(57, [](CLI::App& app) -> std::function<int()> {
  auto* cmd = app.add_subcommand("em", "electromagnetics (FDTD): run TOML job files (Meep's vocabulary), check them");
  cmd->require_subcommand(1);
  auto o = std::make_shared<RunOptions>();
  auto* rn = cmd->add_subcommand("run", "run the FDTD job a TOML file describes; writes its monitors' results to "
                                        "HDF5 and checkpoints; Ctrl-C stops cleanly after a checkpoint");
  rn->add_option("job", o->job, "the job file (.toml)")->required()->check(CLI::ExistingFile);
  rn->add_option("-o,--output", o->output, "the results file (default: the job's [output] file)");
  rn->add_flag("--resume", o->resume, "continue from the job's checkpoint when there is one");
  rn->add_option("--threads", o->threads, "threads for the updates (default: all cores)")->check(CLI::PositiveNumber);
  rn->add_flag("--quiet", o->quiet, "no description or progress on the terminal (the files are written)");
  rn->add_option("--platform", o->platform, "where the steps run, instead of the job's cell.platform (\"cpu\", "
                                            "\"cuda\", \"cuda:1\")");
  auto c = std::make_shared<CheckOptions>();
  auto* ck = cmd->add_subcommand("check", "parse and build a job file and print what it describes (lattice, steps, "
                                          "memory, materials, sources, monitors)");
  ck->add_option("job", c->job, "the job file (.toml)")->required()->check(CLI::ExistingFile);
  ck->add_option("--platform", c->platform, "the platform to build for, instead of the job's");
  return [=]() -> int {
    if (rn->parsed()) return run(*o);
    return check(*c);
  };
});

}  // namespace
}  // namespace spire::cli
