// Near-to-far-field transform (Meep's add_near2far / get_farfield): the fields anywhere outside a
// closed surface, from the DFT of the tangential fields on it, through the surface-equivalence
// principle. On each surface region (a FluxRegion of flux.h, its weight giving the outward sense)
// the equivalent currents at the common points are
//   J = n x H,   M = -n x E        (per area dA; exp(-i omega t), curl E = i omega mu H - M)
// and the far field is the sum of their homogeneous-medium Green's functions: free space in 3D, a
// line source along z in 2D (Hankel functions). This is exact for the equivalent sources: the fields
// are right at any distance outside the surface, not only asymptotically, and a surface that does not
// enclose all sources gives the fields of the currents through it (Meep's open-surface use).
//
// Green's functions of a point current (moment J or M) at x0, with r = x - x0, k = omega sqrt(eps mu):
// 3D, g = e^{ikr} / (4 pi r):
//   E_J = i omega mu g [(1 + i/kr - 1/(kr)^2) J + (-1 - 3i/kr + 3/(kr)^2) (rhat.J) rhat]
//   H_J = (ik - 1/r) g  rhat x J
// and by duality (E -> H, H -> -E, J -> M, eps <-> mu) E_M = -(ik - 1/r) g rhat x M, H_M as E_J with
// i omega eps. 2D, g = (i/4) H0^(1)(k rho), derivatives g', g'' in rho and rhat in the plane:
//   E_J = i omega mu [g J + (g''/k^2) (rhat.J) rhat + g'/(k^2 rho) (J_plane - (rhat.J) rhat)]
//   H_J = g' rhat x J
// (the z component of E_J is i omega mu g J_z). The 1D problem has no far field: ValueError.
//
// Powers follow Meep's flux convention (flux.h): radiated_power integrates Re(E* x H).rhat over a
// sphere (3D, Gauss-Legendre in cos theta times a uniform grid in phi) or a circle (2D, uniform),
// both spectrally accurate for the smooth patterns of sources smaller than the sphere.
#pragma once
#include <vector>

#include "science/elec/analytic.h"
#include "science/elec/flux.h"

namespace spire::elec {

// The fields at x of a point current at x0 (electric when `magnetic` is false), in a homogeneous
// medium (eps, mu > 0) at angular frequency omega; dims 3, or 2 (a line current along z through x0:
// z coordinates ignored). ValueError for x = x0 or bad parameters.
PhasorFields green_fields(Vec3 x, Vec3 x0, const ComplexVec3& current, bool magnetic, double omega, double eps,
                          double mu, int dims);

class Near2Far {
 public:
  // regions: the faces of a closed surface around the sources (box_regions() gives a box), or an
  // open surface; eps and mu: the homogeneous medium outside it. ValueError for a 1D lattice, no
  // regions, bad eps or mu.
  Near2Far(const YeeLattice& lattice, const std::vector<FluxRegion>& regions, std::vector<double> frequencies,
           double dt, double eps = 1, double mu = 1);

  template <class Real>
  void update(const FieldArrays<Real>& fields, double t);

  const std::vector<double>& frequencies() const { return frequencies_; }
  // Meep's get_farfield: E and H at x, one PhasorFields per frequency.
  std::vector<PhasorFields> far_field(Vec3 x) const;
  // The same at many points, threaded over points: entry p * frequencies().size() + f.
  std::vector<PhasorFields> far_fields(const std::vector<Vec3>& points) const;
  // Power per frequency through a sphere (3D) or circle (2D) of the given radius about center,
  // which must enclose the surface. n_theta: Gauss-Legendre nodes in cos theta (3D; 2 n_theta
  // points in phi) or points on the circle / 2 (2D); 0 picks enough for the surface's size,
  // max(12, k r + 10) with r the surface's largest distance from center.
  std::vector<double> radiated_power(double radius, Vec3 center = {}, int n_theta = 0) const;

  // Two-run normalisation as Flux (Meep's load_minus_near2far_data).
  FluxData data() const;
  void load_data(const FluxData& data);
  void load_minus_data(const FluxData& data);

  // Checkpoints: region i under prefix + "/region<i>", as Flux.
  void save_state(SimulationState& out, const std::string& prefix) const;
  void load_state(const SimulationState& in, const std::string& prefix);

 private:
  struct Source {
    Vec3 x;
    ComplexVec3 j, m;  // equivalent currents times area and region weight
  };
  std::vector<Source> sources(size_t f) const;

  int dims_;
  double eps_, mu_;
  std::vector<double> frequencies_;
  std::vector<SurfaceDft> surfaces_;
};

}  // namespace spire::elec
