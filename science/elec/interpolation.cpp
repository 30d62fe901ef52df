// Multilinear interpolation of a staggered component (interpolation.h).
#include "science/elec/interpolation.h"

#include <array>
#include <cmath>

#include "engine/core/error.h"

namespace spire::elec {

namespace {
constexpr const char* kAxis[] = {"x", "y", "z"};
}  // namespace

AxisTaps axis_taps(const YeeLattice& lattice, Component c, int a, double x, const std::string& who) {
  if (!lattice.has_axis(a)) return {};
  const double half = lattice.size()[a] / 2, dx = lattice.dx(), tol = 1e-9 * dx;
  SPIRE_CHECK(std::isfinite(x) && x >= -half - tol && x <= half + tol, ValueError, who, ": the point's ", kAxis[a],
              " = ", x, " is outside the cell [", -half, ", ", half, "]");
  const double s = (x + half) / dx - lattice.offset(c)[a];
  double fl = std::floor(s), frac = s - fl;
  if (frac < 1e-9) frac = 0;
  if (frac > 1 - 1e-9) {
    fl += 1;
    frac = 0;
  }
  const int64_t n = lattice.n(a), i0 = ((int64_t(fl) % n) + n) % n;
  return {i0, (i0 + 1) % n, frac};
}

std::vector<std::pair<int64_t, double>> point_taps(const YeeLattice& lattice, Component c, Vec3 p,
                                                   const std::string& who) {
  std::array<AxisTaps, 3> t;
  for (int a = 0; a < 3; ++a) t[size_t(a)] = axis_taps(lattice, c, a, p[a], who);
  std::vector<std::pair<int64_t, double>> taps;
  for (int ci = 0; ci < 2; ++ci)
    for (int cj = 0; cj < 2; ++cj)
      for (int ck = 0; ck < 2; ++ck) {
        const double w = (ci ? t[0].w_hi : 1 - t[0].w_hi) * (cj ? t[1].w_hi : 1 - t[1].w_hi) *
                         (ck ? t[2].w_hi : 1 - t[2].w_hi);
        if (w != 0)
          taps.emplace_back(lattice.index(ci ? t[0].hi : t[0].lo, cj ? t[1].hi : t[1].lo, ck ? t[2].hi : t[2].lo), w);
      }
  return taps;
}

}  // namespace spire::elec
