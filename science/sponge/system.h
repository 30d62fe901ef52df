// What is simulated: particles (mass, charge, type), the bonded topology with its parameters, and
// the unit system. Positions, velocities and the box are the State's (state.h): they change as the
// run goes; the System does not.
//
// Conventions (OpenMM's and GROMACS's, so parameters copy over unchanged):
//   bond       E = k/2 (r - length)^2
//   angle      E = k/2 (theta - theta0)^2, j the vertex, theta in radians
//   torsion    E = k (1 + cos(n phi - phase)), phi the IUPAC dihedral of i-j-k-l in (-pi, pi]
//   improper   E = k/2 (xi - xi0)^2, xi the dihedral i-j-k-l, xi - xi0 wrapped into (-pi, pi]
// Nonbonded parameters live in the nonbonded forces (per-type Lennard-Jones, per-particle charges
// here); exclusions and 1-4 pairs tell every nonbonded force which pairs to leave out or scale.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "science/sponge/units.h"

namespace spire::sponge {

struct Bond {
  int i, j;
  double length, k;
};
struct Angle {
  int i, j, k;  // j the vertex
  double theta0, k_theta;
};
struct Torsion {
  int i, j, k, l;
  int n;  // periodicity, >= 1
  double phase, k_phi;
};
struct Improper {
  int i, j, k, l;
  double xi0, k_xi;
};
// A 1-4 pair: excluded from the nonbonded forces' ordinary sum and added back with these scales
// (AMBER 1/1.2 and 1/2, OPLS 1/2 and 1/2, GROMACS's fudgeQQ and fudgeLJ).
struct Pair14 {
  int i, j;
  double coulomb_scale, lj_scale;
};
// A fixed distance kept by SHAKE/RATTLE.
struct Constraint {
  int i, j;
  double length;
};
// A rigid three-site water kept by SETTLE (Miyamoto and Kollman 1992): oxygen, two hydrogens.
struct RigidWater {
  int o, h1, h2;
  double d_oh, d_hh;
};

struct Topology {
  std::vector<Bond> bonds;
  std::vector<Angle> angles;
  std::vector<Torsion> torsions;
  std::vector<Improper> impropers;
  std::vector<Pair14> pairs14;
  std::vector<Constraint> constraints;
  std::vector<RigidWater> waters;
  // Pairs (i < j) that no nonbonded force sees in its ordinary sum; sorted, unique.
  std::vector<std::pair<int, int>> exclusions;

  // GROMACS's nrexcl = 3 with gen-pairs: from the bond graph (bonds, constraints and rigid
  // waters), 1-2, 1-3 and 1-4 pairs are excluded and the 1-4 pairs (not already 1-2 or 1-3 by
  // another path) are added to pairs14 with the given scales. Merges with exclusions already set.
  void exclude_bonded(double coulomb14, double lj14);
  // Sorts and deduplicates exclusions (i < j).
  void normalize_exclusions();
  // Whether (i, j) is excluded (binary search; exclusions normalized).
  bool excluded(int i, int j) const;
  // ValueError naming the entry when an index is outside [0, n) or repeats within one entry.
  void check(int64_t n) const;
};

struct System {
  Units units = Units::md();
  std::vector<double> mass;     // per particle; 0 means fixed in place (never moved)
  std::vector<double> charge;   // per particle
  std::vector<int> type;        // per particle, index into type_names
  std::vector<std::string> type_names;
  // For PDB and H5MD output: per-particle atom and residue names and residue numbers (may be
  // empty: names then come from the type, every particle its own residue).
  std::vector<std::string> atom_name, residue_name;
  std::vector<int> residue_id;
  Topology topology;

  int64_t size() const { return int64_t(mass.size()); }
  // Appends a particle; returns its index. The type is added to type_names when new.
  int add_particle(double mass, double charge, const std::string& type_name);
  // 3N minus constraints (SETTLE counts 3 per water) minus 3 when the centre of mass is held still;
  // fixed particles (mass 0) have none.
  int64_t degrees_of_freedom(bool remove_com_motion) const;
  // Sizes agree, masses >= 0, types in range, topology indices valid: ValueError naming the first
  // problem.
  void check() const;
};

}  // namespace spire::sponge
