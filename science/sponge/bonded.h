// Bonded terms over the System's topology lists, plus position restraints and external fields.
// Conventions are system.h's (OpenMM's and GROMACS's):
//   HarmonicBonds      "bonds"      E = k/2 (r - length)^2
//   HarmonicAngles     "angles"     E = k/2 (theta - theta0)^2, j the vertex
//   PeriodicTorsions   "torsions"   E = k (1 + cos(n phi - phase)), phi the IUPAC dihedral i-j-k-l
//   HarmonicImpropers  "impropers"  E = k/2 (xi - xi0)^2, xi - xi0 wrapped into (-pi, pi]
// Vectors between the particles of a term are minimum-imaged in periodic boxes, so molecules may be
// split across the box's faces (terms must span less than half the box). The virial of a term is
// sum_k r_k (x) f_k over its particles placed by those vectors, which equals -dE/d(box strain).
// Terms are summed in list order on one thread: the same bits every run.
//
// 1-4 Coulomb and Lennard-Jones pairs are not here: the nonbonded forces add them (coulomb.h).
#pragma once
#include <vector>

#include "science/sponge/force.h"

namespace spire::sponge {

class HarmonicBonds : public Force {
 public:
  std::string name() const override { return "bonds"; }
  void check(const System& system, const State& state) const override;
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;
};

class HarmonicAngles : public Force {
 public:
  std::string name() const override { return "angles"; }
  void check(const System& system, const State& state) const override;
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;
};

class PeriodicTorsions : public Force {
 public:
  std::string name() const override { return "torsions"; }
  void check(const System& system, const State& state) const override;
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;
};

class HarmonicImpropers : public Force {
 public:
  std::string name() const override { return "impropers"; }
  void check(const System& system, const State& state) const override;
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;
};

// The IUPAC dihedral of i-j-k-l in (-pi, pi] (0 cis, pi trans; positive when, looking from j to k,
// the bond k-l is turned clockwise from i-j), with the given (minimum-imaged) bond vectors
// b1 = r_j - r_i, b2 = r_k - r_j, b3 = r_l - r_k.
double dihedral_angle(const Vec3& b1, const Vec3& b2, const Vec3& b3);

// E = k/2 |r_i - r0_i|^2 (minimum image): holds particles near reference positions (GROMACS's
// position_restraints, OpenMM's CustomExternalForce "k/2 periodicdistance(x,y,z,x0,y0,z0)^2").
// The virial takes the references as moving with the box (GROMACS's refcoord-scaling = all):
// W = sum (r_i - r0_i) (x) f_i.
struct PositionRestraint {
  int particle;
  Vec3 reference;
  double k;
};

class PositionRestraints : public Force {
 public:
  explicit PositionRestraints(std::vector<PositionRestraint> restraints);
  std::string name() const override { return "restraints"; }
  const std::vector<PositionRestraint>& restraints() const { return restraints_; }
  void check(const System& system, const State& state) const override;
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;

 private:
  std::vector<PositionRestraint> restraints_;
};

// A uniform external field: force q_i E on every charge (E in energy / (charge length), kJ/mol/(nm
// e) in md units; 1 V/nm = 96.485 kJ/mol/(nm e)) and m_i g on every mass (g an acceleration, in
// length / time^2). Energy -sum f_i . r_i with the positions as stored: a uniform field has no
// periodic potential, so the energy is a bookkeeping quantity that jumps if positions are wrapped.
// No virial (as LAMMPS's fix efield and fix gravity by default, and GROMACS's electric-field).
class ExternalField : public Force {
 public:
  explicit ExternalField(const Vec3& electric_field, const Vec3& acceleration = {});
  std::string name() const override { return "external_field"; }
  const Vec3& electric_field() const { return field_; }
  const Vec3& acceleration() const { return acceleration_; }
  void check(const System& system, const State& state) const override;
  void add(const System& system, const State& state, const NeighborList* neighbors, ForceResult& out) override;

 private:
  Vec3 field_, acceleration_;
};

}  // namespace spire::sponge
