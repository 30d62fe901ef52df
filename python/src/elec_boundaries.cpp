// spire._C._elec: the boundaries of spire.elec.Simulation's arguments (boundary.h), as a Meep user
// writes them: metallic walls by default; k_point=(kx, ky, kz) makes every axis Bloch-periodic
// (periodic where k is 0); boundaries={"x": "periodic" | "pec" | "pmc" | ("bloch", k)} sets an axis;
// boundary_layers=[PML(thickness, direction, side)] and pml={"x": d, "y": (low, high)} add CPML
// slabs, which replace k_point's periodicity on their axis (Meep's PML overrides k_point there), and
// pml_profile={...} grades them (boundary.h's PmlProfile). Later settings win over earlier ones.
#include <cmath>

#include "elec_common.h"
#include "engine/core/error.h"

namespace spire::python::elec_py {

using namespace spire::elec;

// Items of a list argument (None: none).
std::vector<py::object> list_items(py::handle h, const std::string& who) {
  std::vector<py::object> out;
  if (h.is_none()) return out;
  SPIRE_CHECK(!py::isinstance<py::str>(h) && PySequence_Check(h.ptr()), ValueError, who, ": expected a list, got ",
              type_name(h));
  // Owned references: iterating a NumPy array makes new scalar objects that nothing else holds.
  for (py::handle item : h) out.push_back(py::reinterpret_borrow<py::object>(item));
  return out;
}

void expect_kind(py::handle h, std::initializer_list<const char*> kinds, const char* expected, const std::string& who) {
  const std::string k = kind_of(h);
  for (const char* allowed : kinds)
    if (k == allowed) return;
  throw spire::ValueError(detail::cat(who, ": expected ", expected, ", got ", type_name(h)));
}

int to_axis(py::handle h, const std::string& who) {
  if (py::isinstance<py::str>(h)) {
    const std::string s = h.cast<std::string>();
    if (s == "x" || s == "X") return 0;
    if (s == "y" || s == "Y") return 1;
    if (s == "z" || s == "Z") return 2;
  } else if (PyLong_Check(h.ptr())) {
    const long a = h.cast<long>();
    if (a >= 0 && a <= 2) return int(a);
  }
  throw spire::ValueError(
      detail::cat(who, ": unknown axis ", std::string(py::repr(h)), "; allowed: \"x\", \"y\", \"z\" (0, 1, 2)"));
}
namespace {

int to_int(py::handle h, const std::string& who) {
  const double v = to_double(h, who);
  SPIRE_CHECK(v == std::floor(v) && std::abs(v) < 1e9, ValueError, who, ": expected an integer, got ", v);
  return int(v);
}

PmlProfile to_pml_profile(py::handle h) {
  PmlProfile p;
  if (h.is_none()) return p;
  SPIRE_CHECK(py::isinstance<py::dict>(h), ValueError, "Simulation: pml_profile must be a dict, got ", type_name(h));
  for (auto [key, value] : py::reinterpret_borrow<py::dict>(h)) {
    const std::string k = py::str(key);
    const std::string who = "Simulation: pml_profile[\"" + k + "\"]";
    if (k == "order")
      p.order = to_int(value, who);
    else if (k == "reflection")
      p.reflection = to_double(value, who);
    else if (k == "kappa_max")
      p.kappa_max = to_double(value, who);
    else if (k == "alpha_max")
      p.alpha_max = to_double(value, who);
    else if (k == "alpha_order")
      p.alpha_order = to_int(value, who);
    else
      throw ConfigError(detail::cat("Simulation: pml_profile has no key '", k,
                                    "'; allowed: order, reflection, kappa_max, alpha_max, alpha_order"));
  }
  validate(p);
  return p;
}

}  // namespace

// Metallic walls, then k_point (Bloch or periodic axes), then boundaries={axis: kind}, then the PML
// layers (boundary_layers, then pml=).
Boundaries to_boundaries(py::handle boundary_layers, py::handle pml, py::handle boundaries, py::handle k_point,
                         py::handle pml_profile) {
  Boundaries b;
  std::array<bool, 3> from_k{false, false, false};
  if (!k_point.is_none() && !(py::isinstance<py::bool_>(k_point) && !k_point.cast<bool>())) {
    const Vec3 k = to_vec3(k_point, "Simulation: k_point");
    for (int ax = 0; ax < 3; ++ax) {
      SPIRE_CHECK(std::isfinite(k[ax]), ValueError, "Simulation: k_point must be finite");
      if (k[ax] == 0)
        b.set_periodic(ax);
      else
        b.set_bloch(ax, k[ax]);
      from_k[size_t(ax)] = true;
    }
  }
  if (!boundaries.is_none()) {
    SPIRE_CHECK(py::isinstance<py::dict>(boundaries), ValueError,
                "Simulation: boundaries must be a dict {axis: kind}, got ", type_name(boundaries));
    for (auto [key, value] : py::reinterpret_borrow<py::dict>(boundaries)) {
      const std::string who = "Simulation: boundaries[" + std::string(py::repr(key)) + "]";
      const bool all = py::isinstance<py::str>(key) && key.cast<std::string>() == "all";
      std::vector<int> axes = all ? std::vector<int>{0, 1, 2} : std::vector<int>{to_axis(key, who)};
      for (int ax : axes) {
        from_k[size_t(ax)] = false;
        if (py::isinstance<py::tuple>(value) && py::len(value) == 2 && py::isinstance<py::str>(value[py::int_(0)]) &&
            value[py::int_(0)].cast<std::string>() == "bloch") {
          b.set_bloch(ax, to_double(value[py::int_(1)], who + " k"));
          continue;
        }
        SPIRE_CHECK(py::isinstance<py::str>(value), ValueError, who,
                    ": expected \"pec\", \"pmc\", \"periodic\" or (\"bloch\", k), got ", std::string(py::repr(value)));
        const BoundaryKind kind = parse_boundary_kind(value.cast<std::string>());
        SPIRE_CHECK(kind != BoundaryKind::pml, ValueError, who,
                    ": give PML layers with boundary_layers=[PML(...)] or pml=");
        SPIRE_CHECK(kind != BoundaryKind::bloch, ValueError, who,
                    ": a Bloch axis needs its k: (\"bloch\", k) or k_point");
        if (kind == BoundaryKind::pec)
          b.set_pec(ax);
        else if (kind == BoundaryKind::pmc)
          b.set_pmc(ax);
        else
          b.set_periodic(ax);
      }
    }
  }
  // A PML on an axis that k_point made periodic: the other side becomes metallic (Meep's PML
  // overrides k_point there).
  auto set_pml = [&](int ax, int side, double thickness, int cells) {
    if (from_k[size_t(ax)]) {
      b.set_pec(ax);
      from_k[size_t(ax)] = false;
    }
    BoundarySide s{BoundaryKind::pml, thickness, cells};
    if (side != 1) b.set(ax, Side::low, s);
    if (side != 0) b.set(ax, Side::high, s);
  };
  size_t i = 0;
  for (py::handle layer : list_items(boundary_layers, "Simulation: boundary_layers")) {
    const std::string who = indexed("Simulation: boundary_layers", i++);
    expect_kind(layer, {"pml"}, "PML(thickness)", who);
    const double thickness = to_double(attribute(layer, "thickness", who), who + ".thickness");
    py::object cells_h = attribute(layer, "cells", who);
    const int cells = cells_h.is_none() ? 0 : cells_h.cast<int>();
    SPIRE_CHECK(cells > 0 || (std::isfinite(thickness) && thickness > 0), ValueError, who,
                ": thickness must be finite and > 0 (or cells > 0), got ", thickness);
    py::object dir = attribute(layer, "direction", who), side_h = attribute(layer, "side", who);
    int side = -1;  // both
    if (!side_h.is_none()) {
      const std::string s = py::str(side_h);
      SPIRE_CHECK(s == "low" || s == "high" || s == "-1" || s == "1", ValueError, who,
                  ".side: expected \"low\" or \"high\", got ", std::string(py::repr(side_h)));
      side = (s == "low" || s == "-1") ? 0 : 1;
    }
    if (dir.is_none()) {
      for (int ax = 0; ax < 3; ++ax) set_pml(ax, side, thickness, cells);
    } else {
      set_pml(to_axis(dir, who + ".direction"), side, thickness, cells);
    }
  }
  if (!pml.is_none()) {
    if (is_py_number(pml)) {
      const double t = to_double(pml, "Simulation: pml");
      for (int ax = 0; ax < 3; ++ax) set_pml(ax, -1, t, 0);
    } else {
      SPIRE_CHECK(py::isinstance<py::dict>(pml), ValueError,
                  "Simulation: pml must be a thickness or a dict {axis: thickness or (low, high)}, got ",
                  type_name(pml));
      for (auto [key, value] : py::reinterpret_borrow<py::dict>(pml)) {
        const std::string who = "Simulation: pml[" + std::string(py::repr(key)) + "]";
        const bool all = py::isinstance<py::str>(key) && key.cast<std::string>() == "all";
        std::vector<int> axes = all ? std::vector<int>{0, 1, 2} : std::vector<int>{to_axis(key, who)};
        for (int ax : axes) {
          if (is_py_number(value)) {
            set_pml(ax, -1, to_double(value, who), 0);
            continue;
          }
          SPIRE_CHECK(PySequence_Check(value.ptr()) && py::len(value) == 2, ValueError, who,
                      ": expected a thickness or (low, high) thicknesses (None or 0 for no PML on that side)");
          for (int side = 0; side < 2; ++side) {
            py::object t = value[py::int_(side)];
            if (t.is_none()) continue;
            const double th = to_double(t, who);
            if (th != 0) set_pml(ax, side, th, 0);
          }
        }
      }
    }
  }
  b.pml_profile = to_pml_profile(pml_profile);
  return b;
}

}  // namespace spire::python::elec_py
