// `spire pde`: PDEs from job files (science/flow).
//   spire pde solve job.toml -o out.h5 [--explain] [--quiet]
//       solve the job and write its snapshots (PDEBench and/or PDEformer layout); --explain prints
//       how each equation is split into implicit and explicit parts first (alone, without -o, it
//       prints the split and stops). A blow-up stops the run, says when and where, writes the
//       snapshots reached and exits with code 3.
//   spire pde generate job.toml -o data.h5 --samples N [--seed S] [--threads T] [--refine R] [--no-resume]
//       a dataset: N samples of the job's [family] (or of its random initial conditions)
//   spire pde plot out.h5 -o fig.png [--field u] [--sample i]
//       an x-t picture (1D) or the last snapshot (2D) of one field of one sample
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>

#include "cli/command.h"
#include "engine/core/error.h"
#include "engine/parallel/runtime.h"
#include "engine/train/progress_bar.h"
#include "engine/train/stream.h"
#include "science/flow/generate.h"
#include "science/flow/job.h"
#include "science/flow/output.h"
#include "science/flow/plot.h"
#include "science/flow/problem.h"

namespace spire::cli {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Progress of a run toward a total: on a terminal a bar redrawn at most ten times a second, with
// the rate and the ETA; elsewhere a line every 10% of the way (or every 30 s).
class Progress {
 public:
  Progress(bool quiet, std::string unit) : unit_(std::move(unit)) {
    terminal_ = train::Stream::standard_output().is_terminal;
    enabled_ = !quiet;
  }
  // done of total (in any unit); count is what the rate counts (steps, samples).
  void update(double done, double total, double count, const std::string& what) {
    if (!enabled_ || total <= 0) return;
    const double s = seconds_since(t0_), fraction = std::clamp(done / total, 0.0, 1.0);
    const double rate = count / std::max(s, 1e-9);
    const double eta = fraction > 0 ? s * (1 - fraction) / fraction : 0;
    if (terminal_) {
      if (s - drawn_ < 0.1 && fraction < 1) return;
      drawn_ = s;
      std::cout << "\r\033[K" << bar_.bar(int64_t(100 * fraction), 100) << " " << what << ", " << format_rate(rate)
                << " " << unit_ << "/s ETA " << train::ProgressBar::format_time(eta) << std::flush;
      open_ = true;
    } else {
      // Runs shorter than a few seconds stay quiet; longer ones say something every 10% (at most once
      // a second) or every 30 s.
      const int decile = int(10 * fraction);
      if (s < 2 || ((decile <= last_decile_ || s - said_ < 1) && s - said_ < 30)) return;
      last_decile_ = decile, said_ = s;
      std::cout << int(100 * fraction) << "% " << what << ", " << format_rate(rate) << " " << unit_ << "/s, "
                << train::ProgressBar::format_time(s) << " elapsed" << std::endl;
    }
  }
  void end() {
    if (open_) std::cout << "\r\033[K" << std::flush;
    open_ = false;
  }

 private:
  static std::string format_rate(double r) {
    char b[32];
    std::snprintf(b, sizeof b, r >= 100 ? "%.0f" : "%.3g", r);
    return b;
  }
  std::string unit_;
  bool terminal_ = false, enabled_ = true, open_ = false;
  train::ProgressBar bar_;
  Clock::time_point t0_ = Clock::now();
  double drawn_ = -1, said_ = 0;
  int last_decile_ = 0;
};

std::string format_seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g s", s);
  return b;
}

void print_warnings(const flow::PdeJob& job) {
  for (const std::string& w : job.warnings) std::cerr << "spire: warning: " << job.where << ": " << w << "\n";
}

std::string shape_text(const flow::Solution& s) {
  std::string t = std::to_string(s.t.size());
  for (auto& c : s.coords) t += " x " + std::to_string(c.size());
  return t;
}

struct SolveOptions {
  std::string job, out;
  bool explain = false, quiet = false;
};

int solve(const SolveOptions& o) {
  flow::PdeJob job = flow::load_pde_job(o.job);
  print_warnings(job);
  if (o.explain) {
    std::string text = flow::explain(flow::build_problem(job.problem));
    if (!text.empty() && text.back() != '\n') text += '\n';
    std::cout << text;
    if (o.out.empty()) return 0;
  }
  SPIRE_CHECK(!o.out.empty(), ValueError, "pde solve: give the output file with -o out.h5 (or --explain alone to "
              "print the split)");
  if (!o.quiet)
    std::cout << "solving " << o.job << ": " << job.discretization.basis << " n = " << job.discretization.nx
              << (job.discretization.dims == 2 ? " x " + std::to_string(job.discretization.ny) : "") << ", "
              << flow::scheme_name(job.time.scheme) << ", t to " << job.time.t_end << ", " << job.time.snapshots
              << " snapshots" << std::endl;
  Progress progress(o.quiet, "steps");
  const auto t0 = Clock::now();
  flow::Solution s = flow::solve_job(job, 0, [&](double t, long steps) {
    char what[48];
    std::snprintf(what, sizeof what, "t = %.4g", t);
    progress.update(t, job.time.t_end, double(steps), what);
    return true;
  });
  progress.end();
  const double seconds = seconds_since(t0);
  flow::SolutionSet set;
  set.solutions.push_back(s);
  flow::write_solutions(o.out, job, set);
  if (!s.complete) {
    std::cerr << "spire: pde solve stopped: " << s.stop_reason << "; wrote the " << s.t.size() << " of "
              << job.time.snapshots << " snapshots reached to " << o.out << "\n";
    return 3;
  }
  if (!o.quiet)
    std::cout << "wrote " << o.out << ": " << detail::join(job.problem.fields) << " [" << shape_text(s) << "], "
              << s.steps << " steps" << (s.rejected ? " (" + std::to_string(s.rejected) + " rejected)" : "")
              << " in " << format_seconds(seconds) << std::endl;
  return 0;
}

struct GenerateOptions {
  std::string job, out;
  long samples = 1;
  int64_t seed = -1;
  int threads = 0, refine = 0;
  bool no_resume = false, quiet = false;
};

int generate(const GenerateOptions& o) {
  flow::PdeJob job = flow::load_pde_job(o.job);
  const bool printer = parallel::rank() == 0;
  if (printer) print_warnings(job);
  flow::GenerateSettings settings;
  settings.samples = o.samples;
  settings.seed = o.seed >= 0 ? uint64_t(o.seed) : job.seed;
  job.seed = settings.seed;
  settings.threads = o.threads;
  settings.resume = !o.no_resume;
  settings.refine = o.refine;
  if (printer && !o.quiet)
    std::cout << "generating " << o.samples << " samples of "
              << (job.family.empty() ? o.job : "the " + job.family + " family") << " (seed " << settings.seed
              << ") into " << o.out << std::endl;
  Progress progress(o.quiet || !printer, "samples");
  std::mutex m;
  flow::GenerateReport r = flow::generate(job, o.out, settings, [&](long done, long total) {
    std::lock_guard<std::mutex> lock(m);
    progress.update(double(done), double(total), double(done), std::to_string(done) + "/" + std::to_string(total));
  });
  progress.end();
  if (printer && !o.quiet) {
    long rejected = 0;
    std::string why;
    for (auto& [reason, n] : r.rejected) rejected += n, why += (why.empty() ? "" : ", ") + std::to_string(n) + " " + reason;
    std::cout << "wrote " << o.out << ": " << r.accepted << " samples" << (r.resumed ? " (" + std::to_string(r.resumed) +
                 " from a previous run)" : "") << (r.refined ? ", " + std::to_string(r.refined) + " at a refined step" : "")
              << ", " << rejected << " rejected" << (why.empty() ? "" : " (" + why + ")")
              << " in " << format_seconds(r.seconds) << std::endl;
  }
  return 0;
}

struct PlotOptions {
  std::string file, out, field;
  long sample = 0;
};

int plot(const PlotOptions& o) {
  flow::plot_file(o.file, o.out, o.field, o.sample);
  std::cout << "wrote " << o.out << std::endl;
  return 0;
}

SPIRE_CLI_COMMAND(50, [](CLI::App& app) -> std::function<int()> {
  auto* cmd = app.add_subcommand("pde", "partial differential equations: solve job files, generate datasets, plot");
  cmd->require_subcommand(1);

  auto so = std::make_shared<SolveOptions>();
  auto* sv = cmd->add_subcommand("solve", "solve the PDE a TOML job file describes and write its snapshots to HDF5");
  sv->add_option("job", so->job, "the job file (.toml)")->required()->check(CLI::ExistingFile);
  sv->add_option("-o,--out", so->out, "the HDF5 file to write");
  sv->add_flag("--explain", so->explain, "print how each equation is split into implicit (M, L) and explicit (F) "
                                         "parts; without -o, only that");
  sv->add_flag("--quiet", so->quiet, "no progress");

  auto go = std::make_shared<GenerateOptions>();
  auto* gn = cmd->add_subcommand("generate", "a dataset of many samples of a PDE family or of random initial "
                                             "conditions; resumable, also under mpirun -n N");
  gn->add_option("job", go->job, "the job file (.toml)")->required()->check(CLI::ExistingFile);
  gn->add_option("-o,--out", go->out, "the HDF5 file to write")->required();
  gn->add_option("--samples", go->samples, "samples to generate")->required()->check(CLI::PositiveNumber);
  gn->add_option("--seed", go->seed, "the base seed (default: the job's seed)")->check(CLI::NonNegativeNumber);
  gn->add_option("--threads", go->threads, "threads across samples (default: all cores)")->check(CLI::NonNegativeNumber);
  gn->add_option("--refine", go->refine, "solve a sample that blows up again with dt/10, up to this many times, "
                                        "before rejecting it (0-3; default 0)")->check(CLI::Range(0, 3));
  gn->add_flag("--no-resume", go->no_resume, "start afresh instead of continuing from <out>.partial/");
  gn->add_flag("--quiet", go->quiet, "no progress");

  auto po = std::make_shared<PlotOptions>();
  auto* pl = cmd->add_subcommand("plot", "a PNG of one field of a solution file: x-t in 1D, the last snapshot in 2D");
  pl->add_option("file", po->file, "a file written by spire pde solve or generate")->required()->check(CLI::ExistingFile);
  pl->add_option("-o,--out", po->out, "the PNG file to write")->required();
  pl->add_option("--field", po->field, "the field (default: the first)");
  pl->add_option("--sample", po->sample, "the sample (default: 0)")->check(CLI::NonNegativeNumber);
  return [=]() -> int {
    if (sv->parsed()) return solve(*so);
    if (gn->parsed()) return generate(*go);
    return plot(*po);
  };
});

}  // namespace
}  // namespace spire::cli
