// Flux regions, their tangential-field DFTs and the Poynting flux spectrum (flux.h).
#include "science/elec/flux.h"

#include <cmath>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

constexpr const char* kAxis[] = {"x", "y", "z"};

Component electric(int axis) { return Component(axis); }
Component magnetic(int axis) { return Component(axis + 3); }

}  // namespace

std::vector<FluxRegion> box_regions(const YeeLattice& lattice, Vec3 center, Vec3 size) {
  std::vector<FluxRegion> out;
  for (int a = 0; a < 3; ++a) {
    if (!lattice.has_axis(a)) continue;
    SPIRE_CHECK(std::isfinite(size[a]) && size[a] > 0, ValueError, "box_regions: the box's ", kAxis[a],
                " size must be finite and > 0, got ", size[a]);
    for (int side : {-1, 1}) {
      FluxRegion r;
      r.center = center;
      r.center[a] += side * size[a] / 2;
      for (int b = 0; b < 3; ++b) r.size[b] = (b == a || !lattice.has_axis(b)) ? 0 : size[b];
      r.weight = side;
      out.push_back(r);
    }
  }
  return out;
}

SurfaceDft::SurfaceDft(const YeeLattice& lattice, const FluxRegion& region, const std::vector<double>& frequencies,
                       double dt)
    : weight_(region.weight), frequencies_(frequencies) {
  const char* who = "FluxRegion";
  SPIRE_CHECK(std::isfinite(region.weight), ValueError, who, ": the weight must be finite, got ", region.weight);
  const Vec3 cell = lattice.size();
  const double dx = lattice.dx(), tol = 1e-9 * dx;
  int normals = 0;
  for (int a = 0; a < 3; ++a) {
    if (!lattice.has_axis(a)) continue;
    SPIRE_CHECK(std::isfinite(region.center[a]) && std::isfinite(region.size[a]) && region.size[a] >= 0, ValueError,
                who, ": the ", kAxis[a], " center and size must be finite with size >= 0, got ", region.center[a],
                " and ", region.size[a]);
    const double lo = region.center[a] - region.size[a] / 2, hi = region.center[a] + region.size[a] / 2;
    SPIRE_CHECK(lo >= -cell[a] / 2 - tol && hi <= cell[a] / 2 + tol, ValueError, who, ": the region spans [", lo,
                ", ", hi, "] along ", kAxis[a], ", outside the cell [", -cell[a] / 2, ", ", cell[a] / 2, "]");
    if (region.size[a] == 0) {
      normal_ = a;
      ++normals;
    }
  }
  SPIRE_CHECK(normals == 1, ValueError, who, ": a flux region must have no extent along exactly one of the ",
              to_string(lattice.dimensions()), " lattice's axes (its normal); this one has ", normals,
              " (sizes ", region.size.x, ", ", region.size.y, ", ", region.size.z, ")");
  // Common points: the plane's position along the normal, cell centres along the tangential axes.
  std::array<std::vector<double>, 3> positions;
  measure_ = 1;
  for (int a = 0; a < 3; ++a) {
    if (!lattice.has_axis(a)) {
      positions[size_t(a)] = {0.0};
    } else if (a == normal_) {
      positions[size_t(a)] = {region.center[a]};
    } else {
      const int64_t m = std::max<int64_t>(1, std::llround(region.size[a] / dx));
      const double h = region.size[a] / double(m);
      for (int64_t q = 0; q < m; ++q)
        positions[size_t(a)].push_back(region.center[a] - region.size[a] / 2 + (double(q) + 0.5) * h);
      measure_ *= h;
    }
  }
  for (int t = 1; t <= 2; ++t) {
    const int b = (normal_ + t) % 3;
    for (Component c : {electric(b), magnetic(b)})
      if (lattice.has(c)) dfts_.emplace_back(lattice, c, positions, frequencies_, dt);
  }
  SPIRE_CHECK(!dfts_.empty(), ValueError, who, ": the ", to_string(lattice.dimensions()),
              " lattice carries no field tangential to a region normal to ", kAxis[normal_]);
  for (double x : positions[0])
    for (double y : positions[1])
      for (double z : positions[2]) points_.push_back(Vec3{x, y, z});
}

template <class Real>
void SurfaceDft::update(const FieldArrays<Real>& fields, double t) {
  for (DftFields& d : dfts_) d.update(fields, t);
}
template void SurfaceDft::update<float>(const FieldArrays<float>&, double);
template void SurfaceDft::update<double>(const FieldArrays<double>&, double);

void SurfaceDft::fields(size_t f, std::vector<ComplexVec3>& E, std::vector<ComplexVec3>& H) const {
  E.assign(points_.size(), ComplexVec3{});
  H.assign(points_.size(), ComplexVec3{});
  for (const DftFields& d : dfts_) {
    const std::vector<std::complex<double>> v = d.values(f);
    std::vector<ComplexVec3>& out = is_electric(d.component()) ? E : H;
    const int a = axis_of(d.component());
    for (size_t p = 0; p < v.size(); ++p) out[p][size_t(a)] = v[p];
  }
}

FluxData surface_data(const std::vector<SurfaceDft>& surfaces, const std::vector<double>& frequencies) {
  FluxData out;
  out.frequencies = frequencies;
  for (const SurfaceDft& s : surfaces)
    for (const DftFields& d : s.transforms()) out.arrays.push_back(d.data());
  return out;
}

void load_surface_data(std::vector<SurfaceDft>& surfaces, const std::vector<double>& frequencies,
                       const FluxData& data, double scale, const char* who) {
  SPIRE_CHECK(data.frequencies == frequencies, ValueError, who, ": the data holds ", data.frequencies.size(),
              " frequencies that differ from this monitor's ", frequencies.size(),
              " (the two runs must use the same frequencies)");
  size_t arrays = 0;
  for (const SurfaceDft& s : surfaces) arrays += s.transforms().size();
  SPIRE_CHECK(data.arrays.size() == arrays, ValueError, who, ": the data holds ", data.arrays.size(),
              " field arrays, this monitor ", arrays, " (the two runs must use the same regions)");
  size_t i = 0;
  for (SurfaceDft& s : surfaces)
    for (DftFields& d : s.transforms()) d.set_data(data.arrays[i++], scale);
}

Flux::Flux(const YeeLattice& lattice, const std::vector<FluxRegion>& regions, std::vector<double> frequencies,
           double dt)
    : frequencies_(std::move(frequencies)) {
  SPIRE_CHECK(!regions.empty(), ValueError, "Flux: no regions given; at least one FluxRegion is needed");
  for (const FluxRegion& r : regions) surfaces_.emplace_back(lattice, r, frequencies_, dt);
}

template <class Real>
void Flux::update(const FieldArrays<Real>& fields, double t) {
  for (SurfaceDft& s : surfaces_) s.update(fields, t);
}
template void Flux::update<float>(const FieldArrays<float>&, double);
template void Flux::update<double>(const FieldArrays<double>&, double);

std::vector<double> Flux::flux() const {
  std::vector<double> out(frequencies_.size(), 0.0);
  std::vector<ComplexVec3> E, H;
  for (size_t f = 0; f < frequencies_.size(); ++f) {
    double total = 0;
    for (const SurfaceDft& s : surfaces_) {
      s.fields(f, E, H);
      const int a = s.normal_axis(), b = (a + 1) % 3, c = (a + 2) % 3;
      double sum = 0;
      for (size_t p = 0; p < E.size(); ++p)
        sum += (std::conj(E[p][size_t(b)]) * H[p][size_t(c)] - std::conj(E[p][size_t(c)]) * H[p][size_t(b)]).real();
      total += s.weight() * s.point_measure() * sum;
    }
    out[f] = total;
  }
  return out;
}

FluxData Flux::data() const { return surface_data(surfaces_, frequencies_); }
void Flux::load_data(const FluxData& data) { load_surface_data(surfaces_, frequencies_, data, 1, "Flux::load_data"); }
void Flux::load_minus_data(const FluxData& data) {
  load_surface_data(surfaces_, frequencies_, data, -1, "Flux::load_minus_data");
}
void Flux::scale_dfts(double factor) {
  for (SurfaceDft& s : surfaces_)
    for (DftFields& d : s.transforms()) d.set_data(d.data(), factor);
}

void SurfaceDft::save_state(SimulationState& out, const std::string& prefix) const {
  for (const DftFields& d : dfts_) d.save_state(out, prefix + "/" + to_string(d.component()));
}

void SurfaceDft::load_state(const SimulationState& in, const std::string& prefix) {
  for (DftFields& d : dfts_) d.load_state(in, prefix + "/" + to_string(d.component()));
}

void save_surfaces_state(const std::vector<SurfaceDft>& surfaces, SimulationState& out, const std::string& prefix) {
  for (size_t i = 0; i < surfaces.size(); ++i) surfaces[i].save_state(out, prefix + "/region" + std::to_string(i));
}

void load_surfaces_state(std::vector<SurfaceDft>& surfaces, const SimulationState& in, const std::string& prefix) {
  for (size_t i = 0; i < surfaces.size(); ++i) surfaces[i].load_state(in, prefix + "/region" + std::to_string(i));
}

void Flux::save_state(SimulationState& out, const std::string& prefix) const {
  save_surfaces_state(surfaces_, out, prefix);
}
void Flux::load_state(const SimulationState& in, const std::string& prefix) {
  load_surfaces_state(surfaces_, in, prefix);
}

}  // namespace spire::elec
