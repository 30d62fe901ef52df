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

// The currents of a source whose samples each carry their own, state-dependent time dependence:
// the surface currents of a total-field/scattered-field plane wave (plane_wave.h), fed by an
// auxiliary one-dimensional grid that advances with the run. The solver calls currents() exactly
// once per update interval of the source's component, in time order (magnetic sources at t_mid =
// t_n, electric ones at t_n + dt/2), so an implementation may advance its state there.
class DistributedCurrent {
 public:
  virtual ~DistributedCurrent();
  // The current of every sample (out[i] for SourceSamples::index[i]) over the interval of width dt
  // centred on t_mid.
  virtual void currents(double t_mid, double dt, std::complex<double>* out) = 0;
  // Outside [start_time(), end_time()] every current is zero (the solver may skip the call).
  virtual double start_time() const = 0;
  virtual double end_time() const = 0;
  // State carried between steps, for checkpoints (empty for a stateless source).
  virtual std::vector<double> save_state() const { return {}; }
  virtual void load_state(const std::vector<double>& state);
};

// A source on the lattice: the samples it drives and each sample's weight (amplitude x
// interpolation or overlap weight x 1/dx per delta axis x any wrap phase); the current density at
// sample index[i] is weight[i] * profile->current(t), or weight[i] * out[i] of the distributed
// currents when `distributed` is set (then profile is null).
struct SourceSamples {
  Component component = Component::Ez;
  std::vector<int64_t> index;
  std::vector<std::complex<double>> weight;
  std::shared_ptr<const TimeProfile> profile;
  std::shared_ptr<DistributedCurrent> distributed;

  double start_time() const;
  double end_time() const;
};

// ValueError when the component is not carried, the region leaves the cell, the profile is missing,
// or a size is negative; the message names the source's component and what was wrong.
SourceSamples discretize(const Source& source, const YeeLattice& lattice, const ResolvedBoundaries& boundaries);

}  // namespace spire::elec
