// The Yee lattice (yee.h): which axes and components a problem has, how many cells, and where each
// component's samples sit. Everything here is bookkeeping that the updates, sources, geometry and
// monitors share, so it is kept free of any field storage.
#include "science/elec/yee.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

const char* axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }

// Cells per axis are kept below 2^31 so that index arithmetic in every kernel (int64) and any
// 32-bit GPU index per axis stay exact; a problem this large would not fit in memory anyway.
constexpr double kMaxCellsPerAxis = 2147483647.0;

}  // namespace

Dimensions parse_dimensions(const std::string& text) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  if (t == "1d") return Dimensions::one;
  if (t == "2d_tm" || t == "tm") return Dimensions::two_tm;
  if (t == "2d_te" || t == "te") return Dimensions::two_te;
  if (t == "3d") return Dimensions::three;
  throw ConfigError(detail::cat("dimensions: got '", text,
                                "'; allowed: 1d, 2d_tm (tm), 2d_te (te), 3d"));
}

std::string to_string(Dimensions d) {
  switch (d) {
    case Dimensions::one: return "1d";
    case Dimensions::two_tm: return "2d_tm";
    case Dimensions::two_te: return "2d_te";
    case Dimensions::three: return "3d";
  }
  return "unknown";
}

std::string to_string(Component c) {
  static const char* names[6] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
  const int i = int(c);
  return i >= 0 && i < 6 ? names[i] : "unknown";
}

YeeLattice::YeeLattice(Dimensions dims, Vec3 size, double resolution) : dims_(dims), resolution_(resolution) {
  SPIRE_CHECK(std::isfinite(resolution) && resolution > 0, ValueError,
              "YeeLattice: resolution must be a finite number > 0 (cells per a), got ", resolution);
  switch (dims) {
    case Dimensions::one:
      has_axis_ = {false, false, true};
      components_ = {Component::Ex, Component::Hy};
      break;
    case Dimensions::two_tm:
      has_axis_ = {true, true, false};
      components_ = {Component::Ez, Component::Hx, Component::Hy};
      break;
    case Dimensions::two_te:
      has_axis_ = {true, true, false};
      components_ = {Component::Ex, Component::Ey, Component::Hz};
      break;
    case Dimensions::three:
      has_axis_ = {true, true, true};
      components_ = {Component::Ex, Component::Ey, Component::Ez, Component::Hx, Component::Hy, Component::Hz};
      break;
  }
  for (int a = 0; a < 3; ++a) {
    if (!has_axis_[size_t(a)]) continue;
    const double extent = size[a];
    SPIRE_CHECK(std::isfinite(extent) && extent > 0, ValueError, "YeeLattice: the cell's size along ",
                axis_name(a), " must be a finite number > 0 for a ", to_string(dims), " problem, got ", extent);
    // Meep rounds each extent to the nearest whole number of cells (at least one).
    const double cells = std::max(1.0, std::floor(extent * resolution + 0.5));
    SPIRE_CHECK(cells <= kMaxCellsPerAxis, ValueError, "YeeLattice: ", cells, " cells along ", axis_name(a),
                " (size ", extent, " at resolution ", resolution, "); at most ", kMaxCellsPerAxis, " allowed");
    n_[size_t(a)] = int64_t(cells);
  }
}

Vec3 YeeLattice::size() const {
  Vec3 s;
  for (int a = 0; a < 3; ++a) s[a] = has_axis_[size_t(a)] ? double(n_[size_t(a)]) * dx() : 0.0;
  return s;
}

bool YeeLattice::has(Component c) const {
  return std::find(components_.begin(), components_.end(), c) != components_.end();
}

Vec3 YeeLattice::offset(Component c) const {
  Vec3 o;
  const int own = axis_of(c);
  for (int a = 0; a < 3; ++a) {
    if (!has_axis_[size_t(a)]) continue;
    // E along its own axis, H along the two others: the Yee staggering.
    const bool shifted = is_electric(c) ? (a == own) : (a != own);
    o[a] = shifted ? 0.5 : 0.0;
  }
  return o;
}

Vec3 YeeLattice::position(Component c, int64_t i, int64_t j, int64_t k) const {
  const Vec3 o = offset(c);
  const Vec3 s = size();
  const int64_t idx[3] = {i, j, k};
  Vec3 p;
  for (int a = 0; a < 3; ++a) {
    if (!has_axis_[size_t(a)]) continue;
    p[a] = -0.5 * s[a] + (double(idx[a]) + o[a]) * dx();
  }
  return p;
}

}  // namespace spire::elec
