// A box of SPC/E water with PME side by side with OpenMM's CPU platform, in ns/day.
//
// The system: --molecules rigid SPC/E waters (3375 by default: 10 125 atoms in a 4.66 nm cube at
// 0.997 g/cm^3), Lennard-Jones on the oxygens cut at 0.9 nm with the long-range dispersion
// correction, Coulomb by smooth PME (order 5, ewaldErrorTolerance 5e-4, direct space cut at
// 0.9 nm: OpenMM's defaults), SETTLE, LangevinMiddle at 300 K with friction 1/ps and a 2 fs step,
// centre-of-mass motion removed every step (OpenMM's CMMotionRemover, which ForceField.createSystem
// adds by default). Spire's neighbour list has a 0.1 nm skin (--skin; the results do not depend on it).
//
// The same coordinates on both sides: Spire builds the box (water.h), minimises it briefly (FIRE
// with SETTLE, at most 200 iterations, to 100 kJ/mol/nm), brings it to 300 K with --equilibration
// steps of Langevin at friction 10/ps (once, shared by every run: a liquid at the bath's temperature
// rebuilds its neighbour list as often as in production) and writes the positions to a PDB file
// (pdb.h), which OpenMM loads
// with ForceField('spce.xml'), PME, nonbondedCutoff 0.9 nm, rigidWater and no other constraints.
// OpenMM's SPC/E differs very slightly from Spire's GROMACS-derived one (epsilon 0.6497752 against
// 0.650194 kJ/mol, sigma 0.31657195 against 0.316557 nm: water.h); charges and geometry are the same.
// Energies are not compared here (tests/validate/sponge_openmm.cpp does that), speed is. Each run
// draws its own velocities at 300 K (Spire's Philox, OpenMM's own generator), takes --warmup steps,
// then times --steps steps: ns/day = steps * 2 fs / seconds. Medians (and the best) of --runs runs,
// Spire and OpenMM interleaved so that a change in the machine's load falls on both alike; the load
// average printed in the header says how busy the machine was.
//
// Precision differs: OpenMM's CPU platform computes forces in single precision (SIMD float, with
// double accumulation of energies), Spire in double throughout. OpenMM's CPU forces are not
// deterministic by default (DeterministicForces false); Spire's have the same bits on any number
// of threads.
//
// After the table, --profile (on by default) breaks Spire's step down, measured: a short run timed
// whole, then on its final state the force field's evaluation alone (Lennard-Jones and the PME
// direct space share one pass over the list; the reciprocal part is timed again on its own so that
// the rest is the difference), the neighbour-list builds timed alone and multiplied by their count,
// SETTLE timed alone, and the rest of the step (kicks, drifts, the Langevin noise, centre-of-mass
// removal) as what is left.
//
// OpenMM runs in python3 (SPIRE_PYTHON overrides) from a script this program writes next to the
// PDB file in a temporary folder, removed at the end.
//
// usage: water_pme [--runs N] [--steps N] [--warmup N] [--threads 1,2] [--molecules N]
//                  [--equilibration N] [--skin NM] [--platform cpu|cuda] [--no-openmm] [--no-profile]
//
// --platform cuda runs Spire's steps on the GPU (science/sponge/platform.h; one thread count, no
// profile) against OpenMM's CUDA platform, which needs OpenMM's CUDA plugin (PyPI's
// openmm[cuda12]); without it the table says OpenMM did not run.
#include <omp.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "science/sponge/constraints.h"
#include "science/sponge/force_field.h"
#include "science/sponge/langevin.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/minimize.h"
#include "science/sponge/neighbor_list.h"
#include "science/sponge/neighbor_search.h"
#include "science/sponge/pdb.h"
#include "science/sponge/platform.h"
#include "science/sponge/pme.h"
#include "science/sponge/simulation.h"
#include "science/sponge/velocities.h"
#include "science/sponge/water.h"

using namespace spire::sponge;

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kCutoff = 0.9;        // nm
constexpr double kTolerance = 5e-4;    // OpenMM's ewaldErrorTolerance
constexpr double kDt = 0.002;          // ps
constexpr double kTemperature = 300;   // K
constexpr double kFriction = 1.0;      // 1/ps
double g_skin = 0.1;                   // nm, the neighbour list's skin (--skin)
PlatformChoice g_platform;  // --platform: cpu, or a device platform (the OpenMM side then uses CUDA)
constexpr double kEquilibrationFriction = 10;  // 1/ps, before the runs only

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
double ns_per_day(int steps, double seconds) { return seconds > 0 ? steps * kDt * 1e-3 * 86400.0 / seconds : 0; }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double best(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a;
  f >> a;
  return a.empty() ? "?" : a;
}

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::shared_ptr<LennardJones> make_lj() {
  const WaterModel spce = WaterModel::spce();
  // OpenMM's NonbondedForce with PME cuts Lennard-Jones without a shift and adds the dispersion
  // correction (useDispersionCorrection defaults to true): the same as lj/cut with tail corrections.
  auto lj = std::make_shared<LennardJones>(kCutoff, LJCutoffMode::cut);
  lj->set_type(kWaterOxygenType, spce.epsilon_o, spce.sigma_o);
  lj->set_type(kWaterHydrogenType, 0, 0);
  lj->set_tail_correction(true);
  return lj;
}

std::shared_ptr<PmeCoulomb> make_pme() {
  PmeOptions o;
  o.cutoff = kCutoff;
  o.tolerance = kTolerance;
  return std::make_shared<PmeCoulomb>(o);
}

struct SpireRun {
  double seconds = 0;
  int64_t builds = 0;
  double temperature = 0, potential = 0;  // at the end
  std::array<int, 3> grid{};
};

// The same run on a device platform (--platform cuda): the whole step on the device, the state
// brought back once at the end.
SpireRun run_spire_on(const PlatformChoice& platform, const WaterBox& start, int warmup, int steps, uint64_t seed) {
  State state = start.state;
  maxwell_boltzmann(start.system, state, kTemperature, seed);
  auto pme = make_pme();
  ForceField forces(g_skin);
  forces.add(make_lj());
  forces.add(pme);
  SimulationOptions options;
  options.seed = seed;
  options.platform = platform;
  options.progress_seconds = 0;
  Simulation sim(start.system, state, std::move(forces),
                 std::make_shared<LangevinMiddle>(kDt, kTemperature, kFriction, seed), options);
  sim.run(warmup);
  const auto t0 = Clock::now();
  sim.run(steps);
  SpireRun r;
  r.seconds = seconds_since(t0);
  r.temperature = kinetic_temperature(sim.system(), sim.state().velocities, true);
  r.potential = sim.forces().energy();
  r.grid = pme->grid();
  return r;
}

// One CPU run of the benchmark's model: the box with fresh velocities, the force field and the
// integrator, and the timing of `steps` steps after `warmup` (what run_spire reports and
// profile_spire then breaks down).
struct CpuRun {
  State state;
  const System& system;
  std::shared_ptr<PmeCoulomb> pme = make_pme();
  ForceField forces{g_skin};
  LangevinMiddle integrator;
  double seconds = 0;
  int64_t builds = 0;

  CpuRun(const WaterBox& start, int threads, uint64_t seed)
      : state(start.state), system(start.system), integrator(kDt, kTemperature, kFriction, seed) {
    omp_set_num_threads(threads);
    maxwell_boltzmann(system, state, kTemperature, seed);
    forces.add(make_lj());
    forces.add(pme);
    forces.check(system, state);
  }
  void time(int warmup, int steps) {
    integrator.prepare(system, state, forces);
    for (int s = 0; s < warmup; ++s) integrator.step(system, state, forces);
    const int64_t builds0 = forces.neighbors()->builds();
    const auto t0 = Clock::now();
    for (int s = 0; s < steps; ++s) integrator.step(system, state, forces);
    seconds = seconds_since(t0);
    builds = forces.neighbors()->builds() - builds0;
  }
};

SpireRun run_spire(const WaterBox& start, int threads, int warmup, int steps, uint64_t seed) {
  if (g_platform.name != "cpu") return run_spire_on(g_platform, start, warmup, steps, seed);
  CpuRun run(start, threads, seed);
  run.time(warmup, steps);
  SpireRun r;
  r.seconds = run.seconds;
  r.builds = run.builds;
  r.temperature = kinetic_temperature(run.system, run.state.velocities, true);
  r.potential = run.forces.result().energy();
  r.grid = run.pme->grid();
  return r;
}

// Where a Spire step's time goes, measured on `threads` threads over `steps` steps. The steps are
// timed whole; then, on the final state, each part again alone, as many times as there were steps
// (or builds): the force field's evaluation with its list current (Lennard-Jones and the Coulomb
// direct space in one pass, the exclusion, self and tail terms, the PME reciprocal sum, the list's
// displacement check), the reciprocal sum by itself, a list build, SETTLE; the rest of the step
// (kicks, drifts, the Langevin noise, centre-of-mass removal) is what is left.
void profile_spire(const WaterBox& start, int threads, int warmup, int steps, uint64_t seed) {
  CpuRun run(start, threads, seed);
  run.time(warmup, steps);
  const System& system = run.system;
  State& state = run.state;
  ForceField& forces = run.forces;
  const std::shared_ptr<PmeCoulomb>& pme = run.pme;
  const double total = run.seconds;
  const int64_t builds = run.builds;

  const int repeat = std::max(5, steps / 4);
  auto per_step = [&](auto&& part) {  // seconds for `steps` of `part`, timed over `repeat`
    const auto t = Clock::now();
    for (int k = 0; k < repeat; ++k) part();
    return seconds_since(t) / repeat * steps;
  };
  const double t_forces = per_step([&] { forces.compute(system, state); });
  ForceResult scratch;
  const double t_recip = per_step([&] {
    scratch.reset(system.size());
    pme->add_reciprocal(system, state, scratch);
  });
  // A neighbour-list build alone (same cutoff and skin), times the number of builds.
  NeighborList list(kCutoff, g_skin);
  list.build(system, state);
  auto t1 = Clock::now();
  for (int k = 0; k < 3; ++k) list.build(system, state);
  const double per_build = seconds_since(t1) / 3;
  const double t_list = per_build * double(builds);
  // SETTLE alone: the position stage (with velocity corrections and virial) and the velocity stage
  // of one step, on a state that satisfies the constraints (SETTLE's work does not depend on it).
  Constraints settle(system);
  std::vector<Vec3> positions = state.positions, velocities = state.velocities;
  const double t_settle = per_step([&] {
    Mat3 w1, w2;
    settle.constrain_positions(state.box, state.positions, positions, &velocities, kDt, &w1, kDt * kDt / 2);
    settle.constrain_velocities(state.box, positions, velocities, &w2, kDt / 2);
  });
  const double rest = total - t_forces - t_list - t_settle;

  auto row = [&](const char* what, double s) {
    std::printf("    %-52s %9.3f ms/step %6.1f%%\n", what, 1e3 * s / steps, 100 * s / total);
  };
  std::printf("  spire, %d thread%s, %d steps (%.1f ns/day under the profiler):\n", threads, threads == 1 ? "" : "s",
              steps, ns_per_day(steps, total));
  row("LJ + Coulomb direct space (one pass), exclusions, self", t_forces - t_recip);
  row("PME reciprocal (spread, FFTs, gather)", t_recip);
  char what[96];
  std::snprintf(what, sizeof what, "neighbour list: %ld builds x %.2f ms", long(builds), 1e3 * per_build);
  row(what, t_list);
  row("SETTLE (positions + velocities)", t_settle);
  row("integration, noise, COM removal", rest);
  row("total", total);
}

// OpenMM's side: load the PDB, build the same model, time `steps` steps after `warmup`; prints one
// line "result seconds ns_per_day temperature potential grid_x grid_y grid_z alpha".
const char* kOpenMMScript = R"PY(
import sys, time
import openmm as mm
import openmm.app as app
import openmm.unit as u

pdb_path, threads, warmup, steps, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
device = sys.argv[6] if len(sys.argv) > 6 else 'CPU'
pdb = app.PDBFile(pdb_path)
ff = app.ForceField('spce.xml')
system = ff.createSystem(pdb.topology, nonbondedMethod=app.PME, nonbondedCutoff=0.9 * u.nanometer,
                         constraints=None, rigidWater=True, ewaldErrorTolerance=5e-4)
nonbonded = [f for f in system.getForces() if isinstance(f, mm.NonbondedForce)][0]
integrator = mm.LangevinMiddleIntegrator(300 * u.kelvin, 1 / u.picosecond, 0.002 * u.picoseconds)
integrator.setRandomNumberSeed(seed)
platform = mm.Platform.getPlatformByName(device)
context = mm.Context(system, integrator, platform, {'Threads': threads} if device == 'CPU' else {})
context.setPositions(pdb.positions)
context.setVelocitiesToTemperature(300 * u.kelvin, seed)
integrator.step(warmup)
context.getState(getEnergy=True)
t0 = time.perf_counter()
integrator.step(steps)
state = context.getState(getEnergy=True)
seconds = time.perf_counter() - t0
dof = 3 * system.getNumParticles() - system.getNumConstraints() - 3
temperature = 2 * state.getKineticEnergy().value_in_unit(u.kilojoule_per_mole) / (dof * 0.00831446261815324)
alpha, nx, ny, nz = nonbonded.getPMEParametersInContext(context)
print('result %.6f %.4f %.3f %.3f %d %d %d %.6f %s' % (
    seconds, steps * 0.002e-3 * 86400 / seconds, temperature,
    state.getPotentialEnergy().value_in_unit(u.kilojoule_per_mole), nx, ny, nz, alpha,
    context.getPlatform().getPropertyValue(context, 'Threads') if device == 'CPU' else 0))
)PY";

struct OpenMMRun {
  bool ok = false;
  double seconds = 0, ns_day = 0, temperature = 0, potential = 0, alpha = 0;
  int grid[3] = {0, 0, 0};
  int threads = 0;
  std::string error;
};

OpenMMRun run_openmm(const std::string& dir, int threads, int warmup, int steps, uint64_t seed) {
  std::ostringstream cmd;
  cmd << "cd " << dir << " && OMP_NUM_THREADS=1 OPENMM_CPU_THREADS=" << threads << " "
      << env_or("SPIRE_PYTHON", "python3") << " water_openmm.py water.pdb " << threads << " " << warmup << " "
      << steps << " " << seed << " " << (g_platform.name == "cpu" ? "CPU" : "CUDA") << " 2>&1";
  OpenMMRun r;
  FILE* p = popen(cmd.str().c_str(), "r");
  if (!p) return r;
  char line[4096];
  bool found = false;
  while (std::fgets(line, sizeof line, p)) {
    if (std::sscanf(line, "result %lf %lf %lf %lf %d %d %d %lf %d", &r.seconds, &r.ns_day, &r.temperature,
                    &r.potential, &r.grid[0], &r.grid[1], &r.grid[2], &r.alpha, &r.threads) == 9)
      found = true;
    else
      r.error += line;
  }
  r.ok = pclose(p) == 0 && found;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 3, steps = 100, warmup = 10, molecules = 3375, equilibration = 150;
  std::vector<int> thread_counts = {1, 2};
  bool openmm = true, profile = true;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--runs" && a + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--steps" && a + 1 < argc) {
      steps = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--warmup" && a + 1 < argc) {
      warmup = std::max(0, std::atoi(argv[++a]));
    } else if (arg == "--skin" && a + 1 < argc) {
      g_skin = std::max(0.0, std::atof(argv[++a]));
    } else if (arg == "--equilibration" && a + 1 < argc) {
      equilibration = std::max(0, std::atoi(argv[++a]));
    } else if (arg == "--molecules" && a + 1 < argc) {
      molecules = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--threads" && a + 1 < argc) {
      thread_counts.clear();
      std::stringstream s(argv[++a]);
      std::string item;
      while (std::getline(s, item, ',')) thread_counts.push_back(std::max(1, std::atoi(item.c_str())));
    } else if (arg == "--platform" && a + 1 < argc) {
      try {
        g_platform = parse_platform(argv[++a]);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
        return 2;
      }
    } else if (arg == "--no-openmm") {
      openmm = false;
    } else if (arg == "--no-profile") {
      profile = false;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--runs N] [--steps N] [--warmup N] [--threads 1,2] [--molecules N] "
                   "[--equilibration N] [--skin NM] [--platform cpu|cuda] [--no-openmm] [--no-profile]\n",
                   argv[0]);
      return 2;
    }
  }
  if (g_platform.name != "cpu") thread_counts = {1}, profile = false;  // the device runs the step

  // The box, minimised and heated once, shared by every run of both programs. One thread: Spire's
  // results have the same bits on any number, and on a shared machine one thread is the least
  // hurt by other work.
  omp_set_num_threads(1);
  WaterBoxOptions wo;
  wo.molecules = molecules;
  wo.seed = 2024;
  WaterBox box = water_box(WaterModel::spce(), wo);
  {
    ForceField forces(g_skin);
    forces.add(make_lj());
    forces.add(make_pme());
    forces.check(box.system, box.state);
    FireOptions fire;
    fire.force_tolerance = 100;  // kJ/mol/nm: enough to start 2 fs dynamics from a built box
    fire.max_iterations = 200;
    const auto t0 = Clock::now();
    const MinimizeResult m = minimize_fire(box.system, box.state, forces, fire);
    std::printf("setup: %d SPC/E waters (%ld atoms), box %.4f nm; FIRE %ld iterations in %.1f s: E %.1f kJ/mol, "
                "max |F| %.1f kJ/mol/nm (%s)\n",
                molecules, long(box.system.size()), box.state.box.a().x, long(m.iterations), seconds_since(t0),
                m.energy, m.max_force, m.stop_reason.c_str());
    // From the minimum, velocities at 300 K would share their energy with the potential and leave
    // the liquid near 150 K for picoseconds at friction 1/ps: a cold liquid rebuilds its neighbour
    // list less often than a warm one. A strongly coupled Langevin stage brings it to 300 K first.
    const auto t1 = Clock::now();
    maxwell_boltzmann(box.system, box.state, kTemperature, 7);
    LangevinMiddle heat(kDt, kTemperature, kEquilibrationFriction, 7);
    heat.prepare(box.system, box.state, forces);
    for (int s = 0; s < equilibration; ++s) heat.step(box.system, box.state, forces);
    std::printf("setup: %d steps of Langevin at %g K, friction %g/ps, in %.1f s: T %.1f K, E_pot %.1f kJ/mol\n",
                equilibration, kTemperature, kEquilibrationFriction, seconds_since(t1),
                kinetic_temperature(box.system, box.state.velocities, true), forces.result().energy());
    box.state.velocities.assign(box.state.velocities.size(), Vec3{});
    box.state.time = 0, box.state.step = 0;
  }

  std::string dir;
  if (openmm) {
    char tmpl[] = "/tmp/spire_water_pme_XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::perror("mkdtemp");
      return 1;
    }
    dir = tmpl;
    write_pdb(dir + "/water.pdb", box.system, box.state);
    std::ofstream(dir + "/water_openmm.py") << kOpenMMScript;
  }

  std::printf("water PME: SPC/E, rc %.1f nm, skin %g nm, tolerance %g, SETTLE, LangevinMiddle %g K 1/ps, dt %g fs, %d steps after "
              "%d; median (best) of %d runs; load average %s; Spire's pair kernel and list search in %s\n",
              kCutoff, g_skin, kTolerance, kTemperature, kDt * 1e3, steps, warmup, runs, load_average().c_str(),
              neighbor_search::processor_has_avx512() ? "AVX-512" : "AVX2");
  std::printf("%-8s %20s %20s %16s %8s\n", "threads", "spire (ns/day)", "openmm (ns/day)", "ratio (best)",
              "builds");
  bool failed = false;
  for (int t : thread_counts) {
    std::vector<double> ours, theirs;
    SpireRun last;
    OpenMMRun peer;
    for (int k = 0; k < runs; ++k) {
      const uint64_t seed = 1000 + uint64_t(k);
      last = run_spire(box, t, warmup, steps, seed);
      ours.push_back(ns_per_day(steps, last.seconds));
      if (openmm) {
        OpenMMRun o = run_openmm(dir, t, warmup, steps, seed);
        if (o.ok) {
          theirs.push_back(o.ns_day);
          peer = o;
        } else if (k == 0) {
          std::printf("openmm did not run:\n%s\n", o.error.c_str());
        }
      }
    }
    const double a = median(ours), b = median(theirs);
    char sa[64], sb[64], sr[64];
    std::snprintf(sa, sizeof sa, "%.3f (%.3f)", a, best(ours));
    std::snprintf(sb, sizeof sb, "%.3f (%.3f)", b, best(theirs));
    std::snprintf(sr, sizeof sr, "%.3f (%.3f)", b > 0 ? a / b : 0.0, best(theirs) > 0 ? best(ours) / best(theirs) : 0.0);
    if (theirs.empty()) std::snprintf(sb, sizeof sb, "-"), std::snprintf(sr, sizeof sr, "-");
    std::printf("%-8d %20s %20s %16s %8ld\n", t, sa, sb, sr, long(last.builds));
    std::printf("  spire  T %.1f K, E_pot %.1f kJ/mol, PME grid %dx%dx%d\n", last.temperature, last.potential,
                last.grid[0], last.grid[1], last.grid[2]);
    if (peer.ok)
      std::printf("  openmm T %.1f K, E_pot %.1f kJ/mol, PME grid %dx%dx%d, alpha %.4f/nm, threads %d\n",
                  peer.temperature, peer.potential, peer.grid[0], peer.grid[1], peer.grid[2], peer.alpha, peer.threads);
    // A blown-up run is fast for the wrong reason: the temperature must stay near the bath's.
    // (The box was brought to the bath's temperature before the runs; with thousands of atoms the
    // instantaneous temperature scatters by a few kelvin.)
    if (!(std::fabs(last.temperature - kTemperature) < 30)) {
      std::printf("FAILED: Spire's temperature after the run is %.1f K (bath %g K)\n", last.temperature, kTemperature);
      failed = true;
    }
    if (peer.ok && !(std::fabs(peer.temperature - kTemperature) < 30)) {
      std::printf("FAILED: OpenMM's temperature after the run is %.1f K (bath %g K)\n", peer.temperature, kTemperature);
      failed = true;
    }
    if (openmm && theirs.empty()) failed = true;
  }
  if (profile)
    for (int t : thread_counts) profile_spire(box, t, warmup, steps, 999);
  if (!dir.empty()) {
    std::remove((dir + "/water.pdb").c_str());
    std::remove((dir + "/water_openmm.py").c_str());
    rmdir(dir.c_str());
  }
  return failed ? 1 : 0;
}
