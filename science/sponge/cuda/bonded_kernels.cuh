// The bonded kernel bodies, one thread per term (bonded.h's conventions, the formulas of
// bonded.cpp, torsions.cpp and restraints.cpp in the same operation order): harmonic bonds and
// angles, periodic torsions and harmonic impropers (Bekker's force decomposition), position
// restraints, and the uniform external field (per particle). Forces are added in fixed point, the
// energy into the term's tally slot, the virial sum_k r_k (x) f_k into the shared slots. And the
// last step of every evaluation: fixed-point forces to doubles.
#pragma once
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>

#include "engine/core/host_device.h"
#include "science/sponge/cuda/device_box.cuh"
#include "science/sponge/cuda/device_vec.cuh"
#include "science/sponge/cuda/fixed_point.cuh"
#include "science/sponge/cuda/tally.cuh"
#include "science/sponge/system.h"

namespace spire::sponge::cuda {

struct RestraintTerm {
  int particle;
  double x0, y0, z0, k;
};

// One kind of bonded term: its list (terms, of the kind's type), positions, and where it adds.
template <class Term>
struct BondedArgs {
  const double* x = nullptr;
  DeviceBox box;
  const Term* terms = nullptr;
  long long* force = nullptr;
  TallySlots slots;  // energy[0] the term's
};

SPIRE_HD inline void harmonic_bond(const BondedArgs<Bond>& a, int64_t t, Tally& tally) {
  const Bond b = a.terms[t];
  const V3 d = min_image(a.box, load3(a.x, b.j) - load3(a.x, b.i));
  const double r = norm(d), dr = r - b.length;
  tally.energy[0] += 0.5 * b.k * dr * dr;
  if (r == 0) return;  // no direction to push along
  const V3 fj = d * (-b.k * dr / r);
  accumulate3(a.force, b.j, fj);
  accumulate3(a.force, b.i, -fj);
  add_outer(tally.virial, d, fj);
}

SPIRE_HD inline void harmonic_angle(const BondedArgs<Angle>& a, int64_t t, Tally& tally) {
  const Angle g = a.terms[t];
  const V3 rj = load3(a.x, g.j);
  const V3 u = min_image(a.box, load3(a.x, g.i) - rj);
  const V3 v = min_image(a.box, load3(a.x, g.k) - rj);
  const V3 c = cross(u, v);
  const double cn = norm(c);
  const double theta = atan2(cn, dot(u, v));
  const double dtheta = theta - g.theta0;
  tally.energy[0] += 0.5 * g.k_theta * dtheta * dtheta;
  if (cn == 0) return;  // theta = 0 or pi: no plane, no gradient
  const double de = g.k_theta * dtheta;
  const V3 fi = cross(u, c) * (-de / (norm2(u) * cn));
  const V3 fk = cross(v, c) * (de / (norm2(v) * cn));
  accumulate3(a.force, g.i, fi);
  accumulate3(a.force, g.k, fk);
  accumulate3(a.force, g.j, -(fi + fk));
  add_outer(tally.virial, u, fi);
  add_outer(tally.virial, v, fk);
}

// The dihedral i-j-k-l (torsions.cpp's Dihedral): its angle, then the forces of dE/dphi.
struct DihedralGeometry {
  V3 r_ij, r_kj, r_kl, m, n;
  double phi;
};

SPIRE_HD inline DihedralGeometry dihedral_geometry(const double* x, const DeviceBox& box, int i, int j, int k, int l) {
  DihedralGeometry g;
  const V3 xj = load3(x, j), xk = load3(x, k);
  g.r_ij = min_image(box, load3(x, i) - xj);
  g.r_kj = min_image(box, xk - xj);
  g.r_kl = min_image(box, xk - load3(x, l));
  g.m = cross(g.r_ij, g.r_kj);
  g.n = cross(g.r_kj, g.r_kl);
  // dihedral_angle(-r_ij, r_kj, -r_kl) (bonded.h).
  const V3 b1 = -g.r_ij, b2 = g.r_kj, b3 = -g.r_kl;
  const V3 n1 = cross(b1, b2), n2 = cross(b2, b3);
  g.phi = atan2(norm(b2) * dot(b1, n2), dot(n1, n2));
  return g;
}

SPIRE_HD inline void dihedral_forces(const DihedralGeometry& g, int i, int j, int k, int l, double de_dphi,
                                     long long* force, Tally& tally) {
  const double m2 = norm2(g.m), n2 = norm2(g.n);
  if (m2 == 0 || n2 == 0) return;  // three particles in a line: no plane, no gradient
  const double kj2 = norm2(g.r_kj), kj = sqrt(kj2);
  const V3 fi = g.m * (-de_dphi * kj / m2);
  const V3 fl = g.n * (de_dphi * kj / n2);
  const V3 s = fi * (dot(g.r_ij, g.r_kj) / kj2) - fl * (dot(g.r_kl, g.r_kj) / kj2);
  const V3 fj = s - fi;
  const V3 fk = -fl - s;
  accumulate3(force, i, fi);
  accumulate3(force, j, fj);
  accumulate3(force, k, fk);
  accumulate3(force, l, fl);
  add_outer(tally.virial, g.r_ij, fi);
  add_outer(tally.virial, g.r_kj, fk);
  add_outer(tally.virial, g.r_kj - g.r_kl, fl);
}

SPIRE_HD inline void periodic_torsion(const BondedArgs<Torsion>& a, int64_t t, Tally& tally) {
  const Torsion p = a.terms[t];
  const DihedralGeometry g = dihedral_geometry(a.x, a.box, p.i, p.j, p.k, p.l);
  const double arg = p.n * g.phi - p.phase;
  tally.energy[0] += p.k_phi * (1 + cos(arg));
  dihedral_forces(g, p.i, p.j, p.k, p.l, -p.k_phi * p.n * sin(arg), a.force, tally);
}

SPIRE_HD inline void harmonic_improper(const BondedArgs<Improper>& a, int64_t t, Tally& tally) {
  const Improper p = a.terms[t];
  const DihedralGeometry g = dihedral_geometry(a.x, a.box, p.i, p.j, p.k, p.l);
  const double pi = 3.14159265358979323846;
  double delta = g.phi - p.xi0;
  delta -= 2 * pi * floor((delta + pi) / (2 * pi));  // into [-pi, pi)
  if (delta == -pi) delta = pi;                      // into (-pi, pi]
  tally.energy[0] += 0.5 * p.k_xi * delta * delta;
  dihedral_forces(g, p.i, p.j, p.k, p.l, p.k_xi * delta, a.force, tally);
}

SPIRE_HD inline void position_restraint(const BondedArgs<RestraintTerm>& a, int64_t t, Tally& tally) {
  const RestraintTerm p = a.terms[t];
  const V3 d = min_image(a.box, load3(a.x, p.particle) - V3{p.x0, p.y0, p.z0});
  tally.energy[0] += 0.5 * p.k * norm2(d);
  const V3 f = d * -p.k;
  accumulate3(a.force, p.particle, f);
  add_outer(tally.virial, d, f);
}

struct FieldArgs {
  const double* x = nullptr;
  const double* charge = nullptr;
  const double* mass = nullptr;
  double field[3] = {0, 0, 0}, acceleration[3] = {0, 0, 0};
  long long* force = nullptr;
  TallySlots slots;  // energy[0]; no virial
};

// Particle i in the uniform field: q E + m g, energy -f . r (ExternalField::add).
SPIRE_HD inline void external_field(const FieldArgs& a, int64_t i, Tally& tally) {
  const double q = a.charge[i], m = a.mass[i];
  const V3 f{q * a.field[0] + m * a.acceleration[0], q * a.field[1] + m * a.acceleration[1],
             q * a.field[2] + m * a.acceleration[2]};
  accumulate3(a.force, i, f);
  tally.energy[0] -= dot(f, load3(a.x, i));
}

// Component k of the forces: fixed point to double.
SPIRE_HD inline void forces_from_fixed(const long long* fixed, double* forces, int64_t k) { forces[k] = from_fixed(fixed[k]); }

// Launchers (bonded_kernels.cu): one thread per term / particle / component on `stream`.
void launch_bonds(const BondedArgs<Bond>& a, int64_t count, cudaStream_t stream);
void launch_angles(const BondedArgs<Angle>& a, int64_t count, cudaStream_t stream);
void launch_torsions(const BondedArgs<Torsion>& a, int64_t count, cudaStream_t stream);
void launch_impropers(const BondedArgs<Improper>& a, int64_t count, cudaStream_t stream);
void launch_restraints(const BondedArgs<RestraintTerm>& a, int64_t count, cudaStream_t stream);
void launch_external_field(const FieldArgs& a, int64_t particles, cudaStream_t stream);
void launch_forces_from_fixed(const long long* fixed, double* forces, int64_t components, cudaStream_t stream);

}  // namespace spire::sponge::cuda
