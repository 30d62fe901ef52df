// Boundary bookkeeping (boundary.h): building per-side choices and resolving them against a
// lattice into what the updates and the CPML read.
#include "science/elec/boundary.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>

#include "engine/core/error.h"

namespace spire::elec {

namespace {

const char* axis_name(int a) { return a == 0 ? "x" : a == 1 ? "y" : "z"; }
const char* side_name(Side s) { return s == Side::low ? "low" : "high"; }

void check_axis(int axis, const char* what) {
  SPIRE_CHECK(axis >= 0 && axis < 3, ValueError, "Boundaries::", what, ": axis must be 0 (x), 1 (y) or 2 (z), got ", axis);
}

bool wraps(BoundaryKind k) { return k == BoundaryKind::periodic || k == BoundaryKind::bloch; }

}  // namespace

std::string to_string(BoundaryKind kind) {
  switch (kind) {
    case BoundaryKind::pec: return "pec";
    case BoundaryKind::pmc: return "pmc";
    case BoundaryKind::pml: return "pml";
    case BoundaryKind::periodic: return "periodic";
    case BoundaryKind::bloch: return "bloch";
  }
  return "unknown";
}

BoundaryKind parse_boundary_kind(const std::string& text) {
  std::string t = text;
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
  if (t == "pec" || t == "metallic") return BoundaryKind::pec;
  if (t == "pmc" || t == "magnetic") return BoundaryKind::pmc;
  if (t == "pml") return BoundaryKind::pml;
  if (t == "periodic") return BoundaryKind::periodic;
  if (t == "bloch") return BoundaryKind::bloch;
  throw ConfigError(detail::cat("boundary: got '", text, "'; allowed: pec (metallic), pmc (magnetic), pml, periodic, bloch"));
}

Boundaries Boundaries::pml(double thickness) {
  Boundaries b;
  for (int a = 0; a < 3; ++a) b.set_pml(a, thickness);
  return b;
}

Boundaries Boundaries::pml_cells(int cells) {
  Boundaries b;
  for (int a = 0; a < 3; ++a) b.set_pml_cells(a, cells);
  return b;
}

Boundaries Boundaries::periodic() {
  Boundaries b;
  for (int a = 0; a < 3; ++a) b.set_periodic(a);
  return b;
}

Boundaries& Boundaries::set(int axis, Side side, BoundarySide b) {
  check_axis(axis, "set");
  sides_[size_t(axis)][size_t(side)] = b;
  return *this;
}

Boundaries& Boundaries::set(int axis, BoundarySide both_sides) {
  check_axis(axis, "set");
  sides_[size_t(axis)] = {both_sides, both_sides};
  return *this;
}

Boundaries& Boundaries::set_pml(int axis, double thickness) {
  SPIRE_CHECK(std::isfinite(thickness) && thickness > 0, ValueError,
              "Boundaries::set_pml: thickness must be finite and > 0 (in a), got ", thickness);
  return set(axis, BoundarySide{BoundaryKind::pml, thickness, 0});
}

Boundaries& Boundaries::set_pml_cells(int axis, int cells) {
  SPIRE_CHECK(cells > 0, ValueError, "Boundaries::set_pml_cells: cells must be > 0, got ", cells);
  return set(axis, BoundarySide{BoundaryKind::pml, 0, cells});
}

Boundaries& Boundaries::set_periodic(int axis) {
  set(axis, BoundarySide{BoundaryKind::periodic, 0, 0});
  bloch_k_[size_t(axis)] = 0;
  return *this;
}

Boundaries& Boundaries::set_bloch(int axis, double k) {
  SPIRE_CHECK(std::isfinite(k), ValueError, "Boundaries::set_bloch: k must be finite (1/a), got ", k);
  set(axis, BoundarySide{BoundaryKind::bloch, 0, 0});
  bloch_k_[size_t(axis)] = k;
  return *this;
}

Boundaries& Boundaries::set_pec(int axis) { return set(axis, BoundarySide{BoundaryKind::pec, 0, 0}); }
Boundaries& Boundaries::set_pmc(int axis) { return set(axis, BoundarySide{BoundaryKind::pmc, 0, 0}); }

bool ResolvedBoundaries::complex_fields() const {
  return std::any_of(axis.begin(), axis.end(), [](const AxisBoundary& a) { return a.active && a.bloch; });
}

bool ResolvedBoundaries::has_pml() const {
  return std::any_of(axis.begin(), axis.end(),
                     [](const AxisBoundary& a) { return a.active && (a.pml_low > 0 || a.pml_high > 0); });
}

void validate(const PmlProfile& p) {
  SPIRE_CHECK(p.order >= 0 && p.order <= 10, ValueError, "PmlProfile: order must be in 0..10, got ", p.order);
  SPIRE_CHECK(std::isfinite(p.reflection) && p.reflection > 0 && p.reflection < 1, ValueError,
              "PmlProfile: reflection must be in (0, 1), got ", p.reflection);
  SPIRE_CHECK(std::isfinite(p.kappa_max) && p.kappa_max >= 1, ValueError,
              "PmlProfile: kappa_max must be finite and >= 1, got ", p.kappa_max);
  SPIRE_CHECK(std::isfinite(p.alpha_max) && p.alpha_max >= 0, ValueError,
              "PmlProfile: alpha_max must be finite and >= 0 (c/a), got ", p.alpha_max);
  SPIRE_CHECK(p.alpha_order >= 0 && p.alpha_order <= 10, ValueError,
              "PmlProfile: alpha_order must be in 0..10, got ", p.alpha_order);
}

ResolvedBoundaries resolve(const Boundaries& b, const YeeLattice& lattice) {
  ResolvedBoundaries r;
  for (int a = 0; a < 3; ++a) {
    AxisBoundary& ax = r.axis[size_t(a)];
    if (!lattice.has_axis(a)) continue;
    ax.active = true;
    const BoundarySide& lo = b.side(a, Side::low);
    const BoundarySide& hi = b.side(a, Side::high);
    if (wraps(lo.kind) || wraps(hi.kind)) {
      SPIRE_CHECK(lo.kind == hi.kind, ConfigError, "boundaries along ", axis_name(a), ": ", to_string(lo.kind), " (low) with ",
                  to_string(hi.kind), " (high); periodic and bloch must be on both sides of an axis");
      ax.wall = Wall::periodic;
      ax.bloch = lo.kind == BoundaryKind::bloch;
      ax.phase = ax.bloch ? 2 * std::numbers::pi * b.bloch_k(a) * lattice.size()[a] : 0.0;
      continue;
    }
    const bool pec = lo.kind == BoundaryKind::pec || hi.kind == BoundaryKind::pec;
    const bool pmc = lo.kind == BoundaryKind::pmc || hi.kind == BoundaryKind::pmc;
    SPIRE_CHECK(!(pec && pmc), ConfigError, "boundaries along ", axis_name(a),
                ": pec on one side and pmc on the other; both walls of an axis are one plane of samples "
                "(yee.h), so an axis is pec, pmc, or pml backed by either, on both sides");
    ax.wall = pmc ? Wall::pmc : Wall::pec;
    for (Side s : {Side::low, Side::high}) {
      const BoundarySide& side = b.side(a, s);
      if (side.kind != BoundaryKind::pml) continue;
      int cells = side.cells;
      if (cells <= 0) {
        SPIRE_CHECK(std::isfinite(side.thickness) && side.thickness > 0, ValueError, "pml along ", axis_name(a), " (",
                    side_name(s), "): thickness must be > 0 (in a) or cells > 0, got thickness ", side.thickness);
        cells = int(std::max(1.0, std::floor(side.thickness * lattice.resolution() + 0.5)));
      }
      (s == Side::low ? ax.pml_low : ax.pml_high) = cells;
    }
    SPIRE_CHECK(ax.pml_low + ax.pml_high < lattice.n(a), ValueError, "pml along ", axis_name(a), ": ", ax.pml_low,
                " + ", ax.pml_high, " cells leave no interior in a cell of ", lattice.n(a), " cells");
  }
  if (r.has_pml()) validate(b.pml_profile);
  return r;
}

}  // namespace spire::elec
