// The box queries of Solid (geometry.h) that subpixel averaging makes: whether a solid covers a
// voxel fully, not at all or partly, and the fraction it covers.
//
// Inside one box a solid is described by at most three factors, each a half-space (a face, a
// tangent plane) or a slab (two opposite faces); the covered fraction is taken as the product of
// the factors' fractions. That product is exact when one factor is left, or when the factors'
// normals lie along distinct coordinate axes (an axis-aligned block's corner: the box's overlap
// with a box factorises); elsewhere (a rotated corner, a curved surface) the box is halved along
// each axis and the approximation is made only in the small boxes that the surface still crosses.
#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "science/elec/geometry.h"
#include "science/elec/solid_math.h"

namespace spire::elec {

using namespace solid_math;

namespace {

// The mean of f over [lo, hi] (breaks increasing, at most 4), f a polynomial of degree <= 2 between consecutive breaks: Simpson's
// rule on each piece is then exact, and its weights are positive, so there is no cancellation
// however thin the interval is (the formula by inclusion-exclusion loses digits as a width -> 0).
template <class F>
double piecewise_mean(F f, double lo, double hi, const double* breaks, int n_breaks) {
  // breaks come in increasing order, so the points do too.
  double points[6] = {lo};
  int n = 1;
  for (int i = 0; i < n_breaks; ++i)
    if (breaks[i] > lo && breaks[i] < hi) points[n++] = breaks[i];
  points[n++] = hi;
  double sum = 0;
  for (int i = 0; i + 1 < n; ++i) {
    const double a = points[i], b = points[i + 1];
    sum += (b - a) * (f(a) + 4 * f(0.5 * (a + b)) + f(b));
  }
  return sum / (6 * (hi - lo));
}

// The fraction of the unit cube [0,1]^m on which sum_i w_i u_i <= s, for widths w sorted
// decreasing, all > 0 (m = 1, 2, 3): each added width averages the previous function over an
// interval of that width.
double unit_fraction(double s, const double* w, int m) {
  const double total = m == 1 ? w[0] : m == 2 ? w[0] + w[1] : w[0] + w[1] + w[2];
  if (s <= 0) return 0;
  if (s >= total) return 1;
  if (m == 1) return s / w[0];
  // A width far below the others only shifts the plane by its mean (the error is O((w / w0)^2));
  // this also keeps the interval of the mean below from vanishing in rounding.
  if (w[m - 1] <= 1e-12 * w[0]) return unit_fraction(s - 0.5 * w[m - 1], w, m - 1);
  if (m == 2) {
    const double breaks[2] = {0, w[0]};
    return piecewise_mean([&](double x) { return std::clamp(x / w[0], 0.0, 1.0); }, s - w[1], s, breaks, 2);
  }
  const double breaks[4] = {0, w[1], w[0], w[0] + w[1]};
  return piecewise_mean([&](double x) { return unit_fraction(x, w, 2); }, s - w[2], s, breaks, 4);
}

enum class State { outside, inside, crossing };

// The slab |n . (x - c)| <= d against a box.
State slab_state(const Vec3& n, const Vec3& c, double d, const AxisBox& box, double tol) {
  if (!std::isfinite(d)) return State::inside;
  const double t = std::fabs(dot(n, sub(box.center, c)));
  const double e = std::fabs(n.x) * box.half.x + std::fabs(n.y) * box.half.y + std::fabs(n.z) * box.half.z;
  if (t - e > d + tol) return State::outside;
  if (t + e <= d + tol) return State::inside;
  return State::crossing;
}

// Radial extent of a box around an axis line through c: nearest and farthest distance (exact for an
// axis along a coordinate axis, otherwise bounds by the box's circumscribed projection).
void radial_range(const AxisBox& box, const Vec3& c, const Vec3& axis, int axis_index, double* near, double* far) {
  const Vec3 d = sub(box.center, c);
  if (axis_index >= 0) {
    double n2 = 0, f2 = 0;
    for (int a = 0; a < 3; ++a) {
      if (a == axis_index) continue;
      const double dc = std::fabs(d[a]);
      n2 += std::pow(std::max(0.0, dc - box.half[a]), 2);
      f2 += std::pow(dc + box.half[a], 2);
    }
    *near = std::sqrt(n2);
    *far = std::sqrt(f2);
    return;
  }
  const Vec3 w = sub(d, scale(axis, dot(axis, d)));
  double rb = 0;
  for (int corner = 0; corner < 8; ++corner) {
    const Vec3 h{corner & 1 ? box.half.x : -box.half.x, corner & 2 ? box.half.y : -box.half.y,
                 corner & 4 ? box.half.z : -box.half.z};
    rb = std::max(rb, norm(sub(h, scale(axis, dot(axis, h)))));
  }
  *near = std::max(0.0, norm(w) - rb);
  *far = norm(w) + rb;
}

// The mean square distance from q, over the section of the box by the plane n . x = n . q: of the
// whole distance (t null) or of its component along the unit vector t. The section is a polygon
// (3D), a segment (2D: the box has one zero width) or a point; its vertices are where the plane
// crosses the box's edges.
double section_moment(const AxisBox& box, const Vec3& n, const Vec3& q, const Vec3* t) {
  int axes[3], m = 0;
  for (int a = 0; a < 3; ++a)
    if (box.half[a] > 0) axes[m++] = a;
  if (m < 2) return 0;
  auto corner = [&](int bits) {
    Vec3 c = box.center;
    for (int i = 0; i < m; ++i) c[axes[i]] += (bits >> i & 1 ? 1 : -1) * box.half[axes[i]];
    return sub(c, q);  // relative to q
  };
  Vec3 pts[6];
  int k = 0;
  for (int bits = 0; bits < (1 << m); ++bits)
    for (int i = 0; i < m && k < 6; ++i) {
      if (bits >> i & 1) continue;  // each edge once: from its low end along axis i
      const Vec3 a = corner(bits), b = corner(bits | (1 << i));
      const double fa = dot(n, a), fb = dot(n, b);
      if ((fa < 0) == (fb < 0) || fa == fb) continue;
      pts[k++] = add(a, scale(sub(b, a), fa / (fa - fb)));
    }
  auto square = [&](const Vec3& v) { return t ? dot(*t, v) * dot(*t, v) : norm2(v); };
  auto cross_term = [&](const Vec3& u, const Vec3& v) { return t ? dot(*t, u) * dot(*t, v) : dot(u, v); };
  if (k < 2) return 0;
  if (k == 2) return (square(pts[0]) + cross_term(pts[0], pts[1]) + square(pts[1])) / 3;  // a segment
  // A convex polygon: order its vertices around their mean, then sum the triangles of a fan from
  // the mean (int over a triangle abc of x x^T = area / 12 (a a^T + b b^T + c c^T + s s^T),
  // s = a + b + c).
  Vec3 mean;
  for (int i = 0; i < k; ++i) mean = add(mean, scale(pts[i], 1.0 / k));
  const Vec3 e1 = scale(sub(pts[0], mean), 1 / norm(sub(pts[0], mean)));
  const Vec3 e2 = cross(n, e1);
  double angle[6];
  for (int i = 0; i < k; ++i) angle[i] = std::atan2(dot(e2, sub(pts[i], mean)), dot(e1, sub(pts[i], mean)));
  for (int i = 1; i < k; ++i)  // insertion sort by angle
    for (int j = i; j > 0 && angle[j] < angle[j - 1]; --j) std::swap(angle[j], angle[j - 1]), std::swap(pts[j], pts[j - 1]);
  double area = 0, moment = 0;
  for (int i = 0; i < k; ++i) {
    const Vec3& a = pts[i];
    const Vec3& b = pts[(i + 1) % k];
    const double tri = 0.5 * norm(cross(sub(a, mean), sub(b, mean)));
    const Vec3 s3 = add(add(a, b), mean);
    area += tri;
    moment += tri / 12 * (square(a) + square(b) + square(mean) + square(s3));
  }
  return area > 0 ? moment / area : 0;
}

// A unit vector normal to axis (for a degenerate tangent plane direction).
Vec3 any_normal_to(const Vec3& axis) {
  int m = 0;
  for (int a = 1; a < 3; ++a)
    if (std::fabs(axis[a]) < std::fabs(axis[m])) m = a;
  Vec3 e;
  e[m] = 1;
  const Vec3 w = sub(e, scale(axis, axis[m]));
  return scale(w, 1 / norm(w));
}

}  // namespace

double box_fraction_inside(const AxisBox& box, const HalfSpace& plane) {
  // With y = x - centre in [-h, h] and u in [0, 1] (flipped where n_a < 0), n . y = sum_a w_a u_a -
  // sum_a w_a / 2 with w_a = 2 h_a |n_a|.
  double w[3];
  int m = 0;
  double s = plane.offset - dot(plane.normal, box.center);
  if (std::isnan(s)) return 0;
  for (int a = 0; a < 3; ++a) {
    const double wa = 2 * box.half[a] * std::fabs(plane.normal[a]);
    if (wa > 0) {
      w[m++] = wa;
      s += 0.5 * wa;
    }
  }
  if (m == 0) return s >= 0 ? 1 : 0;  // the box is a point, or lies in a plane parallel to this one
  for (int i = 1; i < m; ++i)  // decreasing order (insertion sort of at most three)
    for (int j = i; j > 0 && w[j] > w[j - 1]; --j) std::swap(w[j], w[j - 1]);
  return unit_fraction(s, w, m);
}

struct Solid::Cut {
  Overlap overlap = Overlap::none;
  bool exact = false;
  // Where the factors are exact but for the surface's curvature (a sphere, the side of a cylinder
  // whose other factor is independent of it): that curvature (1 / radius), else 0.
  double curvature = 0;
  struct Factor {
    HalfSpace a, b;
    bool slab = false;
    // A tangent plane of a surface of radius R at q, to be moved in by the mean sag (computed only
    // for the boxes whose fraction is taken): of the whole distance from q, or only along t.
    double radius = 0;
    Vec3 q, t;
    bool along_t = false;
  };
  Factor factor[3];
  int count = 0;

  void add_plane(const HalfSpace& p) { factor[count++] = {p, {}, false, 0, {}, {}, false}; }
  void add_tangent(const HalfSpace& p, double radius, const Vec3& q, const Vec3* t) {
    factor[count++] = {p, {}, false, radius, q, t ? *t : Vec3{}, t != nullptr};
  }
  void add_slab(const Vec3& n, const Vec3& c, double d) {
    factor[count++] = {{n, d + dot(n, c)}, {scale(n, -1), d - dot(n, c)}, true, 0, {}, {}, false};
  }
  double fraction(const AxisBox& box) const {
    double f = 1;
    for (int i = 0; i < count; ++i) {
      const Factor& k = factor[i];
      HalfSpace a = k.a;
      if (k.radius > 0) a.offset -= section_moment(box, a.normal, k.q, k.along_t ? &k.t : nullptr) / (2 * k.radius);
      const double fi = k.slab ? box_fraction_inside(box, a) + box_fraction_inside(box, k.b) - 1
                               : box_fraction_inside(box, a);
      f *= std::clamp(fi, 0.0, 1.0);
    }
    return f;
  }
};

Solid::Cut Solid::cut(const AxisBox& box) const {
  Cut c;
  switch (kind_) {
    case Kind::block: {
      for (int i = 0; i < 3; ++i) {
        const State s = slab_state(normal_[i], center_, half_[i], box, tol_);
        if (s == State::outside) return c;
        if (s == State::crossing) c.add_slab(normal_[i], center_, half_[i]);
      }
      c.overlap = c.count == 0 ? Overlap::full : Overlap::partial;
      c.exact = c.count <= 1 || aligned_;
      return c;
    }
    case Kind::sphere: {
      double n2 = 0, f2 = 0;
      for (int a = 0; a < 3; ++a) {
        const double dc = std::fabs(box.center[a] - center_[a]);
        n2 += std::pow(std::max(0.0, dc - box.half[a]), 2);
        f2 += std::pow(dc + box.half[a], 2);
      }
      const double r2 = (radius_ + tol_) * (radius_ + tol_);
      if (n2 > r2) return c;
      c.overlap = f2 <= r2 ? Overlap::full : Overlap::partial;
      if (c.overlap == Overlap::partial) {
        const Vec3 d = sub(box.center, center_);
        const double dn = norm(d);
        const Vec3 n = dn > 0 ? scale(d, 1 / dn) : Vec3{1, 0, 0};
        // The sphere falls below its tangent plane by rho^2 / (2 R) at a distance rho from the
        // tangent point q: moving the plane in by the mean of that over the plane's section of the
        // box takes the leading (second-order) error out of the flat-surface fraction.
        c.add_tangent({n, dot(n, center_) + radius_}, radius_, add(center_, scale(n, radius_)), nullptr);
        c.curvature = 1 / radius_;
      }
      return c;
    }
    case Kind::cylinder: {
      const State axial = slab_state(axis_, center_, half_height_, box, tol_);
      if (axial == State::outside) return c;
      double near = 0, far = 0;
      radial_range(box, center_, axis_, axis_index_, &near, &far);
      if (near > radius_ + tol_) return c;
      const bool radial_inside = far <= radius_ + tol_;
      if (axial == State::inside && radial_inside) {
        c.overlap = Overlap::full;
        return c;
      }
      c.overlap = Overlap::partial;
      if (axial == State::crossing) c.add_slab(axis_, center_, half_height_);
      if (!radial_inside) {
        const Vec3 d = sub(box.center, center_);
        const Vec3 w = sub(d, scale(axis_, dot(axis_, d)));
        const double wn = norm(w);
        const Vec3 n = wn > 0 ? scale(w, 1 / wn) : any_normal_to(axis_);
        // Curved across the axis only: the sphere's correction, with distances along t = axis x n.
        const Vec3 t = cross(axis_, n);
        c.add_tangent({n, dot(n, center_) + radius_}, radius_, add(center_, scale(n, radius_)), &t);
        // With the axis along a coordinate axis the cap slab and the side depend on different
        // coordinates, so their product is exact for the flat side.
        if (axial != State::crossing || axis_index_ >= 0) c.curvature = 1 / radius_;
      }
      c.exact = radial_inside;
      return c;
    }
    case Kind::prism: {
      const State axial = slab_state(axis_, center_, half_height_, box, tol_);
      if (axial == State::outside) return c;
      const Vec3 d = sub(box.center, center_);
      const double uc = dot(u_, d), vc = dot(v_, d);
      const double hu = std::fabs(u_.x) * box.half.x + std::fabs(u_.y) * box.half.y + std::fabs(u_.z) * box.half.z + tol_;
      const double hv = std::fabs(v_.x) * box.half.x + std::fabs(v_.y) * box.half.y + std::fabs(v_.z) * box.half.z + tol_;
      if (uc + hu < umin_ || uc - hu > umax_ || vc + hv < vmin_ || vc - hv > vmax_) return c;
      const size_t n = pu_.size();
      int crossing = 0, first = -1;
      for (size_t i = 0; i < n && crossing < 2; ++i) {
        const size_t j = (i + 1) % n;
        if (segment_meets_rect(pu_[i], pv_[i], pu_[j], pv_[j], uc - hu, uc + hu, vc - hv, vc + hv)) {
          if (crossing++ == 0) first = int(i);
        }
      }
      if (crossing == 0) {
        if (!point_in_polygon(pu_, pv_, uc, vc)) return c;
        c.overlap = axial == State::inside ? Overlap::full : Overlap::partial;
        if (axial == State::crossing) c.add_slab(axis_, center_, half_height_);
        c.exact = true;
        return c;
      }
      c.overlap = Overlap::partial;
      if (axial == State::crossing) c.add_slab(axis_, center_, half_height_);
      // One edge through the box: inside the box the polygon is that edge's half-plane, exactly.
      // Several (a vertex in the box): the nearest edge's, until the box is small.
      int edge = first;
      if (crossing > 1) polygon_distance(uc, vc, &edge);
      c.add_plane(edge_plane(edge));
      c.exact = crossing == 1 && (axial == State::inside || axis_index_ >= 0);
      return c;
    }
  }
  return c;
}

Solid::Overlap Solid::overlap(const AxisBox& box) const { return cut(box).overlap; }

double Solid::fill(const AxisBox& box, int depth, double tolerance) const {
  const Cut c = cut(box);
  if (c.overlap == Overlap::none) return 0;
  if (c.overlap == Overlap::full) return 1;
  if (c.exact || depth <= 0) return c.fraction(box);
  if (c.curvature > 0) {
    // With the curvature correction the flat-surface fraction of a box of width w errs by at most
    // about 2 (w / R)^4 (measured on spheres and disks: 16 times less per halving); stop once that
    // is below the tolerance.
    const double w = 2 * std::max({box.half.x, box.half.y, box.half.z}) * c.curvature;
    if (2 * w * w * w * w <= tolerance) return c.fraction(box);
  }
  // Halve along each axis the box has; the children are equal, so the fraction is their mean.
  int axes[3], m = 0;
  for (int a = 0; a < 3; ++a)
    if (box.half[a] > 0) axes[m++] = a;
  double sum = 0;
  for (int child = 0; child < (1 << m); ++child) {
    AxisBox b{box.center, scale(box.half, 0.5)};
    for (int i = 0; i < m; ++i) b.center[axes[i]] += (child >> i & 1 ? 0.5 : -0.5) * box.half[axes[i]];
    sum += fill(b, depth - 1, tolerance);
  }
  return sum / double(1 << m);
}

double Solid::fill_fraction(const AxisBox& box, int depth, double tolerance) const {
  SPIRE_CHECK(depth >= 0 && depth <= 12, ValueError, "Solid.fill_fraction: depth must be in 0..12, got ", depth);
  SPIRE_CHECK(tolerance >= 0, ValueError, "Solid.fill_fraction: tolerance must be >= 0, got ", tolerance);
  for (int a = 0; a < 3; ++a)
    SPIRE_CHECK(std::isfinite(box.half[a]) && box.half[a] >= 0 && std::isfinite(box.center[a]), ValueError,
                "Solid.fill_fraction: the box must have a finite centre and finite half-widths >= 0");
  return fill(box, depth, tolerance);
}

}  // namespace spire::elec
