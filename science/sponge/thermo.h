// A thermodynamic log like LAMMPS's thermo output: a header once, then one row per report with
// fixed-width columns, in the system's units (md: K, kJ/mol, bar, nm^3; lj: reduced units):
//
//   (LAMMPS's in.lj on 256 atoms, velocity Verlet: the step-0 row is LAMMPS's published one)
//       Step            Temp          E_pair           E_mol          TotEng       Econserve           Press          Volume            E_lj
//          0            1.44      -6.7733681               0      -4.6218056      -4.6218056      -5.0244179       303.24568      -6.7733681
//         50      0.73416933      -5.7273638               0      -4.6304116      -4.6304116      0.30865677       303.24568      -5.7273638
//
//   E_pair   every nonbonded term (and restraints and external fields): all but E_mol's terms
//   E_mol    the bonded terms: those is_molecular_term() names (bonds, angles, torsions, impropers)
//   TotEng   kinetic + potential energy
//   Econserve  the integrator's conserved quantity (md_integrator.h; LAMMPS's econserve), when it
//            has one
//   Press, Volume   only with a periodic box (observables.h)
//   E_<term> each force term's energy, in the force field's order
// As LAMMPS's thermo_modify norm, energies are per particle when normalized: by default in lj units
// (LAMMPS's default there) and not in md units.
//
// Optionally the same rows go to a CSV file (full precision, header once). The CSV is appended to
// as the run goes; on a restart (resume) the rows of steps after the restart step are dropped (the
// file rewritten atomically) before appending, so a restarted run's log reads as one run's.
#pragma once
#include <fstream>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "science/sponge/simulation.h"

namespace spire::sponge {

struct ThermoOptions {
  std::string csv_path;            // "" for none
  std::optional<bool> normalize;   // energies per particle; unset: yes in lj units, no otherwise
  bool per_term = true;            // an E_<term> column per force term
};

// Whether a force term's energy belongs to E_mol (LAMMPS's ebond + eangle + edihed + eimp): the
// names bond(s), angle(s), torsion(s), dihedral(s), improper(s), urey_bradley, cmap.
bool is_molecular_term(const std::string& name);

class ThermoLog : public Reporter {
 public:
  // `out` may be null (CSV only); it must outlive the log.
  explicit ThermoLog(std::ostream* out, ThermoOptions options = {});
  ~ThermoLog() override;
  std::string name() const override { return "thermo"; }
  void report(const Simulation& sim) override;
  bool resume(const Simulation& sim, int64_t step) override;
  void finish(const Simulation& sim) override;

  // One row (the header first, once) from these parts; what report() does.
  void write(const System& system, const State& state, const ForceResult& forces, const Observables& obs);
  // The column names, fixed by the first row (empty before).
  const std::vector<std::string>& columns() const { return columns_; }

 private:
  void set_columns(const System& system, const State& state, const ForceResult& forces, const Observables& obs);
  void open_csv(bool append);

  std::ostream* out_;
  ThermoOptions options_;
  std::vector<std::string> columns_;
  std::vector<int> widths_;
  std::vector<std::string> terms_;  // force terms with a column
  bool conserved_ = false;
  bool header_written_ = false;
  bool csv_resumed_ = false;
  std::ofstream csv_;
};

}  // namespace spire::sponge
