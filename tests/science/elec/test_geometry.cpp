// Solids and geometry: containment against independent descriptions of each shape (coordinates in
// the block's own axes by Cramer's rule, distances to a tilted axis, an L-shaped polygon as two
// rectangles); the cut fraction of a box against polygon clipping (2D) and the inclusion-exclusion
// formula (3D); fill fractions against exact areas and volumes (a disk's or sphere's intersection
// with a box by integrating the closed-form chord area, a polygon clipped by the box with
// Sutherland-Hodgman, an axis-aligned block's overlap); normals; the later-object-wins rule; and
// errors that name the bad parameter.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "science/elec/geometry.h"

namespace spire::elec {
namespace {

constexpr double kPi = std::numbers::pi;

std::string message_of(auto&& f) {
  try {
    f();
  } catch (const ValueError& e) {
    return e.what();
  }
  return "(no ValueError)";
}

double dot3(const Vec3& a, const Vec3& b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 minus(const Vec3& a, const Vec3& b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
double det3(const Vec3& a, const Vec3& b, const Vec3& c) {
  return a.x * (b.y * c.z - b.z * c.y) - a.y * (b.x * c.z - b.z * c.x) + a.z * (b.x * c.y - b.y * c.x);
}

// ---- independent references -----------------------------------------------------------------

using Polygon = std::vector<std::pair<double, double>>;

double shoelace(const Polygon& p) {
  double a = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const auto& [x0, y0] = p[i];
    const auto& [x1, y1] = p[(i + 1) % p.size()];
    a += x0 * y1 - x1 * y0;
  }
  return 0.5 * std::fabs(a);
}

// Sutherland-Hodgman: the part of `subject` on the side nx x + ny y <= c.
Polygon clip(const Polygon& subject, double nx, double ny, double c) {
  Polygon out;
  for (size_t i = 0; i < subject.size(); ++i) {
    const auto p = subject[i], q = subject[(i + 1) % subject.size()];
    const double fp = nx * p.first + ny * p.second - c, fq = nx * q.first + ny * q.second - c;
    if (fp <= 0) out.push_back(p);
    if ((fp < 0 && fq > 0) || (fp > 0 && fq < 0)) {
      const double t = fp / (fp - fq);
      out.push_back({p.first + t * (q.first - p.first), p.second + t * (q.second - p.second)});
    }
  }
  return out;
}

// Area of a polygon (any simple one) inside the rectangle [x0, x1] x [y0, y1].
double clipped_area(Polygon p, double x0, double x1, double y0, double y1) {
  p = clip(p, 1, 0, x1);
  p = clip(p, -1, 0, -x0);
  p = clip(p, 0, 1, y1);
  p = clip(p, 0, -1, -y0);
  return p.size() < 3 ? 0.0 : shoelace(p);
}

// Area of the disk x^2 + z^2 <= R^2 inside [x0, x1] x [z0, z1]: the chord length integrated in
// closed form (int sqrt(R^2 - x^2) dx = (x sqrt(R^2 - x^2) + R^2 asin(x / R)) / 2) between the
// abscissae where the chord meets the rectangle's sides.
double disk_rect_area(double x0, double x1, double z0, double z1, double R) {
  if (R <= 0) return 0;
  x0 = std::max(x0, -R);
  x1 = std::min(x1, R);
  if (x1 <= x0) return 0;
  auto s = [&](double x) { return std::sqrt(std::max(0.0, R * R - x * x)); };
  auto F = [&](double x) { return 0.5 * (x * s(x) + R * R * std::asin(std::clamp(x / R, -1.0, 1.0))); };
  std::vector<double> pts{x0, x1};
  for (double z : {z0, z1}) {
    if (std::fabs(z) < R) {
      pts.push_back(std::sqrt(R * R - z * z));
      pts.push_back(-std::sqrt(R * R - z * z));
    }
  }
  std::sort(pts.begin(), pts.end());
  double area = 0;
  for (size_t i = 0; i + 1 < pts.size(); ++i) {
    const double a = std::max(pts[i], x0), b = std::min(pts[i + 1], x1);
    if (b <= a) continue;
    const double m = 0.5 * (a + b);
    const bool top_s = s(m) < z1, bottom_s = -s(m) > z0;
    if ((top_s ? s(m) : z1) <= (bottom_s ? -s(m) : z0)) continue;
    area += (top_s ? F(b) - F(a) : z1 * (b - a)) - (bottom_s ? F(a) - F(b) : z0 * (b - a));
  }
  return area;
}

double adaptive_simpson(const std::function<double(double)>& f, double a, double b, double fa, double fm, double fb,
                        double whole, double tol, int depth) {
  const double m = 0.5 * (a + b), flm = f(0.5 * (a + m)), frm = f(0.5 * (m + b));
  const double left = (m - a) / 6 * (fa + 4 * flm + fm), right = (b - m) / 6 * (fm + 4 * frm + fb);
  if (depth <= 0 || std::fabs(left + right - whole) <= 15 * tol) return left + right + (left + right - whole) / 15;
  return adaptive_simpson(f, a, m, fa, flm, fm, left, tol / 2, depth - 1) +
         adaptive_simpson(f, m, b, fm, frm, fb, right, tol / 2, depth - 1);
}

// Volume of the sphere (c, r) inside the box [lo, hi]: the disk-rectangle area of each y-slice,
// integrated over y by adaptive Simpson on 8 panels.
double sphere_box_volume(const Vec3& c, double r, const Vec3& lo, const Vec3& hi) {
  const double y0 = std::max(lo.y, c.y - r), y1 = std::min(hi.y, c.y + r);
  if (y1 <= y0) return 0;
  auto f = [&](double y) {
    const double R = std::sqrt(std::max(0.0, r * r - (y - c.y) * (y - c.y)));
    return disk_rect_area(lo.x - c.x, hi.x - c.x, lo.z - c.z, hi.z - c.z, R);
  };
  double sum = 0;
  for (int i = 0; i < 8; ++i) {
    const double a = y0 + (y1 - y0) * i / 8, b = y0 + (y1 - y0) * (i + 1) / 8;
    const double fa = f(a), fb = f(b), fm = f(0.5 * (a + b));
    sum += adaptive_simpson(f, a, b, fa, fm, fb, (b - a) / 6 * (fa + 4 * fm + fb), 1e-14, 16);
  }
  return sum;
}

// ---- containment -----------------------------------------------------------------------------

TEST(Geometry, BlockContainmentInItsOwnAxes) {
  // Non-orthogonal axes: a point is inside iff its coordinates s in (e1, e2, e3) (unit vectors),
  // found by Cramer's rule, have |s_i| <= size_i / 2.
  const Vec3 e1{1, 0.2, 0}, e2{0.5, 1, 0.3}, e3{0, -0.4, 1};
  const Block b{{0.1, -0.2, 0.3}, {0.8, 0.5, 1.2}, e1, e2, e3};
  const Solid s(b);
  auto unit = [](Vec3 v) {
    const double n = std::sqrt(dot3(v, v));
    return Vec3{v.x / n, v.y / n, v.z / n};
  };
  const Vec3 u1 = unit(e1), u2 = unit(e2), u3 = unit(e3);
  const double D = det3(u1, u2, u3);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> u(-1.2, 1.2);
  int inside = 0;
  for (int t = 0; t < 4000; ++t) {
    const Vec3 p{u(rng), u(rng), u(rng)};
    const Vec3 d = minus(p, b.center);
    const double s1 = det3(d, u2, u3) / D, s2 = det3(u1, d, u3) / D, s3 = det3(u1, u2, d) / D;
    const double margin = std::max({std::fabs(s1) - 0.4, std::fabs(s2) - 0.25, std::fabs(s3) - 0.6});
    if (std::fabs(margin) < 1e-9) continue;
    EXPECT_EQ(s.contains(p), margin < 0) << p.x << " " << p.y << " " << p.z;
    inside += margin < 0;
    if (margin < 0) {
      const AxisBox bb = s.bounds();
      for (int a = 0; a < 3; ++a) EXPECT_LE(std::fabs(p[a] - bb.center[a]), bb.half[a]);
    }
  }
  EXPECT_GT(inside, 100);
  // A square turned by 45 degrees: half-diagonal sqrt(2)/2 along x.
  const Solid diamond(Block{{}, {1, 1, 1}, {1, 1, 0}, {-1, 1, 0}, {0, 0, 1}});
  EXPECT_TRUE(diamond.contains({0.70, 0, 0}));
  EXPECT_FALSE(diamond.contains({0.72, 0, 0}));
  EXPECT_TRUE(diamond.contains({0.35, 0.35, 0}));
  EXPECT_FALSE(diamond.contains({0.36, 0.36, 0}));
}

TEST(Geometry, SphereCylinderAndPrismContainment) {
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  const Solid sphere(Sphere{{0.2, -0.1, 0.05}, 0.7});
  const Vec3 axis{1, 2, -0.5};
  const double an = std::sqrt(dot3(axis, axis));
  const Vec3 a{axis.x / an, axis.y / an, axis.z / an};
  const Solid cyl(Cylinder{{-0.1, 0.2, 0}, 0.4, 1.6, axis});
  // An L: [0, 1] x [0, 0.4] with [0, 0.4] x [0.4, 1], extruded along z from z = -0.2 by 0.5,
  // given clockwise.
  const Solid ell(Prism{{{0, 0, -0.2}, {0, 1, -0.2}, {0.4, 1, -0.2}, {0.4, 0.4, -0.2}, {1, 0.4, -0.2}, {1, 0, -0.2}},
                        0.5, {0, 0, 1}, std::nullopt});
  for (int t = 0; t < 4000; ++t) {
    const Vec3 p{u(rng), u(rng), u(rng)};
    const Vec3 d = minus(p, Vec3{0.2, -0.1, 0.05});
    const double rs = std::sqrt(dot3(d, d));
    if (std::fabs(rs - 0.7) > 1e-9) {
      EXPECT_EQ(sphere.contains(p), rs < 0.7);
    }
    const Vec3 dc = minus(p, Vec3{-0.1, 0.2, 0});
    const double along = dot3(dc, a);
    const Vec3 radial{dc.x - along * a.x, dc.y - along * a.y, dc.z - along * a.z};
    const double rho = std::sqrt(dot3(radial, radial));
    const double mc = std::max(std::fabs(along) - 0.8, rho - 0.4);
    if (std::fabs(mc) > 1e-9) {
      EXPECT_EQ(cyl.contains(p), mc < 0);
    }
    const bool in_plane = (p.x > 0 && p.x < 1 && p.y > 0 && p.y < 0.4) || (p.x > 0 && p.x < 0.4 && p.y > 0 && p.y < 1);
    const bool near_edge = std::fabs(p.x) < 1e-9 || std::fabs(p.y) < 1e-9 || std::fabs(p.x - 0.4) < 1e-9 ||
                           std::fabs(p.y - 0.4) < 1e-9 || std::fabs(p.x - 1) < 1e-9 || std::fabs(p.y - 1) < 1e-9;
    if (!near_edge && std::fabs(p.z + 0.2) > 1e-9 && std::fabs(p.z - 0.3) > 1e-9) {
      EXPECT_EQ(ell.contains(p), in_plane && p.z > -0.2 && p.z < 0.3) << p.x << " " << p.y << " " << p.z;
    }
  }
  // Meep's prism centre: the mean of all top and bottom vertices. A triangle in the yz plane
  // extruded along x by 2, centred at (5, 0, 0): x spans [4, 6].
  const Solid tri(Prism{{{0, 0, 0}, {0, 0.9, 0}, {0, 0, 0.9}}, 2.0, {1, 0, 0}, Vec3{5, 0, 0}});
  EXPECT_TRUE(tri.contains({4.01, 0, 0}));  // the vertices' mean is (0, 0.3, 0.3): shifted to y = z = 0
  EXPECT_TRUE(tri.contains({5.99, -0.29, 0.59}));
  EXPECT_FALSE(tri.contains({6.01, 0, 0}));
  EXPECT_FALSE(tri.contains({5, 0.35, 0.35}));  // beyond the hypotenuse y + z = 0.3
  // An infinite cylinder and a zero-thickness block (a 2D cross-section) cover the plane z = 0.
  EXPECT_TRUE(Solid(Cylinder{{}, 1, kInfinity, {0, 0, 1}}).contains({0.5, 0.5, 1e6}));
  EXPECT_TRUE(Solid(Block{{}, {1, 1, 0}, {1, 0.3, 0}, {-0.3, 1, 0}, {0, 0, 1}}).contains({0.3, 0.2, 0}));
}

// ---- cut fractions ---------------------------------------------------------------------------

TEST(Geometry, BoxCutByAPlaneIsExact) {
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int t = 0; t < 300; ++t) {
    // 2D: a rectangle in the xy plane against clipping.
    const double hx = 0.3 + 0.2 * u(rng), hy = 0.3 + 0.2 * u(rng);
    const double th = kPi * u(rng);
    const Vec3 n{std::cos(th), std::sin(th), 0};
    const double off = 0.5 * u(rng);
    const AxisBox box{{0.1, -0.2, 0}, {hx, hy, 0}};
    const double got = box_fraction_inside(box, {n, off});
    Polygon rect{{0.1 - hx, -0.2 - hy}, {0.1 + hx, -0.2 - hy}, {0.1 + hx, -0.2 + hy}, {0.1 - hx, -0.2 + hy}};
    const Polygon cut = clip(rect, n.x, n.y, off);
    const double expect = (cut.size() < 3 ? 0.0 : shoelace(cut)) / (4 * hx * hy);
    EXPECT_NEAR(got, expect, 1e-13);
    // 3D: inclusion-exclusion, sum over corners of (s - b.u)_+^3 / (6 b1 b2 b3) with signs.
    Vec3 m{u(rng), u(rng), u(rng)};
    const double mn = std::sqrt(dot3(m, m));
    m = {m.x / mn, m.y / mn, m.z / mn};
    const Vec3 h{0.2 + 0.1 * u(rng), 0.2 + 0.1 * u(rng), 0.2 + 0.1 * u(rng)};
    const double o3 = 0.4 * u(rng);
    const double b[3] = {2 * h.x * std::fabs(m.x), 2 * h.y * std::fabs(m.y), 2 * h.z * std::fabs(m.z)};
    const double s = o3 + 0.5 * (b[0] + b[1] + b[2]);
    double v = 0;
    for (int corner = 0; corner < 8; ++corner) {
      double shift = 0;
      int bits = 0;
      for (int a = 0; a < 3; ++a)
        if (corner >> a & 1) shift += b[a], ++bits;
      v += (bits % 2 ? -1 : 1) * std::pow(std::max(0.0, s - shift), 3);
    }
    v /= 6 * b[0] * b[1] * b[2];
    EXPECT_NEAR(box_fraction_inside({{}, h}, {m, o3}), v, 1e-11);
  }
  // Thin boxes and nearly axis-aligned planes stay accurate (no cancellation): the 3D fraction of a
  // box 1e-13 thick along z equals the 2D fraction of its face.
  const Vec3 n{0.6, 0.8 * std::cos(1e-7), 0.8 * std::sin(1e-7)};
  const double f3 = box_fraction_inside({{}, {0.5, 0.5, 1e-13}}, {n, 0.05});
  const double f2 = box_fraction_inside({{}, {0.5, 0.5, 0}}, {n, 0.05});
  EXPECT_NEAR(f3, f2, 1e-15);
  EXPECT_EQ(box_fraction_inside({{0.2, 0, 0}, {0, 0, 0}}, {{1, 0, 0}, 0.2}), 1.0);  // a point on the plane
}

TEST(Geometry, FillFractionsOfFlatShapesAreExact) {
  // One face through the box: exact at depth 0. An axis-aligned block's corner: the overlap of two
  // boxes.
  const Solid big(Block{{0.55, 0, 0}, {1, 8, 8}});  // face at x = 0.05
  EXPECT_NEAR(big.fill_fraction({{0.02, 0.3, 0.1}, {0.05, 0.05, 0.05}}, 0), (0.07 - 0.05) / 0.1, 1e-14);
  const Solid corner(Block{{0.3, 0.4, 0.5}, {0.6, 0.8, 1.0}});  // corner at (0, 0, 0)
  const AxisBox box{{0.013, -0.021, 0.008}, {0.05, 0.05, 0.05}};
  const double expect = (0.013 + 0.05) / 0.1 * (0.05 - 0.021) / 0.1 * (0.008 + 0.05) / 0.1;
  EXPECT_NEAR(corner.fill_fraction(box, 0), expect, 1e-14);
  // A rotated square whose side crosses a 2D voxel: exact; its vertex inside a voxel: converges to
  // the clipped area with the depth.
  const double th = 0.3;
  const Solid square(Block{{0.2, 0.1, 0}, {1, 1, 0}, {std::cos(th), std::sin(th), 0}, {-std::sin(th), std::cos(th), 0}});
  Polygon sq;
  for (int k = 0; k < 4; ++k) {
    const double sx = (k == 0 || k == 3) ? -0.5 : 0.5, sy = k < 2 ? -0.5 : 0.5;
    sq.push_back({0.2 + sx * std::cos(th) - sy * std::sin(th), 0.1 + sx * std::sin(th) + sy * std::cos(th)});
  }
  const double h = 0.05;
  auto area_fraction = [&](double cx, double cy) { return clipped_area(sq, cx - h, cx + h, cy - h, cy + h) / (4 * h * h); };
  const double sx = 0.2 + 0.5 * std::cos(th) - 0.0 * std::sin(th), sy = 0.1 + 0.5 * std::sin(th);  // mid-side
  EXPECT_NEAR(square.fill_fraction({{sx + 0.01, sy - 0.02, 0}, {h, h, 0}}, 0), area_fraction(sx + 0.01, sy - 0.02), 1e-14);
  const auto [vx, vy] = sq[1];
  double last = 1;
  for (int depth : {2, 4, 6}) {
    const double err = std::fabs(square.fill_fraction({{vx - 0.013, vy + 0.007, 0}, {h, h, 0}}, depth) -
                                 area_fraction(vx - 0.013, vy + 0.007));
    EXPECT_LT(err, depth == 2 ? 2e-2 : last);
    last = err;
  }
  EXPECT_LT(last, 1e-3);
  // A non-convex polygon (the L, counter-clockwise this time) against clipping, for voxels along its
  // boundary: exact where one edge crosses, within 1e-3 at depth 6 at vertices (including the
  // reflex one).
  const Polygon ell{{0, 0}, {1, 0}, {1, 0.4}, {0.4, 0.4}, {0.4, 1}, {0, 1}};
  std::vector<Vec3> verts;
  for (const auto& [x, y] : ell) verts.push_back({x, y, 0});
  const Solid prism(Prism{verts, 1.0, {0, 0, 1}, Vec3{0.3, 0.3, 0}});  // shifted: vertex mean (0.3, 0.3)
  const double mx = 2.8 / 6, my = 2.8 / 6;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(-0.03, 0.03);
  for (const auto& [x, y] : Polygon{{0.5, 0}, {1, 0.2}, {0.7, 0.4}, {0.4, 0.7}, {0.4, 0.4}, {1, 0.4}, {0, 1}}) {
    const double cx = x + u(rng), cy = y + u(rng);
    const double expect_f = clipped_area(ell, cx - h, cx + h, cy - h, cy + h) / (4 * h * h);
    const double got = prism.fill_fraction({{cx + 0.3 - mx, cy + 0.3 - my, 0}, {h, h, 0}}, 6);
    EXPECT_NEAR(got, expect_f, 1e-3) << x << " " << y;
  }
}

TEST(Geometry, FillFractionsOfCurvedShapesConverge) {
  // A sphere against the chord-area integral, for voxels straddling its surface; the error shrinks
  // (by about 4 per level at least) with the subdivision depth.
  const Vec3 c{0.01, -0.02, 0.03};
  const double r = 0.5, h = 0.05;
  const Solid sphere(Sphere{c, r});
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0, 1);
  double worst[3] = {0, 0, 0};
  for (int t = 0; t < 8; ++t) {
    const double th = std::acos(2 * u(rng) - 1), ph = 2 * kPi * u(rng), rr = r + 0.1 * (u(rng) - 0.5);
    const Vec3 bc{c.x + rr * std::sin(th) * std::cos(ph), c.y + rr * std::sin(th) * std::sin(ph), c.z + rr * std::cos(th)};
    const double expect = sphere_box_volume(c, r, {bc.x - h, bc.y - h, bc.z - h}, {bc.x + h, bc.y + h, bc.z + h}) / std::pow(2 * h, 3);
    for (int k = 0; k < 3; ++k)
      worst[k] = std::max(worst[k], std::fabs(sphere.fill_fraction({bc, {h, h, h}}, 2 * k + 1) - expect));
  }
  EXPECT_LT(worst[0], 3e-3);
  EXPECT_LT(worst[1], 3e-5);
  EXPECT_LT(worst[2], 1e-6);
  // A cylinder seen in 2D (a disk) against the closed-form disk-rectangle area.
  const Solid disk(Cylinder{{0.1, 0.05, 0}, 0.3, kInfinity, {0, 0, 1}});
  double worst2[2] = {0, 0};
  for (int t = 0; t < 40; ++t) {
    const double ph = 2 * kPi * u(rng), rr = 0.3 + 0.1 * (u(rng) - 0.5);
    const double cx = 0.1 + rr * std::cos(ph), cy = 0.05 + rr * std::sin(ph);
    const double expect = disk_rect_area(cx - h - 0.1, cx + h - 0.1, cy - h - 0.05, cy + h - 0.05, 0.3) / (4 * h * h);
    for (int k = 0; k < 2; ++k)
      worst2[k] = std::max(worst2[k], std::fabs(disk.fill_fraction({{cx, cy, 0}, {h, h, 0}}, 3 + 2 * k) - expect));
  }
  EXPECT_LT(worst2[0], 1e-4);
  EXPECT_LT(worst2[1], 5e-6);
}

// ---- normals, overlap, geometry order, errors ----------------------------------------------------

TEST(Geometry, Normals) {
  const Solid sphere(Sphere{{1, 0, 0}, 0.5});
  const Vec3 ns = sphere.normal({1.3, 0.4, 0});
  EXPECT_NEAR(ns.x, 0.6, 1e-15);
  EXPECT_NEAR(ns.y, 0.8, 1e-15);
  const Vec3 zero = sphere.normal({1, 0, 0});
  EXPECT_EQ(dot3(zero, zero), 0.0);
  const double th = 0.4;
  const Solid rotated(Block{{}, {2, 1, 1}, {std::cos(th), std::sin(th), 0}, {-std::sin(th), std::cos(th), 0}});
  const Vec3 nb = rotated.normal({-0.4 * std::sin(th), 0.4 * std::cos(th), 0.1});  // nearest the +e2 face
  EXPECT_NEAR(nb.x, -std::sin(th), 1e-14);
  EXPECT_NEAR(nb.y, std::cos(th), 1e-14);
  const Solid cyl(Cylinder{{}, 1, 2, {0, 0, 1}});
  EXPECT_NEAR(cyl.normal({0.9, 0, 0.1}).x, 1, 1e-15);   // side nearer
  EXPECT_NEAR(cyl.normal({0.1, 0, -0.95}).z, -1, 1e-15);  // bottom cap nearer
  // Prism edges point outwards whatever the vertex order.
  for (bool reversed : {false, true}) {
    std::vector<Vec3> v{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
    if (reversed) std::swap(v[1], v[2]);
    const Solid tri(Prism{v, 1, {0, 0, 1}, std::nullopt});
    const Vec3 n = tri.normal({0.45, 0.45, 0.5});  // near the hypotenuse
    EXPECT_NEAR(n.x, std::sqrt(0.5), 1e-14);
    EXPECT_NEAR(n.y, std::sqrt(0.5), 1e-14);
    EXPECT_NEAR(tri.normal({0.2, 0.01, 0.5}).y, -1, 1e-14);
  }
}

TEST(Geometry, OverlapAndTheLaterObjectWins) {
  const Solid s(Sphere{{}, 1});
  EXPECT_EQ(s.overlap({{0, 0, 0}, {0.5, 0.5, 0.5}}), Solid::Overlap::full);
  EXPECT_EQ(s.overlap({{0.95, 0, 0}, {0.1, 0.1, 0.1}}), Solid::Overlap::partial);
  EXPECT_EQ(s.overlap({{0.8, 0.8, 0.8}, {0.1, 0.1, 0.1}}), Solid::Overlap::none);
  const Medium glass = Medium::dielectric(2.25), silicon = Medium::dielectric(12);
  Geometry g(Medium::dielectric(1.5));
  g.add(Block{{}, {2, 2, 2}}, glass).add(Sphere{{0.5, 0, 0}, 0.4}, silicon).add(Cylinder{{}, 0.1, 1, {1, 0, 0}}, glass);
  EXPECT_EQ(g.media().size(), 3u);  // default, glass, silicon: the repeated glass is shared
  EXPECT_EQ(g.medium_index(2), g.medium_index(0));
  EXPECT_EQ(g.object_at({0.5, 0.3, 0}), 1);
  EXPECT_EQ(g.object_at({0.5, 0.05, 0}), 2);  // the later cylinder over the sphere
  EXPECT_EQ(g.object_at({3, 0, 0}), -1);
  EXPECT_EQ(g.medium_at({0.6, 0.2, 0.1}).epsilon_diag.x, 12);
  EXPECT_EQ(g.medium_at({3, 0, 0}).epsilon_diag.x, 1.5);
}

TEST(Geometry, BadShapesAreNamed) {
  EXPECT_NE(message_of([] { Solid(Sphere{{}, -1}); }).find("Sphere: radius must be finite and > 0, got -1"), std::string::npos);
  EXPECT_NE(message_of([] { Solid(Sphere{{std::nan(""), 0, 0}, 1}); }).find("Sphere: center.x must be finite"),
            std::string::npos);
  EXPECT_NE(message_of([] { Solid(Block{{}, {1, -1, 1}}); }).find("Block: size.y must be >= 0"), std::string::npos);
  EXPECT_NE(message_of([] { Solid(Block{{}, {1, 1, 1}, {1, 0, 0}, {2, 0, 0}, {0, 0, 1}}); }).find("linearly independent"),
            std::string::npos);
  EXPECT_NE(message_of([] { Solid(Cylinder{{}, 1, 1, {0, 0, 0}}); }).find("Cylinder: axis must be a nonzero vector"),
            std::string::npos);
  EXPECT_NE(message_of([] { Solid(Cylinder{{}, 1, 0, {0, 0, 1}}); }).find("Cylinder: height must be > 0"), std::string::npos);
  EXPECT_NE(message_of([] { Solid(Prism{{{0, 0, 0}, {1, 0, 0}}, 1, {0, 0, 1}, std::nullopt}); }).find("at least 3 vertices"),
            std::string::npos);
  EXPECT_NE(message_of([] { Solid(Prism{{{0, 0, 0}, {1, 0, 0}, {0, 1, 0.1}}, 1, {0, 0, 1}, std::nullopt}); })
                .find("vertices[2] is not in the plane"),
            std::string::npos);
  EXPECT_NE(message_of([] { Solid(Prism{{{0, 0, 0}, {1, 1, 0}, {1, 0, 0}, {0, 1, 0}}, 1, {0, 0, 1}, std::nullopt}); })
                .find("must be simple"),
            std::string::npos);
  EXPECT_NE(message_of([] { Solid(Prism{{{0, 0, 0}, {1, 0, 0}, {2, 0, 0}}, 1, {0, 0, 1}, std::nullopt}); }).find("zero area"),
            std::string::npos);
  Geometry g;
  EXPECT_NE(message_of([&] { g.add(Sphere{{}, 0}, Medium()); }).find("geometry object 0: Sphere: radius"), std::string::npos);
  Medium bad;
  bad.epsilon_diag.y = -3;
  EXPECT_NE(message_of([&] { g.add(Sphere{{}, 1}, bad); }).find("geometry object 0 medium: epsilon_diag.y"),
            std::string::npos);
  EXPECT_NE(message_of([] { Solid(Sphere{{}, 1}).fill_fraction({{}, {-1, 0, 0}}, 2); }).find("half-widths >= 0"),
            std::string::npos);
}

}  // namespace
}  // namespace spire::elec
