// Total-field/scattered-field (TFSF) plane waves (Taflove & Hagness, Computational
// Electrodynamics, 3rd ed., ch. 5). Inside a box the run carries the total field (incident plus
// scattered), outside only the scattered field: an empty box leaves the outside dark, a scatterer
// inside it radiates into the outside, where flux and near-to-far monitors see the scattered field
// alone (no two-run normalisation needed for a scattering cross-section).
//
// The incident field is computed on an auxiliary one-dimensional Yee grid along the direction of
// propagation, with the run's dx and dt, a CPML-terminated far end and a hard source at its near
// end, and projected onto the box faces. Its values on the faces enter as the equivalent surface
// currents J = n x H_inc, K = -n x E_inc (n the outward normal), i.e. the TFSF corrections of the
// Yee update on the samples next to the faces: a DistributedCurrent (source.h) per corrected
// component. Along a lattice axis the auxiliary grid has the main grid's dispersion exactly, and
// the outside of an empty box stays dark to rounding; at oblique incidence its dispersion is
// matched by scaling its cell so that its numerical phase velocity equals the main grid's in that
// direction (Taflove's matched numerical dispersion) and fields are interpolated between its
// samples, which leaves a leakage that is reported by the tests.
//
// Convention: the incident electric field is E_inc(r, t) = amplitude * polarization * g(t - k.(r -
// r0)), k the unit direction, r0 the corner of the box the wave enters first, g(t) the profile's
// current waveform (time_profile.h: GaussianSource's current, ContinuousSource's exp(-i 2 pi f t));
// H_inc = k x E_inc / eta with eta = sqrt(mu / eps) of the background. Real fields take the real part.
#pragma once
#include <complex>
#include <memory>

#include "science/elec/analytic.h"
#include "science/elec/simulation.h"
#include "science/elec/time_profile.h"

namespace spire::elec {

struct PlaneWave {
  Vec3 direction{1, 0, 0};     // propagation direction (normalised by the solver); in the problem's
                               // axes (2D: in the xy plane, 1D: +-z)
  Vec3 polarization{0, 0, 1};  // E direction, orthogonal to direction (normalised by the solver)
  std::shared_ptr<const TimeProfile> profile;
  std::complex<double> amplitude = 1.0;
  Vec3 center;                 // the total-field box: center +- size/2, inside the cell and clear
  Vec3 size;                   // of pml slabs; zero size along axes the problem lacks
  double eps = 1, mu = 1;      // the homogeneous background the box faces lie in
};

// Adds the wave's surface currents to `sim` (before the first step). ValueError naming what is
// wrong: a direction not in the problem's axes or not orthogonal to the polarization, a box that
// leaves the cell or overlaps a pml slab, a polarization with no carried component, background
// values that are not positive.
void add_plane_wave(Simulation& sim, const PlaneWave& wave);

// The incident field the wave drives (analytic, continuum), for checks and for total-field
// reference values: E_inc and H_inc at r and t (the real part for real-field runs).
ComplexVec3 incident_e(const PlaneWave& wave, const Vec3& r, double t);
ComplexVec3 incident_h(const PlaneWave& wave, const Vec3& r, double t);

}  // namespace spire::elec
