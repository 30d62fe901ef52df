// Small vector and planar-polygon helpers shared by the solid geometry (geometry.cpp,
// solid_fill.cpp). Internal to the geometry code; Vec3 is yee.h's.
#pragma once
#include <algorithm>
#include <cmath>
#include <vector>

#include "science/elec/yee.h"

namespace spire::elec::solid_math {

inline Vec3 add(const Vec3& a, const Vec3& b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 sub(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 scale(const Vec3& a, double s) { return {a.x * s, a.y * s, a.z * s}; }
inline double dot(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline double norm2(const Vec3& a) { return dot(a, a); }
inline double norm(const Vec3& a) { return std::sqrt(norm2(a)); }

// Twice the signed area of triangle (a, b, c): > 0 when counter-clockwise.
inline double orient(double ax, double ay, double bx, double by, double cx, double cy) {
  return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

// Whether closed segments ab and cd share a point (touching counts).
inline bool segments_intersect(double ax, double ay, double bx, double by, double cx, double cy, double dx,
                               double dy) {
  const double d1 = orient(cx, cy, dx, dy, ax, ay), d2 = orient(cx, cy, dx, dy, bx, by);
  const double d3 = orient(ax, ay, bx, by, cx, cy), d4 = orient(ax, ay, bx, by, dx, dy);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  auto on = [](double px, double py, double qx, double qy, double rx, double ry) {
    return std::min(px, qx) <= rx && rx <= std::max(px, qx) && std::min(py, qy) <= ry && ry <= std::max(py, qy);
  };
  return (d1 == 0 && on(cx, cy, dx, dy, ax, ay)) || (d2 == 0 && on(cx, cy, dx, dy, bx, by)) ||
         (d3 == 0 && on(ax, ay, bx, by, cx, cy)) || (d4 == 0 && on(ax, ay, bx, by, dx, dy));
}

// Distance from (px, py) to the closed segment (ax, ay)-(bx, by).
inline double segment_distance(double px, double py, double ax, double ay, double bx, double by) {
  const double ux = bx - ax, uy = by - ay;
  const double len2 = ux * ux + uy * uy;
  double t = len2 > 0 ? ((px - ax) * ux + (py - ay) * uy) / len2 : 0.0;
  t = std::clamp(t, 0.0, 1.0);
  return std::hypot(px - (ax + t * ux), py - (ay + t * uy));
}

// Even-odd rule (for a simple polygon the same as inside); points on edges may go either way.
inline bool point_in_polygon(const std::vector<double>& us, const std::vector<double>& vs, double u, double v) {
  bool inside = false;
  const size_t n = us.size();
  for (size_t i = 0, j = n - 1; i < n; j = i++) {
    if ((vs[i] > v) != (vs[j] > v)) {
      const double x = us[j] + (v - vs[j]) * (us[i] - us[j]) / (vs[i] - vs[j]);
      if (u < x) inside = !inside;
    }
  }
  return inside;
}

// Whether the closed segment (ax, ay)-(bx, by) meets the closed rectangle [u0, u1] x [v0, v1]
// (Liang-Barsky clipping).
inline bool segment_meets_rect(double ax, double ay, double bx, double by, double u0, double u1, double v0,
                               double v1) {
  double t0 = 0, t1 = 1;
  const double dx = bx - ax, dy = by - ay;
  const double p[4] = {-dx, dx, -dy, dy};
  const double q[4] = {ax - u0, u1 - ax, ay - v0, v1 - ay};
  for (int i = 0; i < 4; ++i) {
    if (p[i] == 0) {
      if (q[i] < 0) return false;
      continue;
    }
    const double r = q[i] / p[i];
    if (p[i] < 0) {
      if (r > t1) return false;
      t0 = std::max(t0, r);
    } else {
      if (r < t0) return false;
      t1 = std::min(t1, r);
    }
  }
  return t0 <= t1;
}

}  // namespace spire::elec::solid_math
