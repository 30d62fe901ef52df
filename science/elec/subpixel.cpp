// Subpixel sampling of a geometry onto the lattice (subpixel.h). The objects (with their periodic
// images) are binned into blocks of 4 cells per axis, each bin listing, in geometry order, the
// objects whose bounding box comes within two cells of it, so a voxel consults only the objects
// that can reach it; a bin that one medium fills wholly (most of a typical cell) is written without
// looking at its voxels one by one.
#include "science/elec/subpixel.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"
#include "science/elec/solid_math.h"

namespace spire::elec {

using namespace solid_math;

namespace {

constexpr int64_t kBin = 4;  // cells per bin along each axis
// Below this many samples (all components together) the sampling runs on the calling thread: it
// takes well under a millisecond there, less than starting and joining a thread team.
constexpr int64_t kParallelMin = 8192;

struct Placed {
  Solid solid;
  int medium;
};

// The objects with their periodic images (each object's images next to it, so the geometry's
// order, which decides overlaps, is kept).
std::vector<Placed> place_objects(const YeeLattice& lattice, const Geometry& g, const SubpixelOptions& o) {
  std::vector<Placed> out;
  const Vec3 size = lattice.size();
  const double margin = 2 * lattice.dx();
  for (size_t i = 0; i < g.size(); ++i) {
    const Solid& s = g.solid(i);
    const AxisBox b = s.bounds();
    int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    for (int a = 0; a < 3; ++a) {
      if (!o.periodic[size_t(a)] || !lattice.has_axis(a) || !std::isfinite(b.half[a])) continue;
      const double L = size[a];
      // Shifts k L whose image's box reaches the cell (grown by the margin).
      lo[a] = int(std::ceil((-0.5 * L - margin - b.center[a] - b.half[a]) / L));
      hi[a] = int(std::floor((0.5 * L + margin - b.center[a] + b.half[a]) / L));
      lo[a] = std::clamp(lo[a], -3, 0);
      hi[a] = std::clamp(hi[a], 0, 3);
    }
    for (int kx = lo[0]; kx <= hi[0]; ++kx)
      for (int ky = lo[1]; ky <= hi[1]; ++ky)
        for (int kz = lo[2]; kz <= hi[2]; ++kz) {
          if (kx == 0 && ky == 0 && kz == 0) {
            out.push_back({s, g.medium_index(i)});
          } else {
            out.push_back({s.translated({kx * size.x, ky * size.y, kz * size.z}), g.medium_index(i)});
          }
        }
  }
  return out;
}

struct Bins {
  std::array<int64_t, 3> count{1, 1, 1};
  std::vector<std::vector<int>> list;
  // The medium that fills every voxel of the bin, or -1 where an object's surface may pass.
  std::vector<int> uniform;
  size_t bin(int64_t i, int64_t j, int64_t k) const {
    return size_t(((i / kBin) * count[1] + j / kBin) * count[2] + k / kBin);
  }
};

Bins bin_objects(const YeeLattice& lattice, const std::vector<Placed>& objects) {
  Bins bins;
  for (int a = 0; a < 3; ++a) bins.count[size_t(a)] = (lattice.n(a) + kBin - 1) / kBin;
  bins.list.resize(size_t(bins.count[0] * bins.count[1] * bins.count[2]));
  const Vec3 size = lattice.size();
  const double dx = lattice.dx();
  for (size_t o = 0; o < objects.size(); ++o) {
    const AxisBox b = objects[o].solid.bounds();
    int64_t lo[3], hi[3];
    bool reaches = true;
    for (int a = 0; a < 3; ++a) {
      if (!lattice.has_axis(a)) {
        // The problem is the plane (line) through 0 along this axis.
        reaches = reaches && std::fabs(b.center[a]) <= b.half[a];
        lo[a] = hi[a] = 0;
        continue;
      }
      const double x0 = -0.5 * size[a];
      const double from = (b.center[a] - b.half[a] - 2 * dx - x0) / dx;
      const double to = (b.center[a] + b.half[a] + 2 * dx - x0) / dx;
      const double n = double(lattice.n(a));
      if (to < 0 || from > n) reaches = false;
      lo[a] = int64_t(std::clamp(std::floor(from), 0.0, n - 1)) / kBin;
      hi[a] = int64_t(std::clamp(std::floor(to), 0.0, n - 1)) / kBin;
    }
    if (!reaches) continue;
    for (int64_t i = lo[0]; i <= hi[0]; ++i)
      for (int64_t j = lo[1]; j <= hi[1]; ++j)
        for (int64_t k = lo[2]; k <= hi[2]; ++k)
          bins.list[size_t((i * bins.count[1] + j) * bins.count[2] + k)].push_back(int(o));
  }
  // A bin is uniform when the frontmost object reaching the region its voxels span (its cells
  // grown by one cell) covers that region wholly, or when no object reaches it.
  bins.uniform.assign(bins.list.size(), -1);
  for (int64_t i = 0; i < bins.count[0]; ++i)
    for (int64_t j = 0; j < bins.count[1]; ++j)
      for (int64_t k = 0; k < bins.count[2]; ++k) {
        const int64_t b[3] = {i, j, k};
        AxisBox region;
        for (int a = 0; a < 3; ++a) {
          if (!lattice.has_axis(a)) continue;
          const double x0 = -0.5 * size[a];
          const double from = x0 + double(b[a] * kBin - 1) * dx;
          const double to = x0 + double(std::min((b[a] + 1) * kBin, lattice.n(a)) + 1) * dx;
          region.center[a] = 0.5 * (from + to);
          region.half[a] = 0.5 * (to - from);
        }
        const size_t index = size_t((i * bins.count[1] + j) * bins.count[2] + k);
        const std::vector<int>& cand = bins.list[index];
        int medium = 0;
        for (size_t c = cand.size(); c-- > 0;) {
          const Solid::Overlap ov = objects[size_t(cand[c])].solid.overlap(region);
          if (ov == Solid::Overlap::none) continue;
          medium = ov == Solid::Overlap::full ? objects[size_t(cand[c])].medium : -1;
          break;
        }
        bins.uniform[index] = medium;
      }
  return bins;
}

// What fills one voxel: medium `inside` on a fraction `fill`, medium `outside` on the rest, the
// interface normal n (unused when fill is 1).
struct Mix {
  int inside = 0, outside = 0;
  double fill = 1;
  Vec3 normal;
};

int medium_at(const std::vector<Placed>& objects, const std::vector<int>& cand, size_t below, const Vec3& p) {
  for (size_t c = below; c-- > 0;)
    if (objects[size_t(cand[c])].solid.contains(p)) return objects[size_t(cand[c])].medium;
  return 0;
}

Mix mix_voxel(const std::vector<Placed>& objects, const std::vector<Medium>& media, const std::vector<int>& cand,
              const AxisBox& voxel, const YeeLattice& lattice, bool electric, const SubpixelOptions& opt) {
  const Vec3& p = voxel.center;
  Mix point;  // the medium at the sample's position, unaveraged
  point.inside = point.outside = medium_at(objects, cand, cand.size(), p);
  if (!opt.subpixel) return point;
  size_t front = cand.size();
  for (size_t c = cand.size(); c-- > 0;) {
    const Solid::Overlap ov = objects[size_t(cand[c])].solid.overlap(voxel);
    if (ov == Solid::Overlap::none) continue;
    if (ov == Solid::Overlap::full) {
      Mix m;
      m.inside = m.outside = objects[size_t(cand[c])].medium;
      return m;
    }
    front = c;
    break;
  }
  if (front == cand.size()) return Mix{};  // only the default medium reaches the voxel
  const Placed& f = objects[size_t(cand[front])];
  Vec3 n = f.solid.normal(p);
  for (int a = 0; a < 3; ++a)
    if (!lattice.has_axis(a)) n[a] = 0;
  const double nn = norm(n);
  if (!(nn > 1e-12)) return point;
  n = scale(n, 1 / nn);
  Mix m;
  m.inside = f.medium;
  m.normal = n;
  m.outside = -1;
  for (size_t c = front; c-- > 0 && m.outside < 0;) {
    const Solid::Overlap ov = objects[size_t(cand[c])].solid.overlap(voxel);
    if (ov == Solid::Overlap::full) m.outside = objects[size_t(cand[c])].medium;
    if (ov == Solid::Overlap::partial) {
      Vec3 q = p;
      for (int a = 0; a < 3; ++a) q[a] += n[a] >= 0 ? voxel.half[a] : -voxel.half[a];
      m.outside = medium_at(objects, cand, front, q);
    }
  }
  if (m.outside < 0) m.outside = 0;
  if (m.outside == m.inside) return m;  // fill 1: uniform
  const Medium& in = media[size_t(m.inside)];
  const Medium& out = media[size_t(m.outside)];
  if (electric ? (in.is_pec() || out.is_pec()) : (in.is_pmc() || out.is_pmc())) return point;
  m.fill = f.solid.fill_fraction(voxel, opt.depth, opt.tolerance);
  if (m.fill <= 0) m.inside = m.outside, m.fill = 1;
  return m;
}

bool isotropic(const Vec3& v) { return v.x == v.y && v.y == v.z; }

// Kottke's average of two diagonal tensors a (fraction f) and b across an interface of normal n, as
// Meep's eff_chi1inv_matrix: in a frame whose first axis is n, the quantities -1/e00, e11 - e01^2 /
// e00, ... are averaged arithmetically and the tensor rebuilt. Returns the diagonal entry c of its
// inverse.
double kottke_inverse(const Vec3& a, const Vec3& b, double f, const Vec3& n, int c) {
  double R[3][3];
  for (int i = 0; i < 3; ++i) R[i][0] = n[i];
  Vec3 t2 = std::fabs(n.x) > 1e-2 || std::fabs(n.y) > 1e-2 ? Vec3{n.y, -n.x, 0} : Vec3{0, -n.z, n.y};
  t2 = scale(t2, 1 / norm(t2));
  const Vec3 t1 = cross(t2, n);
  for (int i = 0; i < 3; ++i) R[i][1] = t1[i], R[i][2] = t2[i];
  auto rotated = [&](const Vec3& d, double e[3][3]) {  // R^T diag(d) R
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) e[i][j] = R[0][i] * d.x * R[0][j] + R[1][i] * d.y * R[1][j] + R[2][i] * d.z * R[2][j];
  };
  double ea[3][3], eb[3][3];
  rotated(a, ea);
  rotated(b, eb);
  auto avg = [&](auto expr) { return f * expr(ea) + (1 - f) * expr(eb); };
  using M = double[3][3];
  const double d00 = avg([](M& e) { return -1 / e[0][0]; });
  const double d11 = avg([](M& e) { return e[1][1] - e[0][1] * e[0][1] / e[0][0]; });
  const double d22 = avg([](M& e) { return e[2][2] - e[0][2] * e[0][2] / e[0][0]; });
  const double d01 = avg([](M& e) { return e[0][1] / e[0][0]; });
  const double d02 = avg([](M& e) { return e[0][2] / e[0][0]; });
  const double d12 = avg([](M& e) { return e[1][2] - e[0][2] * e[0][1] / e[0][0]; });
  double m[3][3];
  m[0][0] = -1 / d00;
  m[1][1] = d11 - d01 * d01 / d00;
  m[2][2] = d22 - d02 * d02 / d00;
  m[0][1] = m[1][0] = -d01 / d00;
  m[0][2] = m[2][0] = -d02 / d00;
  m[1][2] = m[2][1] = d12 - d02 * d01 / d00;
  double e[3][3];  // R m R^T
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = 0;
      for (int k = 0; k < 3; ++k)
        for (int l = 0; l < 3; ++l) s += R[i][k] * m[k][l] * R[j][l];
      e[i][j] = s;
    }
  // Diagonal entry c of the inverse: the cofactor over the determinant.
  const int i = (c + 1) % 3, j = (c + 2) % 3;
  const double det = e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) - e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
                     e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
  return (e[i][i] * e[j][j] - e[i][j] * e[j][i]) / det;
}

}  // namespace

SampledMedia sample_media(const YeeLattice& lattice, const Geometry& geometry, const SubpixelOptions& options) {
  SPIRE_CHECK(options.depth >= 0 && options.depth <= 12, ValueError, "SubpixelOptions.depth must be in 0..12, got ",
              options.depth);
  SPIRE_CHECK(options.tolerance >= 0 && std::isfinite(options.tolerance), ValueError,
              "SubpixelOptions.tolerance must be finite and >= 0, got ", options.tolerance);
  const std::vector<Medium>& media = geometry.media();
  const std::vector<Placed> objects = place_objects(lattice, geometry, options);
  const Bins bins = bin_objects(lattice, objects);
  const size_t n = size_t(lattice.samples());

  // The distinct susceptibility models and each medium's strength per model and axis.
  std::vector<Susceptibility> models;
  std::vector<std::vector<Vec3>> strength(media.size());
  for (size_t m = 0; m < media.size(); ++m) {
    for (const Susceptibility& s : media[m].E_susceptibilities) {
      size_t k = 0;
      while (k < models.size() && !models[k].same_model(s)) ++k;
      if (k == models.size()) models.push_back(s);
    }
  }
  for (size_t m = 0; m < media.size(); ++m) {
    strength[m].assign(models.size(), Vec3{});
    for (const Susceptibility& s : media[m].E_susceptibilities) {
      size_t k = 0;
      while (!models[k].same_model(s)) ++k;
      for (int a = 0; a < 3; ++a) strength[m][k][a] += s.sigma_diag[a];
    }
  }

  SampledMedia out;
  out.susceptibilities.resize(models.size());
  for (size_t k = 0; k < models.size(); ++k) out.susceptibilities[k].model = models[k];
  const double half = 0.5 * lattice.dx();

  // What each carried component writes: its arrays (conductivity only where some medium has one
  // along its axis, strengths only for E components and models with a strength along it).
  struct Plan {
    Component c;
    bool electric;
    int axis;
    double* inverse;
    double* sigma;
    std::vector<double*> chi;
  };
  std::vector<Plan> plans;
  for (Component c : lattice.components()) {
    Plan plan{c, is_electric(c), axis_of(c), nullptr, nullptr, {}};
    const size_t ci = size_t(int(c));
    out.arrays.inverse[ci].assign(n, 1.0);
    plan.inverse = out.arrays.inverse[ci].data();
    bool lossy = false;
    for (const Medium& m : media)
      lossy = lossy || (plan.electric ? m.D_conductivity_diag[plan.axis] : m.B_conductivity_diag[plan.axis]) != 0;
    if (lossy) {
      out.arrays.conductivity[ci].assign(n, 0.0);
      plan.sigma = out.arrays.conductivity[ci].data();
    }
    for (size_t k = 0; k < models.size(); ++k) {
      bool any = false;
      for (size_t m = 0; m < media.size(); ++m) any = any || strength[m][k][plan.axis] != 0;
      std::vector<double>& st = out.susceptibilities[k].strength[size_t(plan.axis)];
      if (plan.electric && any) st.assign(n, 0.0);
      plan.chi.push_back(plan.electric && any ? st.data() : nullptr);
    }
    plans.push_back(std::move(plan));
  }

  auto sample = [&](const Plan& plan, int64_t s) {
    const int axis = plan.axis;
    const bool electric = plan.electric;
    auto value = [&](const Medium& m) { return electric ? m.epsilon_diag[axis] : m.mu_diag[axis]; };
    auto loss = [&](const Medium& m) { return electric ? m.D_conductivity_diag[axis] : m.B_conductivity_diag[axis]; };
    const int64_t ny = lattice.n(1), nz = lattice.n(2);
    const int64_t i = s / (ny * nz), j = (s / nz) % ny, k = s % nz;
    const size_t bin = bins.bin(i, j, k);
    Mix mix;
    if (bins.uniform[bin] >= 0) {
      mix.inside = mix.outside = bins.uniform[bin];
    } else {
      AxisBox voxel{lattice.position(plan.c, i, j, k), {}};
      for (int a = 0; a < 3; ++a) voxel.half[a] = lattice.has_axis(a) ? half : 0.0;
      mix = mix_voxel(objects, media, bins.list[bin], voxel, lattice, electric, options);
    }
    const Medium& in = media[size_t(mix.inside)];
    const Medium& out_m = media[size_t(mix.outside)];
    const double f = mix.fill;
    if (f >= 1) {
      const bool metal = electric ? in.is_pec() : in.is_pmc();
      plan.inverse[s] = metal ? 0.0 : 1 / value(in);
      if (plan.sigma && !metal) plan.sigma[s] = loss(in);
      if (!metal)
        for (size_t q = 0; q < plan.chi.size(); ++q)
          if (plan.chi[q]) plan.chi[q][s] = strength[size_t(mix.inside)][q][axis];
      return;
    }
    const Vec3 nrm = mix.normal;
    if (electric ? isotropic(in.epsilon_diag) && isotropic(out_m.epsilon_diag)
                 : isotropic(in.mu_diag) && isotropic(out_m.mu_diag)) {
      const double a = value(in), b = value(out_m);
      const double mean = f * a + (1 - f) * b;
      const double mean_inv = f / a + (1 - f) / b;
      const double n2 = nrm[axis] * nrm[axis];
      plan.inverse[s] = n2 * mean_inv + (1 - n2) / mean;
    } else {
      plan.inverse[s] = electric ? kottke_inverse(in.epsilon_diag, out_m.epsilon_diag, f, nrm, axis)
                                 : kottke_inverse(in.mu_diag, out_m.mu_diag, f, nrm, axis);
    }
    if (plan.sigma) plan.sigma[s] = f * loss(in) + (1 - f) * loss(out_m);
    for (size_t q = 0; q < plan.chi.size(); ++q)
      if (plan.chi[q])
        plan.chi[q][s] = f * strength[size_t(mix.inside)][q][axis] + (1 - f) * strength[size_t(mix.outside)][q][axis];
  };

  // One loop over every (component, sample): each writes only its own entries.
  const int64_t total = int64_t(plans.size() * n);
#pragma omp parallel for schedule(dynamic, 64) if (total > kParallelMin)
  for (int64_t t = 0; t < total; ++t) sample(plans[size_t(t / int64_t(n))], t % int64_t(n));

  // Strength arrays that stayed zero (the media carrying them are out of the cell) are dropped.
  for (SusceptibilityArrays& sa : out.susceptibilities)
    for (std::vector<double>& s : sa.strength)
      if (!s.empty() && std::all_of(s.begin(), s.end(), [](double x) { return x == 0; })) s.clear();
  return out;
}

MaterialArrays sample_materials(const YeeLattice& lattice, const Geometry& geometry, const SubpixelOptions& options) {
  return sample_media(lattice, geometry, options).arrays;
}

}  // namespace spire::elec
