// Running until the fields have decayed: Meep's
//   sim.run(until_after_sources=mp.stop_when_fields_decayed(dt, c, pt, decay_by))
// the stopping rule of every broadband transmission or reflection calculation, where the DFT
// monitors must see the pulse's whole ring-down and a fixed run length is either too short or
// wasteful.
//
// Semantics (Meep's python/simulation.py, reproduced so that the two codes stop at the same step):
// before every step, f = |c(pt)|^2 (the component interpolated at the point from its own staggered
// samples, as Meep's get_field_point) updates the maximum of the current window. Once the time
// exceeds the window's start by more than `interval`, the window closes: its maximum joins the
// running maximum over all closed windows, a new window starts at the current time, and the run
// stops when the closed window's maximum is at most decay_by times the running maximum (and that
// running maximum is nonzero) and the sources have ended (time >= sources_end_time()). Windows run
// from the call's starting time, sources or not: as in Meep, a window that closes while the source
// is still on can satisfy the test, which only stops the run once the sources are off.
// One deliberate difference: Meep also stops when every window so far was exactly zero (0 <= 0),
// i.e. when the pulse has not reached the point by the end of the sources, a silent early stop;
// here a field that has never been nonzero has not decayed (pass max_time to bound such a run).
// Windows are compared in double time n dt (Meep rounds its time to float, which can move a
// window's end by a step).
//
// FieldDecay evaluates the rule one step at a time (for callers with their own stepping loop);
// run_until_fields_decayed() steps a Simulation with it. The step callbacks (monitors) run inside
// step() as usual.
#pragma once
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "science/elec/simulation.h"

namespace spire::elec {

struct FieldDecayOptions {
  Component component = Component::Ez;
  Vec3 point;
  double interval = 50;    // Meep's dt: the length of a window, in a/c
  double decay_by = 1e-3;  // stop when a window's max |c|^2 is at most this times the largest seen
};

class FieldDecay {
 public:
  // ValueError naming the value: a component the lattice lacks, a point outside the cell, an
  // interval not finite and > 0, decay_by not in (0, 1]. The first window starts at sim.time().
  FieldDecay(const Simulation& sim, FieldDecayOptions options);

  // Meep's condition evaluated on the current fields (call once before each step): true when the
  // run should stop.
  bool operator()(const Simulation& sim);

  // |c(pt)|^2 of the current fields.
  double intensity(const Simulation& sim) const;
  // The largest window maximum so far (0 before the first window closes) and the last closed
  // window's maximum.
  double peak() const { return max_abs_; }
  double last_window() const { return last_window_; }

 private:
  FieldDecayOptions options_;
  std::vector<std::pair<int64_t, double>> taps_;  // (sample, weight) of the interpolation
  double t0_ = 0, cur_max_ = 0, max_abs_ = 0, last_window_ = 0;
};

struct FieldDecayResult {
  bool decayed = false;    // false: stopped by max_time
  double time = 0;         // the run's time when it stopped
  int64_t steps = 0;       // steps taken by this call
  double peak = 0;         // the largest window maximum of |c(pt)|^2
  double last_window = 0;  // the last closed window's maximum
};

// Steps sim until the rule above stops it, or until its time reaches max_time (then decayed is
// false: a high-Q structure whose fields ring far longer than the caller wanted).
FieldDecayResult run_until_fields_decayed(Simulation& sim, const FieldDecayOptions& options,
                                          double max_time = std::numeric_limits<double>::infinity());

}  // namespace spire::elec
