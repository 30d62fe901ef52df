// Poynting flux spectra through planes (Meep's add_flux / FluxRegion / get_fluxes) and the
// frequency-domain tangential fields on a surface that the flux and the near-to-far transform share.
//
// A FluxRegion is a plane in 3D, a line in 2D or a point in 1D: a box (center, size in a) with no
// extent along exactly one of the problem's axes, its normal n. The tangential E and H components
// the problem carries are Fourier-transformed (dft.h) at common points: the centres of the plane's
// cells along each tangential axis (size / round(size/dx) apart, each standing for that width) and the
// plane's position along the normal. Every component is interpolated there from its own staggered
// samples (linear along each axis: second order, as Meep), so E and H are compared at the same place
// and, through component_time(), the same instant.
//
// The flux at frequency f (Meep's convention) is
//   flux(f) = weight * sum_points Re[ conj(E_t) x H_t ] . n  dA
// (dA the point's area, length or 1), positive along +n; weight = -1 turns a region around. For DFT
// fields of a monochromatic wave of amplitude E0 accumulated over a window W this is E0^2 W^2 / 4 per
// area, i.e. (2 / W^2) flux is the time-averaged Poynting flux E0^2 / 2 (analytic.h on conventions).
//
// The two-run normalisation Meep users know: run the incident field alone, keep data() (Meep's
// get_flux_data); in the scattering run call load_minus_data() before stepping (Meep's
// load_minus_flux_data): its DFTs start from minus the incident ones, so they accumulate the
// scattered field only, and flux() is the reflected flux (negative when it flows against n).
#pragma once
#include <complex>
#include <vector>

#include "science/elec/analytic.h"
#include "science/elec/dft.h"

namespace spire::elec {

struct FluxRegion {
  Vec3 center;
  Vec3 size;          // 0 along the normal (and along axes the problem lacks)
  double weight = 1;  // multiplies the flux: -1 makes the normal point along -axis
};

// The outward faces of a box: 6 planes in 3D, 4 lines in 2D, 2 points in 1D, with weights +1 on the
// high faces and -1 on the low ones, so that the sum of their fluxes is the power leaving the box.
std::vector<FluxRegion> box_regions(const YeeLattice& lattice, Vec3 center, Vec3 size);

// The DFT of the tangential fields of one region at its common points.
class SurfaceDft {
 public:
  SurfaceDft(const YeeLattice& lattice, const FluxRegion& region, const std::vector<double>& frequencies, double dt);

  template <class Real>
  void update(const FieldArrays<Real>& fields, double t);

  int normal_axis() const { return normal_; }
  double weight() const { return weight_; }
  const std::vector<double>& frequencies() const { return frequencies_; }
  // The common points (positions in a) and the area (length, 1) each stands for.
  const std::vector<Vec3>& points() const { return points_; }
  double point_measure() const { return measure_; }
  // E and H at the common points for frequency index f: all three components, zero for those
  // that are normal or that the problem does not carry.
  void fields(size_t f, std::vector<ComplexVec3>& E, std::vector<ComplexVec3>& H) const;
  // The transforms of the tangential components the problem carries (for saving and loading).
  std::vector<DftFields>& transforms() { return dfts_; }
  const std::vector<DftFields>& transforms() const { return dfts_; }
  // Checkpoints: each transform under prefix + "/" + its component (DftFields::save_state).
  void save_state(SimulationState& out, const std::string& prefix) const;
  void load_state(const SimulationState& in, const std::string& prefix);

 private:
  int normal_ = 0;
  double weight_ = 1;
  std::vector<double> frequencies_;
  std::vector<Vec3> points_;
  double measure_ = 1;
  std::vector<DftFields> dfts_;
};

// The accumulated DFTs of a Flux (or Near2Far): one array per region and tangential component, in
// the monitor's fixed order, with the frequencies they belong to.
struct FluxData {
  std::vector<double> frequencies;
  std::vector<std::vector<std::complex<double>>> arrays;
};

class Flux {
 public:
  // frequencies in c/a (frequency_list() gives Meep's fcen/df/nfreq); dt the time step. ValueError
  // for a region that is not a plane/line/point of the lattice, no regions, no frequencies.
  Flux(const YeeLattice& lattice, const std::vector<FluxRegion>& regions, std::vector<double> frequencies, double dt);

  // After every step, with the step's fields and the time of its E fields.
  template <class Real>
  void update(const FieldArrays<Real>& fields, double t);

  const std::vector<double>& frequencies() const { return frequencies_; }
  // The flux spectrum: one value per frequency, summed over the regions.
  std::vector<double> flux() const;
  // Two-run normalisation (see the header comment). ValueError when the data does not fit this
  // monitor (other frequencies, regions or sizes).
  FluxData data() const;
  void load_data(const FluxData& data);
  void load_minus_data(const FluxData& data);
  void scale_dfts(double factor);  // Meep's scale_flux_fields

  const std::vector<SurfaceDft>& surfaces() const { return surfaces_; }
  // Checkpoints: region i under prefix + "/region<i>" (SurfaceDft::save_state).
  void save_state(SimulationState& out, const std::string& prefix) const;
  void load_state(const SimulationState& in, const std::string& prefix);

 private:
  std::vector<double> frequencies_;
  std::vector<SurfaceDft> surfaces_;
};

// Shared by Flux and Near2Far: checks that `data` fits `surfaces` and loads it times `scale`.
void load_surface_data(std::vector<SurfaceDft>& surfaces, const std::vector<double>& frequencies,
                       const FluxData& data, double scale, const char* who);
FluxData surface_data(const std::vector<SurfaceDft>& surfaces, const std::vector<double>& frequencies);
// Shared by Flux and Near2Far: the checkpoint arrays of every region (prefix + "/region<i>").
void save_surfaces_state(const std::vector<SurfaceDft>& surfaces, SimulationState& out, const std::string& prefix);
void load_surfaces_state(std::vector<SurfaceDft>& surfaces, const SimulationState& in, const std::string& prefix);

}  // namespace spire::elec
