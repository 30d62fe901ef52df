// spire._C._sponge: the molecular dynamics package (science/sponge) for spire.sponge
// (python/spire/sponge.py). This file: the conversions the other files share (sponge_common.h),
// units, boxes and the State, and the submodule itself. The System is in sponge_system.cpp,
// builders and PDB files in sponge_build.cpp, force terms in sponge_forces.cpp, integrators and
// minimisers in sponge_dynamics.cpp, reporters and the Simulation in sponge_simulation.cpp.
//
// Objects are C++ values behind Python handles, as OpenMM's System is: a Simulation copies the
// System and the State it is given, so later changes to them do not reach a running simulation.
#include <cmath>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "sponge_common.h"
#include "engine/core/error.h"
#include "science/sponge/box.h"
#include "science/sponge/pdb.h"
#include "science/sponge/state.h"

namespace spire::python::sponge_py {

// ---- conversions (sponge_common.h) ----

py::array_t<double> vec3_array(const std::vector<Vec3>& v) {
  py::array_t<double> a({py::ssize_t(v.size()), py::ssize_t(3)});
  static_assert(sizeof(Vec3) == 3 * sizeof(double), "Vec3 must be three packed doubles");
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(Vec3));
  return a;
}

std::vector<Vec3> to_vec3_list(py::handle h, const std::string& who, int64_t expected) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  SPIRE_CHECK(a, ValueError, who, ": expected an (N, 3) array of numbers, got ", type_name(h));
  const bool empty = a.ndim() == 1 && a.shape(0) == 0;  // [] for no particles
  SPIRE_CHECK(empty || (a.ndim() == 2 && a.shape(1) == 3), ValueError, who, ": expected shape (N, 3), got ",
              std::string(py::str(py::tuple(py::cast(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()))))));
  const int64_t n = empty ? 0 : int64_t(a.shape(0));
  SPIRE_CHECK(expected < 0 || n == expected, ValueError, who, ": ", n, " rows for ", expected,
              " particles (one (x, y, z) row per particle)");
  std::vector<Vec3> v(static_cast<size_t>(n));
  if (n) std::memcpy(static_cast<void*>(v.data()), a.data(), size_t(n) * sizeof(Vec3));
  for (int64_t i = 0; i < n; ++i)
    SPIRE_CHECK(std::isfinite(v[i].x) && std::isfinite(v[i].y) && std::isfinite(v[i].z), ValueError, who,
                ": row ", i, " = (", v[i].x, ", ", v[i].y, ", ", v[i].z, ") is not finite");
  return v;
}

Vec3 to_vec3(py::handle h, const std::string& who) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  SPIRE_CHECK(a && a.ndim() == 1 && a.shape(0) == 3, ValueError, who, ": expected three numbers (x, y, z), got ",
              std::string(py::repr(h)));
  return {a.at(0), a.at(1), a.at(2)};
}

py::array_t<double> vec3_1d(const Vec3& v) {
  py::array_t<double> a(3);
  a.mutable_at(0) = v.x, a.mutable_at(1) = v.y, a.mutable_at(2) = v.z;
  return a;
}

py::array_t<double> mat3_array(const Mat3& m) {
  py::array_t<double> a({py::ssize_t(3), py::ssize_t(3)});
  std::memcpy(a.mutable_data(), m.m.data(), 9 * sizeof(double));
  return a;
}

py::array_t<double> doubles_array(const std::vector<double>& v) {
  py::array_t<double> a(py::ssize_t(v.size()));
  if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(double));
  return a;
}

std::vector<double> to_doubles(py::handle h, const std::string& who) {
  auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(h);
  SPIRE_CHECK(a && a.ndim() == 1, ValueError, who, ": expected a 1-D sequence of numbers, got ",
              std::string(py::repr(h)));
  return std::vector<double>(a.data(), a.data() + a.shape(0));
}

Units to_units(py::handle h) {
  if (py::isinstance<Units>(h)) return h.cast<Units>();
  SPIRE_CHECK(py::isinstance<py::str>(h), ConfigError, "units: expected \"md\", \"lj\" or a Units object, got ",
              type_name(h));
  return Units::by_name(h.cast<std::string>());
}

py::dict energies_dict(const ForceResult& result) {
  py::dict d;
  for (const auto& [term, e] : result.energies) d[py::str(term)] = e;
  return d;
}

namespace {

// A streambuf that hands whole lines to a Python file object (python_text_stream).
class PythonLineBuffer : public std::streambuf {
 public:
  PythonLineBuffer(py::object file, std::string sys_name, std::string who)
      : file_(hold(std::move(file))), sys_name_(std::move(sys_name)), who_(std::move(who)) {}
  ~PythonLineBuffer() override { emit(false); }

 protected:
  int_type overflow(int_type ch) override {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    pending_.push_back(traits_type::to_char_type(ch));
    if (ch == '\n') emit(false);
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    pending_.append(s, size_t(n));
    if (std::memchr(s, '\n', size_t(n))) emit(false);
    return n;
  }
  int sync() override {
    emit(true);
    return 0;
  }

 private:
  void emit(bool flush) {
    if (pending_.empty() && !flush) return;
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    try {
      py::object f = sys_name_.empty() ? *file_ : py::module_::import("sys").attr(sys_name_.c_str());
      std::string text;
      text.swap(pending_);
      if (!f.is_none()) {
        if (!text.empty()) f.attr("write")(py::str(text));
        if (flush && py::hasattr(f, "flush")) f.attr("flush")();
      }
    } catch (py::error_already_set& e) {
      e.discard_as_unraisable(who_.c_str());
    }
  }

  std::shared_ptr<py::object> file_;  // released under the GIL (hold)
  std::string sys_name_;              // "stdout" / "stderr": looked up at each write
  std::string who_;
  std::string pending_;
};

class PythonStream : public std::ostream {
 public:
  PythonStream(py::object file, std::string sys_name, std::string who)
      : std::ostream(nullptr), buffer_(std::move(file), std::move(sys_name), std::move(who)) {
    rdbuf(&buffer_);
  }

 private:
  PythonLineBuffer buffer_;
};

}  // namespace

std::unique_ptr<std::ostream> python_text_stream(py::handle target, const std::string& who) {
  if (py::isinstance<py::str>(target)) {
    const std::string name = target.cast<std::string>();
    if (name == "stdout" || name == "stderr") return std::make_unique<PythonStream>(py::none(), name, who);
  }
  if (py::isinstance<py::str>(target) || py::hasattr(target, "__fspath__")) {
    const std::string path = fspath(target);
    auto f = std::make_unique<std::ofstream>(path);
    SPIRE_CHECK(f->is_open(), IOError, who, ": cannot open ", path, " for writing");
    return f;
  }
  SPIRE_CHECK(py::hasattr(target, "write"), ValueError, who,
              ": expected \"stdout\", \"stderr\", a path or a file object with write(), got ", type_name(target));
  return std::make_unique<PythonStream>(py::reinterpret_borrow<py::object>(target), "", who);
}

std::string number(double x) {
  std::ostringstream s;
  s.precision(10);
  s << x;
  return s.str();
}

std::string fspath(py::handle path) { return py::str(py::module_::import("os").attr("fspath")(path)); }

std::string box_repr(const Box& b) {
  std::ostringstream s;
  s.precision(10);
  if (!b.periodic()) return "Box.none()";
  if (b.orthorhombic()) {
    s << "Box.orthorhombic(" << b.a().x << ", " << b.b().y << ", " << b.c().z << ")";
  } else {
    auto v = [&](const Vec3& x) { s << "(" << x.x << ", " << x.y << ", " << x.z << ")"; };
    s << "Box.triclinic(";
    v(b.a()), s << ", ", v(b.b()), s << ", ", v(b.c()), s << ")";
  }
  return s.str();
}

namespace {

Box box_of(py::handle h) {
  if (h.is_none()) return Box::none();
  SPIRE_CHECK(py::isinstance<Box>(h), ValueError, "box: expected a Box (Box.orthorhombic, Box.triclinic) or None, got ",
              type_name(h));
  return h.cast<Box>();
}

State make_state(py::handle positions, py::handle velocities, py::handle box, double time, int64_t step) {
  State s;
  s.positions = to_vec3_list(positions, "State: positions");
  if (!velocities.is_none())
    s.velocities = to_vec3_list(velocities, "State: velocities", int64_t(s.positions.size()));
  else
    s.velocities.assign(s.positions.size(), Vec3{});
  s.box = box_of(box);
  SPIRE_CHECK(std::isfinite(time), ValueError, "State: time must be finite, got ", time);
  SPIRE_CHECK(step >= 0, ValueError, "State: step must be >= 0, got ", step);
  s.time = time;
  s.step = step;
  return s;
}

void bind_units_and_box(py::module_& m) {
  py::class_<Units>(m, "Units",
                    "A unit system: md (nm, ps, kJ/mol, amu, e, K, bar; OpenMM's and GROMACS's) or lj "
                    "(Lennard-Jones reduced units, LAMMPS's `units lj`).")
      .def_static("md", &Units::md, "nm, ps, kJ/mol, amu, e, K, bar.")
      .def_static("lj", &Units::lj, "Reduced units: sigma, epsilon, m, k_B = 1.")
      .def_static("by_name", &Units::by_name, py::arg("name"), "\"md\" or \"lj\".")
      .def_readonly("name", &Units::name)
      .def_readonly("boltzmann", &Units::boltzmann, "k_B in energy per temperature unit.")
      .def_readonly("coulomb", &Units::coulomb, "1/(4 pi eps0) in energy * length / charge^2.")
      .def_readonly("pressure_unit", &Units::pressure_unit, "Energy/length^3 per displayed pressure unit.")
      .def_readonly("length", &Units::length)
      .def_readonly("time", &Units::time)
      .def_readonly("energy", &Units::energy)
      .def_readonly("mass", &Units::mass)
      .def_readonly("charge", &Units::charge)
      .def_readonly("temperature", &Units::temperature)
      .def_readonly("pressure", &Units::pressure)
      .def("__eq__", [](const Units& a, const Units& b) { return a.name == b.name; })
      .def("__repr__", [](const Units& u) { return "Units." + u.name + "()"; });

  py::class_<Box>(m, "Box",
                  "The periodic cell, vectors in reduced form: a = (ax, 0, 0), b = (bx, by, 0), c = (cx, cy, cz), "
                  "|bx|, |cx| <= ax/2, |cy| <= by/2. Box.none() is no box (no images).")
      .def(py::init<>(), "No box (non-periodic).")
      .def_static("none", &Box::none, "No box (non-periodic).")
      .def_static(
          "orthorhombic",
          [](double lx, std::optional<double> ly, std::optional<double> lz) {
            return Box::orthorhombic(lx, ly.value_or(lx), lz.value_or(ly.value_or(lx)));
          },
          py::arg("lx"), py::arg("ly") = py::none(), py::arg("lz") = py::none(),
          "A rectangular box of edges lx, ly, lz (cubic when only lx is given).")
      .def_static(
          "triclinic",
          [](py::handle a, py::handle b, py::handle c) {
            return Box::triclinic(to_vec3(a, "Box.triclinic: a"), to_vec3(b, "Box.triclinic: b"),
                                  to_vec3(c, "Box.triclinic: c"));
          },
          py::arg("a"), py::arg("b"), py::arg("c"), "A box from its three vectors (reduced form; see the class).")
      .def_static("from_lengths_angles", &box_from_lengths_angles, py::arg("a"), py::arg("b"), py::arg("c"),
                  py::arg("alpha") = 90.0, py::arg("beta") = 90.0, py::arg("gamma") = 90.0,
                  "The box of edge lengths a, b, c and angles alpha (b, c), beta (a, c), gamma (a, b) in degrees "
                  "(PDB's CRYST1).")
      .def_property_readonly("periodic", &Box::periodic)
      .def_property_readonly("is_orthorhombic", [](const Box& b) { return b.periodic() && b.orthorhombic(); })
      .def_property_readonly("vectors",
                             [](const Box& b) {
                               Mat3 m;
                               for (int k = 0; k < 3; ++k) m(0, k) = b.a()[k], m(1, k) = b.b()[k], m(2, k) = b.c()[k];
                               return mat3_array(m);
                             },
                             "3x3 array, rows a, b, c.")
      .def_property_readonly("a", [](const Box& b) { return vec3_1d(b.a()); })
      .def_property_readonly("b", [](const Box& b) { return vec3_1d(b.b()); })
      .def_property_readonly("c", [](const Box& b) { return vec3_1d(b.c()); })
      .def_property_readonly("volume", &Box::volume, "ax * by * cz (0 without a box).")
      .def_property_readonly("widths", [](const Box& b) { return vec3_1d(b.width()); },
                             "Distances between opposite faces.")
      .def_property_readonly("max_cutoff", &Box::max_cutoff,
                             "Half the smallest width: the longest cutoff (plus skin) minimum image handles.")
      .def_property_readonly("lengths_angles",
                             [](const Box& b) {
                               auto [l, a] = lengths_angles(b);
                               return py::make_tuple(vec3_1d(l), vec3_1d(a));
                             },
                             "(lengths a, b, c; angles alpha, beta, gamma in degrees).")
      .def(
          "wrap",
          [](const Box& b, py::handle positions) {
            std::vector<Vec3> r = to_vec3_list(positions, "Box.wrap: positions");
            for (Vec3& x : r) x = b.wrap(x);
            return vec3_array(r);
          },
          py::arg("positions"), "Positions (N, 3) moved by box vectors into the cell (a copy).")
      .def(
          "min_image",
          [](const Box& b, py::handle d) {
            std::vector<Vec3> r = to_vec3_list(d, "Box.min_image: displacements");
            for (Vec3& x : r) x = b.min_image(x);
            return vec3_array(r);
          },
          py::arg("displacements"), "Displacements (N, 3) moved to their nearest images (a copy).")
      .def(
          "scaled", [](const Box& b, double s) { return b.scaled(s); }, py::arg("factor"),
          "The box with every vector multiplied by factor.")
      .def("__eq__", [](const Box& a, const Box& b) { return a == b; })
      .def("__repr__", &box_repr);
}

void bind_state(py::module_& m) {
  py::class_<State>(m, "State",
                    "Where the system is: positions and velocities ((N, 3) float64 arrays that copy in and out: "
                    "assign a whole array to change them), the box, time and step.")
      .def(py::init(&make_state), py::arg("positions"), py::arg("velocities") = py::none(),
           py::arg("box") = py::none(), py::arg("time") = 0.0, py::arg("step") = 0,
           "positions (N, 3); velocities (N, 3) or None for zeros; box a Box or None for no box.")
      .def_property(
          "positions", [](const State& s) { return vec3_array(s.positions); },
          [](State& s, py::handle h) { s.positions = to_vec3_list(h, "State.positions"); })
      .def_property(
          "velocities", [](const State& s) { return vec3_array(s.velocities); },
          [](State& s, py::handle h) {
            s.velocities = to_vec3_list(h, "State.velocities", int64_t(s.positions.size()));
          })
      .def_property(
          "box", [](const State& s) { return s.box; }, [](State& s, py::handle h) { s.box = box_of(h); })
      .def_readwrite("time", &State::time)
      .def_readwrite("step", &State::step)
      .def("__len__", [](const State& s) { return s.positions.size(); })
      .def("copy", [](const State& s) { return s; })
      .def("__copy__", [](const State& s) { return s; })
      .def("__deepcopy__", [](const State& s, py::handle) { return s; }, py::arg("memo"))
      .def("__repr__", [](const State& s) {
        std::ostringstream o;
        o << "State(" << s.positions.size() << " particles, step " << s.step << ", time " << s.time << ", "
          << box_repr(s.box) << ")";
        return o.str();
      });
}
}  // namespace
}  // namespace spire::python::sponge_py

namespace spire::python {

void bind_sponge(py::module_& m) {
  py::module_ sp = m.def_submodule("_sponge", "Molecular dynamics (science/sponge); use spire.sponge.");
  sponge_py::bind_units_and_box(sp);
  sponge_py::bind_sponge_system(sp);
  sponge_py::bind_state(sp);
  sponge_py::bind_sponge_builders(sp);
  sponge_py::bind_sponge_forces(sp);
  sponge_py::bind_sponge_dynamics(sp);
  sponge_py::bind_sponge_simulation(sp);
}

}  // namespace spire::python
