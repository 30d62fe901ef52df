// Periodic torsions and harmonic impropers (bonded.h). Forces follow Bekker's decomposition (as
// GROMACS's do_dih_fup): the dihedral's gradient on the outer particles is along the normals of
// the two planes, and the inner particles take what keeps the total force and torque zero.
#include <cmath>
#include <utility>
#include <vector>

#include "engine/core/error.h"
#include "science/sponge/bonded.h"

namespace spire::sponge {

namespace {

// The geometry of one dihedral i-j-k-l from minimum-imaged vectors.
struct Dihedral {
  Vec3 r_ij, r_kj, r_kl;  // x_i - x_j, x_k - x_j, x_k - x_l
  Vec3 m, n;              // r_ij x r_kj, r_kj x r_kl: normals of the planes i-j-k and j-k-l
  double phi;

  Dihedral(const State& state, int i, int j, int k, int l) {
    const Vec3& xj = state.positions[size_t(j)];
    const Vec3& xk = state.positions[size_t(k)];
    r_ij = state.box.min_image(state.positions[size_t(i)] - xj);
    r_kj = state.box.min_image(xk - xj);
    r_kl = state.box.min_image(xk - state.positions[size_t(l)]);
    m = cross(r_ij, r_kj);
    n = cross(r_kj, r_kl);
    phi = dihedral_angle(-r_ij, r_kj, -r_kl);
  }

  // Adds the forces and virial of an energy with derivative dE/dphi.
  void apply(int i, int j, int k, int l, double de_dphi, ForceResult& out) const {
    const double m2 = norm2(m), n2 = norm2(n);
    if (m2 == 0 || n2 == 0) return;  // three particles in a line: no plane, no gradient
    const double kj2 = norm2(r_kj), kj = std::sqrt(kj2);
    const Vec3 fi = m * (-de_dphi * kj / m2);
    const Vec3 fl = n * (de_dphi * kj / n2);
    const Vec3 s = fi * (dot(r_ij, r_kj) / kj2) - fl * (dot(r_kl, r_kj) / kj2);
    const Vec3 fj = s - fi;   // force on j
    const Vec3 fk = -fl - s;  // force on k
    out.forces[size_t(i)] += fi;
    out.forces[size_t(j)] += fj;
    out.forces[size_t(k)] += fk;
    out.forces[size_t(l)] += fl;
    // Positions relative to j: i at r_ij, k at r_kj, l at r_kj - r_kl.
    out.virial.add_outer(r_ij, fi);
    out.virial.add_outer(r_kj, fk);
    out.virial.add_outer(r_kj - r_kl, fl);
  }
};

void check_sizes(const char* term, const System& system, const State& state) {
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, term, ": ", state.positions.size(),
              " positions for ", system.size(), " particles");
  system.topology.check(system.size());
}

// Sums a dihedral term over `terms` (each with particles i, j, k, l): energy(term, phi) returns the
// term's energy and dE/dphi. Forces and virial added to `out`, energy returned.
template <class Term, class Energy>
double add_dihedrals(const std::vector<Term>& terms, const State& state, ForceResult& out, Energy energy) {
  double total = 0;
  for (const Term& t : terms) {
    const Dihedral d(state, t.i, t.j, t.k, t.l);
    const auto [e, de_dphi] = energy(t, d.phi);
    total += e;
    d.apply(t.i, t.j, t.k, t.l, de_dphi, out);
  }
  return total;
}

}  // namespace

double dihedral_angle(const Vec3& b1, const Vec3& b2, const Vec3& b3) {
  const Vec3 n1 = cross(b1, b2), n2 = cross(b2, b3);
  return std::atan2(norm(b2) * dot(b1, n2), dot(n1, n2));
}

void PeriodicTorsions::check(const System& system, const State& state) const {
  check_sizes("torsions", system, state);
}

void PeriodicTorsions::add(const System& system, const State& state, const NeighborList*, ForceResult& out) {
  out.add_energy(name(), add_dihedrals(system.topology.torsions, state, out, [](const Torsion& t, double phi) {
    const double arg = t.n * phi - t.phase;
    return std::pair{t.k_phi * (1 + std::cos(arg)), -t.k_phi * t.n * std::sin(arg)};
  }));
}

void HarmonicImpropers::check(const System& system, const State& state) const {
  check_sizes("impropers", system, state);
}

void HarmonicImpropers::add(const System& system, const State& state, const NeighborList*, ForceResult& out) {
  out.add_energy(name(), add_dihedrals(system.topology.impropers, state, out, [](const Improper& t, double phi) {
    double delta = phi - t.xi0;
    delta -= 2 * M_PI * std::floor((delta + M_PI) / (2 * M_PI));  // into [-pi, pi)
    if (delta == -M_PI) delta = M_PI;                              // into (-pi, pi]
    return std::pair{0.5 * t.k_xi * delta * delta, t.k_xi * delta};
  }));
}

}  // namespace spire::sponge
