// The currents a run's sources carry in each update interval, as every platform's engine asks
// them (simulation_engine.h): a profile source's single current(t_mid, dt), or a distributed
// source's per-sample currents, asked exactly once per interval. The energy's trial half step
// (simulation.h) asks a magnetic source for the coming interval ahead of the step, which then
// reuses it; so a checkpoint keeps, beside each distributed source's own state, the currents it
// has already given and the interval they are for, and a resumed run reuses them as the
// uninterrupted run would.
#pragma once
#include <complex>
#include <limits>
#include <vector>

#include "science/elec/simulation.h"
#include "science/elec/source.h"

namespace spire::elec {

class SourceCurrents {
 public:
  // Called once per source added, in order.
  void add();
  // The currents of source si over the interval of width dt centred on t_mid; false when it is off
  // (outside its time window, or a profile whose current is 0).
  bool evaluate(const SourceSamples& s, size_t si, double t_mid, double dt);
  // Sample i's current of source si, as last evaluated.
  std::complex<double> current(const SourceSamples& s, size_t si, size_t i) const {
    const auto& v = currents_[si];
    return v.size() == 1 && !s.distributed ? v[0] : v[i];
  }
  // "source/<i>" (the source's own state) and "source/<i>/asked" (the interval its last currents
  // are for, then their real and imaginary parts) for every distributed source.
  void save_state(const std::vector<SourceSamples>& sources, SimulationState& out) const;
  void load_state(const std::vector<SourceSamples>& sources, const SimulationState& in);

 private:
  static constexpr double kNever = -std::numeric_limits<double>::infinity();  // no t_mid is -inf
  std::vector<std::vector<std::complex<double>>> currents_;
  std::vector<double> asked_at_;
};

}  // namespace spire::elec
