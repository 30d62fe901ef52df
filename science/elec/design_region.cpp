// Design regions: sampling a grid of design permittivities onto the Yee lattice and the transpose
// of that map (design_region.h).
#include "science/elec/design_region.h"

#include <algorithm>
#include <cmath>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};

// The (up to two) grid indices and weights along one axis for position x: grid centres at
// lo + (q + 1/2) h, clamped to the first and last centre.
struct AxisTaps {
  int count = 1;
  int64_t index[2] = {0, 0};
  double weight[2] = {1, 0};
};

AxisTaps axis_taps(double x, double lo, double extent, int64_t n) {
  AxisTaps t;
  if (n == 1) return t;
  const double h = extent / double(n);
  const double u = std::clamp((x - lo) / h - 0.5, 0.0, double(n - 1));
  int64_t i0 = int64_t(std::floor(u));
  if (i0 >= n - 1) i0 = n - 2;  // the last centre: weight 1 on the upper tap
  const double w = u - double(i0);
  t.count = 2;
  t.index[0] = i0;
  t.index[1] = i0 + 1;
  t.weight[0] = 1 - w;
  t.weight[1] = w;
  return t;
}

}  // namespace

DesignRegion::DesignRegion(Vec3 center, Vec3 size, std::array<int64_t, 3> shape)
    : center_(center), size_(size), shape_(shape) {
  for (int a = 0; a < 3; ++a) {
    SPIRE_CHECK(std::isfinite(center[a]) && std::isfinite(size[a]) && size[a] >= 0, ValueError,
                "DesignRegion: the ", kAxis[a], " center and size must be finite with size >= 0, got ", center[a],
                " and ", size[a]);
    SPIRE_CHECK(shape[size_t(a)] >= 1, ValueError, "DesignRegion: the grid must have >= 1 value along ", kAxis[a],
                ", got ", shape[size_t(a)]);
  }
  SPIRE_CHECK(double(shape[0]) * double(shape[1]) * double(shape[2]) < 9e15, ValueError,
              "DesignRegion: a grid of ", shape[0], " x ", shape[1], " x ", shape[2], " values is too large");
}

std::vector<DesignSample> DesignRegion::samples(const YeeLattice& lattice) const {
  const Vec3 cell = lattice.size();
  const double dx = lattice.dx(), tol = 1e-9 * dx;
  Vec3 lo, hi;
  for (int a = 0; a < 3; ++a) {
    if (!lattice.has_axis(a)) {
      SPIRE_CHECK(shape_[size_t(a)] == 1, ValueError, "DesignRegion: a ", to_string(lattice.dimensions()),
                  " problem has no ", kAxis[a], " axis, so the grid must have 1 value along it; got ",
                  shape_[size_t(a)]);
      continue;
    }
    SPIRE_CHECK(size_[a] > 0, ValueError, "DesignRegion: the region's ", kAxis[a], " size must be > 0 in a ",
                to_string(lattice.dimensions()), " problem, got ", size_[a]);
    lo[a] = center_[a] - size_[a] / 2;
    hi[a] = center_[a] + size_[a] / 2;
    SPIRE_CHECK(lo[a] >= -cell[a] / 2 - tol && hi[a] <= cell[a] / 2 + tol, ValueError,
                "DesignRegion: the region spans [", lo[a], ", ", hi[a], "] along ", kAxis[a], ", outside the cell [",
                -cell[a] / 2, ", ", cell[a] / 2, "]");
  }
  std::vector<DesignSample> out;
  for (Component c : lattice.components()) {
    if (!is_electric(c)) continue;
    // Per axis: the samples inside [lo, hi] and their taps.
    std::array<std::vector<int64_t>, 3> inside;
    std::array<std::vector<AxisTaps>, 3> taps;
    for (int a = 0; a < 3; ++a) {
      if (!lattice.has_axis(a)) {
        inside[size_t(a)] = {0};
        taps[size_t(a)] = {AxisTaps{}};
        continue;
      }
      const double offset = lattice.offset(c)[a];
      for (int64_t i = 0; i < lattice.n(a); ++i) {
        const double x = -cell[a] / 2 + (double(i) + offset) * dx;
        if (x < lo[a] - tol || x > hi[a] + tol) continue;
        inside[size_t(a)].push_back(i);
        taps[size_t(a)].push_back(axis_taps(x, lo[a], size_[a], shape_[size_t(a)]));
      }
    }
    for (size_t p = 0; p < inside[0].size(); ++p)
      for (size_t q = 0; q < inside[1].size(); ++q)
        for (size_t r = 0; r < inside[2].size(); ++r) {
          DesignSample s;
          s.component = c;
          s.index = lattice.index(inside[0][p], inside[1][q], inside[2][r]);
          const AxisTaps &tx = taps[0][p], &ty = taps[1][q], &tz = taps[2][r];
          for (int u = 0; u < tx.count; ++u)
            for (int v = 0; v < ty.count; ++v)
              for (int w = 0; w < tz.count; ++w) {
                s.value[size_t(s.taps)] = (tx.index[u] * shape_[1] + ty.index[v]) * shape_[2] + tz.index[w];
                s.weight[size_t(s.taps)] = tx.weight[u] * ty.weight[v] * tz.weight[w];
                ++s.taps;
              }
          out.push_back(s);
        }
  }
  SPIRE_CHECK(!out.empty(), ValueError, "DesignRegion: the region (center ", center_.x, ", ", center_.y, ", ",
              center_.z, ", size ", size_.x, ", ", size_.y, ", ", size_.z, ") holds no electric sample of the lattice");
  return out;
}

void DesignRegion::check_values(const std::vector<double>& eps) const {
  SPIRE_CHECK(int64_t(eps.size()) == values(), ValueError, "DesignRegion: got ", eps.size(),
              " design values for a grid of ", shape_[0], " x ", shape_[1], " x ", shape_[2], " = ", values());
  for (size_t i = 0; i < eps.size(); ++i)
    SPIRE_CHECK(std::isfinite(eps[i]) && eps[i] > 0, ValueError, "DesignRegion: design value ", i, " (eps) is ",
                eps[i], "; each must be finite and > 0");
}

std::vector<double> DesignRegion::interpolate(const std::vector<DesignSample>& samples,
                                              const std::vector<double>& eps) const {
  check_values(eps);
  std::vector<double> out(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    const DesignSample& s = samples[i];
    double v = 0;
    for (int t = 0; t < s.taps; ++t) v += s.weight[size_t(t)] * eps[size_t(s.value[size_t(t)])];
    out[i] = v;
  }
  return out;
}

void DesignRegion::apply(MaterialArrays& materials, const YeeLattice& lattice, const std::vector<double>& eps) const {
  apply(materials, samples(lattice), eps);
}

void DesignRegion::apply(MaterialArrays& materials, const std::vector<DesignSample>& samples,
                         const std::vector<double>& eps) const {
  const std::vector<double> e = interpolate(samples, eps);
  for (size_t i = 0; i < samples.size(); ++i) {
    std::vector<double>& inv = materials.inverse[size_t(int(samples[i].component))];
    SPIRE_CHECK(samples[i].index >= 0 && samples[i].index < int64_t(inv.size()), ValueError,
                "DesignRegion::apply: the material arrays' inv_eps of ", to_string(samples[i].component), " has ",
                inv.size(), " samples; the region needs sample ", samples[i].index);
    inv[size_t(samples[i].index)] = 1 / e[i];
  }
}

std::vector<double> DesignRegion::chain(const YeeLattice& lattice, const std::vector<double>& eps,
                                        const std::vector<double>& d_inv_eps) const {
  return chain(samples(lattice), eps, d_inv_eps);
}

std::vector<double> DesignRegion::chain(const std::vector<DesignSample>& samples, const std::vector<double>& eps,
                                        const std::vector<double>& d_inv_eps) const {
  SPIRE_CHECK(d_inv_eps.size() == samples.size(), ValueError, "DesignRegion::chain: got ", d_inv_eps.size(),
              " derivatives for the region's ", samples.size(), " samples");
  const std::vector<double> e = interpolate(samples, eps);
  // Serial, in sample order: the same bits whatever the thread count.
  std::vector<double> out(size_t(values()), 0.0);
  for (size_t i = 0; i < samples.size(); ++i) {
    const DesignSample& s = samples[i];
    const double d_eps = -d_inv_eps[i] / (e[i] * e[i]);
    for (int t = 0; t < s.taps; ++t) out[size_t(s.value[size_t(t)])] += s.weight[size_t(t)] * d_eps;
  }
  return out;
}

}  // namespace spire::elec
