// Spire's thermo log against LAMMPS's, side by side: the same Lennard-Jones system (fcc at
// rho* = 0.8442, lj/cut 2.5, T* = 1.44 from Spire's Maxwell-Boltzmann draw, written to a LAMMPS data
// file so both start from the same bits) run for 200 steps of velocity Verlet (LAMMPS's fix nve);
// Temp, E_pair, TotEng, Press and Volume compared every 25 steps, for an orthorhombic and a sheared
// (triclinic) box. LAMMPS prints 10 significant digits (thermo_modify format float %.10g); the
// trajectories separate slowly (chaos), so the tolerance is 1e-8 relative at 200 steps.
//
//   build/bin/validate_sponge_thermo_lammps   (`make validate` runs it; needs `lmp`, Debian's lammps,
//   on PATH or named by SPIRE_LMP)
// Prints `figure:` lines, `ok:` / `FAILED:`, and exits non-zero on a failure.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "science/sponge/lattice.h"
#include "science/sponge/lennard_jones.h"
#include "science/sponge/thermo.h"
#include "science/sponge/velocities.h"
#include "science/sponge/velocity_verlet.h"
#include "tests/validate/sponge_lammps_runner.h"

using namespace spire::sponge;

namespace {

constexpr int kSteps = 200, kEvery = 25;
const std::vector<std::string> kColumns = {"Temp", "E_pair", "TotEng", "Press", "Volume"};

using Table = std::map<long, std::map<std::string, double>>;  // step -> column -> value

void write_data(const std::string& path, const State& s) {
  std::ofstream d(path);
  d.precision(17);
  const Box& b = s.box;
  d << "spire sponge_thermo_lammps\n\n" << s.positions.size() << " atoms\n1 atom types\n\n";
  d << "0 " << b.a().x << " xlo xhi\n0 " << b.b().y << " ylo yhi\n0 " << b.c().z << " zlo zhi\n";
  if (!b.orthorhombic()) d << b.b().x << " " << b.c().x << " " << b.c().y << " xy xz yz\n";
  d << "\nMasses\n\n1 1.0\n\nAtoms # atomic\n\n";
  for (size_t i = 0; i < s.positions.size(); ++i)
    d << i + 1 << " 1 " << s.positions[i].x << " " << s.positions[i].y << " " << s.positions[i].z << "\n";
  d << "\nVelocities\n\n";
  for (size_t i = 0; i < s.velocities.size(); ++i)
    d << i + 1 << " " << s.velocities[i].x << " " << s.velocities[i].y << " " << s.velocities[i].z << "\n";
}

// Runs lmp on the data file; the thermo rows of its log.
Table run_lammps(const std::string& dir, const std::string& data) {
  const std::string in = dir + "/in.thermo", log = dir + "/log.lammps";
  std::ofstream(in) << "units lj\natom_style atomic\nread_data " << data
                    << "\npair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\n"
                       "neigh_modify delay 0 every 1 check yes\nfix 1 all nve\ntimestep 0.005\n"
                       "thermo_style custom step temp epair etotal press vol\nthermo_modify format float %.10g\n"
                       "thermo "
                    << kEvery << "\nrun " << kSteps << "\n";
  if (!validate::run_lmp(dir, in, log))
    throw std::runtime_error("`" + validate::lmp() + " -in " + in + "` failed (is LAMMPS installed as lmp?)");
  const std::vector<validate::ThermoTable> tables = validate::read_thermo_log(log);
  if (tables.empty()) throw std::runtime_error("no thermo table in " + log);
  Table t;
  for (size_t r = 0; r < tables[0].rows.size(); ++r) {
    auto& row = t[long(tables[0].at(r, "Step"))];
    for (const std::string& c : kColumns) row[c] = tables[0].at(r, c);
  }
  return t;
}

Table run_spire(const System& system, const State& start, const std::string& csv) {
  ForceField ff(0.3);
  auto lj = std::make_shared<LennardJones>(2.5);
  lj->set_type("A", 1.0, 1.0);
  ff.add(lj);
  SimulationOptions o;
  o.progress_seconds = 0;
  o.remove_com_motion = true;  // LAMMPS's temperature has 3N - 3 degrees of freedom
  DynamicsOptions dyn;
  dyn.remove_com_motion = false;  // LAMMPS's fix nve leaves the (zero) momentum alone
  Simulation sim(system, start, std::move(ff), std::make_shared<VelocityVerlet>(0.005, nullptr, dyn), o);
  ThermoOptions t;
  t.csv_path = csv;
  sim.add_reporter(std::make_shared<ThermoLog>(nullptr, t), kEvery);
  sim.run(kSteps);
  std::ifstream f(csv);
  std::string header;
  std::getline(f, header);
  std::vector<std::string> names;
  {
    std::stringstream h(header);
    for (std::string x; std::getline(h, x, ',');) names.push_back(x);
  }
  Table table;
  for (std::string line; std::getline(f, line);) {
    std::stringstream r(line);
    std::vector<std::string> v;
    for (std::string x; std::getline(r, x, ',');) v.push_back(x);
    for (size_t k = 1; k < v.size() && k < names.size(); ++k) table[std::stol(v[0])][names[k]] = std::stod(v[k]);
  }
  return table;
}

bool compare(const std::string& label, const Table& ours, const Table& theirs) {
  bool ok = ours.size() == theirs.size() && !ours.empty();
  if (!ok) std::cout << "FAILED: " << label << ": " << ours.size() << " rows vs LAMMPS's " << theirs.size() << "\n";
  std::map<std::string, double> worst;
  for (const auto& [step, row] : theirs) {
    auto it = ours.find(step);
    if (it == ours.end()) {
      std::cout << "FAILED: " << label << ": no row for step " << step << "\n";
      ok = false;
      continue;
    }
    for (const std::string& c : kColumns) {
      const double a = it->second.at(c), b = row.at(c);
      const double rel = std::abs(a - b) / std::max(std::abs(b), 1e-3);
      worst[c] = std::max(worst[c], rel);
      if (rel > 1e-8) {
        std::cout << "FAILED: " << label << " step " << step << " " << c << ": " << a << " vs LAMMPS " << b << "\n";
        ok = false;
      }
    }
  }
  std::cout << "figure: " << label << ": largest relative difference to LAMMPS over steps 0.." << kSteps;
  for (const std::string& c : kColumns) std::cout << ", " << c << " " << worst[c];
  std::cout << "\n";
  return ok;
}

}  // namespace

int main() {
  const std::string dir = (std::filesystem::temp_directory_path() / ("sponge_thermo_lammps_" + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  bool ok = true;
  try {
    const System system = identical_particles(500, 1.0, "A", Units::lj());
    for (const bool sheared : {false, true}) {
      State start = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), 5, 5, 5);
      if (sheared) {  // an affine shear of the crystal and its box: xy = 0.15 Ly
        const double ly = start.box.b().y, xy = 0.15 * ly;
        for (Vec3& r : start.positions) r.x += xy * r.y / ly;
        start.box = Box::triclinic(start.box.a(), {xy, ly, 0}, start.box.c());
        for (Vec3& r : start.positions) r = start.box.wrap(r);
      }
      maxwell_boltzmann(system, start, 1.44, 87287);
      const std::string tag = sheared ? "triclinic" : "orthorhombic";
      write_data(dir + "/" + tag + ".data", start);
      const Table theirs = run_lammps(dir, dir + "/" + tag + ".data");
      const Table ours = run_spire(system, start, dir + "/" + tag + ".csv");
      ok = compare("in.lj 500 atoms, " + tag + " box, NVE", ours, theirs) && ok;
    }
  } catch (const std::exception& e) {
    std::cout << "FAILED: " << e.what() << "\n";
    ok = false;
  }
  std::filesystem::remove_all(dir);
  std::cout << (ok ? "ok: thermo log agrees with LAMMPS\n" : "FAILED: thermo log differs from LAMMPS\n");
  return ok ? 0 : 1;
}
