// Standing modes of a rectangular PEC cavity on the Yee lattice, for the cavity and energy tests.
// With walls at -L/2 and L/2 and u = x + L/2, mode (m_x, m_y, m_z) has k_a = m_a pi / L_a and
//   E_a = e_a cos(w t) prod_b (b == a ? cos(k_b u_b) : sin(k_b u_b))
//   H_a = h_a sin(w t) prod_b (b == a ? sin(k_b u_b) : cos(k_b u_b))
// (axes the problem lacks contribute a factor 1 and k = 0). Sampled at the Yee positions these
// are exact eigenvectors of the discrete curl-curl operator: with K_a = 2 sin(k_a dx / 2) / dx,
// the discrete curl of the E pattern is K x e times the H pattern, and the mode is divergence-free
// on the lattice when K . e = 0. The Yee recursion then gives the exact discrete dispersion
// relation sin(w dt / 2) / dt = |K| / 2 and h = -(K x e) / |K| (h taken at E's phase reference:
// H^{n+1/2} = h sin(w (n + 1/2) dt)).
#pragma once
#include <array>
#include <cmath>
#include <complex>
#include <numbers>

#include "science/elec/simulation.h"

namespace spire::elec::testing {

struct CavityMode {
  std::array<double, 3> k{0, 0, 0}, K{0, 0, 0}, half{0, 0, 0};
  std::array<double, 3> e{0, 0, 0}, h{0, 0, 0};
  double omega = 0;       // exact discrete angular frequency
  double continuum = 0;   // |k|
};

inline std::array<double, 3> cross(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

// A mode with half-wavelength counts m (entries for absent axes ignored) and polarisation chosen
// perpendicular to K: K x `direction` (normalised), or e = z for TM and 1D's x.
inline CavityMode cavity_mode(const Simulation& sim, std::array<int, 3> m,
                              std::array<double, 3> direction = {0.3, 0.5, 0.8}) {
  const YeeLattice& L = sim.lattice();
  CavityMode mode;
  const double dx = L.dx(), dt = sim.dt();
  double k2 = 0, K2 = 0;
  for (int a = 0; a < 3; ++a) {
    if (!L.has_axis(a)) continue;
    mode.half[size_t(a)] = 0.5 * L.size()[a];
    mode.k[size_t(a)] = m[size_t(a)] * std::numbers::pi / L.size()[a];
    mode.K[size_t(a)] = 2 * std::sin(0.5 * mode.k[size_t(a)] * dx) / dx;
    k2 += mode.k[size_t(a)] * mode.k[size_t(a)];
    K2 += mode.K[size_t(a)] * mode.K[size_t(a)];
  }
  const double Kn = std::sqrt(K2);
  switch (L.dimensions()) {
    case Dimensions::one: mode.e = {1, 0, 0}; break;
    case Dimensions::two_tm: mode.e = {0, 0, 1}; break;
    case Dimensions::two_te: mode.e = {mode.K[1] / Kn, -mode.K[0] / Kn, 0}; break;
    case Dimensions::three: {
      auto e = cross(mode.K, direction);
      const double n = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
      mode.e = {e[0] / n, e[1] / n, e[2] / n};
      break;
    }
  }
  const auto ke = cross(mode.K, mode.e);
  mode.h = {-ke[0] / Kn, -ke[1] / Kn, -ke[2] / Kn};
  mode.omega = 2 / dt * std::asin(0.5 * dt * Kn);
  mode.continuum = std::sqrt(k2);
  return mode;
}

// The spatial pattern of component c of the mode at position r (without amplitude or time factor).
inline double cavity_pattern(const CavityMode& mode, Component c, const Vec3& r) {
  const int own = axis_of(c);
  double f = 1;
  for (int b = 0; b < 3; ++b) {
    if (mode.half[size_t(b)] == 0) continue;
    const double u = mode.k[size_t(b)] * (r[b] + mode.half[size_t(b)]);
    const bool first = (b == own) == is_electric(c);  // E: cos along its axis; H: sin along its axis
    f *= first ? std::cos(u) : std::sin(u);
  }
  return f;
}

inline double cavity_amplitude(const CavityMode& mode, Component c) {
  return is_electric(c) ? mode.e[size_t(axis_of(c))] : mode.h[size_t(axis_of(c))];
}

// Sets E at t = 0 and H at t = -dt/2 to the mode (unit amplitude): E^n = e cos(w n dt) exactly.
// with_h = false leaves H zero (the field is still the single discrete mode, with a phase).
inline void set_cavity_mode(Simulation& sim, const CavityMode& mode, bool with_h = true) {
  for (Component c : sim.lattice().components()) {
    const double amp = cavity_amplitude(mode, c);
    const double t = is_electric(c) ? 1.0 : (with_h ? std::sin(-0.5 * mode.omega * sim.dt()) : 0.0);
    sim.set_field(c, [&](const Vec3& r) { return std::complex<double>(amp * t * cavity_pattern(mode, c, r)); });
  }
}

}  // namespace spire::elec::testing
