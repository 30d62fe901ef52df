// The sources of one kind (electric or magnetic) as entries a kernel adds in parallel, with the
// CPU engine's results (simulation.cpp: field[index] += T(Re(source_factor * weight * current))
// for every sample of every source that is on, in source order, then sample order).
//
// Entry e adds T(factor[e] * value[slot[e]]) to sample index[e] of its component when its source
// is on. The host fills the values once per half step (fill()):
//   a profile source whose weights are all real: one slot holding Re(current), and each entry's
//     factor = source_factor * Re(weight): the product the CPU forms, since with Im(weight) = 0 its
//     complex product's real part is that single rounded product (up to the sign of a zero);
//   any other source (complex weights, distributed currents): one slot per sample holding
//     Re(source_factor * weight * current), computed here by the CPU's own expression, with
//     factor 1 (exact).
// Additions to one sample must keep the CPU's order; additions to distinct samples commute. So the
// entries are split into layers: the k-th entry (in CPU order) to hit a sample goes to layer k, and
// the layers are launched one after another, each with distinct samples.
//
// The currents themselves come from source_currents.h, shared with the CPU engine.
#pragma once
#include <complex>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "science/elec/source.h"
#include "science/elec/source_currents.h"

namespace spire::elec::cuda {

class SourceBatch {
 public:
  // The entries of the sources whose component is electric (or magnetic), in CPU order, layered.
  // source_factor(c, index): UpdateCoefficients::source_factor of the run.
  void rebuild(const std::vector<SourceSamples>& sources, bool electric,
               const std::function<double(Component, int64_t)>& source_factor);

  bool empty() const { return index.empty(); }
  size_t entries() const { return index.size(); }
  // The half step's upload: on flags (1 or 0) for every source of the run, then the slot values.
  // Asks `currents` for the sources of this kind; false when none is on.
  bool fill(const std::vector<SourceSamples>& sources, SourceCurrents& currents, double t_mid, double dt,
            std::vector<double>& upload) const;
  size_t upload_size() const { return sources_ + size_t(slots_); }

  // Entries (host copies, in layer order) and layer l = entries [layer_begin[l], layer_begin[l+1]).
  std::vector<int64_t> index;
  std::vector<double> factor;
  std::vector<int32_t> slot, source;
  std::vector<int8_t> component;
  std::vector<int64_t> layer_begin;

 private:
  struct Member {  // a source of this kind
    size_t source;
    int32_t first_slot;
    bool scalar;                        // real weights, a profile: one slot
    std::vector<double> source_factor;  // per sample, when not scalar
  };
  size_t sources_ = 0;
  int32_t slots_ = 0;
  std::vector<Member> members_;  // in source order
};

}  // namespace spire::elec::cuda
