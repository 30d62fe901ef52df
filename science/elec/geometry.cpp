// Solids and geometry (geometry.h): validation and derived data of each shape, point containment,
// bounding boxes, surface normals, and the ordered geometry with its table of distinct media. The
// box queries that subpixel averaging makes (overlap, fill fraction) are in solid_fill.cpp.
#include "science/elec/geometry.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "science/elec/solid_math.h"

namespace spire::elec {

using namespace solid_math;

namespace {

const char* axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

void check_point(const Vec3& p, const char* shape, const char* name) {
  for (int a = 0; a < 3; ++a)
    SPIRE_CHECK(std::isfinite(p[a]), ValueError, shape, ": ", name, ".", axis_name(a), " must be finite, got ", p[a]);
}

// A direction (nonzero, finite) made unit length; directions within 1e-14 of a coordinate axis are
// snapped onto it so that aligned shapes take the exact code paths.
Vec3 unit_direction(const Vec3& d, const char* shape, const char* name) {
  check_point(d, shape, name);
  const double n = norm(d);
  SPIRE_CHECK(n > 0, ValueError, shape, ": ", name, " must be a nonzero vector, got (", d.x, ", ", d.y, ", ", d.z, ")");
  Vec3 u = scale(d, 1 / n);
  for (int a = 0; a < 3; ++a) {
    if (std::fabs(std::fabs(u[a]) - 1) < 1e-14) {
      Vec3 e;
      e[a] = u[a] > 0 ? 1 : -1;
      return e;
    }
  }
  return u;
}

// The coordinate axis a unit vector lies along, or -1.
int aligned_axis(const Vec3& u) {
  for (int a = 0; a < 3; ++a)
    if (std::fabs(u[a]) == 1) return a;
  return -1;
}

}  // namespace

Solid::Solid(Shape shape) : shape_(std::move(shape)) {
  double scale_len = 1;  // the size of the problem around the shape, for the boundary tolerance
  if (const Block* b = std::get_if<Block>(&shape_)) {
    kind_ = Kind::block;
    check_point(b->center, "Block", "center");
    for (int a = 0; a < 3; ++a)
      SPIRE_CHECK(b->size[a] >= 0, ValueError, "Block: size.", axis_name(a), " must be >= 0 (+inf allowed), got ", b->size[a]);
    const Vec3 e[3] = {unit_direction(b->e1, "Block", "e1"), unit_direction(b->e2, "Block", "e2"),
                       unit_direction(b->e3, "Block", "e3")};
    const double det = dot(e[0], cross(e[1], e[2]));
    SPIRE_CHECK(std::fabs(det) > 1e-12, ValueError, "Block: the axes e1, e2, e3 must be linearly independent (det = ", det, ")");
    center_ = b->center;
    aligned_ = true;
    for (int i = 0; i < 3; ++i) {
      // The reciprocal vector g_i (g_i . e_j = delta_ij) is normal to the two faces s_i = +-size_i/2,
      // which lie (size_i / 2) / |g_i| from the centre.
      const Vec3 g = scale(cross(e[(i + 1) % 3], e[(i + 2) % 3]), 1 / det);
      const double gn = norm(g);
      normal_[i] = unit_direction(g, "Block", "face normal");
      half_[i] = 0.5 * b->size[i] / gn;
      aligned_ = aligned_ && aligned_axis(normal_[i]) >= 0;
      if (std::isfinite(b->size[i])) scale_len = std::max(scale_len, b->size[i]);
    }
    for (int a = 0; a < 3; ++a) scale_len = std::max(scale_len, std::fabs(center_[a]));
  } else if (const Sphere* s = std::get_if<Sphere>(&shape_)) {
    kind_ = Kind::sphere;
    check_point(s->center, "Sphere", "center");
    SPIRE_CHECK(std::isfinite(s->radius) && s->radius > 0, ValueError, "Sphere: radius must be finite and > 0, got ", s->radius);
    center_ = s->center;
    radius_ = s->radius;
    scale_len = std::max({scale_len, radius_, std::fabs(center_.x), std::fabs(center_.y), std::fabs(center_.z)});
  } else if (const Cylinder* c = std::get_if<Cylinder>(&shape_)) {
    kind_ = Kind::cylinder;
    check_point(c->center, "Cylinder", "center");
    SPIRE_CHECK(std::isfinite(c->radius) && c->radius > 0, ValueError, "Cylinder: radius must be finite and > 0, got ", c->radius);
    SPIRE_CHECK(c->height > 0, ValueError, "Cylinder: height must be > 0 (+inf allowed), got ", c->height);
    center_ = c->center;
    radius_ = c->radius;
    axis_ = unit_direction(c->axis, "Cylinder", "axis");
    axis_index_ = aligned_axis(axis_);
    half_height_ = 0.5 * c->height;
    scale_len = std::max({scale_len, radius_, std::fabs(center_.x), std::fabs(center_.y), std::fabs(center_.z)});
    if (std::isfinite(c->height)) scale_len = std::max(scale_len, c->height);
  } else {
    kind_ = Kind::prism;
    const Prism& p = std::get<Prism>(shape_);
    const size_t n = p.vertices.size();
    SPIRE_CHECK(n >= 3, ValueError, "Prism: at least 3 vertices are needed, got ", n);
    for (size_t i = 0; i < n; ++i) {
      for (int a = 0; a < 3; ++a)
        SPIRE_CHECK(std::isfinite(p.vertices[i][a]), ValueError, "Prism: vertices[", i, "].", axis_name(a),
                    " must be finite, got ", p.vertices[i][a]);
    }
    SPIRE_CHECK(p.height > 0, ValueError, "Prism: height must be > 0 (+inf allowed), got ", p.height);
    axis_ = unit_direction(p.axis, "Prism", "axis");
    axis_index_ = aligned_axis(axis_);
    if (axis_index_ >= 0) {
      // In-plane axes in cyclic order, so a prism along z has (u, v) = (x, y).
      u_ = Vec3{};
      v_ = Vec3{};
      u_[(axis_index_ + 1) % 3] = 1;
      v_[(axis_index_ + 2) % 3] = 1;
    } else {
      int m = 0;
      for (int a = 1; a < 3; ++a)
        if (std::fabs(axis_[a]) < std::fabs(axis_[m])) m = a;
      Vec3 e;
      e[m] = 1;
      u_ = scale(cross(axis_, e), 1 / norm(cross(axis_, e)));
      v_ = cross(axis_, u_);
    }
    Vec3 mean;
    for (const Vec3& v : p.vertices) mean = add(mean, scale(v, 1.0 / double(n)));
    double extent = 0;
    for (const Vec3& v : p.vertices) extent = std::max(extent, norm(sub(v, mean)));
    scale_len = std::max({scale_len, extent, std::fabs(mean.x), std::fabs(mean.y), std::fabs(mean.z)});
    for (size_t i = 0; i < n; ++i) {
      const double off = dot(axis_, sub(p.vertices[i], p.vertices[0]));
      SPIRE_CHECK(std::fabs(off) <= 1e-9 * scale_len, ValueError, "Prism: vertices[", i,
                  "] is not in the plane through vertices[0] normal to the axis (", off, " off it)");
      pu_.push_back(dot(u_, sub(p.vertices[i], mean)));
      pv_.push_back(dot(v_, sub(p.vertices[i], mean)));
    }
    double area2 = 0;
    for (size_t i = 0; i < n; ++i) {
      const size_t j = (i + 1) % n;
      area2 += pu_[i] * pv_[j] - pu_[j] * pv_[i];
      SPIRE_CHECK(pu_[i] != pu_[j] || pv_[i] != pv_[j], ValueError, "Prism: vertices[", i, "] and vertices[", j,
                  "] coincide (zero-length edge)");
    }
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = i + 1; j < n; ++j) {
        if (j == i + 1 || (i == 0 && j == n - 1)) continue;  // adjacent edges share a vertex
        SPIRE_CHECK(!segments_intersect(pu_[i], pv_[i], pu_[(i + 1) % n], pv_[(i + 1) % n], pu_[j], pv_[j],
                                        pu_[(j + 1) % n], pv_[(j + 1) % n]),
                    ValueError, "Prism: edges ", i, " and ", j, " of the polygon cross (it must be simple)");
      }
    }
    SPIRE_CHECK(std::fabs(area2) > 1e-14 * extent * extent, ValueError, "Prism: the polygon has zero area");
    orientation_ = area2 > 0 ? 1 : -1;
    umin_ = *std::min_element(pu_.begin(), pu_.end());
    umax_ = *std::max_element(pu_.begin(), pu_.end());
    vmin_ = *std::min_element(pv_.begin(), pv_.end());
    vmax_ = *std::max_element(pv_.begin(), pv_.end());
    half_height_ = 0.5 * p.height;
    if (p.center) {
      check_point(*p.center, "Prism", "center");
      // Meep: the centre is the mean of all top and bottom vertices.
      center_ = *p.center;
    } else {
      // The vertices are the bottom face; an infinite prism is centred on their plane.
      center_ = std::isfinite(p.height) ? add(mean, scale(axis_, half_height_)) : mean;
    }
    if (std::isfinite(p.height)) scale_len = std::max(scale_len, p.height);
  }
  tol_ = 1e-12 * scale_len;
}

Solid Solid::translated(const Vec3& d) const {
  Shape s = shape_;
  if (Block* b = std::get_if<Block>(&s)) b->center = add(b->center, d);
  if (Sphere* p = std::get_if<Sphere>(&s)) p->center = add(p->center, d);
  if (Cylinder* c = std::get_if<Cylinder>(&s)) c->center = add(c->center, d);
  if (Prism* p = std::get_if<Prism>(&s)) {
    for (Vec3& v : p->vertices) v = add(v, d);
    if (p->center) p->center = add(*p->center, d);
  }
  return Solid(std::move(s));
}

double Solid::polygon_distance(double u, double v, int* edge) const {
  const size_t n = pu_.size();
  double best = kInfinity;
  for (size_t i = 0; i < n; ++i) {
    const size_t j = (i + 1) % n;
    const double d = segment_distance(u, v, pu_[i], pv_[i], pu_[j], pv_[j]);
    if (d < best) {
      best = d;
      if (edge) *edge = int(i);
    }
  }
  return best;
}

bool Solid::polygon_contains(double u, double v) const {
  if (u < umin_ - tol_ || u > umax_ + tol_ || v < vmin_ - tol_ || v > vmax_ + tol_) return false;
  return point_in_polygon(pu_, pv_, u, v) || polygon_distance(u, v, nullptr) <= tol_;
}

HalfSpace Solid::edge_plane(int i) const {
  const size_t n = pu_.size();
  const size_t j = (size_t(i) + 1) % n;
  const double du = pu_[j] - pu_[size_t(i)], dv = pv_[j] - pv_[size_t(i)];
  const double len = std::hypot(du, dv);
  // Outward in-plane normal of an edge of a counter-clockwise polygon: (dv, -du) / len.
  const double nu = orientation_ * dv / len, nv = -orientation_ * du / len;
  const Vec3 n3 = add(scale(u_, nu), scale(v_, nv));
  return {n3, nu * pu_[size_t(i)] + nv * pv_[size_t(i)] + dot(n3, center_)};
}

bool Solid::contains(const Vec3& p) const {
  const Vec3 d = sub(p, center_);
  switch (kind_) {
    case Kind::block:
      for (int i = 0; i < 3; ++i)
        if (std::fabs(dot(normal_[i], d)) > half_[i] + tol_) return false;
      return true;
    case Kind::sphere: return norm2(d) <= (radius_ + tol_) * (radius_ + tol_);
    case Kind::cylinder: {
      const double t = dot(axis_, d);
      if (std::fabs(t) > half_height_ + tol_) return false;
      return norm2(sub(d, scale(axis_, t))) <= (radius_ + tol_) * (radius_ + tol_);
    }
    case Kind::prism:
      if (std::fabs(dot(axis_, d)) > half_height_ + tol_) return false;
      return polygon_contains(dot(u_, d), dot(v_, d));
  }
  return false;
}

AxisBox Solid::bounds() const {
  AxisBox b{center_, {}};
  switch (kind_) {
    case Kind::block: {
      const Block& s = std::get<Block>(shape_);
      const Vec3 e[3] = {scale(s.e1, 1 / norm(s.e1)), scale(s.e2, 1 / norm(s.e2)), scale(s.e3, 1 / norm(s.e3))};
      for (int a = 0; a < 3; ++a)
        for (int i = 0; i < 3; ++i)
          if (e[i][a] != 0) b.half[a] += std::fabs(e[i][a]) * 0.5 * s.size[i];
      break;
    }
    case Kind::sphere: b.half = {radius_, radius_, radius_}; break;
    case Kind::cylinder:
      for (int a = 0; a < 3; ++a) {
        const double along = axis_[a] != 0 ? std::fabs(axis_[a]) * half_height_ : 0.0;
        b.half[a] = along + radius_ * std::sqrt(std::max(0.0, 1 - axis_[a] * axis_[a]));
      }
      break;
    case Kind::prism: {
      Vec3 lo{kInfinity, kInfinity, kInfinity}, hi{-kInfinity, -kInfinity, -kInfinity};
      for (size_t i = 0; i < pu_.size(); ++i) {
        const Vec3 q = add(center_, add(scale(u_, pu_[i]), scale(v_, pv_[i])));
        for (int a = 0; a < 3; ++a) {
          const double along = axis_[a] != 0 ? std::fabs(axis_[a]) * half_height_ : 0.0;
          lo[a] = std::min(lo[a], q[a] - along);
          hi[a] = std::max(hi[a], q[a] + along);
        }
      }
      for (int a = 0; a < 3; ++a) {
        b.center[a] = std::isfinite(hi[a] - lo[a]) ? 0.5 * (lo[a] + hi[a]) : center_[a];
        b.half[a] = 0.5 * (hi[a] - lo[a]);
      }
      break;
    }
  }
  for (int a = 0; a < 3; ++a) b.half[a] += tol_;
  return b;
}

Vec3 Solid::normal(const Vec3& p) const {
  const Vec3 d = sub(p, center_);
  switch (kind_) {
    case Kind::block: {
      // The face the point is nearest to (inside) or farthest beyond (outside).
      int best = -1;
      double best_s = -kInfinity;
      for (int i = 0; i < 3; ++i) {
        if (!std::isfinite(half_[i])) continue;
        const double s = std::fabs(dot(normal_[i], d)) - half_[i];
        if (s > best_s) best_s = s, best = i;
      }
      if (best < 0) return {};
      return dot(normal_[best], d) < 0 ? scale(normal_[best], -1) : normal_[best];
    }
    case Kind::sphere: {
      const double r = norm(d);
      return r > 0 ? scale(d, 1 / r) : Vec3{};
    }
    case Kind::cylinder:
    case Kind::prism: {
      const double t = dot(axis_, d);
      const double s_axial = std::fabs(t) - half_height_;  // -inf for an infinite height
      double s_side;
      Vec3 n_side;
      if (kind_ == Kind::cylinder) {
        const Vec3 w = sub(d, scale(axis_, t));
        const double rho = norm(w);
        s_side = rho - radius_;
        n_side = rho > 0 ? scale(w, 1 / rho) : Vec3{};
      } else {
        const double pu = dot(u_, d), pv = dot(v_, d);
        int edge = 0;
        const double dist = polygon_distance(pu, pv, &edge);
        s_side = polygon_contains(pu, pv) ? -dist : dist;
        n_side = edge_plane(edge).normal;
      }
      if (s_axial > s_side) return t < 0 ? scale(axis_, -1) : axis_;
      return n_side;
    }
  }
  return {};
}

Geometry::Geometry(Medium default_medium, const std::vector<GeometricObject>& objects) {
  default_medium.validate("Geometry: default medium");
  media_.push_back(std::move(default_medium));
  for (const GeometricObject& o : objects) add(o.shape, o.medium);
}

Geometry& Geometry::add(const Shape& shape, const Medium& medium) {
  const std::string where = detail::cat("geometry object ", solids_.size());
  medium.validate(where + " medium");
  try {
    solids_.emplace_back(shape);
  } catch (const ValueError& e) {
    throw ValueError(detail::cat(where, ": ", e.what()));
  }
  int index = -1;
  for (size_t i = 0; i < media_.size() && index < 0; ++i)
    if (same_medium(media_[i], medium)) index = int(i);
  if (index < 0) {
    index = int(media_.size());
    media_.push_back(medium);
  }
  medium_of_.push_back(index);
  return *this;
}

int Geometry::object_at(const Vec3& p) const {
  for (size_t i = solids_.size(); i-- > 0;)
    if (solids_[i].contains(p)) return int(i);
  return -1;
}

const Medium& Geometry::medium_at(const Vec3& p) const {
  const int o = object_at(p);
  return media_[size_t(o < 0 ? 0 : medium_of_[size_t(o)])];
}

}  // namespace spire::elec
