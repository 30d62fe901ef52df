// Source discretisation (source.h).
#include "science/elec/source.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

const char* axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

struct AxisWeight {
  int64_t index;            // wrapped sample index
  double position;          // the unwrapped sample position, for the amplitude function
  std::complex<double> w;   // weight, including any wrap phase
};

// Weights of the samples of a component along one axis for the interval [lo, hi] (lo == hi: a
// delta function). Sample i sits at x0 + (i + offset) dx.
std::vector<AxisWeight> axis_weights(double lo, double hi, double x0, double offset, double dx, int64_t n,
                                     const AxisBoundary& bc, bool drop_wall_sample) {
  std::vector<AxisWeight> out;
  auto add = [&](int64_t i, double w) {
    if (w <= 0) return;
    int64_t wrapped = i;
    std::complex<double> phase = 1.0;
    while (wrapped < 0) {
      if (bc.wall != Wall::periodic) return;  // beyond a wall: no field there
      wrapped += n;
      phase *= std::polar(1.0, bc.phase);  // J(x - L) = J(x) e^{-i phase}: stored value is e^{+i phase} J(x - L)
    }
    while (wrapped >= n) {
      // Sample n is sample 0: the wrap for periodic axes, the wall itself otherwise.
      if (bc.wall != Wall::periodic && wrapped > n) return;
      wrapped -= n;
      phase *= std::polar(1.0, -bc.phase);
    }
    if (drop_wall_sample && wrapped == 0) return;
    out.push_back({wrapped, x0 + (double(i) + offset) * dx, phase * w});
  };
  const double u_lo = (lo - x0) / dx - offset, u_hi = (hi - x0) / dx - offset;
  if (hi == lo) {
    // Linear interpolation between the two samples around the point, divided by dx: a delta.
    const double fl = std::floor(u_lo);
    const double s = u_lo - fl;
    add(int64_t(fl), (1 - s) / dx);
    add(int64_t(fl) + 1, s / dx);
  } else {
    // Each sample's cell [u - 1/2, u + 1/2] (in cells) overlapped with [u_lo, u_hi].
    const int64_t first = int64_t(std::floor(u_lo - 0.5)), last = int64_t(std::ceil(u_hi + 0.5));
    for (int64_t i = first; i <= last; ++i) {
      const double overlap = std::min(u_hi, double(i) + 0.5) - std::max(u_lo, double(i) - 0.5);
      add(i, std::min(1.0, overlap));
    }
  }
  return out;
}

}  // namespace

Source point_dipole(Component component, const Vec3& position, std::shared_ptr<const TimeProfile> profile,
                    std::complex<double> amplitude) {
  Source s;
  s.component = component;
  s.center = position;
  s.amplitude = amplitude;
  s.profile = std::move(profile);
  return s;
}

Source current_sheet(Component component, const Vec3& center, const Vec3& size,
                     std::shared_ptr<const TimeProfile> profile, std::complex<double> amplitude,
                     std::function<std::complex<double>(const Vec3&)> amplitude_function) {
  Source s;
  s.component = component;
  s.center = center;
  s.size = size;
  s.amplitude = amplitude;
  s.profile = std::move(profile);
  s.amplitude_function = std::move(amplitude_function);
  return s;
}

SourceSamples discretize(const Source& source, const YeeLattice& lattice, const ResolvedBoundaries& boundaries) {
  const std::string name = to_string(source.component);
  SPIRE_CHECK(lattice.has(source.component), ValueError, "source ", name, ": a ", to_string(lattice.dimensions()),
              " problem does not carry ", name);
  SPIRE_CHECK(source.profile != nullptr, ValueError, "source ", name, ": no time profile given");
  SPIRE_CHECK(std::isfinite(source.amplitude.real()) && std::isfinite(source.amplitude.imag()), ValueError,
              "source ", name, ": amplitude must be finite");
  const Vec3 cell = lattice.size();
  const Vec3 offset = lattice.offset(source.component);
  const double dx = lattice.dx();
  const bool electric = is_electric(source.component);
  std::array<std::vector<AxisWeight>, 3> per_axis;
  for (int a = 0; a < 3; ++a) {
    if (!lattice.has_axis(a)) {
      per_axis[size_t(a)] = {{0, 0.0, 1.0}};
      continue;
    }
    const double c = source.center[a], s = source.size[a];
    SPIRE_CHECK(std::isfinite(c) && std::isfinite(s) && s >= 0, ValueError, "source ", name, ": center and size along ",
                axis_name(a), " must be finite with size >= 0, got center ", c, " size ", s);
    const double half = 0.5 * cell[a], tol = 1e-9 * std::max(1.0, cell[a]);
    SPIRE_CHECK(c - 0.5 * s >= -half - tol && c + 0.5 * s <= half + tol, ValueError, "source ", name,
                ": the region [", c - 0.5 * s, ", ", c + 0.5 * s, "] along ", axis_name(a),
                " leaves the cell [", -half, ", ", half, "]");
    const AxisBoundary& bc = boundaries.axis[size_t(a)];
    // The wall's plane of samples (index 0 along the axis) holds tangential E at zero on a pec
    // wall and tangential H at zero on a pmc wall (boundary.h).
    const bool tangential = a != axis_of(source.component);
    const bool wall_zero = tangential && ((electric && bc.wall == Wall::pec) || (!electric && bc.wall == Wall::pmc));
    per_axis[size_t(a)] = axis_weights(c - 0.5 * s, c + 0.5 * s, -half, offset[a], dx, lattice.n(a), bc, wall_zero);
  }
  // Tensor product of the per-axis weights, summing samples reached twice (a wrap onto itself).
  std::map<int64_t, std::complex<double>> merged;
  for (const AxisWeight& wx : per_axis[0])
    for (const AxisWeight& wy : per_axis[1])
      for (const AxisWeight& wz : per_axis[2]) {
        std::complex<double> w = source.amplitude * wx.w * wy.w * wz.w;
        if (source.amplitude_function) {
          const Vec3 rel{wx.position - source.center.x, wy.position - source.center.y, wz.position - source.center.z};
          Vec3 r = rel;
          for (int a = 0; a < 3; ++a)
            if (!lattice.has_axis(a)) r[a] = 0;
          w *= source.amplitude_function(r);
        }
        merged[lattice.index(wx.index, wy.index, wz.index)] += w;
      }
  SourceSamples out;
  out.component = source.component;
  out.profile = source.profile;
  for (const auto& [index, w] : merged) {
    if (w == std::complex<double>(0.0)) continue;
    out.index.push_back(index);
    out.weight.push_back(w);
  }
  return out;
}

DistributedCurrent::~DistributedCurrent() = default;

void DistributedCurrent::load_state(const std::vector<double>& state) {
  SPIRE_CHECK(state.empty(), ValueError, "DistributedCurrent::load_state: this source keeps no state, got ",
              state.size(), " values");
}

double SourceSamples::start_time() const { return distributed ? distributed->start_time() : profile->start_time(); }
double SourceSamples::end_time() const { return distributed ? distributed->end_time() : profile->end_time(); }

}  // namespace spire::elec
