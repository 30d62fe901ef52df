// CPML profiles and auxiliary arrays (cpml.h).
#include "science/elec/cpml.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::elec {

double pml_sigma_max(const PmlProfile& profile, double thickness) {
  SPIRE_CHECK(thickness > 0, ValueError, "pml_sigma_max: thickness must be > 0, got ", thickness);
  return -(profile.order + 1) * std::log(profile.reflection) / (2 * thickness);
}

PmlGrading pml_grading(const PmlProfile& p, double sigma_max, double u) {
  const double g = std::pow(u, p.order);
  return {sigma_max * g, 1 + (p.kappa_max - 1) * g, p.alpha_max * std::pow(1 - u, p.alpha_order)};
}

template <class T>
Cpml<T>::Cpml(const YeeLattice& lattice, const ResolvedBoundaries& boundaries, const PmlProfile& profile, double dt,
              bool complex_fields) {
  const double dx = lattice.dx();
  for (int a = 0; a < 3; ++a) {
    CpmlAxis<T>& ax = axes_[size_t(a)];
    const AxisBoundary& bc = boundaries.axis[size_t(a)];
    ax.n = lattice.n(a);
    if (!bc.active) continue;
    ax.pml_low = bc.pml_low;
    ax.pml_high = bc.pml_high;
    if (!ax.active()) continue;
    active_ = true;
    for (int kind = 0; kind < 2; ++kind) {
      ax.b[size_t(kind)].assign(size_t(ax.n), T(1));
      ax.c[size_t(kind)].assign(size_t(ax.n), T(0));
      ax.kappa_term[size_t(kind)].assign(size_t(ax.n), T(0));
    }
    // kind 0: E updates, derivative at integer position i; kind 1: H updates, at i + 1/2.
    auto fill = [&](int64_t i, int kind, double u, double sigma_max) {
      const PmlGrading g = pml_grading(profile, sigma_max, u);
      const double b = std::exp(-(g.sigma / g.kappa + g.alpha) * dt);
      const double denom = g.kappa * (g.sigma + g.kappa * g.alpha);
      const double c = denom > 0 ? g.sigma * (b - 1) / denom : 0.0;
      ax.b[size_t(kind)][size_t(i)] = T(b);
      ax.c[size_t(kind)][size_t(i)] = T(c);
      ax.kappa_term[size_t(kind)][size_t(i)] = T(1 / g.kappa - 1);
    };
    if (ax.pml_low > 0) {
      const double nl = ax.pml_low, smax = pml_sigma_max(profile, nl * dx);
      for (int64_t i = 0; i < ax.pml_low; ++i) {
        fill(i, 0, (nl - double(i)) / nl, smax);
        fill(i, 1, (nl - double(i) - 0.5) / nl, smax);
      }
    }
    if (ax.pml_high > 0) {
      const double nh = ax.pml_high, smax = pml_sigma_max(profile, nh * dx);
      const int64_t start = ax.n - ax.pml_high;
      for (int64_t i = start; i < ax.n; ++i) {
        fill(i, 0, double(i - start) / nh, smax);
        fill(i, 1, (double(i - start) + 0.5) / nh, smax);
      }
    }
  }
  if (!active_) return;
  const int parts = complex_fields ? 2 : 1;
  for (Component c : lattice.components()) {
    for (int a = 0; a < 3; ++a) {
      const CpmlAxis<T>& ax = axes_[size_t(a)];
      if (a == axis_of(c) || !lattice.has_axis(a) || !ax.active()) continue;
      const size_t size = size_t(lattice.samples() / ax.n) * size_t(ax.slabs());
      for (int p = 0; p < parts; ++p) psi_[size_t(int(c))][size_t(a)][size_t(p)].assign(size, T(0));
    }
  }
}

template class Cpml<float>;
template class Cpml<double>;

}  // namespace spire::elec
