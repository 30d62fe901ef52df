#include "science/flow/generate_checks.h"

#include <cmath>
#include <complex>
#include <cstdlib>

namespace spire::flow {

double checkerboard_share(const Space& space, const double* grid) {
  const Discretization& d = space.discretization();
  std::vector<cplx> c(space.coeff_size(false));
  space.forward(grid, c.data(), false);
  double total = 0, top = 0;
  auto add = [&](double energy, bool high) {
    total += energy;
    if (high) top += energy;
  };
  if (d.basis == "chebyshev") {
    for (int i = 0; i < d.nx; ++i) add(std::norm(c[i]), 8 * i >= 7 * d.nx);
  } else if (d.dims == 1) {
    const int half = d.nx / 2;
    for (int m = 0; m <= half; ++m) add(std::norm(c[m]) * (m == 0 || 2 * m == d.nx ? 1 : 2), 8 * m >= 7 * half);
  } else {
    const int hx = d.nx / 2, hy = d.ny / 2, py = d.ny / 2 + 1;
    for (int i = 0; i < d.nx; ++i)
      for (int j = 0; j < py; ++j) {
        int kx = i <= hx ? i : i - d.nx;
        bool high = 8 * std::abs(kx) >= 7 * hx || 8 * j >= 7 * hy;
        add(std::norm(c[size_t(i) * py + j]) * (j == 0 || 2 * j == d.ny ? 1 : 2), high);
      }
  }
  return total > 0 ? top / total : 0.0;
}

std::string rejection_reason(const Space& space, const Solution& s, double bound, double checkerboard) {
  for (const auto& field : s.fields)
    for (double v : field)
      if (!std::isfinite(v)) return "not finite";
  if (!s.complete) {
    // the solver stopped on a blow-up: its message says which
    return s.stop_reason.find("finite") != std::string::npos ? "not finite" : "beyond bound";
  }
  for (const auto& field : s.fields)
    for (double v : field)
      if (std::abs(v) > bound) return "beyond bound";
  const size_t points = space.grid_size(false);
  for (const auto& field : s.fields)
    if (field.size() >= points && checkerboard_share(space, field.data() + field.size() - points) > checkerboard)
      return "checkerboard";
  return "";
}

}  // namespace spire::flow
