// Convolutional PML (Roden & Gedney, Microwave Opt. Technol. Lett. 27, 334 (2000); Taflove &
// Hagness, Computational Electrodynamics, 3rd ed., ch. 7). Inside a slab along axis a, every
// derivative d/da in the curl equations becomes
//   (1/kappa) d/da + psi,   psi^{new} = b psi^{old} + c (d/da)^{new},
//   b = exp(-(sigma/kappa + alpha) dt),   c = sigma (b - 1) / (kappa (sigma + kappa alpha)),
// the recursive convolution of the stretched-coordinate factor 1/s_a, s_a = kappa + sigma /
// (alpha + i omega) (normalised units: sigma and alpha are rates in c/a; the magnetic profile equals
// the electric one because eps0 = mu0, which makes the slab impedance-matched). The grading of
// sigma, kappa and alpha is boundary.h's PmlProfile.
//
// Profiles are tabulated per axis at the positions where each update takes its derivative: the
// E updates differentiate H at the E samples' integer positions along a, the H updates E at
// half-integer positions, so each axis has an E table and an H table. The update adds the slab's
// correction (1/kappa - 1) d + psi to the plain curl, so the tables hold b, c and 1/kappa - 1.
//
// psi exists only inside the slabs: for component c and derivative axis a (a != c's own axis, a
// with a pml), an array ordered like the lattice (yee.h) with the extent along a replaced by the
// slab count S = pml_low + pml_high; slab index s is i for the low slab (i < pml_low) and
// pml_low + i - (n - pml_high) for the high slab.
#pragma once
#include <array>
#include <cstdint>

#include "science/elec/boundary.h"
#include "science/elec/fields.h"
#include "science/elec/yee.h"

namespace spire::elec {

// sigma_max of a slab of `thickness` (in a): -(order + 1) ln(reflection) / (2 thickness).
double pml_sigma_max(const PmlProfile& profile, double thickness);

struct PmlGrading {
  double sigma, kappa, alpha;
};
// The grading at depth u in [0, 1] (0 at the inner edge, 1 at the wall).
PmlGrading pml_grading(const PmlProfile& profile, double sigma_max, double u);

template <class T>
struct CpmlAxis {
  int64_t n = 1;
  int pml_low = 0, pml_high = 0;
  // [0]: E updates (integer positions), [1]: H updates (half-integer); each n long, b = 1, c = 0,
  // kappa_term = 0 outside the slabs.
  std::array<AlignedVector<T>, 2> b, c, kappa_term;

  bool active() const { return pml_low + pml_high > 0; }
  int slabs() const { return pml_low + pml_high; }
  // The slab index of sample i along the axis, or -1 outside the slabs.
  int64_t slab(int64_t i) const {
    if (i < pml_low) return i;
    if (i >= n - pml_high) return pml_low + (i - (n - pml_high));
    return -1;
  }
};

template <class T>
class Cpml {
 public:
  Cpml(const YeeLattice& lattice, const ResolvedBoundaries& boundaries, const PmlProfile& profile, double dt,
       bool complex_fields);

  bool active() const { return active_; }
  const CpmlAxis<T>& axis(int a) const { return axes_[size_t(a)]; }
  // psi of component c's derivative along axis a; nullptr where there is none.
  T* psi(Component c, int a, FieldPart part = FieldPart::real) {
    auto& v = psi_[size_t(int(c))][size_t(a)][size_t(int(part))];
    return v.empty() ? nullptr : v.data();
  }

 private:
  bool active_ = false;
  std::array<CpmlAxis<T>, 3> axes_;
  std::array<std::array<std::array<AlignedVector<T>, 2>, 3>, 6> psi_;
};

extern template class Cpml<float>;
extern template class Cpml<double>;

}  // namespace spire::elec
