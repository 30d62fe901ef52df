// random_initial: PDEBench's init_multi (see sine_field.h for the 1D draw and its quirks, kept).
#include "science/flow/initial.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "science/flow/draws.h"
#include "science/flow/sine_field.h"

namespace spire::flow {

namespace {

void check(const RandomInitial& r) {
  SPIRE_CHECK(r.waves >= 1, ConfigError, "random.waves must be at least 1, got ", r.waves);
  SPIRE_CHECK(r.k_max >= 1, ConfigError, "random.k_max must be at least 1, got ", r.k_max);
  SPIRE_CHECK(r.p_abs >= 0 && r.p_abs <= 1, ConfigError, "random.p_abs must be in [0, 1], got ", r.p_abs);
  SPIRE_CHECK(r.p_window >= 0 && r.p_window <= 1, ConfigError, "random.p_window must be in [0, 1], got ",
              r.p_window);
  SPIRE_CHECK(std::isfinite(r.amplitude), ConfigError, "random.amplitude must be finite, got ", r.amplitude);
}

double window(double x, double left, double right, double width) {
  return 0.5 * (std::tanh((x - left) / width) - std::tanh((x - right) / width));
}

// 2D: `waves` plane waves a sin(kx x + ky y + phi) with kx from 1..k_max and ky from
// -k_max..k_max (in units of 2 pi / L), then abs, sign and, with p_window, the product of an x
// and a y window (as PDEBench's 2D generator windows).
std::vector<double> random_2d(const RandomInitial& r, const Space& space, Draws& draws) {
  const Discretization& d = space.discretization();
  const double lx = d.x1 - d.x0, ly = d.y1 - d.y0, two_pi = 2 * M_PI;
  std::vector<double> kx(r.waves), ky(r.waves), a(r.waves), phase(r.waves);
  for (int w = 0; w < r.waves; ++w) {
    kx[w] = two_pi * double(1 + draws.integer(r.k_max)) / lx;
    ky[w] = two_pi * double(draws.integer(2 * r.k_max + 1) - r.k_max) / ly;
    a[w] = draws.uniform();
    phase[w] = two_pi * draws.uniform();
  }
  bool absolute = draws.chance(r.p_abs);
  double sign = draws.chance(0.5) ? -1.0 : 1.0;
  bool windowed = draws.chance(r.p_window);
  double xl = d.x0 + lx * draws.uniform(0.1, 0.45), xr = d.x0 + lx * draws.uniform(0.55, 0.9);
  double yl = d.y0 + ly * draws.uniform(0.1, 0.45), yr = d.y0 + ly * draws.uniform(0.55, 0.9);
  const auto& xs = space.coordinates(0, false);
  const auto& ys = space.coordinates(1, false);
  std::vector<double> u(xs.size() * ys.size());
  for (size_t i = 0; i < xs.size(); ++i)
    for (size_t j = 0; j < ys.size(); ++j) {
      double g = 0;
      for (int w = 0; w < r.waves; ++w) g += a[w] * std::sin(kx[w] * xs[i] + ky[w] * ys[j] + phase[w]);
      if (absolute) g = std::abs(g);
      g *= sign;
      if (windowed) g *= window(xs[i], xl, xr, 0.01 * lx) * window(ys[j], yl, yr, 0.01 * ly);
      u[i * ys.size() + j] = g;
    }
  return u;
}

}  // namespace

std::vector<double> random_initial(const RandomInitial& r, const Space& space, uint64_t seed,
                                   uint64_t sample, int field) {
  check(r);
  const Discretization& d = space.discretization();
  Draws draws(seed, draw_stream(sample, DrawPurpose::Initial, field));
  std::vector<double> u;
  if (d.dims == 1) {
    SineFieldDraw how;
    how.waves = r.waves, how.k_max = r.k_max, how.p_abs = r.p_abs, how.p_window = r.p_window;
    SineField f = draw_sine_field(draws, d.x0, d.x1, how);
    const auto& xs = space.coordinates(0, false);
    u.resize(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) u[i] = f(xs[i]);
  } else {
    u = random_2d(r, space, draws);
  }
  if (r.normalize) {
    // PDEBench's if_norm: shifted to minimum 0, then divided by the maximum, so values span [0, 1]
    // (the diffusion-reaction data, whose logistic reaction needs u in [0, 1]).
    auto [lo, hi] = std::minmax_element(u.begin(), u.end());
    double low = *lo, span = *hi - *lo;
    for (double& v : u) v = span > 0 ? (v - low) / span : 0.0;
  }
  for (double& v : u) v *= r.amplitude;
  return u;
}

}  // namespace spire::flow
