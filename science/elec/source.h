// Current sources. A source drives one field component c with a current density
//   J_c(r, t) = amplitude * f(r - center) * current(t)     (time_profile.h)
// over a region (center, size): a point (size 0 along every axis: an electric or magnetic point
// dipole), a line or a plane (a current sheet), or a volume. Electric components (Ex..Ez) are
// electric currents J (dD/dt = curl H - J), magnetic components (Hx..Hz) magnetic currents K
// (dB/dt = -curl E - K).
//
// Discretisation (as Meep's volume sources, so that the integral of the current is the same at any
// resolution and wherever the region sits relative to the lattice):
//   along an axis where the region has zero size, J is a delta function: it is spread over the two
//   nearest samples of component c with linear-interpolation weights (1 - s, s), divided by dx; a
//   point dipole off the lattice thus has its dipole moment, and radiates its power, at its true
//   position rather than at the nearest sample;
//   along an axis where it has size, each sample gets the fraction of its cell [x - dx/2, x + dx/2]
//   that lies inside the region.
// f, when given, is evaluated at each sample's position relative to the center (Meep's amplitude
// function). Samples beyond a periodic or bloch wall wrap around (carrying exp(-+i phase)); samples
// on a pec or pmc wall, whose field the wall holds at zero, are dropped.
#pragma once
#include <complex>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "science/elec/boundary.h"
#include "science/elec/time_profile.h"
#include "science/elec/yee.h"

namespace spire::elec {

struct Source {
  Component component = Component::Ez;
  Vec3 center;
  Vec3 size;  // zero along every axis: a point dipole
  std::complex<double> amplitude = 1.0;
  std::shared_ptr<const TimeProfile> profile;
  // Optional amplitude function of the position relative to center.
  std::function<std::complex<double>(const Vec3&)> amplitude_function;
};

// A point dipole of `component` at `position`.
Source point_dipole(Component component, const Vec3& position, std::shared_ptr<const TimeProfile> profile,
                    std::complex<double> amplitude = 1.0);
// A current over a plane, line or volume, uniform or shaped by `amplitude_function`.
Source current_sheet(Component component, const Vec3& center, const Vec3& size,
                     std::shared_ptr<const TimeProfile> profile, std::complex<double> amplitude = 1.0,
                     std::function<std::complex<double>(const Vec3&)> amplitude_function = {});

// A source on the lattice: the samples it drives and each sample's weight (amplitude x
// interpolation or overlap weight x 1/dx per delta axis x any wrap phase); the current density at
// sample index[i] is weight[i] * profile->current(t).
struct SourceSamples {
  Component component = Component::Ez;
  std::vector<int64_t> index;
  std::vector<std::complex<double>> weight;
  std::shared_ptr<const TimeProfile> profile;
};

// ValueError when the component is not carried, the region leaves the cell, the profile is missing,
// or a size is negative; the message names the source's component and what was wrong.
SourceSamples discretize(const Source& source, const YeeLattice& lattice, const ResolvedBoundaries& boundaries);

}  // namespace spire::elec
