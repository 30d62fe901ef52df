// The periodic cell. Box vectors in the reduced (lower-triangular) form that GROMACS, OpenMM and
// LAMMPS use: a = (ax, 0, 0), b = (bx, by, 0), c = (cx, cy, cz) with ax, by, cz > 0 and
// |bx| <= ax/2, |cx| <= ax/2, |cy| <= by/2 (LAMMPS's xy, xz, yz tilts). Orthorhombic boxes have zero
// off-diagonal parts. A non-periodic box (none()) has no images.
//
// Minimum image in this form (c first, then b, then a, each by rounding the one coordinate that
// vector alone moves) is exact for distances up to half the smallest perpendicular width, which is
// what neighbour lists and cutoffs need (width() and max_cutoff() say how far that is).
#pragma once
#include "science/sponge/vec3.h"

namespace spire::sponge {

class Box {
 public:
  Box() = default;  // non-periodic
  static Box none() { return Box(); }
  static Box orthorhombic(double lx, double ly, double lz);
  // ValueError naming the vector and the rule when the vectors are not in reduced form.
  static Box triclinic(const Vec3& a, const Vec3& b, const Vec3& c);

  bool periodic() const { return periodic_; }
  bool orthorhombic() const { return b_.x == 0 && c_.x == 0 && c_.y == 0; }
  const Vec3& a() const { return a_; }
  const Vec3& b() const { return b_; }
  const Vec3& c() const { return c_; }
  double volume() const { return a_.x * b_.y * c_.z; }
  // Distances between opposite faces (ax, by, cz for orthorhombic boxes; the heights otherwise).
  Vec3 width() const;
  // The largest cutoff (plus skin) that minimum image handles: half the smallest width.
  double max_cutoff() const;

  // The displacement d (r_j - r_i) moved to its nearest image.
  Vec3 min_image(Vec3 d) const;
  // r moved by lattice vectors into the cell spanned by a, b, c from the origin.
  Vec3 wrap(Vec3 r) const;
  Vec3 to_fractional(const Vec3& r) const;    // r = s.x a + s.y b + s.z c
  Vec3 from_fractional(const Vec3& s) const;
  // The box with every vector scaled by mu (row r of mu scales coordinate r: a' = mu a), as a
  // barostat rescales; the result is checked to still be in reduced form.
  Box scaled(const Mat3& mu) const;
  Box scaled(double s) const;

  friend bool operator==(const Box&, const Box&) = default;

 private:
  bool periodic_ = false;
  Vec3 a_, b_, c_;
};

}  // namespace spire::sponge
