// Initial velocities (velocities.h).
#include "science/sponge/velocities.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "science/sponge/md_random.h"

namespace spire::sponge {

namespace {

// Three standard normals for particle p (the fourth is unused), so particle p's draws depend on
// (seed, p) alone.
Vec3 normal3(uint64_t seed, uint64_t p) {
  const std::array<double, 4> z = philox_normal4(seed, kVelocityStream, p);
  return {z[0], z[1], z[2]};
}

double inverse_mass(const System& s, int i) { return s.mass[i] > 0 ? 1 / s.mass[i] : 0; }

// The rigid-body velocity field closest (in the mass metric) to the three atoms' velocities: the
// same linear and angular momentum about the centre of mass, v_i = V + omega x d_i.
void rigid_water(const System& s, const State& state, const RigidWater& w, std::vector<Vec3>& v) {
  const int idx[3] = {w.o, w.h1, w.h2};
  const Vec3 xo = state.positions[w.o];
  Vec3 x[3];  // unwrapped about the oxygen
  for (int k = 0; k < 3; ++k) x[k] = xo + state.box.min_image(state.positions[idx[k]] - xo);
  double m_total = 0;
  Vec3 com, vcom;
  for (int k = 0; k < 3; ++k) {
    double m = s.mass[idx[k]];
    m_total += m;
    com += m * x[k];
    vcom += m * v[idx[k]];
  }
  com = com / m_total;
  vcom = vcom / m_total;
  Vec3 L;
  Mat3 inertia;
  Vec3 d[3];
  for (int k = 0; k < 3; ++k) {
    double m = s.mass[idx[k]];
    d[k] = x[k] - com;
    L += m * cross(d[k], v[idx[k]] - vcom);
    double d2 = norm2(d[k]);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) inertia(r, c) += m * ((r == c ? d2 : 0) - d[k][r] * d[k][c]);
  }
  // omega = I^-1 L by cofactors (I is symmetric and, for a bent molecule, positive definite).
  const Vec3 c0{inertia(0, 0), inertia(1, 0), inertia(2, 0)}, c1{inertia(0, 1), inertia(1, 1), inertia(2, 1)},
      c2{inertia(0, 2), inertia(1, 2), inertia(2, 2)};
  double det = dot(c0, cross(c1, c2));
  SPIRE_CHECK(det > 0, ValueError, "velocities: rigid water (", w.o, ", ", w.h1, ", ", w.h2,
              ") has collinear atoms; its rotation is undefined");
  // Rows of the inverse are the cross products of columns, divided by det.
  Vec3 omega{dot(cross(c1, c2), L) / det, dot(cross(c2, c0), L) / det, dot(cross(c0, c1), L) / det};
  for (int k = 0; k < 3; ++k) v[idx[k]] = vcom + cross(omega, d[k]);
}

}  // namespace

Vec3 center_of_mass_velocity(const System& system, const std::vector<Vec3>& velocities) {
  double m_total = 0;
  Vec3 p;
  for (int64_t i = 0; i < system.size(); ++i)
    if (system.mass[i] > 0) {
      m_total += system.mass[i];
      p += system.mass[i] * velocities[i];
    }
  return m_total > 0 ? p / m_total : Vec3{};
}

void remove_center_of_mass_motion(const System& system, std::vector<Vec3>& velocities) {
  Vec3 vcom = center_of_mass_velocity(system, velocities);
  for (int64_t i = 0; i < system.size(); ++i)
    if (system.mass[i] > 0) velocities[i] -= vcom;
}

void project_constraint_velocities(const System& system, const State& state, std::vector<Vec3>& velocities) {
  const Topology& t = system.topology;
  if (t.constraints.empty()) {
    for (const RigidWater& w : t.waters) rigid_water(system, state, w, velocities);
    return;
  }
  // Gauss-Seidel sweeps of pairwise corrections (each removes one pair's relative velocity along
  // its bond, with equal and opposite impulses) alternating with the rigid-water projections:
  // alternating projections onto the constraints' subspaces converge to the projection onto their
  // intersection.
  double v_scale = 0;
  for (const Vec3& v : velocities) v_scale = std::max(v_scale, norm(v));
  const double tolerance = 1e-13 * v_scale;
  const int max_sweeps = 10000;
  for (int sweep = 0;; ++sweep) {
    for (const Constraint& c : t.constraints) {
      double wi = inverse_mass(system, c.i), wj = inverse_mass(system, c.j);
      if (wi + wj == 0) continue;
      Vec3 r = state.box.min_image(state.positions[c.i] - state.positions[c.j]);
      double g = dot(r, velocities[c.i] - velocities[c.j]) / (norm2(r) * (wi + wj));
      velocities[c.i] -= (g * wi) * r;
      velocities[c.j] += (g * wj) * r;
    }
    for (const RigidWater& w : t.waters) rigid_water(system, state, w, velocities);
    double residual = 0;
    for (const Constraint& c : t.constraints) {
      if (inverse_mass(system, c.i) + inverse_mass(system, c.j) == 0) continue;
      Vec3 r = state.box.min_image(state.positions[c.i] - state.positions[c.j]);
      residual = std::max(residual, std::fabs(dot(r, velocities[c.i] - velocities[c.j])) / norm(r));
    }
    if (residual <= tolerance) return;
    SPIRE_CHECK(sweep < max_sweeps, ValueError, "velocities: constraint velocities did not converge in ", max_sweeps,
                " sweeps (residual ", residual, "); are constraints contradictory or shared with rigid waters?");
  }
}

double kinetic_energy(const System& system, const std::vector<Vec3>& velocities) {
  double twice = 0;
  for (int64_t i = 0; i < system.size(); ++i) twice += system.mass[i] * norm2(velocities[i]);
  return 0.5 * twice;
}

double kinetic_temperature(const System& system, const std::vector<Vec3>& velocities, bool com_removed) {
  int64_t dof = system.degrees_of_freedom(com_removed);
  if (dof == 0) return 0;
  return 2 * kinetic_energy(system, velocities) / (double(dof) * system.units.boltzmann);
}

void maxwell_boltzmann(const System& system, State& state, double temperature, uint64_t seed, bool zero_momentum) {
  system.check();
  SPIRE_CHECK(std::isfinite(temperature) && temperature >= 0, ValueError,
              "velocities: temperature must be finite and >= 0, got ", temperature);
  const int64_t n = system.size();
  SPIRE_CHECK(int64_t(state.positions.size()) == n, ValueError, "velocities: ", state.positions.size(),
              " positions for ", n, " particles");
  std::vector<Vec3>& v = state.velocities;
  v.assign(size_t(n), Vec3{});
  const int64_t dof = system.degrees_of_freedom(zero_momentum);
  if (temperature == 0) return;
  SPIRE_CHECK(dof > 0, ValueError, "velocities: the system has no degrees of freedom to give temperature ",
              temperature, " (", n, " particles", zero_momentum ? ", centre of mass held still" : "", ")");
  const double kT = system.units.boltzmann * temperature;
  for (int64_t i = 0; i < n; ++i)
    if (system.mass[i] > 0) v[i] = std::sqrt(kT / system.mass[i]) * normal3(seed, uint64_t(i));
  if (zero_momentum) remove_center_of_mass_motion(system, v);
  project_constraint_velocities(system, state, v);
  double t_now = kinetic_temperature(system, v, zero_momentum);
  SPIRE_CHECK(t_now > 0, ValueError, "velocities: the drawn velocities have no kinetic energy left after removing "
              "momentum and constrained motion; nothing to scale to ", temperature);
  const double scale = std::sqrt(temperature / t_now);
  for (Vec3& vi : v) vi *= scale;
}

}  // namespace spire::sponge
