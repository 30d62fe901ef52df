// Total-field/scattered-field (TFSF) plane waves (Taflove & Hagness, Computational
// Electrodynamics, 3rd ed., ch. 5). Inside a box the run carries the total field (incident plus
// scattered), outside only the scattered field: an empty box leaves the outside dark, a scatterer
// inside it radiates into the outside, where flux and near-to-far monitors see the scattered field
// alone (no two-run normalisation needed for a scattering cross-section).
//
// The incident field is computed on an auxiliary one-dimensional Yee grid along the direction of
// propagation, with the run's dt, a hard source at its near end and a CPML-terminated far end, and
// projected onto the box faces. Its values on the faces enter as the equivalent surface currents
// J = n x H_inc, K = -n x E_inc (n the outward normal), i.e. the TFSF corrections of the Yee update
// on the samples next to the faces: a DistributedCurrent (source.h) per corrected component, fed by
// the one auxiliary grid, which advances with the run (its state is part of save_state()).
// Along a lattice axis the auxiliary grid has the main grid's cell and dispersion exactly and its
// nodes lie on the main grid's sample planes: the outside of an empty box stays dark to rounding
// (measured -300 dB in float64, -130 dB in float32). At oblique incidence its cell is chosen so
// that its wavenumber at the profile's centre frequency equals the main grid's in that direction
// (matched numerical dispersion) and the face values are interpolated linearly between its nodes;
// the leakage left is second order in dx: measured -35 to -41 dB at 10 cells per wavelength for a
// pulse spanning 0 to 2 times the centre frequency (tests/science/elec/test_plane_wave.cpp). (At
// 45 degrees in 2D the lattice restricted to the wave is itself a 1D Yee grid of cell dx/sqrt(2),
// and the leakage is rounding again.)
//
// Convention: the incident electric field is E_inc(r, t) = amplitude * polarization * g(t - n k.(r -
// r0)), k the unit direction, n = sqrt(eps mu), r0 the corner of the box the wave enters first
// (along each axis, the low face if k points up that axis, else the high one), g(t) the profile's
// instantaneous current (time_profile.h: GaussianSource's d'(t), ContinuousSource's exp(-i 2 pi f t);
// TimeProfile::current(t, h) extrapolated to h -> 0); H_inc = k x E_inc / eta with eta = sqrt(mu /
// eps) of the background. Real fields take the real part. The run's wave follows the lattice's
// dispersion: its phase at the centre frequency equals incident_e's at r0 and advances with the
// lattice's wavenumber from there.
//
// Timing: the currents are on from shortly before the profile starts (the hard source runs ahead
// of r0) until the profile's end plus the time to cross the box at half the background's speed of
// light (sources_end_time() sees that). After that the corrections stop; what is left of the
// incident field in the box then is what the profile leaves behind (a Gaussian cut at Meep's
// default 5 widths jumps by 4e-6 of its peak, whose dispersive tail radiates at about -130 dB).
//
// The box faces must lie in the homogeneous, lossless, non-dispersive background (eps, mu): the
// corrected samples' material coefficients are checked against it.
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
  Vec3 center;                 // the total-field box: center +- size/2, inside the cell, a cell or
  Vec3 size;                   // more from pml slabs and walls; not read along axes the problem lacks
  double eps = 1, mu = 1;      // the homogeneous background the box faces lie in
};

// Adds the wave's surface currents to `sim` (before the first step). ValueError naming what is
// wrong: a direction not in the problem's axes or not orthogonal to the polarization, a box that
// leaves the cell or comes within one cell of a pml slab or a cell wall, a polarization with a
// component the problem does not carry, background values that are not positive, a box face
// through a medium other than the background, a missing profile.
void add_plane_wave(Simulation& sim, const PlaneWave& wave);

// The incident field the wave drives (analytic, continuum), for checks and for total-field
// reference values: E_inc and H_inc at r and t (the real part for real-field runs).
ComplexVec3 incident_e(const PlaneWave& wave, const Vec3& r, double t);
ComplexVec3 incident_h(const PlaneWave& wave, const Vec3& r, double t);

}  // namespace spire::elec
