// Step: molecular dynamics from job files (what `spire md run` does). LAMMPS's melt example (fcc
// Lennard-Jones at rho* = 0.8442 heated to T* = 3 and let go, NVE) checked against LAMMPS's own
// thermo output, and a small SPC/E water box (PME, SETTLE, Bussi thermostat after a short FIRE
// minimisation) checked for rigid molecules and the thermostat's temperature. Both write H5MD
// trajectories and thermo logs; their thermo is drawn as PNG line plots.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <vector>

#include "cli/demo/demo.h"
#include "science/flow/plot.h"
#include "science/sponge/constraints.h"
#include "science/sponge/job.h"

namespace spire::cli::demo {
namespace {

using namespace spire::sponge;

// LAMMPS's examples/melt/in.melt: lattice fcc 0.8442, region 0 10 0 10 0 10 (4000 atoms), velocity
// create 3.0 87287, lj/cut 2.5, neighbor 0.3 bin, fix nve, thermo 50, run 250.
const char* kMelt = R"TOML(units = "lj"
[system]
lattice = { kind = "fcc", density = 0.8442, cells = [10, 10, 10] }
[forces.lj]
cutoff = 2.5
[integrator]
kind = "verlet"
dt = 0.005
[velocities]
temperature = 3.0
seed = 87287
[run]
steps = 250
progress = 0
[output]
thermo = { interval = 50, file = "md_melt_thermo.csv" }
h5md = { file = "md_melt.h5", interval = 50 }
checkpoint = { file = "md_melt.chk" }
)TOML";

// LAMMPS (Debian's lmp, 29 Sep 2021) on in.melt with `thermo_modify format float %.10g`: its steps
// 0 and 250. Step 0 is exact arithmetic on the same lattice and temperature (N_dof = 3N - 3); step
// 250 comes from LAMMPS's own random velocities, so only the state it melts into compares: the
// temperature, to within its fluctuations.
constexpr double kLammpsEpair0 = -6.773368053, kLammpsPress0 = -3.70335042, kLammpsTotEng0 = -2.274493053;
constexpr double kLammpsTemp250 = 1.664559667;

const char* kWater = R"TOML(units = "md"
[system]
water = { model = "spce", molecules = 343, seed = 1 }
[forces.lj]
cutoff = 0.9
mode = "shifted"
tail = true
[forces.coulomb]
method = "pme"
tolerance = 5e-4
[integrator]
kind = "verlet"
dt = 0.002
thermostat = { kind = "bussi", temperature = 300.0, tau = 0.1 }
[velocities]
temperature = 300.0
[minimize]
method = "fire"
max_iterations = 100
[run]
steps = 1000
seed = 2026
progress = 0
[output]
thermo = { interval = 100, file = "md_water_thermo.csv" }
h5md = { file = "md_water.h5", interval = 100 }
checkpoint = { file = "md_water.chk" }
)TOML";

// Records the thermo quantities of every report, for the plots and the checks.
class Recorder : public Reporter {
 public:
  std::string name() const override { return "recorder"; }
  void report(const Simulation& sim) override {
    const Observables& o = sim.observables();
    const double per = sim.system().units.name == "lj" ? 1.0 / double(sim.system().size()) : 1.0;
    step.push_back(double(sim.state().step));
    temperature.push_back(o.temperature);
    potential.push_back(o.potential_energy * per);
    total.push_back(o.total_energy() * per);
    conserved.push_back(o.conserved_energy * per);
    pressure.push_back(o.pressure);
  }
  std::vector<double> step, temperature, potential, total, conserved, pressure;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void plot(const Recorder& r, const std::string& png) {
  flow::plot_series(r.step, "Step",
                    {{"Temp", r.temperature}, {"E_pair", r.potential}, {"TotEng", r.total}, {"Press", r.pressure}},
                    png);
}

// Mean of the last `count` values.
double tail_mean(const std::vector<double>& v, size_t count) {
  count = std::min(count, v.size());
  double s = 0;
  for (size_t k = v.size() - count; k < v.size(); ++k) s += v[k];
  return s / double(count);
}

void melt(Context& c) {
  const std::filesystem::path dir = c.dir;
  const MdJob job = parse_md_job(kMelt, "the demo's LJ melt job");
  auto t0 = std::chrono::steady_clock::now();
  JobRun run = start_job(job, c.dir, false, &c.out);
  Simulation& sim = *run.simulation;
  auto recorder = std::make_shared<Recorder>();
  sim.add_reporter(recorder, 5);
  c.out << "  LAMMPS's melt: 4000 atoms, fcc rho* = 0.8442, lj/cut 2.5, T* = 3, NVE, 250 steps of 0.005 tau\n";
  sim.run(run.remaining_steps(job));
  const double seconds = seconds_since(t0);
  plot(*recorder, (dir / "md_melt_thermo.png").string());
  const Recorder& r = *recorder;
  c.out << "  wrote " << (dir / "md_melt.h5").string() << ", md_melt_thermo.csv and md_melt_thermo.png\n";
  c.figure("LJ melt: run time (4000 atoms, 250 steps)", seconds, "s");
  c.figure("LJ melt: speed", sim.speed_per_day(), "tau/day");
  c.check("LJ melt: E_pair per atom at step 0 (LAMMPS)", r.potential.front(), kLammpsEpair0, 2e-9);
  c.check("LJ melt: pressure at step 0 (LAMMPS)", r.pressure.front(), kLammpsPress0, 2e-8);
  c.check("LJ melt: TotEng per atom at step 0 (LAMMPS)", r.total.front(), kLammpsTotEng0, 2e-9);
  c.check("LJ melt: temperature at step 250 (LAMMPS's +- 0.1)", r.temperature.back(), kLammpsTemp250, 0.1);
  // NVE with the plain cut: the energy only jumps as pairs cross the cutoff (LAMMPS drifts by 0.0067).
  c.check("LJ melt: |TotEng(250) - TotEng(0)| per atom", std::abs(r.total.back() - r.total.front()), 0, 0.01);
}

void water(Context& c) {
  const std::filesystem::path dir = c.dir;
  const MdJob job = parse_md_job(kWater, "the demo's water job");
  auto t0 = std::chrono::steady_clock::now();
  JobRun run = start_job(job, c.dir, false, &c.out);
  Simulation& sim = *run.simulation;
  auto recorder = std::make_shared<Recorder>();
  sim.add_reporter(recorder, 5);
  const MinimizeResult& m = *run.minimization;
  c.out << "  SPC/E water: 343 molecules, PME (tolerance 5e-4) and LJ cut at 0.9 nm with tail corrections, SETTLE,\n"
           "  Bussi thermostat at 300 K (tau 0.1 ps), dt 2 fs, 1000 steps (2 ps) after "
        << m.iterations << " FIRE iterations (E " << m.energy << " kJ/mol, max force " << m.max_force
        << " kJ/mol/nm)\n";
  sim.run(run.remaining_steps(job));
  const double seconds = seconds_since(t0);
  plot(*recorder, (dir / "md_water_thermo.png").string());
  const Recorder& r = *recorder;
  c.out << "  wrote " << (dir / "md_water.h5").string() << ", md_water_thermo.csv and md_water_thermo.png\n";
  const double molecules = double(sim.system().size()) / 3;
  c.figure("water: run time (1029 atoms, minimisation + 1000 steps)", seconds, "s");
  c.figure("water: speed", sim.speed_per_day() / 1000, "ns/day");
  c.figure("water: potential energy per molecule, last 1 ps", tail_mean(r.potential, 101) / molecules, "kJ/mol");
  const double drift = (r.conserved.back() - r.conserved.front()) / molecules;
  c.figure("water: conserved energy drift per molecule", drift, "kJ/mol");
  c.check("water: largest O-H / H-H deviation (SETTLE)",
          Constraints(sim.system()).max_deviation(sim.state().box, sim.state().positions), 0, 1e-9);
  // Bussi's thermostat samples the canonical ensemble: once the minimised box has taken up its share
  // of the kinetic energy (the first picosecond), the mean over the last 1 ps (10 coupling times) is
  // within a few kelvin of the bath (one sample's spread is 300 sqrt(2 / 2055) = 9 K).
  c.check("water: mean temperature of the last 1 ps", tail_mean(r.temperature, 101), 300, 8);
}

SPIRE_DEMO_STEP(310, "md", "Molecular dynamics: an LJ melt against LAMMPS and an SPC/E water box (spire md run)",
                [](Context& c) {
                  melt(c);
                  water(c);
                });

}  // namespace
}  // namespace spire::cli::demo
