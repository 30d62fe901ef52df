// Units. Spire's MD works in one of two systems, chosen per System and written into every file:
//   md: nm, ps, kJ/mol, amu (g/mol), elementary charge e, kelvin, bar (OpenMM's and GROMACS's units)
//   lj: Lennard-Jones reduced units: lengths in sigma, energies in epsilon, masses in m, k_B = 1,
//       time in sigma sqrt(m/epsilon), temperature in epsilon/k_B, pressure in epsilon/sigma^3
//       (LAMMPS's `units lj`).
// Internally every pressure is energy per volume; `pressure_unit` converts to what is displayed.
#pragma once
#include <string>

namespace spire::sponge {

namespace constants {
// CODATA 2018 (exact SI values for k_B and N_A).
constexpr double kAvogadro = 6.02214076e23;               // 1/mol
constexpr double kBoltzmann = 0.00831446261815324;        // kJ/(mol K)  (R / 1000)
constexpr double kCoulomb = 138.93545764438198;           // 1/(4 pi eps0) in kJ nm / (mol e^2), OpenMM's ONE_4PI_EPS0
constexpr double kBar = 0.0602214076;                     // kJ/(mol nm^3) per bar (1e5 Pa * 1e-27 m^3/nm^3 * N_A / 1e3)
constexpr double kAngstrom = 0.1;                         // nm
constexpr double kKcal = 4.184;                           // kJ
}  // namespace constants

struct Units {
  std::string name;         // "md" or "lj"
  double boltzmann = 1;     // energy per unit temperature
  double coulomb = 1;       // 1/(4 pi eps0): energy * length / charge^2
  double pressure_unit = 1; // energy/length^3 per displayed pressure unit (bar in md)
  std::string length, time, energy, mass, charge, temperature, pressure;  // unit names, for logs and H5MD

  static Units md();
  static Units lj();
  // "md" or "lj"; ConfigError naming the allowed values otherwise.
  static Units by_name(const std::string& name);
};

}  // namespace spire::sponge
