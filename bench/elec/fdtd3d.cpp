// FDTD throughput side by side with Meep: a 3D vacuum cell of n^3 cells (default 100^3, resolution
// 1) closed by a PML of `pml` cells on every side (inside the cell, as Meep puts it), an Ez point
// dipole with a Gaussian pulse (f = 0.15, fwidth = 0.1) near the centre, Courant number 0.5: the
// same problem in both. The figure is million cell-updates per second (cells x steps / time) over
// `steps` steps after three warm-up steps (setup excluded on both sides); medians (and the best) of
// --runs runs taken round-robin (Spire float64, Spire float32, Meep, then again) so that a
// change of load hits every contender alike.
//
// Meep runs in a python3 child process (Debian's python3-meep: double precision; it is built
// without OpenMP or MPI, so it runs on one core whatever the thread count). Spire runs in this
// process, on 1 and 2 OpenMP threads. Times are wall-clock; with 1 thread the CPU time is printed
// too, which a machine shared with other work disturbs less. On such a machine the 2-thread times
// scatter (a descheduled thread stalls the other at the sweep's barrier); the header prints the
// load average at the start and the end.
//
// usage: fdtd3d [--n 100] [--pml 10] [--steps 40] [--runs 5] [--threads 1,2] [--no-meep]
//              [--platform cpu|cuda|cuda:N]
//   environment: SPIRE_MEEP_PYTHON, the interpreter that imports meep (default: /usr/bin/python3,
//   where Debian's python3-meep lives; bench/elec/install-peers.sh installs it)
//
// --platform cuda (a build with the cuda platform, science/elec/cuda): the same problem on the GPU
// (default n 256, 200 steps), float64 and float32, timed between device synchronisations. Besides
// the cell-update rate it prints the fraction of the memory-bandwidth roofline achieved: the bytes
// a step must move (science/elec/cuda/traffic.h: every field read and written once per update and
// read once more by the other half step, the CPML psi read and written in the slabs) x steps / time,
// over the device's peak bandwidth (2 x memory clock x bus width / 8, from the device attributes)
// and over the bandwidth a device-to-device cudaMemcpy achieves (what streaming can reach).
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "science/elec/simulation.h"
#include "science/elec/simulation_engine.h"
#if defined(SPIRE_ELEC_BENCH_CUDA)
#include "science/elec/cuda/device_info.h"
#include "science/elec/cuda/traffic.h"
#endif

using namespace spire::elec;

namespace {

struct Options {
  int n = 100, pml = 10, steps = 40, runs = 5;
  std::vector<int> threads{1, 2};
  bool meep = true;
  std::string platform = "cpu";
  bool n_given = false, steps_given = false;
};

struct Sample {
  double wall = 0, cpu = 0;  // seconds for the timed steps
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a;
  f >> a;
  return a.empty() ? "?" : a;
}

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

Sample run_spire(const Options& o, Precision precision, int threads) {
  omp_set_num_threads(threads);
  const double n = o.n;
  YeeLattice lattice(Dimensions::three, {n, n, n}, 1.0);
  Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries::pml_cells(o.pml), 0.5, precision);
  sim.add_source(point_dipole(Component::Ez, {0.1, 0.2, 0.3}, std::make_shared<GaussianSource>(0.15, 0.1)));
  sim.run_steps(3);
  const double c0 = cpu_seconds();
  const auto t0 = std::chrono::steady_clock::now();
  sim.run_steps(o.steps);
  Sample s;
  s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  s.cpu = cpu_seconds() - c0;
  return s;
}

const char* kMeepScript = R"(import sys, time
import meep as mp
mp.verbosity(0)
n, pml, steps = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
sim = mp.Simulation(cell_size=mp.Vector3(n, n, n), resolution=1, Courant=0.5,
                    boundary_layers=[mp.PML(pml)],
                    sources=[mp.Source(mp.GaussianSource(0.15, fwidth=0.1), component=mp.Ez,
                                       center=mp.Vector3(0.1, 0.2, 0.3))])
sim.init_sim()
for _ in range(3):
    sim.fields.step()
t0, c0 = time.perf_counter(), time.process_time()
for _ in range(steps):
    sim.fields.step()
print("MEEP", time.perf_counter() - t0, time.process_time() - c0, mp.__version__, flush=True)
)";

std::string python() {
  const char* p = std::getenv("SPIRE_MEEP_PYTHON");
  return p && *p ? p : "/usr/bin/python3";
}

// Runs the Meep script; false (with the reason printed once) when meep cannot be run.
bool run_meep(const Options& o, const std::string& script, Sample& s, std::string& version) {
  const std::string cmd = python() + " " + script + " " + std::to_string(o.n) + " " + std::to_string(o.pml) + " " +
                          std::to_string(o.steps) + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return false;
  char line[4096];
  bool ok = false;
  std::string output;
  while (std::fgets(line, sizeof line, p)) {
    output += line;
    char v[64] = {0};
    if (std::sscanf(line, "MEEP %lf %lf %63s", &s.wall, &s.cpu, v) == 3) {
      ok = true;
      version = v;
    }
  }
  pclose(p);
  if (!ok) std::fprintf(stderr, "Meep did not run (%s):\n%s\n", cmd.c_str(), output.c_str());
  return ok;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--n") o.n = std::atoi(next().c_str()), o.n_given = true;
    else if (a == "--pml") o.pml = std::atoi(next().c_str());
    else if (a == "--steps") o.steps = std::atoi(next().c_str()), o.steps_given = true;
    else if (a == "--platform") o.platform = next();
    else if (a == "--runs") o.runs = std::atoi(next().c_str());
    else if (a == "--no-meep") o.meep = false;
    else if (a == "--threads") {
      o.threads.clear();
      std::stringstream ss(next());
      std::string t;
      while (std::getline(ss, t, ',')) o.threads.push_back(std::atoi(t.c_str()));
    } else {
      std::fprintf(stderr, "unknown option %s; usage: fdtd3d [--n N] [--pml CELLS] [--steps N] [--runs N] "
                   "[--threads 1,2] [--no-meep] [--platform cpu|cuda|cuda:N]\n", a.c_str());
      std::exit(2);
    }
  }
  if (o.platform.rfind("cuda", 0) == 0) {
    if (!o.n_given) o.n = 256;
    if (!o.steps_given) o.steps = 200;
  } else if (o.platform != "cpu") {
    std::fprintf(stderr, "--platform: got '%s'; allowed: cpu, cuda, cuda:N\n", o.platform.c_str());
    std::exit(2);
  }
  if (o.n < 2 * o.pml + 2 || o.steps < 1 || o.runs < 1 || o.threads.empty()) {
    std::fprintf(stderr, "need n > 2 pml + 1, steps >= 1, runs >= 1, some thread counts\n");
    std::exit(2);
  }
  return o;
}

// The GPU figures: cell-update rates and the roofline fraction, float64 and float32.
int run_gpu(const Options& o) {
#if defined(SPIRE_ELEC_BENCH_CUDA)
  const size_t colon = o.platform.find(':');
  const int device = colon == std::string::npos ? 0 : std::atoi(o.platform.c_str() + colon + 1);
  const spire::elec::cuda::DeviceMemoryInfo info = spire::elec::cuda::device_memory_info(device, true);
  const double n = o.n, cells = n * n * n;
  std::printf("FDTD 3D throughput on %s (%s): %d^3 cells, %d-cell PML, %d steps, %d runs\n", o.platform.c_str(),
              info.name.c_str(), o.n, o.pml, o.steps, o.runs);
  std::printf("memory bandwidth: peak %.0f GB/s (%.0f MHz x %d bits x 2), device-to-device copy %.0f GB/s\n",
              info.peak_bandwidth / 1e9, info.memory_clock_hz / 1e6, info.bus_width_bits,
              info.measured_bandwidth / 1e9);
  const Precision precisions[2] = {Precision::float64, Precision::float32};
  std::vector<double> rate[2];
  double bytes[2] = {0, 0};
  for (int r = 0; r < o.runs; ++r)
    for (int p = 0; p < 2; ++p) {
      YeeLattice lattice(Dimensions::three, {n, n, n}, 1.0);
      Simulation sim(lattice, MaterialArrays::vacuum(lattice), Boundaries::pml_cells(o.pml), 0.5, precisions[p],
                     o.platform);
      sim.add_source(point_dipole(Component::Ez, {0.1, 0.2, 0.3}, std::make_shared<GaussianSource>(0.15, 0.1)));
      bytes[p] = spire::elec::cuda::step_traffic(sim).bytes_per_cell_update;
      sim.run_steps(3);
      spire::elec::cuda::synchronize_device(device);
      const auto t0 = std::chrono::steady_clock::now();
      sim.run_steps(o.steps);
      spire::elec::cuda::synchronize_device(device);
      const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      rate[p].push_back(cells * o.steps / wall);
    }
  std::printf("\n| precision | M cell-updates/s (best) | bytes / cell-update | GB/s | of peak | of copy |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (int p = 0; p < 2; ++p) {
    const double m = median(rate[p]), best = *std::max_element(rate[p].begin(), rate[p].end());
    const double bw = m * bytes[p];
    std::printf("| %s | %.0f (%.0f) | %.1f | %.0f | %.1f%% | %.1f%% |\n", to_string(precisions[p]).c_str(), m / 1e6,
                best / 1e6, bytes[p], bw / 1e9, 100 * bw / info.peak_bandwidth,
                info.measured_bandwidth > 0 ? 100 * bw / info.measured_bandwidth : 0.0);
  }
  return 0;
#else
  std::fprintf(stderr, "--platform %s: this build has no cuda platform (configure with SPIRE_CUDA=ON on a machine "
               "with the CUDA toolkit); platforms here:", o.platform.c_str());
  for (const std::string& p : platforms()) std::fprintf(stderr, " %s", p.c_str());
  std::fprintf(stderr, "\n");
  return 2;
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse(argc, argv);
  if (o.platform != "cpu") {
    try {
      return run_gpu(o);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "fdtd3d --platform %s: %s\n", o.platform.c_str(), e.what());
      return 1;
    }
  }
  std::string script;
  if (o.meep) {
    char path[] = "/tmp/spire_bench_meep_XXXXXX.py";
    const int fd = mkstemps(path, 3);
    if (fd >= 0) {
      const ssize_t w = write(fd, kMeepScript, std::strlen(kMeepScript));
      close(fd);
      if (w == ssize_t(std::strlen(kMeepScript))) script = path;
    }
  }
  const double cells = double(o.n) * o.n * o.n;
  std::printf("FDTD 3D throughput: %d^3 cells, %d-cell PML, %d steps, %d runs; load average %s\n", o.n, o.pml,
              o.steps, o.runs, load_average().c_str());
  // [threads][contender] samples; contenders: 0 Spire f64, 1 Spire f32, 2 Meep.
  std::vector<std::vector<std::vector<Sample>>> samples(o.threads.size(), std::vector<std::vector<Sample>>(3));
  bool meep_ok = !script.empty();
  std::string meep_version;
  for (int r = 0; r < o.runs; ++r)
    for (size_t t = 0; t < o.threads.size(); ++t) {
      samples[t][0].push_back(run_spire(o, Precision::float64, o.threads[t]));
      samples[t][1].push_back(run_spire(o, Precision::float32, o.threads[t]));
      // Meep has one core whatever the count: run it once per round, on the first count.
      if (meep_ok && t == 0) {
        Sample s;
        meep_ok = run_meep(o, script, s, meep_version);
        if (meep_ok) samples[t][2].push_back(s);
      }
    }
  if (!script.empty()) std::remove(script.c_str());
  auto rates = [&](const std::vector<Sample>& v, bool cpu) {
    std::vector<double> x;
    for (const Sample& s : v) x.push_back(cells * o.steps / (cpu ? s.cpu : s.wall) / 1e6);
    return x;
  };
  const std::vector<Sample>& meep = samples[0][2];
  const double meep_wall = meep.empty() ? 0 : median(rates(meep, false));
  const double meep_cpu = meep.empty() ? 0 : median(rates(meep, true));
  std::printf("\nmillion cell-updates per second (median of %d; best in brackets):\n\n", o.runs);
  std::printf("| threads | Spire float64 | Spire float32 | Meep%s%s (1 core) | float64 / Meep |\n",
              meep_version.empty() ? "" : " ", meep_version.c_str());
  std::printf("|---|---|---|---|---|\n");
  for (size_t t = 0; t < o.threads.size(); ++t) {
    const auto f64 = rates(samples[t][0], false), f32 = rates(samples[t][1], false);
    const double m64 = median(f64);
    char meep_cell[64] = "not run", ratio[32] = "-";
    if (meep_wall > 0) {
      const auto mr = rates(meep, false);
      std::snprintf(meep_cell, sizeof meep_cell, "%.1f (%.1f)", meep_wall, *std::max_element(mr.begin(), mr.end()));
      std::snprintf(ratio, sizeof ratio, "%.2fx", m64 / meep_wall);
    }
    std::printf("| %d | %.1f (%.1f) | %.1f (%.1f) | %s | %s |\n", o.threads[t], m64,
                *std::max_element(f64.begin(), f64.end()), median(f32), *std::max_element(f32.begin(), f32.end()),
                meep_cell, ratio);
  }
  // CPU-time rates for the 1-thread runs: less sensitive to other work on the machine.
  for (size_t t = 0; t < o.threads.size(); ++t) {
    if (o.threads[t] != 1) continue;
    const double s64 = median(rates(samples[t][0], true)), s32 = median(rates(samples[t][1], true));
    std::printf("\n1 thread, by CPU time: Spire float64 %.1f, float32 %.1f", s64, s32);
    if (meep_cpu > 0) std::printf(", Meep %.1f; float64 / Meep %.2fx", meep_cpu, s64 / meep_cpu);
    std::printf("\n");
  }
  if (o.threads.size() > 1) {
    const double one = median(rates(samples[0][0], false));
    for (size_t t = 1; t < o.threads.size(); ++t)
      std::printf("speed-up of float64 on %d threads over %d: %.2fx\n", o.threads[t], o.threads[0],
                  median(rates(samples[t][0], false)) / one);
  }
  std::printf("load average at the end: %s\n", load_average().c_str());
  return 0;
}
