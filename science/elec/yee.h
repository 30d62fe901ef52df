// The Yee lattice of an FDTD problem, in Meep's normalised units: c = 1, lengths in a unit a that
// the user chooses (a = 1 um: wavelengths in um), frequencies in c/a, time in a/c (units.h converts
// to SI). The computational cell is centred on the origin and spans [-size/2, size/2] along every
// axis the problem has; a grid cell is dx = 1/resolution wide along each of them.
//
// Staggering (Yee 1966; Meep's layout): in grid cell (i, j, k), whose low corner is at
// origin + (i, j, k) dx,
//   E_c sits half a cell along its own axis c:           Ex at (i + 1/2, j, k) dx
//   H_c sits half a cell along the two axes other than c: Hx at (i, j + 1/2, k + 1/2) dx
// so every E component is surrounded by the H components of its curl and vice versa. The fields
// D and B (what the curl equations update: Meep's D/B formulation, in which the constitutive step
// E = eps^-1 (D - P) handles materials and dispersion) sit where E and H do.
//
// Dimensions: 1D problems run along z with Ex and Hy (Meep's 1D); 2D problems lie in the xy plane
// as TM (Ez, Hx, Hy: E out of the plane) or TE (Hz, Ex, Ey); 3D has all six. Axes a problem does
// not have count one cell and have no extent.
//
// Storage: every component is an array of n_x * n_y * n_z samples, sample (i, j, k) at index
// (i * n_y + j) * n_z + k (z fastest: the innermost loop of the updates is unit-stride). A lattice
// of n cells along an axis stores n samples; the sample at index n (the far wall) is the sample at
// index 0: with periodic boundaries that is the wrap, with PEC or PMC walls both are the wall's
// zero tangential field.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace spire::elec {

struct Vec3 {
  double x = 0, y = 0, z = 0;
  double& operator[](int a) { return a == 0 ? x : a == 1 ? y : z; }
  double operator[](int a) const { return a == 0 ? x : a == 1 ? y : z; }
};

enum class Dimensions { one, two_tm, two_te, three };
// "1d", "2d_tm" ("tm"), "2d_te" ("te"), "3d"; ConfigError naming them otherwise.
Dimensions parse_dimensions(const std::string& text);
std::string to_string(Dimensions d);

enum class Component : int { Ex = 0, Ey = 1, Ez = 2, Hx = 3, Hy = 4, Hz = 5 };
std::string to_string(Component c);
inline bool is_electric(Component c) { return int(c) < 3; }
// The axis a component points along: 0, 1, 2.
inline int axis_of(Component c) { return int(c) % 3; }

class YeeLattice {
 public:
  // size: the cell's extent along x, y, z in a (only the axes the problem has are read; they must
  // be > 0), resolution > 0 cells per a. Each extent is rounded to a whole number of cells (at
  // least 1). ValueError naming the value otherwise.
  YeeLattice(Dimensions dims, Vec3 size, double resolution);

  Dimensions dimensions() const { return dims_; }
  double resolution() const { return resolution_; }
  double dx() const { return 1 / resolution_; }
  // Cells (= samples) along axis a; 1 for an axis the problem does not have.
  int64_t n(int axis) const { return n_[size_t(axis)]; }
  const std::array<int64_t, 3>& shape() const { return n_; }
  int64_t samples() const { return n_[0] * n_[1] * n_[2]; }
  // Whether the problem has axis a (x, y for 2D; z for 1D; all for 3D).
  bool has_axis(int axis) const { return has_axis_[size_t(axis)]; }
  // The cell's extent, whole cells: n(a) dx along axes it has, 0 along others.
  Vec3 size() const;
  // The components the problem carries (1D: Ex, Hy; TM: Ez, Hx, Hy; TE: Ex, Ey, Hz; 3D: all six).
  const std::vector<Component>& components() const { return components_; }
  bool has(Component c) const;

  int64_t index(int64_t i, int64_t j, int64_t k) const { return (i * n_[1] + j) * n_[2] + k; }
  // Where sample (i, j, k) of component c is, in a: origin -size/2 plus the staggering above
  // (half-cell offsets only along axes the problem has).
  Vec3 position(Component c, int64_t i, int64_t j, int64_t k) const;
  // The half-cell offsets of component c along each axis, in cells (0 or 0.5).
  Vec3 offset(Component c) const;

 private:
  Dimensions dims_;
  double resolution_;
  std::array<int64_t, 3> n_{1, 1, 1};
  std::array<bool, 3> has_axis_{false, false, false};
  std::vector<Component> components_;
};

}  // namespace spire::elec
