// Multilinear interpolation of one field component at arbitrary points, from the component's own
// staggered samples (yee.h): what DFT monitors (dft.h), point series (field_output.h), the decay
// test of run_until.h and Meep's get_field_point compute, written once so that every monitor sees
// the same value at the same point.
//
// Along axis a, a point x sits at sample coordinate s = (x + L_a/2) / dx - offset_a(c) (sample i
// is at -L_a/2 + (i + offset) dx); it takes samples floor(s) and floor(s) + 1 with weights 1 - frac
// and frac. A point within 1e-9 (in samples) of a sample takes that sample alone (weight 1 on it,
// 0 on the next), so that a point on the lattice reads it exactly whatever the rounding of its
// coordinate. Indices wrap (yee.h: sample n is sample 0, the periodic image). An axis the problem
// lacks has the one sample 0, weight 1.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "science/elec/yee.h"

namespace spire::elec {

// The two samples around a point along one axis and the weight of the upper one (the lower one
// weighs 1 - w_hi).
struct AxisTaps {
  int64_t lo = 0, hi = 0;
  double w_hi = 0;
};

// Along axis a for component c. ValueError "<who>: the point's <axis> = x is outside the cell [-L/2,
// L/2]" (to 1e-9 dx) for a coordinate off the cell or not finite; an axis the lattice lacks ignores x.
AxisTaps axis_taps(const YeeLattice& lattice, Component c, int a, double x, const std::string& who);

// The (sample index, weight) pairs of point p, the zero weights dropped: per axis lo then hi, x
// slowest. The value is the sum of weight * field[sample].
std::vector<std::pair<int64_t, double>> point_taps(const YeeLattice& lattice, Component c, Vec3 p,
                                                   const std::string& who);

}  // namespace spire::elec
