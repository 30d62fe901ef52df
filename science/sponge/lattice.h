// Cubic lattices for Lennard-Jones and other simple systems, built as LAMMPS builds them:
//   lattice fcc 0.8442                 ->  Lattice::with_density(LatticeType::fcc, 0.8442)
//   region box block 0 20 0 20 0 20    ->  create_lattice(lattice, 20, 20, 20)
//   create_atoms 1 box
// giving the same positions in the same order (basis fastest, then x, y, z cells), and the same
// periodic box [0, n a) in each direction. In LAMMPS's `units lj` the number after `lattice` is a
// reduced density; in other units it is the lattice constant (with_constant here).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "science/sponge/state.h"
#include "science/sponge/system.h"

namespace spire::sponge {

enum class LatticeType { sc, bcc, fcc };

// "sc", "bcc" or "fcc"; ConfigError naming the allowed values otherwise.
LatticeType lattice_type(const std::string& name);
std::string to_string(LatticeType type);

struct Lattice {
  LatticeType type = LatticeType::fcc;
  double constant = 1;  // the cubic cell's edge

  // The lattice whose number density (particles per unit volume) is `density`:
  // constant = (basis size / density)^(1/3), as LAMMPS's `lattice` in lj units.
  static Lattice with_density(LatticeType type, double density);
  static Lattice with_constant(LatticeType type, double constant);

  // The basis in fractional coordinates of the cubic cell, in LAMMPS's order.
  std::vector<Vec3> basis() const;
  double density() const;
  // Distance to the nearest neighbours and how many there are (sc a, 6; bcc a sqrt(3)/2, 8;
  // fcc a/sqrt(2), 12).
  double nearest_neighbor_distance() const;
  int coordination() const;
};

// nx * ny * nz cells of the lattice filling the orthorhombic box (nx a, ny a, nz a) from the
// origin; zero velocities, time and step 0.
State create_lattice(const Lattice& lattice, int nx, int ny, int nz);

// n particles of one type (mass, no charge) and no topology, in the given units: the System that
// goes with a lattice of simple particles.
System identical_particles(int64_t n, double mass, const std::string& type_name, const Units& units);

}  // namespace spire::sponge
