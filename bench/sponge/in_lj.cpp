// LAMMPS's bench/in.lj side by side with LAMMPS: 32 000 Lennard-Jones atoms, fcc at reduced
// density 0.8442, lj/cut 2.5, velocities at T = 1.44, 100 steps of NVE velocity Verlet with
// dt = 0.005 and a neighbour skin of 0.3, on 1 and 2 threads.
//
// Spire's neighbour list rebuilds when some atom has moved more than half the skin (never a missed
// pair); in.lj rebuilds every 20 steps without checking (`neigh_modify delay 0 every 20 check
// no`), which is only safe because its authors checked it for this system. The table gives both
// rebuild counts, and LAMMPS once more with `check yes every 1` (the same safety as Spire's) for
// comparison. Times are the 100 steps alone (LAMMPS's "Loop time"; setup excluded on both
// sides), medians (and the best) of --runs runs, interleaved. On a machine shared with other work
// the 2-thread times scatter widely (a thread descheduled stalls the other at the next barrier);
// the load average printed in the header says how busy the machine was. LAMMPS's 2-core runs are 2 MPI ranks (Debian's lmp has no
// OPENMP package: `lmp -h` lists none).
//
// Velocities come from Spire's Philox generator, not LAMMPS's (the two streams differ), so the
// trajectories differ in detail but not in kind; the initial E_pair and pressure are the same
// (tests/science/sponge/test_in_lj.cpp and tests/validate/sponge_lammps.cpp).
//
// usage: in_lj [--runs N] [--steps N] [--threads 1,2] [--no-lammps]
//   environment: SPIRE_LMP (default lmp), SPIRE_MPIRUN (default mpirun)
#include <omp.h>

#include <algorithm>
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

#include "science/sponge/force_field.h"
#include "science/sponge/lattice.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/neighbor_search.h"
#include "science/sponge/velocities.h"
#include "science/sponge/velocity_verlet.h"

using namespace spire::sponge;

namespace {

struct Run {
  double seconds = 0;
  int64_t builds = 0;
  double etot0 = 0, etot1 = 0, temp1 = 0;  // total energy per atom at the start and end, final T
  bool ok = false;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}
double best(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

// The 1-minute load average: on a shared machine, other work stalls threads at every barrier.
std::string load_average() {
  std::ifstream f("/proc/loadavg");
  std::string a;
  f >> a;
  return a.empty() ? "?" : a;
}

Run run_spire(int threads, int steps) {
  omp_set_num_threads(threads);
  // lattice fcc 0.8442; region box block 0 20 0 20 0 20; create_atoms 1 box; mass 1 1.0
  State state = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), 20, 20, 20);
  const System system = identical_particles(int64_t(state.positions.size()), 1.0, "1", Units::lj());
  // velocity all create 1.44 87287 (Philox, not LAMMPS's stream)
  maxwell_boltzmann(system, state, 1.44, 87287);
  // pair_style lj/cut 2.5; pair_coeff 1 1 1.0 1.0 2.5; neighbor 0.3 bin
  auto lj = std::make_shared<LennardJones>(2.5, LJCutoffMode::cut);
  lj->set_type("1", 1.0, 1.0);
  ForceField forces(0.3);
  forces.add(lj);
  // fix 1 all nve (LAMMPS does not remove the centre-of-mass motion either)
  DynamicsOptions options;
  options.remove_com_motion = false;
  VelocityVerlet verlet(0.005, nullptr, options);
  forces.check(system, state);
  verlet.prepare(system, state, forces);
  const double n = double(system.size());
  Run r;
  r.etot0 = (kinetic_energy(system, state.velocities) + forces.result().energy()) / n;
  const int64_t setup_builds = forces.neighbors()->builds();
  const auto t0 = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; ++s) verlet.step(system, state, forces);
  const auto t1 = std::chrono::steady_clock::now();
  r.seconds = std::chrono::duration<double>(t1 - t0).count();
  r.builds = forces.neighbors()->builds() - setup_builds;
  r.etot1 = (kinetic_energy(system, state.velocities) + forces.result().energy()) / n;
  r.temp1 = kinetic_temperature(system, state.velocities, true);
  r.ok = true;
  return r;
}

const char* kInLj =
    "units lj\n"
    "atom_style atomic\n"
    "lattice fcc 0.8442\n"
    "region box block 0 20 0 20 0 20\n"
    "create_box 1 box\n"
    "create_atoms 1 box\n"
    "mass 1 1.0\n"
    "velocity all create 1.44 87287 loop geom\n"
    "pair_style lj/cut 2.5\n"
    "pair_coeff 1 1 1.0 1.0 2.5\n"
    "neighbor 0.3 bin\n"
    "neigh_modify delay 0 every ${every} check ${check}\n"
    "fix 1 all nve\n"
    "run ${steps}\n";

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

// Runs lmp (on `procs` MPI ranks when > 1) in dir; parses the loop time, builds and energies.
Run run_lammps(const std::string& dir, int procs, int steps, bool check) {
  const std::string lmp = env_or("SPIRE_LMP", "lmp");
  std::ostringstream cmd;
  cmd << "cd " << dir << " && OMP_NUM_THREADS=1 ";
  if (procs > 1) cmd << env_or("SPIRE_MPIRUN", "mpirun") << " --allow-run-as-root --oversubscribe -np " << procs << " ";
  cmd << lmp << " -in in.lj -log none -var steps " << steps << " -var every " << (check ? 1 : 20) << " -var check "
      << (check ? "yes" : "no") << " 2>&1";
  Run r;
  FILE* p = popen(cmd.str().c_str(), "r");
  if (!p) return r;
  char line[4096];
  bool thermo = false;
  int rows = 0;
  bool loop = false;
  while (std::fgets(line, sizeof line, p)) {
    double t;
    int np, ns, nb;
    double temp, epair, emol, etot, press;
    if (std::strncmp(line, "Step", 4) == 0) thermo = true;
    if (thermo && std::sscanf(line, "%d %lf %lf %lf %lf %lf", &ns, &temp, &epair, &emol, &etot, &press) == 6) {
      if (rows++ == 0) r.etot0 = etot;
      r.etot1 = etot, r.temp1 = temp;
    }
    if (std::sscanf(line, "Loop time of %lf on %d procs for %d steps", &t, &np, &ns) == 3) r.seconds = t, loop = true;
    if (std::sscanf(line, "Neighbor list builds = %d", &nb) == 1) r.builds = nb;
  }
  r.ok = pclose(p) == 0 && loop;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5, steps = 100;
  std::vector<int> thread_counts = {1, 2};
  bool lammps = true;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a];
    if (arg == "--runs" && a + 1 < argc) {
      runs = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--steps" && a + 1 < argc) {
      steps = std::max(1, std::atoi(argv[++a]));
    } else if (arg == "--threads" && a + 1 < argc) {
      thread_counts.clear();
      std::stringstream s(argv[++a]);
      std::string item;
      while (std::getline(s, item, ',')) thread_counts.push_back(std::max(1, std::atoi(item.c_str())));
    } else if (arg == "--no-lammps") {
      lammps = false;
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--steps N] [--threads 1,2] [--no-lammps]\n", argv[0]);
      return 2;
    }
  }

  std::string dir;
  if (lammps) {
    char tmpl[] = "/tmp/spire_in_lj_XXXXXX";
    if (!mkdtemp(tmpl)) {
      std::perror("mkdtemp");
      return 1;
    }
    dir = tmpl;
    std::ofstream(dir + "/in.lj") << kInLj;
  }

  std::printf("in.lj: 32000 LJ atoms, rc 2.5, skin 0.3, %d steps NVE; median (best) of %d runs; load average %s; "
              "Spire's pair kernel and list search in %s\n",
              steps, runs, load_average().c_str(), neighbor_search::processor_has_avx512() ? "AVX-512" : "AVX2");
  std::printf("%-8s %18s %18s %14s %14s %14s %18s %12s\n", "threads", "spire (s)", "lammps (s)", "ratio (best)",
              "spire builds", "lammps builds", "lammps chk (s)", "chk builds");
  bool failed = false;
  for (int t : thread_counts) {
    std::vector<double> ours, theirs, checked;
    Run last, peer, peer_checked;
    for (int k = 0; k < runs; ++k) {
      // Interleaved, so that a change in the machine's load falls on both sides alike.
      last = run_spire(t, steps);
      ours.push_back(last.seconds);
      if (lammps) {
        peer = run_lammps(dir, t, steps, false);
        if (peer.ok) theirs.push_back(peer.seconds);
        peer_checked = run_lammps(dir, t, steps, true);
        if (peer_checked.ok) checked.push_back(peer_checked.seconds);
      }
    }
    const double a = median(ours), b = median(theirs), c = median(checked);
    if (lammps && theirs.empty()) std::printf("lammps did not run (SPIRE_LMP=%s)\n", env_or("SPIRE_LMP", "lmp").c_str());
    char sa[64], sb[64], sr[64], sc[64];
    std::snprintf(sa, sizeof sa, "%.4f (%.4f)", a, best(ours));
    std::snprintf(sb, sizeof sb, "%.4f (%.4f)", b, best(theirs));
    std::snprintf(sr, sizeof sr, "%.3f (%.3f)", b > 0 ? a / b : 0.0, best(theirs) > 0 ? best(ours) / best(theirs) : 0.0);
    std::snprintf(sc, sizeof sc, "%.4f (%.4f)", c, best(checked));
    std::printf("%-8d %18s %18s %14s %14ld %14ld %18s %12ld\n", t, sa, sb, sr, long(last.builds), long(peer.builds), sc,
                long(peer_checked.builds));
    std::printf("  spire  TotEng/N %.7f -> %.7f (drift %.2e), T %.5f\n", last.etot0, last.etot1,
                (last.etot1 - last.etot0) / std::fabs(last.etot0), last.temp1);
    if (peer.ok)
      std::printf("  lammps TotEng/N %.7f -> %.7f (drift %.2e), T %.5f\n", peer.etot0, peer.etot1,
                  (peer.etot1 - peer.etot0) / std::fabs(peer.etot0), peer.temp1);
    // The lattice melts in the first steps and dt = 0.005 is coarse for that: LAMMPS's own total
    // energy moves by about 2e-3 relative over these 100 steps. Spire's may not move much more.
    const double ours_drift = std::fabs(last.etot1 - last.etot0) / std::fabs(last.etot0);
    const double allowed = peer.ok ? 1.5 * std::fabs(peer.etot1 - peer.etot0) / std::fabs(peer.etot0) + 1e-4 : 5e-3;
    if (ours_drift > allowed) {
      std::printf("FAILED: Spire's total energy moved by %.2e relative (allowed %.2e)\n", ours_drift, allowed);
      failed = true;
    }
  }
  if (!dir.empty()) {
    std::remove((dir + "/in.lj").c_str());
    rmdir(dir.c_str());
  }
  return failed ? 1 : 0;
}
