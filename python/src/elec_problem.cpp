// spire._C._elec: the declarative objects of spire.elec (plain Python classes in elec.py, each
// with a class attribute _spire_kind) read into a Problem (science/elec/problem.h) when a Simulation
// is made. Errors name the argument and the object's place in it ("geometry[2].size",
// "sources[0].component") and what is allowed.
//
// Meep's conventions where Meep has one: the dimensions follow from cell_size (no extent along z:
// 2D; only z: 1D), metallic walls by default, boundary_layers=[PML(thickness)], k_point for
// Bloch-periodic axes (PML axes keep their PML, as Meep). Spire's 2D problems are TM (Ez, Hx, Hy)
// or TE (Hz, Ex, Ey), not both: the polarisation follows from the components the sources, plane
// waves and ports drive (TM when they drive none), or from dimensions="2d_te" / "2d_tm".
#include <cmath>

#include "elec_common.h"
#include "engine/core/error.h"

namespace spire::python::elec_py {

using namespace spire::elec;

namespace {

// The keyword arguments of spire.elec.Simulation, as given.
struct ProblemArgs {
  py::object cell_size, dimensions, boundary_layers, pml, boundaries, k_point, pml_profile, geometry, default_material,
      sources, plane_waves, ports;
  double resolution = 10, courant = 0.5;
  std::string precision = "float64", platform = "cpu";
  bool subpixel = true;
  int subpixel_depth = 3;
  double subpixel_tolerance = 1e-5;
};

Susceptibility to_susceptibility(py::handle h, const std::string& who) {
  expect_kind(h, {"lorentzian", "drude", "debye"},
              "LorentzianSusceptibility, DrudeSusceptibility or DebyeSusceptibility", who);
  const std::string k = kind_of(h);
  Susceptibility s;
  if (k == "debye") {
    s.kind = Susceptibility::Kind::debye;
    s.tau = to_double(attribute(h, "tau", who), who + ".tau");
    s.sigma_diag = to_vec3(attribute(h, "delta_epsilon_diag", who), who + ".delta_epsilon_diag");
  } else {
    s.kind = k == "drude" ? Susceptibility::Kind::drude : Susceptibility::Kind::lorentzian;
    s.frequency = to_double(attribute(h, "frequency", who), who + ".frequency");
    s.gamma = to_double(attribute(h, "gamma", who), who + ".gamma");
    s.sigma_diag = to_vec3(attribute(h, "sigma_diag", who), who + ".sigma_diag");
  }
  s.validate(who);
  return s;
}

spire::elec::Shape to_elec_shape(py::handle h, const std::string& who) {
  const std::string k = kind_of(h);
  if (k == "block") {
    Block b;
    b.center = to_vec3(attribute(h, "center", who), who + ".center");
    b.size = to_vec3(attribute(h, "size", who), who + ".size");
    b.e1 = to_vec3(attribute(h, "e1", who), who + ".e1");
    b.e2 = to_vec3(attribute(h, "e2", who), who + ".e2");
    b.e3 = to_vec3(attribute(h, "e3", who), who + ".e3");
    return b;
  }
  if (k == "sphere") {
    Sphere s;
    s.center = to_vec3(attribute(h, "center", who), who + ".center");
    s.radius = to_double(attribute(h, "radius", who), who + ".radius");
    return s;
  }
  if (k == "cylinder") {
    Cylinder c;
    c.center = to_vec3(attribute(h, "center", who), who + ".center");
    c.radius = to_double(attribute(h, "radius", who), who + ".radius");
    c.height = to_double(attribute(h, "height", who), who + ".height");
    c.axis = to_vec3(attribute(h, "axis", who), who + ".axis");
    return c;
  }
  if (k == "prism") {
    Prism p;
    size_t i = 0;
    for (py::handle v : list_items(attribute(h, "vertices", who), who + ".vertices"))
      p.vertices.push_back(to_vec3(v, indexed(who + ".vertices", i++)));
    p.height = to_double(attribute(h, "height", who), who + ".height");
    p.axis = to_vec3(attribute(h, "axis", who), who + ".axis");
    py::object c = attribute(h, "center", who);
    if (!c.is_none()) p.center = to_vec3(c, who + ".center");
    return p;
  }
  throw spire::ValueError(detail::cat(who, ": expected Block, Sphere, Cylinder or Prism, got ", type_name(h)));
}

Dimensions dimensions_of(py::handle h) {
  if (PyLong_Check(h.ptr())) {
    const long d = h.cast<long>();
    if (d == 1) return Dimensions::one;
    if (d == 3) return Dimensions::three;
    SPIRE_CHECK(d == 2, ConfigError, "Simulation: dimensions=", d,
                "; allowed: 1, 2, 3, \"1d\", \"2d\", \"2d_tm\", \"2d_te\", \"3d\"");
    return Dimensions::two_tm;  // 2: the polarisation is inferred (make_problem)
  }
  SPIRE_CHECK(py::isinstance<py::str>(h), ConfigError, "Simulation: dimensions must be 1, 2, 3 or a string, got ",
              type_name(h));
  const std::string s = h.cast<std::string>();
  if (s == "2d" || s == "2D") return Dimensions::two_tm;
  return parse_dimensions(s);
}

bool is_plain_2d(py::handle h) {
  if (h.is_none()) return true;
  if (PyLong_Check(h.ptr())) return h.cast<long>() == 2;
  return py::isinstance<py::str>(h) && (h.cast<std::string>() == "2d" || h.cast<std::string>() == "2D");
}

// TM (Ez, Hx, Hy) or TE (Hz, Ex, Ey) from the components the excitations drive.
Dimensions two_d_polarisation(const Problem& p) {
  std::vector<std::string> tm, te;
  auto note = [&](Component c, const std::string& what) {
    const bool is_tm = c == Component::Ez || c == Component::Hx || c == Component::Hy;
    (is_tm ? tm : te).push_back(detail::cat(what, " (", to_string(c), ")"));
  };
  for (size_t i = 0; i < p.sources.size(); ++i) note(p.sources[i].component, indexed("sources", i));
  for (size_t i = 0; i < p.ports.size(); ++i) note(p.ports[i].component, indexed("ports", i));
  for (size_t i = 0; i < p.plane_waves.size(); ++i) {
    const Vec3& e = p.plane_waves[i].polarization;
    note(std::abs(e.z) > 0 ? Component::Ez : Component::Ex, indexed("plane_waves", i));
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  SPIRE_CHECK(tm.empty() || te.empty(), ValueError,
              "Simulation: a 2D problem is TM (Ez, Hx, Hy) or TE (Hz, Ex, Ey), not both: TM from ", join(tm),
              "; TE from ", join(te), ". Split it into two runs");
  return te.empty() ? Dimensions::two_tm : Dimensions::two_te;
}

Source to_source(py::handle h, const std::string& who) {
  expect_kind(h, {"source"}, "Source(src, component, center, size)", who);
  Source s;
  s.profile = to_profile(attribute(h, "src", who), who + ".src");
  s.component = to_component(attribute(h, "component", who), who + ".component");
  s.center = to_vec3(attribute(h, "center", who), who + ".center");
  s.size = to_vec3(attribute(h, "size", who), who + ".size");
  s.amplitude = to_complex(attribute(h, "amplitude", who), who + ".amplitude");
  py::object f = attribute(h, "amp_func", who);
  if (!f.is_none()) s.amplitude_function = python_point_function(f, who + ".amp_func");
  return s;
}

PlaneWave to_plane_wave(py::handle h, const std::string& who) {
  expect_kind(h, {"plane_wave"}, "PlaneWave(src, direction, polarization, center, size)", who);
  PlaneWave w;
  w.profile = to_profile(attribute(h, "src", who), who + ".src");
  w.direction = to_vec3(attribute(h, "direction", who), who + ".direction");
  w.polarization = to_vec3(attribute(h, "polarization", who), who + ".polarization");
  w.center = to_vec3(attribute(h, "center", who), who + ".center");
  w.size = to_vec3(attribute(h, "size", who), who + ".size");
  w.amplitude = to_complex(attribute(h, "amplitude", who), who + ".amplitude");
  w.eps = to_double(attribute(h, "eps", who), who + ".eps");
  w.mu = to_double(attribute(h, "mu", who), who + ".mu");
  return w;
}

}  // namespace

Medium to_medium(py::handle h, const std::string& who) {
  expect_kind(h, {"medium"}, "a Medium (or metal, perfect_magnetic_conductor)", who);
  const std::string kind = py::str(attribute(h, "kind", who));
  if (kind == "pec") return perfect_electric_conductor();
  if (kind == "pmc") return perfect_magnetic_conductor();
  SPIRE_CHECK(kind == "ordinary", ValueError, who, ".kind: '", kind, "'; allowed: ordinary, pec, pmc");
  Medium m;
  m.epsilon_diag = to_vec3(attribute(h, "epsilon_diag", who), who + ".epsilon_diag");
  m.mu_diag = to_vec3(attribute(h, "mu_diag", who), who + ".mu_diag");
  m.D_conductivity_diag = to_vec3(attribute(h, "D_conductivity_diag", who), who + ".D_conductivity_diag");
  m.B_conductivity_diag = to_vec3(attribute(h, "B_conductivity_diag", who), who + ".B_conductivity_diag");
  const double sigma = to_double(attribute(h, "conductivity", who), who + ".conductivity");
  if (sigma != 0) {
    SPIRE_CHECK(
        !m.has_D_conductivity(), ValueError, who,
        ": give conductivity (sigma, J = sigma E) or D_conductivity (Meep's sigma_D = sigma / epsilon), not both");
    m.validate(who);  // epsilon first: the D conductivity divides by it
    m.with_conductivity(sigma);
  }
  size_t i = 0;
  for (py::handle s : list_items(attribute(h, "E_susceptibilities", who), who + ".susceptibilities"))
    m.with_susceptibility(to_susceptibility(s, indexed(who + ".susceptibilities", i++)));
  m.validate(who);
  return m;
}

LumpedPort to_port(py::handle h, const std::string& who) {
  expect_kind(h, {"lumped_port"}, "LumpedPort(component, center, size, resistance, src)", who);
  LumpedPort p;
  p.component = to_component(attribute(h, "component", who), who + ".component");
  p.center = to_vec3(attribute(h, "center", who), who + ".center");
  p.size = to_vec3(attribute(h, "size", who), who + ".size");
  p.resistance = to_double(attribute(h, "resistance", who), who + ".resistance");
  py::object src = attribute(h, "src", who);
  if (!src.is_none()) p.profile = to_profile(src, who + ".src");
  p.amplitude = to_complex(attribute(h, "amplitude", who), who + ".amplitude");
  return p;
}

FluxRegion to_flux_region(py::handle h, const std::string& who) {
  expect_kind(h, {"flux_region"}, "FluxRegion(center, size) or Near2FarRegion(center, size)", who);
  FluxRegion r;
  r.center = to_vec3(attribute(h, "center", who), who + ".center");
  r.size = to_vec3(attribute(h, "size", who), who + ".size");
  r.weight = to_double(attribute(h, "weight", who), who + ".weight");
  py::object dir = attribute(h, "direction", who);
  if (!dir.is_none()) {
    const int ax = to_axis(dir, who + ".direction");
    SPIRE_CHECK(r.size[ax] == 0, ValueError, who, ": direction ", "xyz"[ax],
                " is the normal, so the size along it must be 0, got ", r.size[ax]);
  }
  return r;
}

std::vector<FluxRegion> to_flux_regions(py::handle h, const std::string& who) {
  std::vector<FluxRegion> out;
  if (!kind_of(h).empty()) return {to_flux_region(h, who)};
  size_t i = 0;
  for (py::handle r : list_items(h, who)) out.push_back(to_flux_region(r, indexed(who, i++)));
  SPIRE_CHECK(!out.empty(), ValueError, who, ": no regions given");
  return out;
}

namespace {

Problem make_problem(const ProblemArgs& a) {
  Problem p;
  p.cell_size = to_vec3(a.cell_size, "Simulation: cell_size");
  const Vec3& s = p.cell_size;
  for (int ax = 0; ax < 3; ++ax)
    SPIRE_CHECK(std::isfinite(s[ax]) && s[ax] >= 0, ValueError, "Simulation: cell_size must be finite and >= 0, got (",
                s.x, ", ", s.y, ", ", s.z, ")");
  if (a.dimensions.is_none()) {
    if (s.x > 0 && s.y > 0 && s.z > 0)
      p.dimensions = Dimensions::three;
    else if (s.x > 0 && s.y > 0)
      p.dimensions = Dimensions::two_tm;
    else if (s.x == 0 && s.y == 0 && s.z > 0)
      p.dimensions = Dimensions::one;
    else
      throw spire::ValueError(detail::cat("Simulation: cell_size (", s.x, ", ", s.y, ", ", s.z,
                                          ") is not a 3D cell (x, y, z > 0), a 2D one (x, y > 0, z = 0) or a 1D one "
                                          "along z (0, 0, z > 0)"));
  } else {
    p.dimensions = dimensions_of(a.dimensions);
  }
  p.resolution = a.resolution;
  p.courant = a.courant;
  p.precision = parse_precision(a.precision);
  p.platform = a.platform;
  p.subpixel.subpixel = a.subpixel;
  p.subpixel.depth = a.subpixel_depth;
  p.subpixel.tolerance = a.subpixel_tolerance;
  p.boundaries = to_boundaries(a.boundary_layers, a.pml, a.boundaries, a.k_point, a.pml_profile);

  Medium background =
      a.default_material.is_none() ? Medium::vacuum() : to_medium(a.default_material, "Simulation: default_material");
  p.geometry = Geometry(background);
  size_t i = 0;
  for (py::handle obj : list_items(a.geometry, "Simulation: geometry")) {
    const std::string who = indexed("Simulation: geometry", i++);
    spire::elec::Shape shape = to_elec_shape(obj, who);
    p.geometry.add(shape, to_medium(attribute(obj, "material", who), who + ".material"));
  }
  i = 0;
  for (py::handle src : list_items(a.sources, "Simulation: sources"))
    p.sources.push_back(to_source(src, indexed("Simulation: sources", i++)));
  i = 0;
  for (py::handle w : list_items(a.plane_waves, "Simulation: plane_waves"))
    p.plane_waves.push_back(to_plane_wave(w, indexed("Simulation: plane_waves", i++)));
  i = 0;
  for (py::handle port : list_items(a.ports, "Simulation: ports"))
    p.ports.push_back(to_port(port, indexed("Simulation: ports", i++)));
  if (p.dimensions == Dimensions::two_tm && is_plain_2d(a.dimensions)) p.dimensions = two_d_polarisation(p);
  return p;
}

}  // namespace

void bind_elec_problem(py::module_& m) {
  py::class_<Problem>(m, "Problem",
                      "A declarative FDTD problem (problem.h), made from spire.elec.Simulation's keyword arguments; "
                      "what Simulation builds and s_parameters runs.")
      .def(py::init([](py::object cell_size, double resolution, py::object dimensions, py::object boundary_layers,
                       py::object pml, py::object boundaries, py::object k_point, py::object pml_profile,
                       py::object geometry, py::object default_material, py::object sources, py::object plane_waves,
                       py::object ports, double courant, const std::string& precision, const std::string& platform,
                       bool subpixel, int subpixel_depth, double subpixel_tolerance) {
             ProblemArgs a{cell_size,   dimensions, boundary_layers,  pml,     boundaries,  k_point,
                           pml_profile, geometry,   default_material, sources, plane_waves, ports};
             a.resolution = resolution, a.courant = courant, a.precision = precision, a.platform = platform;
             a.subpixel = subpixel, a.subpixel_depth = subpixel_depth, a.subpixel_tolerance = subpixel_tolerance;
             return make_problem(a);
           }),
           py::arg("cell_size"), py::arg("resolution"), py::kw_only(), py::arg("dimensions") = py::none(),
           py::arg("boundary_layers") = py::none(), py::arg("pml") = py::none(), py::arg("boundaries") = py::none(),
           py::arg("k_point") = py::none(), py::arg("pml_profile") = py::none(), py::arg("geometry") = py::none(),
           py::arg("default_material") = py::none(), py::arg("sources") = py::none(),
           py::arg("plane_waves") = py::none(), py::arg("ports") = py::none(), py::arg("courant") = 0.5,
           py::arg("precision") = "float64", py::arg("platform") = "cpu", py::arg("subpixel") = true,
           py::arg("subpixel_depth") = 3, py::arg("subpixel_tolerance") = 1e-5)
      .def_property_readonly("dimensions", [](const Problem& p) { return to_string(p.dimensions); })
      .def_property_readonly("cell_size", [](const Problem& p) { return vector3(p.cell_size); })
      .def_property_readonly("resolution", [](const Problem& p) { return p.resolution; })
      .def_property_readonly(
          "ports", [](const Problem& p) { return p.ports.size(); }, "The number of lumped ports.")
      .def("__repr__", [](const Problem& p) {
        return detail::cat("Problem(", to_string(p.dimensions), ", cell_size=(", p.cell_size.x, ", ", p.cell_size.y,
                           ", ", p.cell_size.z, "), resolution=", p.resolution, ", ", p.geometry.size(), " objects, ",
                           p.sources.size(), " sources, ", p.plane_waves.size(), " plane waves, ", p.ports.size(),
                           " ports)");
      });
  m.def(
      "medium_epsilon",
      [](py::handle medium, double f) {
        const auto e = to_medium(medium, "Medium.epsilon").epsilon(f);
        return complex_array({e[0], e[1], e[2]}, {3});
      },
      py::arg("medium"), py::arg("frequency"), "The diagonal of a Medium's complex permittivity at frequency f (c/a).");
  m.def(
      "check_medium", [](py::handle medium) { to_medium(medium, "Medium"); }, py::arg("medium"));
  m.def(
      "check_object",
      [](py::handle obj) {
        const std::string who = type_name(obj);
        Solid solid(to_elec_shape(obj, who));
        to_medium(attribute(obj, "material", who), who + ".material");
      },
      py::arg("object"), "Checks a geometric object's shape and material (the errors Simulation would give).");
}

}  // namespace spire::python::elec_py
