// `spire pde generate` (generate.h). Sample indices are candidates 0, 1, 2, ...; the file holds the
// first `samples` candidates, in index order, that are not rejected, and the rejection counts
// among the candidates before the last one kept. Each candidate is computed from (seed, index)
// alone, so the file is the same for any number of threads and ranks and across restarts.
//
// The candidates run in rounds: every rank knows the status of every candidate finished so far,
// takes the next unknown candidates (as many as still seem needed, at least one per thread),
// runs its share of them (rank r the r-th, r+size-th, ... of the round) on its threads, and the
// ranks then combine the statuses (an all-reduce). Every finished candidate is checkpointed in
// <out>.partial/ (c<index>.h5 kept, c<index>.rej with the reason rejected) before its status
// counts, so a run that is killed loses only the candidates in flight.
#include "science/flow/generate.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "engine/core/error.h"
#include "engine/core/tensor.h"
#include "engine/core/threads.h"
#include "engine/data/atomic_file.h"
#include "engine/parallel/runtime.h"
#include "science/flow/families.h"
#include "science/flow/generate_checks.h"
#include "science/flow/generate_chunk.h"
#include "science/flow/output.h"

namespace spire::flow {

namespace {

namespace fs = std::filesystem;

// Status codes (shared between ranks as integers).
enum Status : int64_t { Unknown = 0, Kept = 1, NotFinite = 2, BeyondBound = 3, Checkerboard = 4, Refined = 5 };
bool is_kept(int64_t s) { return s == Kept || s == Refined; }
const char* reason_name(int64_t s) {
  return s == NotFinite ? "not finite" : s == BeyondBound ? "beyond bound" : "checkerboard";
}
Status status_of(const std::string& reason) {
  return reason.empty() ? Kept : reason == "not finite" ? NotFinite : reason == "beyond bound" ? BeyondBound : Checkerboard;
}

std::string hex(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

// What a candidate's result depends on: a partial directory made for a different fingerprint
// does not belong to this run.
std::string fingerprint(const PdeJob& job, const GenerateSettings& settings) {
  std::ostringstream f;
  f << "spire pde generate: finished samples of one run\nseed " << settings.seed << "\ncheckerboard "
    << hex(settings.checkerboard) << "\nrefine " << settings.refine << "\nfamily " << job.family << "\n";
  for (auto& [k, v] : job.family_keys) f << "family." << k << " " << hex(v) << "\n";
  const ProblemText& p = job.problem;
  for (auto& e : p.equations) f << "equation " << e << "\n";
  for (auto& e : p.fields) f << "field " << e << "\n";
  for (auto& [k, v] : p.parameters) f << "parameter " << k << " " << hex(v) << "\n";
  for (auto& [k, v] : p.coefficients) f << "coefficient " << k << " " << v << "\n";
  for (auto& [field, sides] : p.bcs)
    for (auto& [side, text] : sides) f << "bc " << field << " " << side << " " << text << "\n";
  for (auto& [k, v] : job.initial) f << "initial " << k << " " << v << "\n";
  const RandomInitial& r = job.random;
  f << "random " << r.waves << " " << r.k_max << " " << hex(r.p_abs) << " " << hex(r.p_window) << " "
    << hex(r.amplitude) << " " << r.normalize << "\n";
  const Discretization& d = job.discretization;
  f << "discretization " << d.basis << " " << d.dims << " " << hex(d.x0) << " " << hex(d.x1) << " " << hex(d.y0)
    << " " << hex(d.y1) << " " << d.nx << " " << d.ny << " " << hex(d.dealias) << " " << d.periodic << "\n";
  const TimeSettings& t = job.time;
  f << "time " << hex(t.t_end) << " " << t.snapshots << " " << hex(t.dt) << " " << hex(t.tolerance) << " "
    << scheme_name(t.scheme) << " " << hex(t.bound) << "\n";
  f << "toml\n" << job.toml << "\n";
  return f.str();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_text(const fs::path& p, const std::string& text) {
  data::write_atomically(p.string(), "spire pde generate", [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    SPIRE_CHECK(out.good(), IOError, "spire pde generate: could not write ", tmp);
  });
}

fs::path chunk_path(const fs::path& dir, uint64_t c, const char* ext) {
  char name[40];
  std::snprintf(name, sizeof name, "c%012llu.%s", (unsigned long long)c, ext);
  return dir / name;
}

// The candidates already finished in the directory: index -> status.
// A refined sample has a `.ref` marker beside its `.h5` (written first, so a crash between the two
// leaves a marker without a sample, which is run again).
std::map<uint64_t, int64_t> scan(const fs::path& dir) {
  std::map<uint64_t, int64_t> done;
  std::set<uint64_t> refined;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    unsigned long long c;
    char ext[8] = {0};
    if (name.size() != 16 && name.size() != 17) continue;
    if (std::sscanf(name.c_str(), "c%12llu.%3s", &c, ext) != 2) continue;
    if (std::string(ext) == "h5")
      done[c] = Kept;
    else if (std::string(ext) == "rej")
      done[c] = status_of(read_text(entry.path()));
    else if (std::string(ext) == "ref")
      refined.insert(c);
  }
  for (uint64_t c : refined)
    if (auto it = done.find(c); it != done.end() && it->second == Kept) it->second = Refined;
  return done;
}

// One candidate, run on a worker thread: the sample's job, its solve, the verdict, the checkpoint.
struct Runner {
  const PdeJob& job;
  const Family* family;
  std::shared_ptr<const Space> space;
  const GenerateSettings& settings;
  fs::path dir;

  int64_t run(uint64_t c) const {
    PdeJob sample_job;
    Coefficients coef;
    if (family) {
      FamilySample fs = family->sample(job, c);
      sample_job = std::move(fs.job);
      coef = std::move(fs.coef);
    } else {
      sample_job = job;
    }
    Solution s;
    std::string reason;
    int refined = 0;
    for (;; ++refined) {
      s = make_job_solver(sample_job, space, c)->run();
      reason = rejection_reason(*space, s, sample_job.time.bound, settings.checkerboard);
      if (reason.empty() || reason == "checkerboard" || refined == settings.refine) break;
      sample_job.time.dt /= 10;
    }
    if (!reason.empty()) {
      write_text(chunk_path(dir, c, "rej"), reason);
      return status_of(reason);
    }
    if (refined) write_text(chunk_path(dir, c, "ref"), std::to_string(refined));
    write_chunk(chunk_path(dir, c, "h5").string(), s, coef);
    return refined ? Refined : Kept;
  }
};

// Runs `mine` on `threads` threads, recording statuses. Progress is reported from this thread,
// and a worker takes its next candidate only once its last one has been reported, so a progress
// callback that throws stops the run with at most one more candidate per thread finished.
void run_round(const Runner& runner, const std::vector<uint64_t>& mine, int threads,
               std::map<uint64_t, int64_t>& status, const std::function<void(long kept)>& report) {
  std::mutex m;
  long kept = 0;
  std::condition_variable cv;
  size_t next = 0, finished = 0, reported = 0;
  bool stop = false;
  std::exception_ptr error;
  int running = std::max(1, std::min<int>(threads, int(mine.size())));
  std::vector<std::thread> pool;
  for (int w = 0; w < running; ++w)
    pool.emplace_back([&] {
      NumThreadsGuard one(1);  // the solvers are serial; threads go across samples
      std::unique_lock<std::mutex> lock(m);
      try {
        for (;;) {
          cv.wait(lock, [&] { return stop || reported == finished; });
          if (stop || next >= mine.size()) break;
          uint64_t c = mine[next++];
          lock.unlock();
          int64_t st = runner.run(c);
          lock.lock();
          status[c] = st;
          kept += is_kept(st);
          ++finished;
          cv.notify_all();
        }
      } catch (...) {
        if (!lock.owns_lock()) lock.lock();
        if (!error) error = std::current_exception();
        stop = true;
      }
      --running;
      cv.notify_all();
    });
  auto join = [&] {
    {
      std::lock_guard<std::mutex> lock(m);
      stop = true;
    }
    cv.notify_all();
    for (auto& t : pool) t.join();
  };
  try {
    std::unique_lock<std::mutex> lock(m);
    while (running > 0) {
      cv.wait(lock, [&] { return running == 0 || finished != reported; });
      if (finished != reported) {
        if (!error) {
          long kept_now = kept;
          lock.unlock();
          report(kept_now);  // may throw (a progress callback that stops the run)
          lock.lock();
        }
        reported = finished;
        cv.notify_all();
      }
    }
  } catch (...) {
    join();
    throw;
  }
  join();
  if (error) std::rethrow_exception(error);
}

}  // namespace

GenerateReport generate(const PdeJob& job_in, const std::string& out, const GenerateSettings& settings,
                        const GenerateProgress& progress) {
  const auto start = std::chrono::steady_clock::now();
  SPIRE_CHECK(settings.samples >= 1, ConfigError, "generate: samples must be at least 1, got ", settings.samples);
  SPIRE_CHECK(settings.threads >= 0, ConfigError, "generate: threads must be >= 0 (0: all), got ", settings.threads);
  SPIRE_CHECK(settings.checkerboard > 0 && settings.checkerboard <= 1, ConfigError,
              "generate: checkerboard must be in (0, 1], got ", settings.checkerboard);
  SPIRE_CHECK(settings.refine >= 0 && settings.refine <= 3, ConfigError,
              "generate: refine must be 0, 1, 2 or 3 (each divides the time step by 10), got ", settings.refine);
  PdeJob job = job_in;
  job.seed = settings.seed;
  std::unique_ptr<Family> family = job.family.empty() ? nullptr : make_family(job.family, job.family_keys);
  const long wanted = settings.samples;
  const int threads = settings.threads > 0 ? settings.threads : std::max(1, num_threads());
  auto& world = parallel::world();
  const int rank = world.rank(), size = world.size();

  // The checkpoint directory: kept when it belongs to this run (and resuming), else started afresh.
  const fs::path dir = out + ".partial";
  const std::string print = fingerprint(job, settings);
  if (rank == 0) {
    try {
      bool ours = settings.resume && fs::is_directory(dir) && fs::exists(dir / "run.txt") &&
                  read_text(dir / "run.txt") == print;
      if (!ours) {
        // only ever remove a directory this function made
        SPIRE_CHECK(!fs::exists(dir) || fs::exists(dir / "run.txt") || (fs::is_directory(dir) && fs::is_empty(dir)),
                    IOError, "spire pde generate: ", dir.string(),
                    " exists and is not a checkpoint directory of spire pde generate; move it away");
        fs::remove_all(dir);
        fs::create_directories(dir);
        write_text(dir / "run.txt", print);
      }
    } catch (const fs::filesystem_error& e) {
      throw IOError(detail::cat("spire pde generate: cannot prepare the checkpoint directory ", dir.string(), ": ",
                                e.code().message()));
    }
  }
  if (size > 1) world.barrier();
  std::map<uint64_t, int64_t> status = scan(dir);
  const std::map<uint64_t, int64_t> found = status;

  std::shared_ptr<const Space> space = make_space(job.discretization);
  Runner runner{job, family.get(), space, settings, dir};
  const long give_up = std::max<long>(100, 10 * wanted);

  // The first `wanted` kept candidates when the prefix before them is known: (last index + 1).
  auto settled = [&](long& kept, long& rejected) -> uint64_t {
    kept = rejected = 0;
    uint64_t c = 0;
    for (auto it = status.begin(); it != status.end() && it->first == c && kept < wanted; ++it, ++c)
      (is_kept(it->second) ? kept : rejected) += 1;
    return c;
  };
  auto kept_known = [&] {
    long kept = 0;
    for (auto& [c, s] : status) kept += is_kept(s);
    return kept;
  };

  for (;;) {
    long kept, rejected;
    uint64_t end = settled(kept, rejected);
    if (kept == wanted) break;
    if (rejected >= give_up) {
      std::map<std::string, long> why;
      for (auto& [c, s] : status)
        if (c < end && !is_kept(s)) ++why[reason_name(s)];
      std::string reasons;
      for (auto& [r, n] : why) reasons += (reasons.empty() ? "" : ", ") + std::to_string(n) + " " + r;
      throw ValueError(detail::cat("spire pde generate: ", rejected, " of the first ", end,
                                   " samples were rejected (", reasons, ") and only ", kept,
                                   " kept; giving up. Check the job's time step, resolution and bound."));
    }
    // The next unknown candidates: as many as still seem needed at the acceptance rate so far.
    double rate = std::max(0.1, double(kept + 1) / double(kept + rejected + 1));
    long round = std::max<long>(long(std::ceil((wanted - kept) / rate)), long(threads) * size);
    std::vector<uint64_t> batch;
    for (uint64_t c = end; long(batch.size()) < round; ++c)
      if (!status.count(c)) batch.push_back(c);
    std::vector<uint64_t> mine;
    for (size_t j = rank; j < batch.size(); j += size) mine.push_back(batch[j]);
    const long kept_before = kept_known();
    run_round(runner, mine, threads, status, [&](long in_round) {
      if (progress) progress(std::min(kept_before + in_round, wanted), wanted);
    });
    if (size > 1) {
      Tensor t = zeros({int64_t(batch.size())}, DType::Int64);
      for (size_t j = 0; j < batch.size(); ++j) {
        auto it = status.find(batch[j]);
        t.data<int64_t>()[j] = it == status.end() ? Unknown : it->second;
      }
      world.all_reduce(t, parallel::ReduceOp::Max);
      for (size_t j = 0; j < batch.size(); ++j) status[batch[j]] = t.data<int64_t>()[j];
    }
    if (progress) progress(std::min(kept_known(), wanted), wanted);
  }

  long kept, rejected;
  uint64_t end = settled(kept, rejected);
  GenerateReport report;
  report.accepted = kept;
  for (auto& [c, s] : status) {
    if (c >= end) break;
    if (!is_kept(s)) ++report.rejected[reason_name(s)];
    else if (found.count(c)) ++report.resumed;
    report.refined += s == Refined;
  }
  if (rank == 0) {
    SolutionSet set;
    const Discretization& d = job.discretization;
    std::vector<std::vector<double>> coords = {space->coordinates(0, false)};
    if (d.dims == 2) coords.push_back(space->coordinates(1, false));
    for (auto& [c, s] : status) {
      if (c >= end) break;
      if (!is_kept(s)) continue;
      Solution solution;
      Coefficients coef;
      read_chunk(chunk_path(dir, c, "h5").string(), solution, coef);
      solution.coords = coords;
      set.solutions.push_back(std::move(solution));
      if (family) set.coef.push_back(std::move(coef));
    }
    set.rejected = report.rejected;
    // the field names: a family's samples name them in their own problems
    uint64_t first = 0;
    while (!is_kept(status.at(first))) ++first;
    set.fields = build_problem(family ? family->sample(job, first).job.problem : job.problem).fields;
    write_solutions(out, job, set);
    fs::remove_all(dir);
  }
  if (size > 1) world.barrier();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace spire::flow
