// Running until the fields have decayed (run_until.h).
#include "science/elec/run_until.h"

#include <array>
#include <cmath>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};

// The multilinear interpolation of component c at p from its own staggered samples (the weights
// Meep's get_field_point and PointTimeSeries use): per axis the two neighbouring samples, wrapped
// as yee.h stores them.
std::vector<std::pair<int64_t, double>> interpolation_taps(const YeeLattice& lattice, Component c, Vec3 p) {
  const Vec3 size = lattice.size(), off = lattice.offset(c);
  const double dx = lattice.dx();
  std::array<std::array<std::pair<int64_t, double>, 2>, 3> axis{};
  for (int a = 0; a < 3; ++a) {
    if (!lattice.has_axis(a)) {
      axis[size_t(a)] = {std::pair<int64_t, double>{0, 1.0}, {0, 0.0}};
      continue;
    }
    const double half = size[a] / 2;
    SPIRE_CHECK(std::isfinite(p[a]) && p[a] >= -half - 1e-9 * dx && p[a] <= half + 1e-9 * dx, ValueError,
                "run until fields decayed: the point's ", kAxis[a], " = ", p[a], " is outside the cell [", -half, ", ",
                half, "]");
    const double s = (p[a] + half) / dx - off[a];
    double fl = std::floor(s), frac = s - fl;
    // A point on a sample (to rounding) takes that sample alone.
    if (frac < 1e-9) frac = 0;
    if (frac > 1 - 1e-9) {
      fl += 1;
      frac = 0;
    }
    const int64_t n = lattice.n(a), i0 = ((int64_t(fl) % n) + n) % n;
    axis[size_t(a)] = {std::pair<int64_t, double>{i0, 1 - frac}, {(i0 + 1) % n, frac}};
  }
  std::vector<std::pair<int64_t, double>> taps;
  for (const auto& tx : axis[0])
    for (const auto& ty : axis[1])
      for (const auto& tz : axis[2]) {
        const double w = tx.second * ty.second * tz.second;
        if (w != 0) taps.emplace_back(lattice.index(tx.first, ty.first, tz.first), w);
      }
  return taps;
}

}  // namespace

FieldDecay::FieldDecay(const Simulation& sim, FieldDecayOptions options) : options_(options), t0_(sim.time()) {
  const YeeLattice& lattice = sim.lattice();
  SPIRE_CHECK(lattice.has(options.component), ValueError, "run until fields decayed: the ",
              to_string(lattice.dimensions()), " problem has no ", to_string(options.component), " component");
  SPIRE_CHECK(std::isfinite(options.interval) && options.interval > 0, ValueError,
              "run until fields decayed: the interval between checks must be finite and > 0, got ", options.interval);
  SPIRE_CHECK(options.decay_by > 0 && options.decay_by <= 1, ValueError,
              "run until fields decayed: decay_by must be in (0, 1], got ", options.decay_by);
  taps_ = interpolation_taps(lattice, options.component, options.point);
}

double FieldDecay::intensity(const Simulation& sim) const {
  const FieldView v = sim.field(options_.component);
  std::complex<double> value = 0;
  for (const auto& [i, w] : taps_) value += w * v.at(i);
  return std::norm(value);
}

bool FieldDecay::operator()(const Simulation& sim) {
  cur_max_ = std::max(cur_max_, intensity(sim));
  const double t = sim.time();
  if (t <= t0_ + options_.interval) return false;
  last_window_ = cur_max_;
  cur_max_ = 0;
  t0_ = t;
  max_abs_ = std::max(max_abs_, last_window_);
  // The window's test (Meep's), and the sources must be off (Meep's until_after_sources).
  return max_abs_ > 0 && last_window_ <= max_abs_ * options_.decay_by && t >= sim.sources_end_time();
}

FieldDecayResult run_until_fields_decayed(Simulation& sim, const FieldDecayOptions& options, double max_time) {
  SPIRE_CHECK(!std::isnan(max_time), ValueError, "run until fields decayed: max_time is NaN");
  FieldDecay decayed(sim, options);
  FieldDecayResult result;
  const int64_t start = sim.steps();
  while (true) {
    if (decayed(sim)) {
      result.decayed = true;
      break;
    }
    if (sim.time() >= max_time) break;
    sim.step();
  }
  result.time = sim.time();
  result.steps = sim.steps() - start;
  result.peak = decayed.peak();
  result.last_window = decayed.last_window();
  return result;
}

}  // namespace spire::elec
