// Spire's integrators, thermostats, barostat and constraints at full size, and against LAMMPS
// (Debian's lmp) run side by side on the same Lennard-Jones fluid:
//   nve        LAMMPS's in.lj system at 4000 atoms (fcc 0.8442, T 1.44, lj 2.5 shifted): relative
//              energy drift over 10^4 steps below 1e-4 (the criterion), and the energy
//              error's dt^2 law.
//   nvt        500 atoms at T = 1.5: Nose-Hoover chains, Bussi and Langevin (its middle
//              velocities, as OpenMM reports) each give the gamma distribution of the kinetic
//              energy, and a mean potential energy per atom that agrees with LAMMPS's fix nvt
//              within the combined standard errors.
//   npt        500 atoms at T = 1.5, P = 2: the Monte Carlo barostat's mean density against
//              LAMMPS's fix npt (MTK) within the combined standard errors. Shifted LJ: the energy
//              is continuous, so the virial pressure LAMMPS controls is the thermodynamic one
//              the Monte Carlo acceptance samples.
//   water      216 SPC/E waters (oxygen LJ only): Langevin at 300 K, FIRE with SETTLE to a force
//              tolerance, Langevin again, then NVE: bond lengths to round-off and the energy
//              error's dt^2 law.
// Standard errors come from 20 block averages of each series (each block many correlation times).
//
// usage: sponge_dynamics   (environment: SPIRE_LMP, default lmp)
// Prints `figure:` lines, then `ok:` or `FAILED:` per check; exits 1 on a failure.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "science/sponge/bussi.h"
#include "science/sponge/force_field.h"
#include "science/sponge/langevin.h"
#include "science/sponge/lattice.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/minimize.h"
#include "science/sponge/monte_carlo_barostat.h"
#include "science/sponge/nose_hoover.h"
#include "science/sponge/velocities.h"
#include "science/sponge/velocity_verlet.h"
#include "science/sponge/water.h"
#include "tests/validate/sponge_checks.h"
#include "tests/validate/sponge_lammps_runner.h"

using namespace spire::sponge;

namespace {

using validate::check;
using validate::failures;
using validate::lmp;

struct Stats {
  double mean = 0, error = 0, variance = 0, variance_error = 0;
};

Stats stats(const std::vector<double>& x, int blocks = 20) {
  Stats s;
  const size_t n = x.size(), len = n / size_t(blocks);
  for (double v : x) s.mean += v / double(n);
  std::vector<double> sq;
  for (double v : x) sq.push_back((v - s.mean) * (v - s.mean));
  for (double v : sq) s.variance += v / double(n);
  auto error = [&](const std::vector<double>& y, double mean) {
    double acc = 0;
    for (int b = 0; b < blocks; ++b) {
      double m = 0;
      for (size_t i = size_t(b) * len; i < size_t(b + 1) * len; ++i) m += y[i] / double(len);
      acc += (m - mean) * (m - mean);
    }
    return std::sqrt(acc / double(blocks - 1) / double(blocks));
  };
  s.error = error(x, s.mean);
  s.variance_error = error(sq, s.variance);
  return s;
}

struct Fluid {
  System system;
  State state;
  ForceField forces{0.3};
};

// LAMMPS's in.lj set-up at cells^3 fcc cells: lattice fcc 0.8442, velocities at T, lj/cut 2.5 with
// the energy shifted to zero at the cutoff.
Fluid lj_fluid(int cells, double temperature, uint64_t seed) {
  Fluid f;
  f.state = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), cells, cells, cells);
  f.system = identical_particles(int64_t(f.state.positions.size()), 1.0, "A", Units::lj());
  maxwell_boltzmann(f.system, f.state, temperature, seed);
  auto lj = std::make_shared<LennardJones>(2.5, LJCutoffMode::shifted);
  lj->set_type("A", 1.0, 1.0);
  f.forces.add(lj);
  return f;
}

double kinetic(const System& system, const State& state) {
  double k = 0;
  for (size_t i = 0; i < state.velocities.size(); ++i) k += 0.5 * system.mass[i] * norm2(state.velocities[i]);
  return k;
}

// Least-squares slope of e over its length, relative to |mean e|.
double relative_drift(const std::vector<double>& e) {
  const double n = double(e.size()), t_mean = 0.5 * (n - 1);
  double mean = 0, num = 0, den = 0;
  for (double v : e) mean += v / n;
  for (size_t i = 0; i < e.size(); ++i) {
    num += (double(i) - t_mean) * (e[i] - mean);
    den += (double(i) - t_mean) * (double(i) - t_mean);
  }
  return std::abs(num / den * (n - 1)) / std::abs(mean);
}

// ---- nve ----

void nve() {
  Fluid f = lj_fluid(10, 1.44, 87287);
  VelocityVerlet vv(0.005);
  vv.prepare(f.system, f.state, f.forces);
  for (int s = 0; s < 1000; ++s) vv.step(f.system, f.state, f.forces);  // melt
  const Fluid start = [&] {
    Fluid c;
    c.system = f.system;
    c.state = f.state;
    c.forces.add(f.forces.terms()[0]);
    return c;
  }();
  std::vector<double> e;
  for (int s = 0; s < 10000; ++s) {
    vv.step(f.system, f.state, f.forces);
    e.push_back(vv.conserved_energy(f.system, f.state, f.forces));
  }
  const double drift = relative_drift(e);
  std::printf("figure: nve 4000 LJ atoms, dt 0.005, 10^4 steps: relative drift %.2e, E/N %.6f\n", drift,
              e.back() / 4000);
  check(drift < 1e-4, "nve: relative energy drift over 10^4 steps below 1e-4");

  auto rms_error = [&](double dt) {
    Fluid c;
    c.system = start.system;
    c.state = start.state;
    c.forces.add(start.forces.terms()[0]);
    VelocityVerlet v(dt);
    v.prepare(c.system, c.state, c.forces);
    const double e0 = v.conserved_energy(c.system, c.state, c.forces);
    double sum = 0;
    const int steps = int(std::lround(0.5 / dt));
    for (int s = 0; s < steps; ++s) {
      v.step(c.system, c.state, c.forces);
      const double d = v.conserved_energy(c.system, c.state, c.forces) - e0;
      sum += d * d;
    }
    return std::sqrt(sum / steps);
  };
  const double coarse = rms_error(0.005), fine = rms_error(0.0025);
  std::printf("figure: nve 4000 LJ atoms rms energy error over 0.5 tau: dt 0.005 %.3e, 0.0025 %.3e, ratio %.3f\n",
              coarse, fine, coarse / fine);
  check(std::abs(coarse / fine - 4) < 0.4, "nve: energy error scales as dt^2 (ratio 4 +- 0.4)");
}

// ---- LAMMPS ----

// Runs LAMMPS on in.lj at 5^3 cells with `fix` and returns the columns of the production run's
// thermo lines (pe ke vol, per atom for pe and ke).
std::vector<std::vector<double>> run_lammps(const std::string& dir, const std::string& name, const std::string& fix,
                                            int equilibrate, int production) {
  const std::string in = dir + "/" + name + ".in", log = dir + "/" + name + ".log";
  std::ofstream(in) << "units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 5 0 5 0 5\n"
                       "create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\nvelocity all create 1.5 87287 loop geom\n"
                       "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\npair_modify shift yes\n"
                       "neighbor 0.3 bin\nneigh_modify delay 0 every 1 check yes\n"
                    << fix << "\ntimestep 0.005\nthermo_style custom step pe ke vol\nthermo_modify norm yes\n"
                    << "thermo " << equilibrate << "\nrun " << equilibrate << "\nthermo 10\nrun " << production
                    << "\n";
  if (!validate::run_lmp(dir, in, log)) return {};
  const std::vector<validate::ThermoTable> tables = validate::read_thermo_log(log);
  if (tables.size() < 2 || tables[1].rows.empty()) return {};
  std::vector<std::vector<double>> rows;
  for (size_t r = 1; r < tables[1].rows.size(); ++r)  // after the run's starting step
    rows.push_back({tables[1].at(r, "PotEng"), tables[1].at(r, "KinEng"), tables[1].at(r, "Volume")});
  return rows;
}

// ---- nvt ----

void nvt(const std::string& dir) {
  const int equilibrate = 2000, production = 40000;
  struct Result {
    std::string who;
    Stats pe, ke;
  };
  std::vector<Result> ours;
  for (int which = 0; which < 3; ++which) {
    Fluid f = lj_fluid(5, 1.5, 87287);
    std::unique_ptr<MdIntegrator> integrator;
    std::string who;
    if (which == 0) {
      integrator = std::make_unique<VelocityVerlet>(0.005, std::make_shared<NoseHooverChain>(1.5, 0.5));
      who = "nose-hoover chain";
    } else if (which == 1) {
      integrator = std::make_unique<VelocityVerlet>(0.005, std::make_shared<BussiThermostat>(1.5, 0.5, 11));
      who = "bussi";
    } else {
      integrator = std::make_unique<LangevinMiddle>(0.005, 1.5, 5.0, 12);
      who = "langevin";
    }
    integrator->prepare(f.system, f.state, f.forces);
    for (int s = 0; s < equilibrate; ++s) integrator->step(f.system, f.state, f.forces);
    std::vector<double> pe, ke, whole;
    for (int s = 1; s <= production; ++s) {
      integrator->step(f.system, f.state, f.forces);
      whole.push_back(kinetic(f.system, f.state));
      // Langevin: the velocities after the O step, as OpenMM reports (the whole-step ones are
      // low by O(dt^2), shown below).
      ke.push_back(which == 2 ? static_cast<LangevinMiddle&>(*integrator).middle_kinetic_energy() : whole.back());
      if (s % 10 == 0) pe.push_back(f.forces.result().energy() / 500);
    }
    const Stats k = stats(ke), p = stats(pe);
    if (which == 2)
      std::printf("figure: nvt langevin whole-step K mean %.2f +- %.2f (BAOAB's O(dt^2) kinetic bias)\n",
                  stats(whole).mean, stats(whole).error);
    const int64_t dof = integrator->degrees_of_freedom();
    const double mean = 0.5 * double(dof) * 1.5, var = 0.5 * double(dof) * 1.5 * 1.5;
    std::printf("figure: nvt %s: K mean %.2f +- %.2f (gamma %.2f), var %.1f +- %.1f (gamma %.1f); U/N %.5f +- %.5f\n",
                who.c_str(), k.mean, k.error, mean, k.variance, k.variance_error, var, p.mean, p.error);
    check(std::abs(k.mean - mean) < 4 * k.error, "nvt " + who + ": mean kinetic energy (f/2) kT");
    check(std::abs(k.variance - var) < 4 * k.variance_error, "nvt " + who + ": kinetic energy variance (f/2) (kT)^2");
    ours.push_back({who, p, k});
  }
  const auto rows = run_lammps(dir, "nvt", "fix 1 all nvt temp 1.5 1.5 0.5", equilibrate, production);
  if (rows.size() < 1000) {
    check(false, "nvt: LAMMPS ran (" + lmp() + ")");
    return;
  }
  std::vector<double> pe;
  for (const auto& r : rows) pe.push_back(r[0]);
  const Stats lp = stats(pe);
  std::printf("figure: nvt LAMMPS fix nvt: U/N %.5f +- %.5f (%zu samples)\n", lp.mean, lp.error, pe.size());
  for (const Result& r : ours) {
    const double sigma = std::sqrt(r.pe.error * r.pe.error + lp.error * lp.error);
    std::printf("figure: nvt U/N %s - LAMMPS = %.5f (%.1f combined standard errors)\n", r.who.c_str(),
                r.pe.mean - lp.mean, (r.pe.mean - lp.mean) / sigma);
    check(std::abs(r.pe.mean - lp.mean) < 4 * sigma, "nvt " + r.who + ": U/N agrees with LAMMPS's fix nvt");
  }
}

// ---- npt ----

void npt(const std::string& dir) {
  // Volume fluctuations relax slowly (LAMMPS's Pdamp is 1000 steps): long runs, so that 20 blocks
  // are each several relaxation times and the standard errors honest.
  const int equilibrate = 5000, production = 100000;
  Fluid f = lj_fluid(5, 1.5, 87287);
  VelocityVerlet vv(0.005, std::make_shared<BussiThermostat>(1.5, 0.5, 13));
  MonteCarloBarostatOptions options;
  options.frequency = 10;
  options.seed = 14;
  auto barostat = std::make_shared<MonteCarloBarostat>(2.0, 1.5, options);
  vv.set_barostat(barostat);
  vv.prepare(f.system, f.state, f.forces);
  for (int s = 0; s < equilibrate; ++s) vv.step(f.system, f.state, f.forces);
  std::vector<double> rho;
  for (int s = 1; s <= production; ++s) {
    vv.step(f.system, f.state, f.forces);
    if (s % 10 == 0) rho.push_back(500 / f.state.box.volume());
  }
  const Stats ours = stats(rho);
  std::printf("figure: npt Monte Carlo barostat P 2 T 1.5: density %.5f +- %.5f (acceptance %.2f)\n", ours.mean,
              ours.error, double(barostat->accepted()) / double(barostat->attempts()));
  const auto rows =
      run_lammps(dir, "npt", "fix 1 all npt temp 1.5 1.5 0.5 iso 2.0 2.0 5.0", equilibrate, production);
  if (rows.size() < 1000) {
    check(false, "npt: LAMMPS ran (" + lmp() + ")");
    return;
  }
  std::vector<double> lr;
  for (const auto& r : rows) lr.push_back(500 / r[2]);
  const Stats theirs = stats(lr);
  const double sigma = std::sqrt(ours.error * ours.error + theirs.error * theirs.error);
  std::printf("figure: npt LAMMPS fix npt: density %.5f +- %.5f; difference %.1f combined standard errors\n",
              theirs.mean, theirs.error, (ours.mean - theirs.mean) / sigma);
  check(std::abs(ours.mean - theirs.mean) < 4 * sigma, "npt: mean density agrees with LAMMPS's fix npt");
}

// ---- water ----

void water() {
  WaterBoxOptions options;
  options.molecules = 216;
  WaterBox box = water_box(WaterModel::spce(), options);
  auto lj = std::make_shared<LennardJones>(0.8, LJCutoffMode::shifted);
  const WaterModel spce = WaterModel::spce();
  lj->set_type(kWaterOxygenType, spce.epsilon_o, spce.sigma_o);
  lj->set_type(kWaterHydrogenType, 0, 0);
  ForceField forces(0.1);
  forces.add(lj);
  // The builder's grid is symmetric (no net force on any oxygen): melt it first, then minimise.
  LangevinMiddle langevin(0.002, 300, 5.0, 15);
  langevin.prepare(box.system, box.state, forces);
  for (int s = 0; s < 2000; ++s) langevin.step(box.system, box.state, forces);
  FireOptions fire;
  fire.force_tolerance = 10;
  const MinimizeResult m = minimize_fire(box.system, box.state, forces, fire);
  std::printf("figure: water FIRE with SETTLE from 300 K: %s after %lld iterations, max |F| %.2f kJ/mol/nm, E %.1f "
              "kJ/mol, largest |r - d| / d %.1e\n",
              m.stop_reason.c_str(), (long long)m.iterations, m.max_force, m.energy,
              langevin.constraints().max_deviation(box.state.box, box.state.positions));
  check(m.converged && m.max_force <= 10, "water: FIRE reaches 10 kJ/mol/nm with rigid waters");
  check(langevin.constraints().max_deviation(box.state.box, box.state.positions) < 1e-10,
        "water: FIRE keeps the waters rigid");
  for (int s = 0; s < 1000; ++s) langevin.step(box.system, box.state, forces);
  auto run = [&](double dt, double* worst) {
    State state = box.state;
    ForceField ff(0.1);
    ff.add(lj);
    VelocityVerlet vv(dt);
    vv.prepare(box.system, state, ff);
    const double e0 = vv.conserved_energy(box.system, state, ff);
    double sum = 0;
    const int steps = int(std::lround(0.5 / dt));
    for (int s = 0; s < steps; ++s) {
      vv.step(box.system, state, ff);
      const double d = vv.conserved_energy(box.system, state, ff) - e0;
      sum += d * d;
      *worst = std::max(*worst, vv.constraints().max_deviation(state.box, state.positions));
    }
    return std::sqrt(sum / steps);
  };
  double worst = 0;
  const double coarse = run(0.002, &worst), fine = run(0.001, &worst);
  std::printf("figure: water NVE 0.5 ps: rms energy error dt 2 fs %.3e, 1 fs %.3e, ratio %.3f; largest |r - d| / d "
              "%.1e\n",
              coarse, fine, coarse / fine, worst);
  check(worst < 1e-12, "water: SETTLE keeps every bond to 1e-12 relative");
  check(std::abs(coarse / fine - 4) < 0.4, "water: energy error scales as dt^2 with SETTLE");
}

}  // namespace

int main() {
  char dir_template[] = "/tmp/sponge_dynamics_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir) {
    std::printf("FAILED: cannot create a temporary directory\n");
    return 1;
  }
  nve();
  nvt(dir);
  npt(dir);
  water();
  std::filesystem::remove_all(dir);  // LAMMPS's inputs and logs
  std::printf("%s\n", failures ? "FAILED: see above" : "ok: all dynamics checks");
  return failures ? 1 : 0;
}
