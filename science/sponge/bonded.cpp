// Harmonic bonds and angles (bonded.h).
#include "science/sponge/bonded.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::sponge {

namespace {

void check_sizes(const char* term, const System& system, const State& state) {
  SPIRE_CHECK(int64_t(state.positions.size()) == system.size(), ValueError, term, ": ", state.positions.size(),
              " positions for ", system.size(), " particles");
  system.topology.check(system.size());
}

}  // namespace

void HarmonicBonds::check(const System& system, const State& state) const { check_sizes("bonds", system, state); }

void HarmonicBonds::add(const System& system, const State& state, const NeighborList*, ForceResult& out) {
  double energy = 0;
  for (const Bond& b : system.topology.bonds) {
    const Vec3 d = state.box.min_image(state.positions[size_t(b.j)] - state.positions[size_t(b.i)]);
    const double r = norm(d), dr = r - b.length;
    energy += 0.5 * b.k * dr * dr;
    if (r == 0) continue;  // no direction to push along
    const Vec3 fj = d * (-b.k * dr / r);
    out.forces[size_t(b.j)] += fj;
    out.forces[size_t(b.i)] -= fj;
    out.virial.add_outer(d, fj);
  }
  out.add_energy(name(), energy);
}

void HarmonicAngles::check(const System& system, const State& state) const { check_sizes("angles", system, state); }

void HarmonicAngles::add(const System& system, const State& state, const NeighborList*, ForceResult& out) {
  double energy = 0;
  for (const Angle& a : system.topology.angles) {
    const Vec3& rj = state.positions[size_t(a.j)];
    const Vec3 u = state.box.min_image(state.positions[size_t(a.i)] - rj);
    const Vec3 v = state.box.min_image(state.positions[size_t(a.k)] - rj);
    const Vec3 c = cross(u, v);
    const double cn = norm(c);
    const double theta = std::atan2(cn, dot(u, v));
    const double dtheta = theta - a.theta0;
    energy += 0.5 * a.k_theta * dtheta * dtheta;
    // d theta / d u = (u x c) / (|u|^2 |c|), d theta / d v = -(v x c) / (|v|^2 |c|): in the plane,
    // across each arm. At theta = 0 or pi the plane is undefined and the gradient with it.
    if (cn == 0) continue;
    const double de = a.k_theta * dtheta;
    const Vec3 fi = cross(u, c) * (-de / (norm2(u) * cn));
    const Vec3 fk = cross(v, c) * (de / (norm2(v) * cn));
    out.forces[size_t(a.i)] += fi;
    out.forces[size_t(a.k)] += fk;
    out.forces[size_t(a.j)] -= fi + fk;
    out.virial.add_outer(u, fi);
    out.virial.add_outer(v, fk);
  }
  out.add_energy(name(), energy);
}

}  // namespace spire::sponge
