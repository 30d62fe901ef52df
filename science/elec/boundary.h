// Boundaries of the computational cell, per axis and side, as a Meep user sets them up:
//   pec       perfect electric conductor: tangential E = 0 on the wall (Meep's default, "metallic")
//   pmc       perfect magnetic conductor: tangential H = 0 on the wall
//   pml       a convolutional PML slab (cpml.h) inside the cell, of a thickness in a or in cells;
//             as in Meep, the wall behind it is metallic (pec) unless the other side is pmc
//   periodic  fields at x + L equal the fields at x
//   bloch     fields at x + L are exp(i 2 pi k L) times the fields at x; k in units of 1/a (Meep's
//             k_point convention); any bloch axis makes the fields complex
//
// The lattice (yee.h) stores n samples per axis and sample n is sample 0. That fixes what a wall
// is: periodic and bloch wrap through it; a pec wall is the plane of the tangential E samples at
// index 0 (held at zero: both walls of the axis are that one plane, at -L/2 == L/2); a pmc wall is,
// dually, the plane of the tangential H samples at index 0, held at zero, which lies half a cell
// above the nominal edge (at -L/2 + dx/2 and L/2 + dx/2: still a cell of length L between walls).
// Because both ends share one plane, an axis cannot mix pec and pmc, and periodic or bloch must be
// on both sides (ConfigError otherwise).
#pragma once
#include <array>
#include <string>

#include "science/elec/yee.h"

namespace spire::elec {

enum class BoundaryKind { pec, pmc, pml, periodic, bloch };
enum class Side { low = 0, high = 1 };

std::string to_string(BoundaryKind kind);
// "pec" ("metallic"), "pmc" ("magnetic"), "pml", "periodic", "bloch"; ConfigError naming them otherwise.
BoundaryKind parse_boundary_kind(const std::string& text);

// The grading of the CPML (Roden & Gedney 2000; Taflove & Hagness, 3rd ed., ch. 7), with depth
// u in [0, 1] from the inner edge to the wall of a slab of thickness d:
//   sigma(u) = sigma_max u^order,   sigma_max = -(order + 1) ln(reflection) / (2 d)
//   kappa(u) = 1 + (kappa_max - 1) u^order
//   alpha(u) = alpha_max (1 - u)^alpha_order
// sigma_max makes the continuous PML's normal-incidence round-trip reflection equal `reflection`;
// what remains is the discretisation's reflection, which falls as the slab thickens (gentler
// grading). kappa > 1 stretches the coordinate so evanescent fields decay inside the slab; alpha
// (the complex-frequency shift) keeps the absorber from acting on near-DC fields (the late-time
// drift of a plain PML) and is largest at the inner edge, where sigma is small.
// The defaults were chosen by measurement (tests/science/elec/test_cpml.cpp's setup: a dipole 10
// cells from a 10-cell PML, 7 and 20 cells per wavelength): kappa_max = 2 or 4 raised the reflection
// of the propagating pulse by 4 to 15 dB at every thickness tried, so kappa is off by default (raise
// it for evanescent-dominated problems, e.g. waveguides ending in the PML); alpha_max = 0.05 (far
// below 2 pi f of a typical problem) costs under 1 dB; reflection = 1e-8 was within 1 dB of the
// best of 1e-6..1e-12 at 10 cells and keeps the theoretical floor far below the discretisation's.
struct PmlProfile {
  int order = 3;
  double reflection = 1e-8;
  double kappa_max = 1;
  double alpha_max = 0.05;  // c/a
  int alpha_order = 1;
};

struct BoundarySide {
  BoundaryKind kind = BoundaryKind::pec;
  double thickness = 0;  // pml: thickness in a, rounded to whole cells (used when cells == 0)
  int cells = 0;         // pml: thickness in cells (takes precedence when > 0)
};

class Boundaries {
 public:
  // Metallic (pec) walls on every side, Meep's default.
  Boundaries() = default;
  static Boundaries pml(double thickness);  // a pml of this thickness (a) on every side
  static Boundaries pml_cells(int cells);   // a pml of this many cells on every side
  static Boundaries periodic();             // periodic along every axis

  Boundaries& set(int axis, Side side, BoundarySide b);
  Boundaries& set(int axis, BoundarySide both_sides);
  Boundaries& set_pml(int axis, double thickness);
  Boundaries& set_pml_cells(int axis, int cells);
  Boundaries& set_periodic(int axis);
  Boundaries& set_bloch(int axis, double k);  // k in 1/a: phase exp(i 2 pi k L) across the cell
  Boundaries& set_pec(int axis);
  Boundaries& set_pmc(int axis);

  const BoundarySide& side(int axis, Side s) const { return sides_[size_t(axis)][size_t(s)]; }
  double bloch_k(int axis) const { return bloch_k_[size_t(axis)]; }

  PmlProfile pml_profile;

 private:
  std::array<std::array<BoundarySide, 2>, 3> sides_{};
  std::array<double, 3> bloch_k_{0, 0, 0};
};

// What the updates need, checked against a lattice.
enum class Wall { periodic, pec, pmc };
struct AxisBoundary {
  bool active = false;    // the problem has this axis (inactive axes are ignored)
  Wall wall = Wall::pec;  // what the shared sample 0 is
  bool bloch = false;
  double phase = 0;       // radians: fields(x + L) = exp(i phase) fields(x); 2 pi k L
  int pml_low = 0, pml_high = 0;  // pml slab thickness in cells
};

struct ResolvedBoundaries {
  std::array<AxisBoundary, 3> axis;
  bool complex_fields() const;  // any bloch axis
  bool has_pml() const;
};

// Checks the boundaries against the lattice (ConfigError or ValueError naming the axis, the side
// and what is allowed) and resolves thicknesses to cells.
ResolvedBoundaries resolve(const Boundaries& boundaries, const YeeLattice& lattice);
// Checks a pml profile's values (ValueError naming the field and its allowed range).
void validate(const PmlProfile& profile);

}  // namespace spire::elec
