// The two unit systems of units.h. md is OpenMM's and GROMACS's, so their parameters and outputs
// carry over unchanged; lj is LAMMPS's `units lj`, in which k_B and the Coulomb constant are 1.
#include "science/sponge/units.h"

#include "engine/core/error.h"

namespace spire::sponge {

// Aggregate initialisation rather than member assignment: GCC 12 warns falsely (-Wrestrict,
// bug 105329) on assigning string literals to members of a returned local.
Units Units::md() {
  return Units{"md", constants::kBoltzmann, constants::kCoulomb, constants::kBar,
               "nm", "ps", "kJ/mol", "amu", "e", "K", "bar"};
}

// LAMMPS's units lj: k_B = 1, and qqr2e = 1 (charges in units of sqrt(4 pi eps0 sigma epsilon)).
Units Units::lj() {
  return Units{"lj", 1, 1, 1, "sigma", "tau", "epsilon", "m", "q*", "epsilon/k_B", "epsilon/sigma^3"};
}

Units Units::by_name(const std::string& name) {
  if (name == "md") return md();
  if (name == "lj") return lj();
  throw ConfigError(detail::cat("units: unknown unit system '", name,
                                "'; allowed: md (nm, ps, kJ/mol, amu, e, K, bar), lj (Lennard-Jones reduced units)"));
}

}  // namespace spire::sponge
