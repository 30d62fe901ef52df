// Subpixel sampling: at a flat interface at an arbitrary offset inside a cell the component along
// the normal gets the harmonic mean and the components across it the arithmetic mean, exactly (fill
// fraction from the offset, or from clipping the voxel for an oblique interface); anisotropic media
// and conductivities at an axis-aligned interface; a sphere's and a disk's volume integrals of eps
// and of a susceptibility's strength (sum over samples times the voxel volume) against the exact
// volume, far closer than plain sampling; periodic images; perfect conductors never averaged; the
// same bits on 1 and 2 threads.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/threads.h"
#include "science/elec/subpixel.h"

namespace spire::elec {
namespace {

constexpr double kPi = std::numbers::pi;

size_t idx(Component c) { return size_t(int(c)); }

// The fraction of the segment [x - dx/2, x + dx/2] beyond x0.
double beyond(double x, double dx, double x0) { return std::clamp((x + 0.5 * dx - x0) / dx, 0.0, 1.0); }

TEST(Subpixel, FlatInterfaceGivesHarmonicAndArithmeticMeans) {
  // 2D TE (Ex, Ey, Hz): eps 12 for x > x0, eps 2 elsewhere; x0 is 0.37 of a cell past a grid line.
  const double res = 10, dx = 1 / res, x0 = 0.037, ea = 12, eb = 2;
  const YeeLattice lat(Dimensions::two_te, {2, 2, 0}, res);
  Geometry g(Medium::dielectric(eb));
  g.add(Block{{x0 + 5, 0, 0}, {10, kInfinity, kInfinity}}, Medium::dielectric(ea));
  const MaterialArrays m = sample_materials(lat, g);
  int averaged = 0;
  for (int64_t i = 0; i < lat.n(0); ++i)
    for (int64_t j = 0; j < lat.n(1); ++j) {
      const int64_t s = lat.index(i, j, 0);
      const double fx = beyond(lat.position(Component::Ex, i, j, 0).x, dx, x0);
      const double fy = beyond(lat.position(Component::Ey, i, j, 0).x, dx, x0);
      // Ex is along the normal: <1/eps>. Ey is across it: 1 / <eps>.
      EXPECT_NEAR(m.inverse[idx(Component::Ex)][size_t(s)], fx / ea + (1 - fx) / eb, 1e-15);
      EXPECT_NEAR(m.inverse[idx(Component::Ey)][size_t(s)], 1 / (fy * ea + (1 - fy) * eb), 1e-15);
      EXPECT_EQ(m.inverse[idx(Component::Hz)][size_t(s)], 1.0);
      averaged += (fx > 0 && fx < 1) + (fy > 0 && fy < 1);
    }
  EXPECT_EQ(averaged, 2 * int(lat.n(1)));  // one column of each component straddles the interface
  EXPECT_TRUE(m.conductivity[0].empty());

  // 3D, interface normal to z: Ez harmonic, Ex and Ey arithmetic.
  const YeeLattice lat3(Dimensions::three, {0.4, 0.4, 0.8}, res);
  const double z0 = -0.0613;
  Geometry g3(Medium::dielectric(eb));
  g3.add(Block{{0, 0, z0 - 5}, {kInfinity, kInfinity, 10}}, Medium::dielectric(ea));  // eps 12 below z0
  const MaterialArrays m3 = sample_materials(lat3, g3);
  for (int64_t k = 0; k < lat3.n(2); ++k) {
    const int64_t s = lat3.index(1, 2, k);
    const double fz = 1 - beyond(lat3.position(Component::Ez, 1, 2, k).z, dx, z0);
    const double fx = 1 - beyond(lat3.position(Component::Ex, 1, 2, k).z, dx, z0);
    EXPECT_NEAR(m3.inverse[idx(Component::Ez)][size_t(s)], fz / ea + (1 - fz) / eb, 1e-15);
    EXPECT_NEAR(m3.inverse[idx(Component::Ex)][size_t(s)], 1 / (fx * ea + (1 - fx) * eb), 1e-15);
    EXPECT_NEAR(m3.inverse[idx(Component::Ey)][size_t(s)], 1 / (fx * ea + (1 - fx) * eb), 1e-15);
  }
}

// The fraction of the square voxel (centre cx, cy; side dx) where n . x >= d: Sutherland-Hodgman
// clipping of the square, then the shoelace area.
double clipped_fraction(double cx, double cy, double dx, double nx, double ny, double d) {
  std::vector<std::pair<double, double>> p{{cx - dx / 2, cy - dx / 2}, {cx + dx / 2, cy - dx / 2},
                                           {cx + dx / 2, cy + dx / 2}, {cx - dx / 2, cy + dx / 2}}, out;
  for (size_t i = 0; i < 4; ++i) {
    const auto a = p[i], b = p[(i + 1) % 4];
    const double fa = d - nx * a.first - ny * a.second, fb = d - nx * b.first - ny * b.second;
    if (fa <= 0) out.push_back(a);
    if ((fa < 0 && fb > 0) || (fa > 0 && fb < 0)) {
      const double u = fa / (fa - fb);
      out.push_back({a.first + u * (b.first - a.first), a.second + u * (b.second - a.second)});
    }
  }
  double area = 0;
  for (size_t i = 0; i < out.size(); ++i)
    area += out[i].first * out[(i + 1) % out.size()].second - out[(i + 1) % out.size()].first * out[i].second;
  return 0.5 * std::fabs(area) / (dx * dx);
}

using Mat3 = std::array<std::array<double, 3>, 3>;

Mat3 inverse3(const Mat3& m) {
  Mat3 r;
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      const int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      r[size_t(i)][size_t(j)] = (m[size_t(i1)][size_t(j1)] * m[size_t(i2)][size_t(j2)] -
                                 m[size_t(i1)][size_t(j2)] * m[size_t(i2)][size_t(j1)]) / det;
    }
  return r;
}

// The exact quasi-static permittivity of a fine laminate of diagonal media a (fraction f) and b
// with layer normal n: across the layers E_t and D . n are the same in both, so for a given
// (E_t, D_n) each layer has E_i = E_t + e_i n with n . eps_i E_i = D_n; averaging E and D over the
// layers for three independent (E_t, D_n) gives <D> = eps_eff <E>. Returns eps_eff^-1.
Mat3 laminate_inverse(const Vec3& ea, const Vec3& eb, double f, const Vec3& n) {
  Vec3 t1 = std::fabs(n.z) < 0.9 ? Vec3{-n.y, n.x, 0} : Vec3{0, -n.z, n.y};
  const double l1 = std::sqrt(t1.x * t1.x + t1.y * t1.y + t1.z * t1.z);
  t1 = {t1.x / l1, t1.y / l1, t1.z / l1};
  const Vec3 t2{n.y * t1.z - n.z * t1.y, n.z * t1.x - n.x * t1.z, n.x * t1.y - n.y * t1.x};
  Mat3 E{}, D{};
  for (int col = 0; col < 3; ++col) {
    const Vec3 et = col == 0 ? t1 : col == 1 ? t2 : Vec3{};
    const double dn = col == 2 ? 1.0 : 0.0;
    Vec3 mean_e{}, mean_d{};
    for (int layer = 0; layer < 2; ++layer) {
      const Vec3& eps = layer == 0 ? ea : eb;
      const double w = layer == 0 ? f : 1 - f;
      double n_eps_et = 0, n_eps_n = 0;
      for (int a = 0; a < 3; ++a) n_eps_et += n[a] * eps[a] * et[a], n_eps_n += n[a] * eps[a] * n[a];
      const double e = (dn - n_eps_et) / n_eps_n;
      for (int a = 0; a < 3; ++a) {
        const double Ea = et[a] + e * n[a];
        mean_e[a] += w * Ea;
        mean_d[a] += w * eps[a] * Ea;
      }
    }
    for (int a = 0; a < 3; ++a) E[size_t(a)][size_t(col)] = mean_e[a], D[size_t(a)][size_t(col)] = mean_d[a];
  }
  // eps_eff = D E^-1, so eps_eff^-1 = E D^-1.
  const Mat3 Di = inverse3(D);
  Mat3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) r[size_t(i)][size_t(j)] += E[size_t(i)][size_t(k)] * Di[size_t(k)][size_t(j)];
  return r;
}

TEST(Subpixel, ObliqueInterfaceUsesTheProjectedNormal) {
  // A face with normal n = (cos t, sin t) through the cell: each sample's f from clipping its
  // voxel by the face's line. Isotropic media: inv_eps_c = n_c^2 <1/eps> + (1 - n_c^2) / <eps>.
  // Anisotropic (diagonal) media: the diagonal of the inverse of the exact laminate permittivity,
  // which Kottke's average reproduces.
  const double res = 10, dx = 1 / res, t = 0.3;
  const double nx = std::cos(t), ny = std::sin(t), d = 0.0123;  // the face: n . x = d
  const YeeLattice lat(Dimensions::two_te, {1, 1, 0}, res);
  for (bool anisotropic : {false, true}) {
    Medium a = Medium::dielectric(9), b = Medium::dielectric(1.5);
    if (anisotropic) a.epsilon_diag = {4, 7, 9}, b.epsilon_diag = {2, 3, 2.5};
    Geometry g(b);
    // A square of side 20 whose -e1 face is the line n . x = d: the object is n . x >= d.
    g.add(Block{{(d + 10) * nx, (d + 10) * ny, 0}, {20, 20, kInfinity}, {nx, ny, 0}, {-ny, nx, 0}}, a);
    const MaterialArrays m = sample_materials(lat, g);
    int averaged = 0;
    for (Component c : {Component::Ex, Component::Ey}) {
      const int ax = axis_of(c);
      const double nc = c == Component::Ex ? nx : ny;
      for (int64_t i = 0; i < lat.n(0); ++i)
        for (int64_t j = 0; j < lat.n(1); ++j) {
          const Vec3 p = lat.position(c, i, j, 0);
          const double f = clipped_fraction(p.x, p.y, dx, nx, ny, d);
          const double ea = a.epsilon_diag[ax], eb = b.epsilon_diag[ax];
          const double expect =
              anisotropic ? (f == 0 ? 1 / eb : f == 1 ? 1 / ea
                                                       : laminate_inverse(a.epsilon_diag, b.epsilon_diag, f, {nx, ny, 0})
                                                             [size_t(ax)][size_t(ax)])
                          : nc * nc * (f / ea + (1 - f) / eb) + (1 - nc * nc) / (f * ea + (1 - f) * eb);
          // 1e-13: the face's position is rebuilt from a centre 10 away (rounding of 1e-15 there).
          EXPECT_NEAR(m.inverse[idx(c)][size_t(lat.index(i, j, 0))], expect, 1e-13)
              << to_string(c) << " " << i << " " << j << (anisotropic ? " anisotropic" : "");
          averaged += f > 0 && f < 1;
        }
    }
    EXPECT_GT(averaged, 20);
  }
}

// Meep 1.25's own averaged inv_eps (its chi1inv) at samples of three geometries, with its fill
// fractions integrated tightly (its default subpixel_tol = 1e-4 leaves errors up to 4e-5 in 3D),
// printed by /usr/bin/python3 with Debian's python3-meep:
//   import meep as mp, math
//   def table(name, cell, res, geom, default, comps, pts):
//       sim = mp.Simulation(cell_size=cell, resolution=res, geometry=geom, default_material=default,
//                           subpixel_tol=1e-7, subpixel_maxeval=10**6)
//       sim.init_sim()
//       for comp, d, off, cname in comps:
//           for p in pts:
//               x = [-cell[a]/2 + (p[a] + off[a]) / res for a in range(3)]
//               v = sim.fields.get_chi1inv(comp, d, mp.vec(*x[:(3 if cell.z > 0 else 2)]))
//               print('{"%s", Component::%s, %d, %d, %d, %r},' % (name, cname, p[0], p[1], p[2], v.real))
//   EX = (mp.Ex, mp.X, (0.5, 0, 0), 'Ex'); EY = (mp.Ey, mp.Y, (0, 0.5, 0), 'Ey'); EZ = (mp.Ez, mp.Z, (0, 0, 0.5), 'Ez')
//   t = 0.3
//   table('block', mp.Vector3(1, 1, 0), 10,
//         [mp.Block(size=mp.Vector3(0.6, 0.5, mp.inf), center=mp.Vector3(0.07, -0.04), e1=mp.Vector3(math.cos(t),
//                   math.sin(t)), e2=mp.Vector3(-math.sin(t), math.cos(t)), material=mp.Medium(epsilon=9))],
//         mp.Medium(epsilon=1.5), [EX, EY], [(2, 4, 0), (7, 3, 0), (4, 7, 0), (5, 2, 0), (8, 5, 0), (3, 2, 0)])
//   table('disk', mp.Vector3(1.2, 1.2, 0), 10,
//         [mp.Cylinder(radius=0.37, center=mp.Vector3(0.031, -0.017), height=mp.inf, material=mp.Medium(epsilon=12))],
//         mp.Medium(epsilon=1), [EX, EY], [(9, 2, 0), (2, 6, 0), (4, 3, 0), (8, 9, 0), (10, 4, 0), (3, 9, 0), (6, 10, 0)])
//   table('sphere', mp.Vector3(1, 1, 1), 10,
//         [mp.Sphere(radius=0.33, center=mp.Vector3(0.02, -0.03, 0.01), material=mp.Medium(epsilon=6))],
//         mp.Medium(epsilon=1), [EX, EY, EZ], [(2, 5, 5), (5, 8, 4), (7, 3, 6), (4, 4, 2), (6, 6, 7)])
TEST(Subpixel, MatchesMeepsAveraging) {
  struct Row {
    const char* geometry;
    Component c;
    int i, j, k;
    double inv_eps;
  };
  const Row rows[] = {
      {"block", Component::Ex, 2, 4, 0, 0.5049378935788513},
      {"block", Component::Ex, 7, 3, 0, 0.11953109476066483},
      {"block", Component::Ex, 4, 7, 0, 0.2644563419662786},
      {"block", Component::Ex, 5, 2, 0, 0.1864046762042293},
      {"block", Component::Ex, 8, 5, 0, 0.25784731148128404},
      {"block", Component::Ex, 3, 2, 0, 0.2999080086874165},
      {"block", Component::Ey, 2, 4, 0, 0.6468557985790974},
      {"block", Component::Ey, 7, 3, 0, 0.1111111111111111},
      {"block", Component::Ey, 4, 7, 0, 0.6666666666666666},
      {"block", Component::Ey, 5, 2, 0, 0.1111111111111111},
      {"block", Component::Ey, 8, 5, 0, 0.11297724120952622},
      {"block", Component::Ey, 3, 2, 0, 0.29213645036894353},
      {"disk", Component::Ex, 9, 2, 0, 1.0},
      {"disk", Component::Ex, 2, 6, 0, 0.6555498975375738},
      {"disk", Component::Ex, 4, 3, 0, 0.1295045241596577},
      {"disk", Component::Ex, 8, 9, 0, 0.39263730795057766},
      {"disk", Component::Ex, 10, 4, 0, 1.0},
      {"disk", Component::Ex, 3, 9, 0, 0.8546820736391857},
      {"disk", Component::Ex, 6, 10, 0, 0.8398917849747068},
      {"disk", Component::Ey, 9, 2, 0, 0.9354964005961977},
      {"disk", Component::Ey, 2, 6, 0, 1.0},
      {"disk", Component::Ey, 4, 3, 0, 0.12627107753851965},
      {"disk", Component::Ey, 8, 9, 0, 0.7977085626949653},
      {"disk", Component::Ey, 10, 4, 0, 0.32562665821338826},
      {"disk", Component::Ey, 3, 9, 0, 1.0},
      {"disk", Component::Ey, 6, 10, 0, 1.0},
      {"sphere", Component::Ex, 2, 5, 5, 0.16735288316572944},
      {"sphere", Component::Ex, 5, 8, 4, 0.4300952983471272},
      {"sphere", Component::Ex, 7, 3, 6, 0.26931192618937105},
      {"sphere", Component::Ex, 4, 4, 2, 0.29113448838114586},
      {"sphere", Component::Ex, 6, 6, 7, 0.1690123011836971},
      {"sphere", Component::Ey, 2, 5, 5, 0.31533912400861747},
      {"sphere", Component::Ey, 5, 8, 4, 1.0},
      {"sphere", Component::Ey, 7, 3, 6, 0.16666666666666666},
      {"sphere", Component::Ey, 4, 4, 2, 0.31463486771052446},
      {"sphere", Component::Ey, 6, 6, 7, 0.1775407283369789},
      {"sphere", Component::Ez, 2, 5, 5, 0.2760712923003268},
      {"sphere", Component::Ez, 5, 8, 4, 0.33707428481416923},
      {"sphere", Component::Ez, 7, 3, 6, 0.18758835181423641},
      {"sphere", Component::Ez, 4, 4, 2, 0.2666987075891266},
      {"sphere", Component::Ez, 6, 6, 7, 0.2094931653389572},
  };
  const double t = 0.3;
  Geometry block(Medium::dielectric(1.5));
  block.add(Block{{0.07, -0.04, 0}, {0.6, 0.5, kInfinity}, {std::cos(t), std::sin(t), 0}, {-std::sin(t), std::cos(t), 0}},
            Medium::dielectric(9));
  Geometry disk;
  disk.add(Cylinder{{0.031, -0.017, 0}, 0.37, kInfinity, {0, 0, 1}}, Medium::dielectric(12));
  Geometry sphere;
  sphere.add(Sphere{{0.02, -0.03, 0.01}, 0.33}, Medium::dielectric(6));
  const YeeLattice te1(Dimensions::two_te, {1, 1, 0}, 10), te12(Dimensions::two_te, {1.2, 1.2, 0}, 10),
      cube(Dimensions::three, {1, 1, 1}, 10);
  const MaterialArrays mb = sample_materials(te1, block), md = sample_materials(te12, disk),
                       ms = sample_materials(cube, sphere);
  double worst = 0;
  for (const Row& r : rows) {
    const std::string g = r.geometry;
    const YeeLattice& lat = g == "block" ? te1 : g == "disk" ? te12 : cube;
    const MaterialArrays& m = g == "block" ? mb : g == "disk" ? md : ms;
    const double got = m.inverse[idx(r.c)][size_t(lat.index(r.i, r.j, r.k))];
    // Default options (tolerance 1e-5 on each fill fraction).
    EXPECT_NEAR(got, r.inv_eps, 5e-6) << g << " " << to_string(r.c) << " (" << r.i << ", " << r.j << ", " << r.k << ")";
    worst = std::max(worst, std::fabs(got - r.inv_eps));
  }
  EXPECT_GT(worst, 0.0);  // the table is not trivially matched by vacuum
}

TEST(Subpixel, AnisotropicMediaAndConductivity) {
  // Normal along x: Kottke's average reduces to <1/eps_x> for Ex and 1 / <eps_y> for Ey, with each
  // medium's own diagonal entries; conductivities are averaged arithmetically.
  const double res = 10, dx = 1 / res, x0 = 0.071;
  const YeeLattice lat(Dimensions::two_te, {1, 0.3, 0}, res);
  Medium a;
  a.epsilon_diag = {4, 7, 9};
  a.D_conductivity_diag = {0.3, 0.5, 0};
  Medium b = Medium::dielectric(2);
  b.with_D_conductivity(0.1);
  Geometry g(b);
  g.add(Block{{x0 + 5, 0, 0}, {10, kInfinity, kInfinity}}, a);
  const MaterialArrays m = sample_materials(lat, g);
  ASSERT_FALSE(m.conductivity[idx(Component::Ex)].empty());
  for (int64_t i = 0; i < lat.n(0); ++i) {
    const size_t s = size_t(lat.index(i, 1, 0));
    const double fx = beyond(lat.position(Component::Ex, i, 1, 0).x, dx, x0);
    const double fy = beyond(lat.position(Component::Ey, i, 1, 0).x, dx, x0);
    EXPECT_NEAR(m.inverse[idx(Component::Ex)][s], fx / 4 + (1 - fx) / 2, 1e-14);
    EXPECT_NEAR(m.inverse[idx(Component::Ey)][s], 1 / (fy * 7 + (1 - fy) * 2), 1e-14);
    EXPECT_NEAR(m.conductivity[idx(Component::Ex)][s], fx * 0.3 + (1 - fx) * 0.1, 1e-14);
    EXPECT_NEAR(m.conductivity[idx(Component::Ey)][s], fy * 0.5 + (1 - fy) * 0.1, 1e-14);
  }
}

TEST(Subpixel, VolumeIntegralsConverge) {
  // 2D TM: Ez lies in every interface (n_z = 0), so 1/inv_eps is <eps> and sum 1/inv_eps dx^2 is the
  // integral of eps over the cell: area eps_b + (eps_a - eps_b) pi r^2. Plain sampling misses it by
  // far more.
  const double r = 0.37, ea = 6, eb = 1;
  for (double res : {10.0, 20.0}) {
    const YeeLattice lat(Dimensions::two_tm, {1.2, 1.2, 0}, res);
    Geometry g(Medium::dielectric(eb));
    g.add(Cylinder{{0.031, -0.017, 0}, r, kInfinity, {0, 0, 1}}, Medium::dielectric(ea));
    const double exact = 1.44 * eb + (ea - eb) * kPi * r * r;
    double error[2];
    for (int smooth = 0; smooth < 2; ++smooth) {
      SubpixelOptions o;
      o.subpixel = smooth == 1;
      const MaterialArrays m = sample_materials(lat, g, o);
      double sum = 0;
      for (double v : m.inverse[idx(Component::Ez)]) sum += 1 / v;
      error[smooth] = std::fabs(sum / (res * res) - exact) / exact;
    }
    EXPECT_LT(error[1], 1e-5) << "resolution " << res;
    EXPECT_GT(error[0], 30 * error[1]) << "resolution " << res;
  }
  // 3D: a Lorentzian sphere's strength integrates to sigma times its volume (each strength is sigma
  // times the voxel's fill fraction and the voxels tile the cell).
  const double sigma = 2.5, rs = 0.41;
  const YeeLattice lat3(Dimensions::three, {1.1, 1.1, 1.1}, 10);
  Medium lorentz = Medium::dielectric(2);
  lorentz.with_susceptibility(Susceptibility::lorentzian(1, 0.1, sigma));
  Geometry g3;
  g3.add(Sphere{{0.013, 0.021, -0.034}, rs}, lorentz);
  const SampledMedia sm = sample_media(lat3, g3);
  ASSERT_EQ(sm.susceptibilities.size(), 1u);
  const double volume = 4.0 / 3.0 * kPi * rs * rs * rs;
  for (int a = 0; a < 3; ++a) {
    double sum = 0;
    for (double v : sm.susceptibilities[0].strength[size_t(a)]) sum += v;
    EXPECT_NEAR(sum * 1e-3 / (sigma * volume), 1.0, 2e-5) << "axis " << a;
  }
}

TEST(Subpixel, PeriodicImagesAndSharedSusceptibilities) {
  // A disk centred on the cell's x side. Ez sits on the grid lines, so its voxels tile
  // [-0.5 - dx/2, 0.5 - dx/2] along x: without images they hold the disk's part with x < 0.5 - dx/2
  // (a segment of area r^2 acos(h / r) - h sqrt(r^2 - h^2), h = dx/2); with x periodic, all of it.
  const double r = 0.2, res = 20;
  const YeeLattice lat(Dimensions::two_tm, {1, 1, 0}, res);
  Medium m1, m2;
  m1.with_susceptibility(Susceptibility::drude(1, 0.2, 1.0));
  m2.with_susceptibility(Susceptibility::drude(1, 0.2, 3.0));  // same dynamics, other strength
  Geometry g;
  g.add(Cylinder{{0.5, 0.1, 0}, r, kInfinity, {0, 0, 1}}, m1).add(Block{{-0.2, -0.3, 0}, {0.2, 0.2, kInfinity}}, m2);
  SubpixelOptions o;
  for (bool periodic : {false, true}) {
    o.periodic = {periodic, false, false};
    const SampledMedia sm = sample_media(lat, g, o);
    ASSERT_EQ(sm.susceptibilities.size(), 1u);  // one Drude model, strengths 1 and 3
    const std::vector<double>& s = sm.susceptibilities[0].strength[2];
    double sum = 0;
    for (double v : s) sum += v;
    const double h = 0.5 / res;
    const double segment = r * r * std::acos(h / r) - h * std::sqrt(r * r - h * h);
    const double expect = (periodic ? kPi * r * r : segment) * 1.0 + 0.04 * 3.0;
    EXPECT_NEAR(sum / (res * res), expect, 1e-5) << "periodic " << periodic;
    EXPECT_TRUE(sm.susceptibilities[0].strength[0].empty());  // TM carries Ez only
  }
}

TEST(Subpixel, PerfectConductorsAreNotAveraged) {
  const double res = 10;
  const YeeLattice lat(Dimensions::two_tm, {1, 1, 0}, res);
  // A PEC disk in eps 2: E samples are 0 inside and 1/2 outside, right up to the surface (metals
  // are never smoothed); H samples see mu 1 on both sides.
  Geometry g(Medium::dielectric(2));
  g.add(Cylinder{{0.02, 0.03, 0}, 0.3, kInfinity, {0, 0, 1}}, perfect_electric_conductor());
  const MaterialArrays m = sample_materials(lat, g);
  // A PMC square in vacuum: H samples 0 inside, 1 outside.
  Geometry gm;
  gm.add(Block{{0.13, -0.07, 0}, {0.4, 0.3, kInfinity}}, perfect_magnetic_conductor());
  const MaterialArrays mm = sample_materials(lat, gm);
  int inside_pec = 0, inside_pmc = 0;
  for (int64_t i = 0; i < lat.n(0); ++i)
    for (int64_t j = 0; j < lat.n(1); ++j) {
      const size_t s = size_t(lat.index(i, j, 0));
      const bool pec = g.medium_at(lat.position(Component::Ez, i, j, 0)).is_pec();
      EXPECT_EQ(m.inverse[idx(Component::Ez)][s], pec ? 0.0 : 0.5);
      inside_pec += pec;
      for (Component h : {Component::Hx, Component::Hy}) {
        EXPECT_NEAR(m.inverse[idx(h)][s], 1.0, 1e-15);
        const bool pmc = gm.medium_at(lat.position(h, i, j, 0)).is_pmc();
        EXPECT_EQ(mm.inverse[idx(h)][s], pmc ? 0.0 : 1.0);
        inside_pmc += pmc;
      }
      EXPECT_NEAR(mm.inverse[idx(Component::Ez)][s], 1.0, 1e-15);
    }
  EXPECT_GT(inside_pec, 20);
  EXPECT_GT(inside_pmc, 20);
  // Without averaging every sample takes the medium at its position.
  SubpixelOptions plain;
  plain.subpixel = false;
  Geometry d(Medium::dielectric(1.5));
  d.add(Sphere{{0.1, 0, 0}, 0.3}, Medium::dielectric(4)).add(Block{{0, 0.2, 0}, {0.5, 0.1, 1}}, Medium::dielectric(9));
  const MaterialArrays mp = sample_materials(lat, d, plain);
  for (int64_t i = 0; i < lat.n(0); ++i)
    for (int64_t j = 0; j < lat.n(1); ++j)
      EXPECT_EQ(mp.inverse[idx(Component::Ez)][size_t(lat.index(i, j, 0))],
                1 / d.medium_at(lat.position(Component::Ez, i, j, 0)).epsilon_diag.z);
}

TEST(Subpixel, SameBitsOnOneAndTwoThreads) {
  // 12^3 samples x 6 components: above the size from which the sampling is threaded.
  const YeeLattice lat(Dimensions::three, {1, 1, 1}, 12);
  Medium lossy = Medium::dielectric(3);
  lossy.with_conductivity(0.2).with_susceptibility(Susceptibility::debye(0.3, 2));
  Medium aniso;
  aniso.epsilon_diag = {2, 3, 5};
  Geometry g(Medium::dielectric(1.2));
  g.add(Sphere{{0.1, 0, -0.05}, 0.3}, lossy)
      .add(Block{{0, 0.2, 0}, {0.6, 0.2, 0.4}, {1, 0.3, 0}, {-0.3, 1, 0.1}, {0, 0, 1}}, aniso)
      .add(Prism{{{-0.4, -0.4, -0.3}, {0.1, -0.45, -0.3}, {-0.1, -0.1, -0.3}}, 0.5, {0, 0, 1}, std::nullopt}, lossy)
      .add(Cylinder{{0.2, -0.2, 0.1}, 0.15, 0.5, {1, 1, 1}}, Medium::dielectric(7));
  SampledMedia one, two;
  {
    NumThreadsGuard t(1);
    one = sample_media(lat, g);
  }
  {
    NumThreadsGuard t(2);
    two = sample_media(lat, g);
  }
  for (size_t c = 0; c < 6; ++c) {
    EXPECT_TRUE(one.arrays.inverse[c] == two.arrays.inverse[c]) << c;
    EXPECT_TRUE(one.arrays.conductivity[c] == two.arrays.conductivity[c]) << c;
  }
  ASSERT_EQ(one.susceptibilities.size(), 1u);
  for (size_t a = 0; a < 3; ++a) EXPECT_TRUE(one.susceptibilities[0].strength[a] == two.susceptibilities[0].strength[a]);
  // Every value is a sane inverse permittivity: between 1/7 and 1 (the extreme media), the
  // anisotropic block's entries included.
  for (size_t c = 0; c < 3; ++c)
    for (double v : one.arrays.inverse[c]) {
      EXPECT_GE(v, 1 / 7.0 - 1e-12);
      EXPECT_LE(v, 1 / 1.2 + 1e-12);
    }
}

TEST(Subpixel, BadOptionsAreNamed) {
  const YeeLattice lat(Dimensions::one, {0, 0, 1}, 10);
  SubpixelOptions o;
  o.depth = 13;
  try {
    sample_materials(lat, Geometry(), o);
    FAIL() << "no ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("SubpixelOptions.depth must be in 0..12, got 13"), std::string::npos);
  }
  o.depth = 3;
  o.tolerance = -1;
  try {
    sample_materials(lat, Geometry(), o);
    FAIL() << "no ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("SubpixelOptions.tolerance must be finite and >= 0, got -1"), std::string::npos);
  }
}

}  // namespace
}  // namespace spire::elec
