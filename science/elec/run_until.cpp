// Running until the fields have decayed (run_until.h).
#include "science/elec/run_until.h"

#include <cmath>

#include "engine/core/error.h"
#include "science/elec/interpolation.h"

namespace spire::elec {

FieldDecay::FieldDecay(const Simulation& sim, FieldDecayOptions options) : options_(options), t0_(sim.time()) {
  const YeeLattice& lattice = sim.lattice();
  SPIRE_CHECK(lattice.has(options.component), ValueError, "run until fields decayed: the ",
              to_string(lattice.dimensions()), " problem has no ", to_string(options.component), " component");
  SPIRE_CHECK(std::isfinite(options.interval) && options.interval > 0, ValueError,
              "run until fields decayed: the interval between checks must be finite and > 0, got ", options.interval);
  SPIRE_CHECK(options.decay_by > 0 && options.decay_by <= 1, ValueError,
              "run until fields decayed: decay_by must be in (0, 1], got ", options.decay_by);
  taps_ = point_taps(lattice, options.component, options.point, "run until fields decayed");
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
