// Sampling a geometry onto the Yee lattice with Meep's subpixel averaging (Farjadpour et al., Opt.
// Lett. 31, 2972 (2006); Kottke et al., Phys. Rev. E 77, 036611 (2008); Meep's "Subpixel Smoothing").
//
// Each sample of each carried component owns the voxel centred on it, dx wide along every axis the
// problem has (zero wide along the others). Where one medium fills the voxel the sample takes that
// medium's values. Where an object's surface crosses it, with f the fraction the frontmost such
// object covers, n the object's surface normal at the sample (projected onto the problem's axes)
// and eps_in, eps_out the permittivities along the component's axis of that object's medium and of
// the medium behind it,
//   <eps> = f eps_in + (1 - f) eps_out,   <1/eps> = f / eps_in + (1 - f) / eps_out,
//   inv_eps_c = n_c^2 <1/eps> + (1 - n_c^2) / <eps>
// (the c-th diagonal entry of Meep's averaged inverse tensor P <1/eps> + (1 - P) <eps>^-1, P = n n^T;
// where either medium is anisotropic the full Kottke average of the two diagonal tensors is formed,
// as Meep does, and its inverse's diagonal kept). inv_mu likewise with mu. Conductivities and the
// strengths of the susceptibilities are averaged arithmetically (f s_in + (1 - f) s_out).
//
// "The medium behind" is what lies under the front object at the voxel: the next object below it
// that meets the voxel if that one covers it wholly, else the medium found (without the front
// object) at the voxel corner farthest out along n, else the default medium, as Meep's
// get_front_object settles on two materials per voxel.
//
// No averaging where the voxel is uniform, where averaging is switched off (options.subpixel =
// false: each sample takes the medium at its position), where a perfect conductor is one of the two
// media (E samples inside a PEC get inv_eps = 0, H samples inside a PMC inv_mu = 0, and the others
// the medium at their position: metals are never averaged), or where no surface normal exists (the
// centre of a sphere).
//
// Work is split over samples with OpenMP; each sample's values depend only on its own voxel, so the
// arrays are the same bits whatever the thread count.
#pragma once
#include <array>
#include <vector>

#include "science/elec/dispersion.h"
#include "science/elec/geometry.h"
#include "science/elec/material_arrays.h"
#include "science/elec/yee.h"

namespace spire::elec {

struct SubpixelOptions {
  // Meep's eps_averaging.
  bool subpixel = true;
  // How many times a voxel crossed by a curved surface or a corner of a rotated shape is halved per
  // axis before the surface is taken as flat (geometry.h); 0..12. Flat faces are exact at any depth.
  int depth = 3;
  // Curved surfaces stop being subdivided once the estimated error of a box's fill fraction is
  // below this (geometry.h; the role of Meep's subpixel_tol); 0 subdivides to `depth` everywhere.
  double tolerance = 1e-5;
  // Axes along which the cell is periodic (periodic or Bloch boundaries): objects that cross the
  // cell's side are repeated across it, as Meep's ensure_periodicity. Ignored for axes the problem
  // does not have.
  std::array<bool, 3> periodic{false, false, false};
};

struct SampledMedia {
  MaterialArrays arrays;
  // One entry per distinct susceptibility model in the geometry (Susceptibility::same_model), with
  // per-sample strengths for the carried E components (empty where zero everywhere).
  std::vector<SusceptibilityArrays> susceptibilities;
};

// ValueError naming a bad option (depth outside 0..12, tolerance < 0).
SampledMedia sample_media(const YeeLattice& lattice, const Geometry& geometry, const SubpixelOptions& options = {});
MaterialArrays sample_materials(const YeeLattice& lattice, const Geometry& geometry,
                                const SubpixelOptions& options = {});

}  // namespace spire::elec
