// Rigid three-site water models and a builder for boxes of them.
//
// Parameters, md units (nm, kJ/mol, e, amu); Lennard-Jones on the oxygen only:
//   SPC/E (Berendsen, Grigera, Straatsma, J. Phys. Chem. 91, 6269 (1987), doi 10.1021/j100308a038)
//          as GROMACS distributes it (share/top/oplsaa.ff/spce.itp, ffnonbonded.itp opls_116/117):
//          q_O -0.8476, q_H 0.4238, sigma 0.316557, epsilon 0.650194, r_OH 0.1, HOH 109.47 deg,
//          masses 15.9994 and 1.008. (The paper gives A = 0.37122 (kJ/mol)^1/6 nm and
//          B = 0.3428 (kJ/mol)^1/12 nm: sigma = B^2/A = 0.3165558, epsilon = (A/B)^12 / 4 =
//          0.650170; GROMACS's rounding differs by 4e-5 in epsilon. OpenMM's spce.xml uses
//          sigma 0.31657195, epsilon 0.6497752, from 0.1553 kcal/mol and R_min/2 = 1.7767 A.)
//   TIP3P  (Jorgensen et al., J. Chem. Phys. 79, 926 (1983)) as OpenMM 8's app/data/tip3p.xml:
//          q_O -0.834, q_H 0.417, sigma 0.31507524065751241 (R_min/2 = 1.7683 A),
//          epsilon 0.635968 (0.152 kcal/mol), r_OH 0.09572, HOH 104.52 deg (1.82421813418 rad),
//          masses 15.99943 and 1.007947.
//
// water_box places molecules on a cubic grid at the requested mass density, each oxygen at a
// grid site and each orientation drawn from Philox (keyed by the seed, counted by molecule and
// attempt), taking the first of a few draws that keeps every atom at least clash_distance from
// the molecules already placed; molecules still too close to a neighbour once all are placed are
// drawn again in a few sweeps. Where no draw clears the distance (dense boxes, large distances)
// the widest clearance found is kept. It is a starting point: minimise the energy (or run a short
// Langevin stage) before production dynamics.
#pragma once
#include <cstdint>
#include <string>

#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge {

struct WaterModel {
  std::string name;  // "spce" or "tip3p"
  double charge_o = 0, charge_h = 0;
  double sigma_o = 0, epsilon_o = 0;  // hydrogens carry no Lennard-Jones
  double mass_o = 0, mass_h = 0;
  double r_oh = 0;       // nm
  double theta_hoh = 0;  // radians

  double d_hh() const;        // 2 r_OH sin(theta / 2)
  double molar_mass() const;  // g/mol (amu)
  // |mu| in e nm (multiply by 48.0320 for debye).
  double dipole() const;

  static WaterModel spce();
  static WaterModel tip3p();
  // "spce" (also "spc/e") or "tip3p"; ConfigError naming the allowed names otherwise.
  static WaterModel by_name(const std::string& name);
};

// Particle types and names written by the builder (GROMACS's spce.itp names).
inline constexpr const char* kWaterOxygenType = "OW";
inline constexpr const char* kWaterHydrogenType = "HW";

// Appends one water (O, H1, H2: types OW/HW, atom names OW/HW1/HW2, the residue name and id
// given) to the system with its RigidWater entry and its three intramolecular exclusions. The
// system's other per-particle names, if any, are extended too. Returns the oxygen's index.
int add_water(System& system, const WaterModel& model, const std::string& residue_name, int residue_id);

struct WaterBoxOptions {
  int64_t molecules = 216;
  double density = 0.997;  // g/cm^3 (liquid water at 298 K and 1 bar: 0.997)
  uint64_t seed = 1;
  std::string residue_name = "HOH";  // PDB's name; GROMACS calls it SOL
  // nm, between atoms of different molecules (see above): about a hydrogen bond's H...O.
  double clash_distance = 0.18;
};

struct WaterBox {
  System system;  // md units; exclusions normalized
  State state;    // cubic box; oxygens inside it, molecules whole; zero velocities
};

// ValueError for a non-positive count or density.
WaterBox water_box(const WaterModel& model, const WaterBoxOptions& options = {});

// Philox stream of the builder's orientations ("H2O BOX!").
inline constexpr uint64_t kWaterBoxStream = 0x48324F20424F5821ull;

}  // namespace spire::sponge
