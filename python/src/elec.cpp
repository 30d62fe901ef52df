// spire._C._elec: the FDTD package (science/elec) for spire.elec (python/spire/elec.py). This file:
// the conversions the other elec files share (elec_common.h), the time profiles (Meep's
// GaussianSource, ContinuousSource, CustomSource), units, the analytic references the tests and
// users compare with, and the submodule itself.
//
// Time profiles are the C++ objects behind Python handles (shared with every source that uses them);
// the declarative objects (media, shapes, sources, regions) are plain Python classes in elec.py that
// elec_problem.cpp reads when a Simulation is made, so they can be built and changed freely before.
#include <cmath>
#include <cstring>
#include <limits>
#include <numbers>

#include "elec_common.h"
#include "engine/core/error.h"
#include "science/elec/analytic.h"
#include "science/elec/field_output.h"
#include "science/elec/simulation_engine.h"
#include "science/elec/time_profile.h"
#include "science/elec/units.h"

namespace spire::python::elec_py {

using namespace spire::elec;

namespace {

// Named tuples made once when the module loads; never destroyed (the interpreter may be gone by
// the time static destructors run).
py::object* g_vector3 = nullptr;
py::object* g_mode = nullptr;

double finite_or_inf(py::handle item, const std::string& who) {
  double v;
  try {
    v = py::float_(py::reinterpret_borrow<py::object>(item)).cast<double>();
  } catch (py::error_already_set&) {
    throw spire::ValueError(
        detail::cat(who, ": expected a number, got ", type_name(item), " ", std::string(py::repr(item))));
  }
  SPIRE_CHECK(!std::isnan(v), ValueError, who, ": got NaN");
  return v;
}

}  // namespace

// ---- conversions (elec_common.h) ----

Vec3 to_vec3(py::handle h, const std::string& who) {
  if (!py::isinstance<py::str>(h) && !py::isinstance<py::tuple>(h) && py::hasattr(h, "x") && py::hasattr(h, "y") &&
      py::hasattr(h, "z"))
    return {finite_or_inf(h.attr("x"), who + ".x"), finite_or_inf(h.attr("y"), who + ".y"),
            finite_or_inf(h.attr("z"), who + ".z")};
  SPIRE_CHECK(!py::isinstance<py::str>(h) && PySequence_Check(h.ptr()), ValueError, who,
              ": expected one to three numbers (x, y, z) or a Vector3, got ", type_name(h), " ",
              std::string(py::repr(h)));
  py::sequence s = py::reinterpret_borrow<py::sequence>(h);
  const size_t n = s.size();
  SPIRE_CHECK(n >= 1 && n <= 3, ValueError, who, ": expected one to three numbers (x, y, z), got ", n, ": ",
              std::string(py::repr(h)));
  Vec3 v;
  for (size_t a = 0; a < n; ++a) v[int(a)] = finite_or_inf(s[a], detail::cat(who, "[", a, "]"));
  return v;
}

py::object vector3(const Vec3& v) { return (*g_vector3)(v.x, v.y, v.z); }

Component to_component(py::handle h, const std::string& who) {
  static const char* names[] = {"Ex", "Ey", "Ez", "Hx", "Hy", "Hz"};
  if (py::isinstance<py::str>(h)) {
    const std::string s = h.cast<std::string>();
    for (int c = 0; c < 6; ++c) {
      std::string lower = names[c], given = s;
      for (auto& ch : lower) ch = char(std::tolower(ch));
      for (auto& ch : given) ch = char(std::tolower(ch));
      if (lower == given) return Component(c);
    }
    throw spire::ValueError(detail::cat(who, ": unknown field component '", s, "'; allowed: Ex, Ey, Ez, Hx, Hy, Hz"));
  }
  throw spire::ValueError(detail::cat(who, ": expected a field component (\"Ex\" .. \"Hz\", spire.elec.Ez ...), got ",
                                      type_name(h), " ", std::string(py::repr(h))));
}

void check_carried(const spire::elec::YeeLattice& l, Component c, const std::string& who) {
  if (l.has(c)) return;
  std::string carried;
  for (Component x : l.components()) carried += (carried.empty() ? "" : ", ") + to_string(x);
  std::string hint;
  if (l.dimensions() == Dimensions::two_tm || l.dimensions() == Dimensions::two_te)
    hint = "; a 2D problem is TM (Ez, Hx, Hy) or TE (Hz, Ex, Ey): pass dimensions=\"2d_te\" or \"2d_tm\"";
  throw spire::ValueError(detail::cat(who, ": a ", to_string(l.dimensions()), " problem does not carry ", to_string(c),
                                      " (it carries ", carried, ")", hint));
}

std::vector<Component> to_components(py::handle h, const std::string& who) {
  if (py::isinstance<py::str>(h)) return {to_component(h, who)};
  SPIRE_CHECK(PySequence_Check(h.ptr()), ValueError, who, ": expected a component or a list of components, got ",
              type_name(h));
  std::vector<Component> out;
  size_t i = 0;
  for (py::handle item : h) out.push_back(to_component(item, detail::cat(who, "[", i++, "]")));
  SPIRE_CHECK(!out.empty(), ValueError, who, ": no components given");
  return out;
}

std::vector<double> to_frequencies(py::handle h, const std::string& who) {
  std::vector<double> f;
  if (is_py_number(h)) {
    f.push_back(finite_or_inf(h, who));
  } else {
    auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
    SPIRE_CHECK(a && a.ndim() <= 1, ValueError, who, ": expected a frequency or a 1-D sequence of frequencies, got ",
                type_name(h), " ", std::string(py::repr(h)));
    f.assign(a.data(), a.data() + a.size());
  }
  SPIRE_CHECK(!f.empty(), ValueError, who, ": no frequencies given");
  for (size_t i = 0; i < f.size(); ++i)
    SPIRE_CHECK(std::isfinite(f[i]) && f[i] >= 0, ValueError, who, ": frequency ", i, " is ", f[i],
                " (frequencies are finite and >= 0, in c/a)");
  return f;
}

std::complex<double> to_complex(py::handle h, const std::string& who) {
  try {
    return h.cast<std::complex<double>>();
  } catch (py::cast_error&) {
    throw spire::ValueError(
        detail::cat(who, ": expected a (complex) number, got ", type_name(h), " ", std::string(py::repr(h))));
  }
}

double to_double(py::handle h, const std::string& who) { return finite_or_inf(h, who); }

std::shared_ptr<const TimeProfile> to_profile(py::handle h, const std::string& who) {
  SPIRE_CHECK(py::isinstance<TimeProfile>(h), ValueError, who,
              ": expected a time profile (GaussianSource, ContinuousSource or CustomSource), got ", type_name(h));
  return h.cast<std::shared_ptr<TimeProfile>>();
}

py::object attribute(py::handle h, const char* name, const std::string& who) {
  SPIRE_CHECK(py::hasattr(h, name), ValueError, who, ": ", type_name(h), " has no attribute '", name,
              "' (expected a spire.elec object)");
  return h.attr(name);
}

std::string kind_of(py::handle h) {
  py::object k = py::getattr(h, "_spire_kind", py::none());
  return py::isinstance<py::str>(k) ? k.cast<std::string>() : std::string();
}

py::array_t<double> doubles_array(const std::vector<double>& v) {
  py::array_t<double> a(py::ssize_t(v.size()));
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(double));
  return a;
}

py::array_t<std::complex<double>> complex_array(const std::vector<std::complex<double>>& v,
                                                const std::vector<py::ssize_t>& shape) {
  py::array_t<std::complex<double>> a(shape);
  SPIRE_CHECK(size_t(a.size()) == v.size(), ValueError, "complex_array: ", v.size(), " values for shape of ", a.size());
  if (!v.empty()) std::memcpy(static_cast<void*>(a.mutable_data()), v.data(), v.size() * sizeof(v[0]));
  return a;
}

py::list modes_list(const std::vector<HarmonicMode>& modes) {
  py::list out;
  for (const HarmonicMode& m : modes) out.append((*g_mode)(m.frequency, m.decay, m.q, m.amplitude, m.error));
  return out;
}

std::function<std::complex<double>(double)> python_time_function(py::object f, const std::string& who) {
  SPIRE_CHECK(PyCallable_Check(f.ptr()), ValueError, who, ": expected a function of time, got ", type_name(f));
  auto held = hold(std::move(f));
  return [held, who](double t) {
    py::gil_scoped_acquire gil;
    py::object r = (*held)(t);
    try {
      return r.cast<std::complex<double>>();
    } catch (py::cast_error&) {
      throw spire::ValueError(detail::cat(who, ": the function returned ", type_name(r), " at t = ", t,
                                          "; it must return a (complex) number"));
    }
  };
}

std::function<std::complex<double>(const Vec3&)> python_point_function(py::object f, const std::string& who) {
  SPIRE_CHECK(PyCallable_Check(f.ptr()), ValueError, who, ": expected a function of a Vector3, got ", type_name(f));
  auto held = hold(std::move(f));
  return [held, who](const Vec3& p) {
    py::gil_scoped_acquire gil;
    py::object r = (*held)(vector3(p));
    try {
      return r.cast<std::complex<double>>();
    } catch (py::cast_error&) {
      throw spire::ValueError(detail::cat(who, ": the function returned ", type_name(r), " at (", p.x, ", ", p.y, ", ",
                                          p.z, "); it must return a (complex) number"));
    }
  };
}

// ---- time profiles, units, analytic references ----

namespace {

// Meep's (frequency, wavelength) pair: exactly one, the frequency > 0.
double frequency_of(py::handle frequency, py::handle wavelength, const char* who) {
  SPIRE_CHECK(frequency.is_none() != wavelength.is_none(), ValueError, who,
              ": give exactly one of frequency and wavelength");
  if (!frequency.is_none()) return to_double(frequency, std::string(who) + ": frequency");
  const double w = to_double(wavelength, std::string(who) + ": wavelength");
  SPIRE_CHECK(std::isfinite(w) && w > 0, ValueError, who, ": wavelength must be finite and > 0, got ", w);
  return 1 / w;
}

void no_integrated(bool is_integrated, const char* who) {
  SPIRE_CHECK(!is_integrated, ValueError, who,
              ": is_integrated=True is not supported (the profile is the current; for a sheet that spans the cell, "
              "give the current itself)");
}

py::dict fresnel_dict(const Fresnel& f) {
  py::dict d;
  d["r_s"] = f.r_s, d["r_p"] = f.r_p, d["t_s"] = f.t_s, d["t_p"] = f.t_p;
  d["R_s"] = f.R_s, d["R_p"] = f.R_p, d["T_s"] = f.T_s, d["T_p"] = f.T_p;
  return d;
}

}  // namespace

void bind_elec_profiles(py::module_& m) {
  py::class_<TimeProfile, std::shared_ptr<TimeProfile>>(
      m, "TimeProfile", "The time dependence of a source's current (Meep's SourceTime); exp(-i 2 pi f t) convention.")
      .def("current", &TimeProfile::current, py::arg("t"), py::arg("dt"),
           "The current over the update interval of width dt centred on t.")
      .def_property_readonly("start_time", &TimeProfile::start_time)
      .def_property_readonly("end_time", &TimeProfile::end_time)
      .def_property_readonly("frequency", &TimeProfile::frequency, "The centre frequency (c/a; 0 when none).");

  py::class_<GaussianSource, TimeProfile, std::shared_ptr<GaussianSource>>(
      m, "GaussianSource",
      "Meep's GaussianSource: a pulse at `frequency` (c/a) of spectral width fwidth (or temporal width "
      "width = 1/fwidth), peaking at start_time + cutoff * width.")
      .def(py::init([](py::object frequency, double width, double fwidth, double start_time, double cutoff,
                       bool is_integrated, py::object wavelength) {
             const double f = frequency_of(frequency, wavelength, "GaussianSource");
             no_integrated(is_integrated, "GaussianSource");
             const bool has_width = width > 0, has_fwidth = std::isfinite(fwidth);
             SPIRE_CHECK(has_width != has_fwidth, ValueError,
                         "GaussianSource: give exactly one of width (> 0, a/c) and fwidth (finite, c/a), got width ",
                         width, ", fwidth ", fwidth);
             return std::make_shared<GaussianSource>(f, has_fwidth ? fwidth : 1 / width, start_time, cutoff);
           }),
           py::arg("frequency") = py::none(), py::arg("width") = 0.0,
           py::arg("fwidth") = std::numeric_limits<double>::infinity(), py::arg("start_time") = 0.0,
           py::arg("cutoff") = 5.0, py::arg("is_integrated") = false, py::arg("wavelength") = py::none())
      .def("dipole", &GaussianSource::dipole, py::arg("t"), "The complex dipole d(t) whose derivative is the current.")
      .def("fourier_transform", &GaussianSource::fourier_transform, py::arg("f"),
           "Meep's normalisation of the pulse spectrum at frequency f.")
      .def_property_readonly("fwidth", &GaussianSource::fwidth)
      .def_property_readonly("width", &GaussianSource::width)
      .def_property_readonly("peak_time", &GaussianSource::peak_time)
      .def("__repr__", [](const GaussianSource& g) {
        return detail::cat("GaussianSource(frequency=", g.frequency(), ", fwidth=", g.fwidth(), ")");
      });

  py::class_<ContinuousSource, TimeProfile, std::shared_ptr<ContinuousSource>>(
      m, "ContinuousSource",
      "Meep's ContinuousSource: exp(-i 2 pi f t) from start_time to end_time; width > 0 turns it on and off "
      "smoothly over about `width` (cutoff: Meep's slowness of that turn-on).")
      .def(py::init([](py::object frequency, double start_time, double end_time, double width, double cutoff,
                       bool is_integrated, py::object wavelength) {
             const double f = frequency_of(frequency, wavelength, "ContinuousSource");
             no_integrated(is_integrated, "ContinuousSource");
             return std::make_shared<ContinuousSource>(f, start_time, end_time, width, cutoff);
           }),
           py::arg("frequency") = py::none(), py::arg("start_time") = 0.0,
           py::arg("end_time") = std::numeric_limits<double>::infinity(), py::arg("width") = 0.0,
           py::arg("cutoff") = 3.0, py::arg("is_integrated") = false, py::arg("wavelength") = py::none())
      .def("dipole", &ContinuousSource::dipole, py::arg("t"))
      .def("__repr__",
           [](const ContinuousSource& c) { return detail::cat("ContinuousSource(frequency=", c.frequency(), ")"); });

  py::class_<CustomSource, TimeProfile, std::shared_ptr<CustomSource>>(
      m, "CustomSource",
      "Meep's CustomSource: src_func(t) is the current at time t (a Python function returning a number), "
      "evaluated at the centre of every update; zero outside [start_time, end_time]. Each call takes the GIL.")
      .def(py::init([](py::object src_func, double start_time, double end_time, bool is_integrated,
                       double center_frequency, double fwidth) {
             no_integrated(is_integrated, "CustomSource");
             return std::make_shared<CustomSource>(python_time_function(std::move(src_func), "CustomSource.src_func"),
                                                   start_time, end_time, center_frequency);
           }),
           py::arg("src_func"), py::arg("start_time") = -std::numeric_limits<double>::infinity(),
           py::arg("end_time") = std::numeric_limits<double>::infinity(), py::arg("is_integrated") = false,
           py::arg("center_frequency") = 0.0, py::arg("fwidth") = 0.0);

  py::class_<UnitScale>(m, "UnitScale",
                        "Normalised units and SI for a length unit a (metres): lengths x a, times x a/c, "
                        "frequencies x c/a, conductivities x eps0 c/a.")
      .def(py::init<double>(), py::arg("a"))
      .def_property_readonly("a", &UnitScale::a)
      .def("length_to_si", &UnitScale::length_to_si, py::arg("x"))
      .def("length_from_si", &UnitScale::length_from_si, py::arg("metres"))
      .def("time_to_si", &UnitScale::time_to_si, py::arg("t"))
      .def("time_from_si", &UnitScale::time_from_si, py::arg("seconds"))
      .def("frequency_to_si", &UnitScale::frequency_to_si, py::arg("f"))
      .def("frequency_from_si", &UnitScale::frequency_from_si, py::arg("hertz"))
      .def("wavelength_to_si", &UnitScale::wavelength_to_si, py::arg("f"))
      .def("frequency_from_wavelength_si", &UnitScale::frequency_from_wavelength_si, py::arg("metres"))
      .def("conductivity_to_si", &UnitScale::conductivity_to_si, py::arg("sigma"))
      .def("conductivity_from_si", &UnitScale::conductivity_from_si, py::arg("siemens_per_metre"))
      .def("__repr__", [](const UnitScale& u) { return detail::cat("UnitScale(a=", u.a(), ")"); });

  m.def(
      "yee_omega",
      [](py::handle k, double dx, double dt, double index) {
        return yee_omega(to_vec3(k, "yee_omega: k"), dx, dt, index);
      },
      py::arg("k"), py::arg("dx"), py::arg("dt"), py::arg("index") = 1.0,
      "The exact angular frequency of the Yee scheme for wave vector k (rad/a): (n/dt)^2 sin^2(omega dt/2) = "
      "sum_a sin^2(k_a dx/2)/dx^2.");
  m.def(
      "yee_frequency",
      [](py::handle k, double dx, double dt, double index) {
        return yee_omega(to_vec3(k, "yee_frequency: k"), dx, dt, index) / (2 * std::numbers::pi);
      },
      py::arg("k"), py::arg("dx"), py::arg("dt"), py::arg("index") = 1.0,
      "yee_omega / (2 pi): the frequency (c/a) the lattice gives wave vector k (rad/a), e.g. a PEC cavity's mode "
      "k = (m pi / Lx, n pi / Ly).");
  m.def(
      "fresnel", [](double n1, std::complex<double> n2, double theta) { return fresnel_dict(fresnel(n1, n2, theta)); },
      py::arg("n1"), py::arg("n2"), py::arg("theta") = 0.0,
      "Fresnel coefficients r_s, r_p, t_s, t_p and powers R_s, R_p, T_s, T_p (analytic.h).");
  m.def("brewster_angle", &brewster_angle, py::arg("n1"), py::arg("n2"));
  m.def("frequency_list", &frequency_list, py::arg("fcen"), py::arg("df"), py::arg("nfreq"),
        "Meep's nfreq frequencies evenly spaced over fcen +- df/2.");
  m.def("platforms", &platforms, "\"cpu\" and the platforms this build registered (\"cuda\").");
  m.def(
      "read_field_snapshot",
      [](py::handle path, py::handle c, int64_t step) {
        const FieldSnapshot s =
            read_field_snapshot(fspath_of(path), to_component(c, "read_field_snapshot: component"), step);
        py::array_t<double> values({py::ssize_t(s.shape[0]), py::ssize_t(s.shape[1]), py::ssize_t(s.shape[2])});
        if (!s.values.empty()) std::memcpy(values.mutable_data(), s.values.data(), s.values.size() * sizeof(double));
        return py::make_tuple(values, s.time, s.step);
      },
      py::arg("path"), py::arg("component"), py::arg("step"),
      "One snapshot of an HDF5 field file: (values shaped (n_x, n_y, n_z), the component's time, step).");
}

std::string fspath_of(py::handle path) { return py::str(py::module_::import("os").attr("fspath")(path)); }

}  // namespace spire::python::elec_py

namespace spire::python {

void bind_elec(py::module_& m) {
  using namespace elec_py;
  py::module_ em = m.def_submodule("_elec", "FDTD electromagnetics (science/elec); use spire.elec.");
  py::object namedtuple = py::module_::import("collections").attr("namedtuple");
  g_vector3 = new py::object(
      namedtuple("Vector3", py::make_tuple("x", "y", "z"), py::arg("defaults") = py::make_tuple(0.0, 0.0, 0.0)));
  g_mode = new py::object(namedtuple("Mode", py::make_tuple("freq", "decay", "Q", "amp", "err")));
  g_vector3->attr("__module__") = "spire.elec";
  g_mode->attr("__module__") = "spire.elec";
  em.attr("Vector3") = *g_vector3;
  em.attr("Mode") = *g_mode;
  bind_elec_profiles(em);
  bind_elec_problem(em);
  py::class_<ElecSimulation> cls(
      em, "Simulation",
      "An FDTD run built from a declarative problem (spire.elec.Simulation documents the arguments).");
  bind_elec_simulation(em, cls);
  bind_elec_monitors(em, cls);
  bind_elec_ports(em, cls);
  bind_elec_adjoint(em);
}

}  // namespace spire::python
