// Periodic cells in reduced form (box.h).
//
// Why the minimum image below is exact: let d* be the nearest image of d, |d*| < w/2 with w the
// smallest face-to-face width. d = d* + n1 a + n2 b + n3 c. Only c has a z part, and
// |d*.z| <= |d*| < w/2 <= cz/2, so rounding d.z / cz gives n3 exactly; then only b and a are left
// and |d*.y| < w/2 <= by/2 (the width across the a-c faces is by cz / sqrt(cy^2 + cz^2) <= by), so
// rounding d.y / by gives n2; likewise n1 from x. Nothing in this uses the tilt bounds: reduced
// form is what makes w, and so the reach of minimum image, as large as the cell allows.
#include "science/sponge/box.h"

#include <cmath>
#include <limits>

#include "engine/core/error.h"

namespace spire::sponge {

namespace {

// Box vectors built from lengths and angles (a CRYST1 record, a barostat's product) land a few
// ulp beyond a tilt bound such as bx = ax/2 at gamma = 60 degrees; the bound is checked with this
// relative slack, which leaves minimum image exact (see above) and the widths unchanged to 1e-12.
constexpr double kTiltSlack = 1e-12;

bool finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

void check_tilt(double tilt, double edge, const char* what, const char* bound) {
  SPIRE_CHECK(std::fabs(tilt) <= 0.5 * edge * (1 + kTiltSlack), ValueError, "Box: ", what, " = ", tilt,
              " is not in reduced form: |", what, "| must be at most ", bound, "/2 = ", 0.5 * edge,
              " (subtract a multiple of the shorter vector first)");
}

}  // namespace

Box Box::orthorhombic(double lx, double ly, double lz) {
  SPIRE_CHECK(std::isfinite(lx) && std::isfinite(ly) && std::isfinite(lz) && lx > 0 && ly > 0 && lz > 0,
              ValueError, "Box: orthorhombic edge lengths must be finite and > 0, got ", lx, " ", ly, " ", lz);
  Box box;
  box.periodic_ = true;
  box.a_ = {lx, 0, 0};
  box.b_ = {0, ly, 0};
  box.c_ = {0, 0, lz};
  return box;
}

Box Box::triclinic(const Vec3& a, const Vec3& b, const Vec3& c) {
  SPIRE_CHECK(finite(a) && finite(b) && finite(c), ValueError, "Box: box vectors must be finite, got a = (", a.x,
              ", ", a.y, ", ", a.z, "), b = (", b.x, ", ", b.y, ", ", b.z, "), c = (", c.x, ", ", c.y, ", ", c.z, ")");
  SPIRE_CHECK(a.y == 0 && a.z == 0, ValueError, "Box: vector a must lie along x (a = (ax, 0, 0)), got a = (", a.x,
              ", ", a.y, ", ", a.z, ")");
  SPIRE_CHECK(b.z == 0, ValueError, "Box: vector b must lie in the xy plane (b = (bx, by, 0)), got b = (", b.x, ", ",
              b.y, ", ", b.z, ")");
  SPIRE_CHECK(a.x > 0, ValueError, "Box: ax must be > 0, got ", a.x);
  SPIRE_CHECK(b.y > 0, ValueError, "Box: by must be > 0, got ", b.y);
  SPIRE_CHECK(c.z > 0, ValueError, "Box: cz must be > 0, got ", c.z);
  check_tilt(b.x, a.x, "bx", "ax");
  check_tilt(c.x, a.x, "cx", "ax");
  check_tilt(c.y, b.y, "cy", "by");
  Box box;
  box.periodic_ = true;
  box.a_ = a;
  box.b_ = b;
  box.c_ = c;
  return box;
}

Vec3 Box::width() const {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if (!periodic_) return {inf, inf, inf};
  if (orthorhombic()) return {a_.x, b_.y, c_.z};
  // Height of each vector over the plane of the other two: V / |area of that face|. The a-b face
  // lies in the xy plane, so the third height is cz exactly.
  double v = volume();
  return {v / norm(cross(b_, c_)), v / norm(cross(c_, a_)), c_.z};
}

double Box::max_cutoff() const {
  Vec3 w = width();
  return 0.5 * std::fmin(w.x, std::fmin(w.y, w.z));
}

Vec3 Box::min_image(Vec3 d) const {
  if (!periodic_) return d;
  // nearbyint: one rounding instruction; ties (exactly half a cell) go either way, both nearest.
  double n3 = std::nearbyint(d.z / c_.z);
  d.x -= n3 * c_.x;
  d.y -= n3 * c_.y;
  d.z -= n3 * c_.z;
  double n2 = std::nearbyint(d.y / b_.y);
  d.x -= n2 * b_.x;
  d.y -= n2 * b_.y;
  d.x -= std::nearbyint(d.x / a_.x) * a_.x;
  return d;
}

Vec3 Box::wrap(Vec3 r) const {
  if (!periodic_) return r;
  // The fractional coordinate along c depends on z alone, along b on y and z, along a on all
  // three, so c, b, a are removed in that order, each by the floor of its own fractional
  // coordinate. Rounding can leave the shifted coordinate a hair below 0 (s a hair below an
  // integer rounds up to it) or at exactly 1 (s + 1 rounds to 1): one more shift by the vector
  // fixes either, and the second case lands on exactly 0, so in orthorhombic boxes every result is
  // in [0, 1) exactly (in triclinic ones, to the round-off of the fractional coordinates).
  auto reduce = [&r](const Vec3& v, auto fractional) {
    r -= std::floor(fractional()) * v;
    if (fractional() < 0) r += v;
    if (fractional() >= 1) r -= v;
  };
  auto sz = [&] { return r.z / c_.z; };
  auto sy = [&] { return (r.y - sz() * c_.y) / b_.y; };
  auto sx = [&] { return (r.x - sy() * b_.x - sz() * c_.x) / a_.x; };
  reduce(c_, sz);
  reduce(b_, sy);
  reduce(a_, sx);
  return r;
}

Vec3 Box::to_fractional(const Vec3& r) const {
  SPIRE_CHECK(periodic_, ValueError, "Box: fractional coordinates need a periodic box");
  double sz = r.z / c_.z;
  double sy = (r.y - sz * c_.y) / b_.y;
  double sx = (r.x - sy * b_.x - sz * c_.x) / a_.x;
  return {sx, sy, sz};
}

Vec3 Box::from_fractional(const Vec3& s) const {
  SPIRE_CHECK(periodic_, ValueError, "Box: fractional coordinates need a periodic box");
  return {s.x * a_.x + s.y * b_.x + s.z * c_.x, s.y * b_.y + s.z * c_.y, s.z * c_.z};
}

Box Box::scaled(const Mat3& mu) const {
  SPIRE_CHECK(periodic_, ValueError, "Box: a non-periodic box cannot be scaled");
  auto apply = [&](const Vec3& v) {
    return Vec3{mu(0, 0) * v.x + mu(0, 1) * v.y + mu(0, 2) * v.z, mu(1, 0) * v.x + mu(1, 1) * v.y + mu(1, 2) * v.z,
                mu(2, 0) * v.x + mu(2, 1) * v.y + mu(2, 2) * v.z};
  };
  return triclinic(apply(a_), apply(b_), apply(c_));
}

Box Box::scaled(double s) const {
  SPIRE_CHECK(periodic_, ValueError, "Box: a non-periodic box cannot be scaled");
  SPIRE_CHECK(std::isfinite(s) && s > 0, ValueError, "Box: scale factor must be finite and > 0, got ", s);
  return triclinic(a_ * s, b_ * s, c_ * s);
}

}  // namespace spire::sponge
