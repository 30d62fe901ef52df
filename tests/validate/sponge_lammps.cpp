// Spire's Lennard-Jones against LAMMPS (Debian's lmp), run side by side on the same atoms:
//   in.lj       LAMMPS's bench/in.lj at step 0 (32 000 atoms, fcc 0.8442, lj/cut 2.5, T 1.44):
//               E_pair and Press, Spire on its own lattice (lattice.h), LAMMPS on its own.
//   triclinic   the same fcc in a tilted box (prism 2 -1.5 1 lattice units), atoms displaced at
//               random: energy, pressure tensor and every force, Spire reading LAMMPS's positions.
//   tail        a two-type mixture (Lorentz-Berthelot) with `pair_modify tail yes`, displaced.
//   shift       a two-type mixture (geometric, one explicit pair) with `pair_modify shift yes`
//               in a tilted box, displaced.
// LAMMPS prints thermo at 15 digits and dumps positions and forces at 17, so the comparison is at
// round-off, far inside the 7 significant digits. GROMACS's force switch has no LAMMPS
// counterpart (lj/charmmfsw is CHARMM's different switch) and is checked in the unit tests.
//
// usage: sponge_lammps   (environment: SPIRE_LMP, default lmp)
// Prints `figure:` lines, then `ok:` or `FAILED:` per check; exits 1 on a failure.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "science/sponge/force_field.h"
#include "science/sponge/lattice.h"
#include "science/sponge/lennard_jones.h"
#include "tests/validate/sponge_checks.h"
#include "tests/validate/sponge_lammps_runner.h"

using namespace spire::sponge;

namespace {

using validate::check;
using validate::failures;
using validate::lmp;

// LAMMPS's thermo line at step 0, by column name, and the dumped atoms.
struct Lammps {
  std::map<std::string, double> thermo;
  std::vector<int> type;  // 1-based, as LAMMPS
  std::vector<Vec3> x, f;
  bool ok = false;
};

Lammps run_lammps(const std::string& dir, const std::string& name, const std::string& input) {
  Lammps out;
  const std::string in = dir + "/" + name + ".in", dump = dir + "/" + name + ".dump";
  std::ofstream(in) << input << "write_dump all custom " << dump
                    << " id type x y z fx fy fz modify format float %.17g sort id\n";
  const std::string log = dir + "/" + name + ".log";
  if (!validate::run_lmp(dir, in, log)) return out;
  const std::vector<validate::ThermoTable> tables = validate::read_thermo_log(log);
  std::remove(log.c_str());
  if (tables.empty() || tables[0].rows.empty()) return out;
  for (size_t c = 0; c < tables[0].columns.size(); ++c) out.thermo[tables[0].columns[c]] = tables[0].rows[0][c];
  std::ifstream d(dump);
  std::string l;
  while (std::getline(d, l) && l.rfind("ITEM: ATOMS", 0) != 0) {
  }
  int id, t;
  Vec3 x, f;
  while (d >> id >> t >> x.x >> x.y >> x.z >> f.x >> f.y >> f.z) {
    out.type.push_back(t);
    out.x.push_back(x);
    out.f.push_back(f);
  }
  std::remove(in.c_str());
  std::remove(dump.c_str());
  out.ok = !out.x.empty() && out.thermo.count("Step");
  return out;
}

Box box_of(const Lammps& l) {
  const auto& t = l.thermo;
  return Box::triclinic({t.at("Lx"), 0, 0}, {t.at("Xy"), t.at("Ly"), 0}, {t.at("Xz"), t.at("Yz"), t.at("Lz")});
}

double rel(double a, double b) { return std::fabs(a - b) / std::max(1e-300, std::fabs(b)); }

// Energy, pressure tensor (virial only: the atoms have no velocities) and forces against LAMMPS.
void compare(const std::string& name, const Lammps& l, LennardJones& lj) {
  System system;
  system.units = Units::lj();
  State state;
  state.box = box_of(l);
  for (size_t i = 0; i < l.x.size(); ++i) {
    system.add_particle(1.0, 0.0, std::to_string(l.type[i]));
    state.positions.push_back(l.x[i]);
  }
  ForceField forces(0.3);
  auto term = std::make_shared<LennardJones>(lj);
  forces.add(term);
  forces.check(system, state);
  const ForceResult& r = forces.compute(system, state);
  const double v = state.box.volume();
  const double e = r.energy_of("lj"), e_ref = l.thermo.at("PotEng");
  std::printf("figure: %s atoms %zu  PotEng lammps %.15g spire %.15g  rel %.2e\n", name.c_str(), l.x.size(), e_ref, e,
              rel(e, e_ref));
  check(rel(e, e_ref) < 1e-11, name + ": potential energy to 1e-11 relative");
  const char* names[6] = {"Pxx", "Pyy", "Pzz", "Pxy", "Pxz", "Pyz"};
  const int rc[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  const double scale = std::fabs(l.thermo.at("Press")) + 1e-3;
  double worst = 0;
  for (int k = 0; k < 6; ++k) {
    const double p = r.virial(rc[k][0], rc[k][1]) / v, p_ref = l.thermo.at(names[k]);
    std::printf("figure: %s %s lammps %.15g spire %.15g\n", name.c_str(), names[k], p_ref, p);
    worst = std::max(worst, std::fabs(p - p_ref) / scale);
  }
  const double press = r.virial.trace() / (3 * v);
  std::printf("figure: %s Press lammps %.15g spire %.15g  rel %.2e\n", name.c_str(), l.thermo.at("Press"), press,
              rel(press, l.thermo.at("Press")));
  check(worst < 1e-10, name + ": pressure tensor to 1e-10 of the pressure");
  double fmax = 0, dmax = 0;
  for (size_t i = 0; i < l.f.size(); ++i) {
    fmax = std::max(fmax, norm(l.f[i]));
    dmax = std::max(dmax, norm(r.forces[i] - l.f[i]));
  }
  std::printf("figure: %s forces max |f| %.6g  max |f_spire - f_lammps| %.3g\n", name.c_str(), fmax, dmax);
  check(dmax < 1e-10 * fmax, name + ": every force to 1e-10 of the largest");
}

const char* kThermo =
    "thermo_style custom step temp pe press pxx pyy pzz pxy pxz pyz lx ly lz xy xz yz\n"
    "thermo_modify norm no format float %.15g\n";

}  // namespace

int main() {
  char tmpl[] = "/tmp/spire_sponge_lammps_XXXXXX";
  if (!mkdtemp(tmpl)) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = tmpl;

  // in.lj: LAMMPS's own atoms and velocities; Spire's lattice, T = 1.44 for the kinetic part.
  {
    std::string input = std::string(
                            "units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 20 0 20 0 20\n"
                            "create_box 1 box\ncreate_atoms 1 box\nmass 1 1.0\n"
                            "velocity all create 1.44 87287 loop geom\n"
                            "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\nneighbor 0.3 bin\n"
                            "neigh_modify delay 0 every 20 check no\nfix 1 all nve\n") +
                        "thermo_style custom step temp epair press\nthermo_modify format float %.15g\nrun 0\n";
    const Lammps l = run_lammps(dir, "in_lj", input);
    check(l.ok, "in.lj: lmp ran (" + lmp() + ")");
    if (l.ok) {
      const State state = create_lattice(Lattice::with_density(LatticeType::fcc, 0.8442), 20, 20, 20);
      const System system = identical_particles(int64_t(state.positions.size()), 1.0, "1", Units::lj());
      auto lj = std::make_shared<LennardJones>(2.5);
      lj->set_type("1", 1.0, 1.0);
      ForceField forces(0.3);
      forces.add(lj);
      const ForceResult& r = forces.compute(system, state);
      const double n = double(system.size()), v = state.box.volume();
      const double e_pair = r.energy_of("lj") / n;
      const double t = l.thermo.at("Temp");
      const double press = (double(system.degrees_of_freedom(true)) * t + r.virial.trace()) / (3 * v);
      std::printf("figure: in.lj E_pair lammps %.15g spire %.15g  rel %.2e\n", l.thermo.at("E_pair"), e_pair,
                  rel(e_pair, l.thermo.at("E_pair")));
      std::printf("figure: in.lj Press  lammps %.15g spire %.15g  rel %.2e (T %.15g)\n", l.thermo.at("Press"), press,
                  rel(press, l.thermo.at("Press")), t);
      char a[64], b[64];
      std::snprintf(a, sizeof a, "%.7e", e_pair);
      std::snprintf(b, sizeof b, "%.7e", l.thermo.at("E_pair"));
      check(std::string(a) == b, "in.lj: E_pair agrees to 8 significant digits (" + std::string(a) + ")");
      std::snprintf(a, sizeof a, "%.7e", press);
      std::snprintf(b, sizeof b, "%.7e", l.thermo.at("Press"));
      check(std::string(a) == b, "in.lj: Press agrees to 8 significant digits (" + std::string(a) + ")");
      check(rel(e_pair, l.thermo.at("E_pair")) < 1e-11 && rel(press, l.thermo.at("Press")) < 1e-11,
            "in.lj: both to 1e-11 relative (identical lattices)");
    }
  }

  // Triclinic, displaced.
  {
    const std::string input = std::string(
                                  "units lj\natom_style atomic\nlattice fcc 0.8442\n"
                                  "region box prism 0 10 0 10 0 10 2 -1.5 1\ncreate_box 1 box\ncreate_atoms 1 box\n"
                                  "mass 1 1.0\ndisplace_atoms all random 0.07 0.07 0.07 4711\n"
                                  "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0 2.5\n") +
                              kThermo + "run 0\n";
    const Lammps l = run_lammps(dir, "triclinic", input);
    check(l.ok, "triclinic: lmp ran");
    if (l.ok) {
      LennardJones lj(2.5);
      lj.set_type("1", 1.0, 1.0);
      compare("triclinic", l, lj);
    }
  }

  // Tail corrections, two types mixed by Lorentz-Berthelot.
  {
    const std::string input =
        std::string(
            "units lj\natom_style atomic\nlattice fcc 0.8442\nregion box block 0 12 0 12 0 12\ncreate_box 2 box\n"
            "create_atoms 1 box\nmass * 1.0\nset type 1 type/fraction 2 0.3 4321\n"
            "displace_atoms all random 0.1 0.1 0.1 777\n"
            "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.5 1.1\n"
            "pair_modify mix arithmetic tail yes\n") +
        kThermo + "run 0\n";
    const Lammps l = run_lammps(dir, "tail", input);
    check(l.ok, "tail: lmp ran");
    if (l.ok) {
      LennardJones lj(2.5);
      lj.set_type("1", 1.0, 1.0);
      lj.set_type("2", 0.5, 1.1);
      lj.set_mixing(LJMixing::lorentz_berthelot);
      lj.set_tail_correction(true);
      compare("tail", l, lj);
    }
  }

  // Shifted, geometric mixing with one explicit pair, tilted box.
  {
    const std::string input =
        std::string(
            "units lj\natom_style atomic\nlattice fcc 0.8442\nregion box prism 0 11 0 10 0 12 -3 2 1.5\n"
            "create_box 2 box\ncreate_atoms 1 box\nmass * 1.0\nset type 1 type/fraction 2 0.4 99\n"
            "displace_atoms all random 0.1 0.1 0.1 31337\n"
            "pair_style lj/cut 2.5\npair_coeff 1 1 1.0 1.0\npair_coeff 2 2 0.7 0.9\npair_coeff 1 2 0.8 1.05\n"
            "pair_modify mix geometric shift yes\n") +
        kThermo + "run 0\n";
    const Lammps l = run_lammps(dir, "shift", input);
    check(l.ok, "shift: lmp ran");
    if (l.ok) {
      LennardJones lj(2.5, LJCutoffMode::shifted);
      lj.set_type("1", 1.0, 1.0);
      lj.set_type("2", 0.7, 0.9);
      lj.set_pair("1", "2", 0.8, 1.05);
      lj.set_mixing(LJMixing::geometric);
      compare("shift", l, lj);
    }
  }

  rmdir(dir.c_str());
  std::printf("%s\n", failures ? "FAILED: sponge_lammps" : "ok: sponge_lammps");
  return failures ? 1 : 0;
}
