// Geometry of an FDTD problem as Meep describes it: an ordered list of solid objects, each with a
// medium, over a default medium; where objects overlap the later one wins (Meep's rule). Lengths in
// the unit a (yee.h). In 2D problems the geometry is the cross-section in the plane z = 0 and in 1D
// the line x = y = 0 (Meep's convention: a Block of size z 0 or a Prism whose bottom lies in z = 0
// covers the plane; object boundaries are closed, with a relative tolerance of 1e-12).
//
// The shapes (Meep's Block, Sphere, Cylinder, Prism):
//   Block     centre, size (>= 0, +inf allowed) along its axes e1, e2, e3 (any independent
//             directions; their lengths are ignored): {centre + sum_i s_i e_i : |s_i| <= size_i / 2}.
//   Sphere    centre, radius.
//   Cylinder  centre, radius, height (+inf: infinitely long), axis.
//   Prism     a simple polygon (vertices in a plane normal to axis, either orientation, convex or
//             not) extruded by height along axis. Without a centre the vertices are the bottom face
//             (Meep); with a centre that point is the mean of all top and bottom vertices. An infinite
//             height extends both ways.
//
// Subpixel averaging needs, per voxel (an axis-aligned box, zero wide along axes the problem does
// not have), whether an object covers it fully, not at all or partly, the fraction it covers and the
// normal of its surface. Solid answers these analytically where it can:
//   - a box cut by one plane (a block face, a prism side or cap): the exact cut volume;
//   - boxes meeting several faces of an axis-aligned block or prism: exact products of slabs;
//   - curved surfaces and corners of rotated shapes: the box is halved along each axis up to `depth`
//     times where the surface passes, and in the last boxes the surface is taken as the plane
//     tangent to it at the point nearest the box centre, moved inwards by the mean sag of the
//     surface below it over the plane's section of the box (rho^2 / 2R at distance rho from the
//     tangent point), which removes the leading error: the fraction then errs by at most about
//     2 (w / R)^4 in a box of width w.
#pragma once
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "science/elec/medium.h"
#include "science/elec/yee.h"

namespace spire::elec {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Block {
  Vec3 center;
  Vec3 size;
  Vec3 e1{1, 0, 0}, e2{0, 1, 0}, e3{0, 0, 1};
};

struct Sphere {
  Vec3 center;
  double radius = 0;
};

struct Cylinder {
  Vec3 center;
  double radius = 0;
  double height = kInfinity;
  Vec3 axis{0, 0, 1};
};

struct Prism {
  std::vector<Vec3> vertices;
  double height = 0;
  Vec3 axis{0, 0, 1};
  std::optional<Vec3> center;
};

using Shape = std::variant<Block, Sphere, Cylinder, Prism>;

// An axis-aligned box: centre and half-widths (>= 0; 0 along axes a problem does not have).
struct AxisBox {
  Vec3 center;
  Vec3 half;
};

// The inside of a plane: {x : normal . x <= offset}, normal a unit vector.
struct HalfSpace {
  Vec3 normal;
  double offset = 0;
};

// The fraction of box on the inside of the plane, exactly (the volume of a box cut by a plane; the
// box's zero-width axes drop out, so this is an area or length fraction in 2D and 1D).
double box_fraction_inside(const AxisBox& box, const HalfSpace& plane);

// A shape prepared for the queries above (validated, with its derived data precomputed).
class Solid {
 public:
  enum class Overlap { none, full, partial };

  // ValueError naming the shape and parameter: sizes and radii finite (heights and Block sizes may
  // be +inf) and >= 0 (radius, height > 0), axes nonzero and a Block's axes independent, Prism
  // vertices (at least 3, finite) in one plane normal to the axis, forming a simple polygon of
  // nonzero area.
  explicit Solid(Shape shape);

  const Shape& shape() const { return shape_; }
  bool contains(const Vec3& p) const;
  // An axis-aligned box holding the solid (infinite half-widths where it is unbounded).
  AxisBox bounds() const;
  // The outward unit normal of the surface nearest p (the face nearest p for a block or prism);
  // the zero vector where there is none (the centre of a sphere, a point on a cylinder's axis
  // nearer the side than the caps).
  Vec3 normal(const Vec3& p) const;
  // Whether the solid covers box fully, not at all or partly (partly may be answered for a box that
  // only touches the surface or, for tilted cylinders and prisms, lies just outside it).
  Overlap overlap(const AxisBox& box) const;
  // The fraction of box inside the solid (header comment: exact for flat cuts, tangent planes in
  // boxes halved up to `depth` times elsewhere). Boxes crossed by a smooth curved surface stop
  // being halved once the estimated error of the flat-surface fraction, 2 (w / R)^4 for width w
  // and radius of curvature R, is below `tolerance` (0: always halve `depth` times).
  double fill_fraction(const AxisBox& box, int depth, double tolerance = 0) const;
  // The same solid moved by d (periodic images).
  Solid translated(const Vec3& d) const;

  enum class Kind { block, sphere, cylinder, prism };

 private:
  struct Cut;  // the solid's description inside one box (overlap and its local planes)
  Cut cut(const AxisBox& box) const;
  double fill(const AxisBox& box, int depth, double tolerance) const;
  // Prism helpers, in the polygon's (u, v) coordinates relative to the centre: the distance to the
  // nearest edge (and which), closed containment, and the inner side of edge i's line as a 3D
  // half-space (its normal the outward normal of the edge).
  double polygon_distance(double u, double v, int* edge) const;
  bool polygon_contains(double u, double v) const;
  HalfSpace edge_plane(int i) const;

  Shape shape_;
  Kind kind_;
  // Derived data. Block: centre, unit face normals, half-distances between opposite faces, whether
  // the faces are normal to the coordinate axes. Sphere/Cylinder: centre, radius, unit axis, half
  // height. Prism: origin (centre of the extrusion), axis, in-plane basis (u, v), polygon in (u, v)
  // with its outward orientation and bounding rectangle.
  Vec3 center_;
  Vec3 normal_[3];
  double half_[3] = {0, 0, 0};
  bool aligned_ = false;
  double radius_ = 0;
  Vec3 axis_;
  double half_height_ = 0;
  int axis_index_ = -1;  // cylinder or prism axis along a coordinate axis: its index
  Vec3 u_, v_;
  std::vector<double> pu_, pv_;
  double orientation_ = 1;  // +1 for a counter-clockwise polygon in (u, v), -1 otherwise
  double umin_ = 0, umax_ = 0, vmin_ = 0, vmax_ = 0;
  double tol_ = 0;  // absolute tolerance of the closed boundary
};

struct GeometricObject {
  Shape shape;
  Medium medium;
};

class Geometry {
 public:
  explicit Geometry(Medium default_medium = Medium::vacuum(), const std::vector<GeometricObject>& objects = {});
  // Appends an object (it wins over the earlier ones where they overlap). ValueError naming the
  // object's index and the bad shape or medium parameter.
  Geometry& add(const Shape& shape, const Medium& medium);

  size_t size() const { return solids_.size(); }
  const Solid& solid(size_t i) const { return solids_[i]; }
  const Medium& default_medium() const { return media_[0]; }
  // The distinct media: index 0 the default medium, then each new medium in order of appearance.
  const std::vector<Medium>& media() const { return media_; }
  // The index into media() of object i's medium.
  int medium_index(size_t i) const { return medium_of_[i]; }

  // The last object containing p, or -1 where only the default medium is.
  int object_at(const Vec3& p) const;
  const Medium& medium_at(const Vec3& p) const;

 private:
  std::vector<Solid> solids_;
  std::vector<int> medium_of_;
  std::vector<Medium> media_;
};

}  // namespace spire::elec
