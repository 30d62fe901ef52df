// spire._C._elec.Simulation: a run built from the declarative problem (elec_problem.cpp), stepped
// by run(), with step callbacks, the fields as NumPy arrays, the discrete energy and the named state
// arrays of simulation.h (checkpoints that continue bit for bit).
//
// The GIL. Building (subpixel sampling) and stepping go without it; what calls into Python takes it
// for the call: step callbacks, CustomSource functions, amplitude functions, and a look at pending
// signals a few times a second, so Ctrl-C stops a run between two steps (KeyboardInterrupt; the run
// stays usable at the step it reached). While a run steps without the GIL, running is set and
// another run()/step()/load_state() (from a callback or another thread) is refused.
//
// Identity. Callbacks receive the Python object the user made (pybind11 finds the registered
// instance), so a subclass defined in Python (spire.elec.Simulation) is what they see.
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

#include "elec_common.h"
#include "engine/core/error.h"

namespace spire::python::elec_py {

using namespace spire::elec;

ElecSimulation::ElecSimulation(Problem p)
    : problem(std::move(p)), sim(build(problem)), monitors(std::make_unique<Monitors>(sim)) {}

ElecSimulation::~ElecSimulation() = default;

void ElecSimulation::check_idle(const char* who, bool allow_broken) const {
  SPIRE_CHECK(!running, ValueError, who,
              ": the simulation is running (called from a step callback or another thread); wait for run() to return");
  SPIRE_CHECK(allow_broken || broken.empty(), ValueError, who, ": step ", sim.steps() + 1, " failed half-way (", broken,
              "), leaving the fields between two time levels; build a new Simulation (or load_state a saved state)");
}

void ElecSimulation::step() {
  const int64_t before = sim.steps();
  try {
    sim.step();
  } catch (py::error_already_set& e) {
    // Callbacks run after the step count moves on: an exception before that came from the step itself.
    if (sim.steps() == before) {
      py::gil_scoped_acquire gil;  // the message of a Python exception is read with the GIL
      const std::string what = e.what();
      broken = what.substr(0, what.find('\n'));  // the exception's line, not pybind11's traceback
    }
    throw;
  } catch (const std::exception& e) {
    if (sim.steps() == before) broken = e.what();
    throw;
  }
}

py::object python_simulation(const ElecSimulation& s) { return py::cast(&s, py::return_value_policy::reference); }

namespace {

// Sets `running` for a scope.
class Running {
 public:
  Running(ElecSimulation& s, const char* who) : s_(s) {
    s.check_idle(who);
    s.running = true;
  }
  ~Running() { s_.running = false; }
  Running(const Running&) = delete;
  Running& operator=(const Running&) = delete;

 private:
  ElecSimulation& s_;
};

// Between steps: a look at pending signals (Ctrl-C) every 200 ms, with the GIL.
class SignalPoll {
 public:
  void operator()() {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200)) return;
    last_ = now;
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
  }

 private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

// Steps (without the GIL) while time < until, as Simulation::run: the same tolerance of a
// millionth of a step, so until = m dt takes exactly m steps.
void step_until(ElecSimulation& s, double until) {
  SPIRE_CHECK(!std::isnan(until), ValueError, "Simulation.run: until is NaN");
  SPIRE_CHECK(std::isfinite(until), ValueError, "Simulation.run: until must be finite, got ", until);
  Running guard(s, "Simulation.run");
  py::gil_scoped_release release;
  SignalPoll poll;
  const double stop = until - 1e-6 * s.sim.dt();
  while (s.sim.time() < stop) {
    s.step();
    poll();
  }
}

void step_n(ElecSimulation& s, int64_t steps) {
  SPIRE_CHECK(steps >= 0, ValueError, "Simulation.run: steps must be >= 0, got ", steps);
  Running guard(s, "Simulation.run");
  py::gil_scoped_release release;
  SignalPoll poll;
  for (int64_t i = 0; i < steps; ++i) {
    s.step();
    poll();
  }
}

// Removes callbacks when a scope ends (run's step functions).
class TemporaryCallbacks {
 public:
  explicit TemporaryCallbacks(Simulation& sim) : sim_(sim) {}
  ~TemporaryCallbacks() {
    for (int id : ids_) sim_.remove_step_callback(id);
  }
  void add(int id) { ids_.push_back(id); }

 private:
  Simulation& sim_;
  std::vector<int> ids_;
};

Simulation::StepCallback python_callback(const ElecSimulation& s, py::object f, const char* who) {
  SPIRE_CHECK(PyCallable_Check(f.ptr()), ValueError, who, ": expected a function of the simulation, got ",
              type_name(f));
  auto held = hold(std::move(f));
  const ElecSimulation* owner = &s;
  return [held, owner](Simulation&) {
    py::gil_scoped_acquire gil;
    (*held)(python_simulation(*owner));
  };
}

std::vector<py::ssize_t> field_shape(const YeeLattice& l) {
  std::vector<py::ssize_t> shape;
  for (int a = 0; a < 3; ++a)
    if (l.has_axis(a)) shape.push_back(py::ssize_t(l.n(a)));
  return shape;
}

template <class T>
py::array copy_field(const FieldView& v, const std::vector<py::ssize_t>& shape, int64_t n) {
  if (!v.is_complex()) {
    py::array_t<T> a(shape);
    std::memcpy(a.mutable_data(), v.real_data<T>(), size_t(n) * sizeof(T));
    return a;
  }
  py::array_t<std::complex<T>> a(shape);
  const T* re = v.real_data<T>();
  const T* im = v.imag_data<T>();
  std::complex<T>* out = a.mutable_data();
  for (int64_t i = 0; i < n; ++i) out[i] = {re[i], im[i]};
  return a;
}

py::array field_array(const Simulation& sim, Component c) {
  check_carried(sim.lattice(), c, "Simulation.field");
  const FieldView v = sim.field(c);
  const std::vector<py::ssize_t> shape = field_shape(sim.lattice());
  const int64_t n = sim.lattice().samples();
  return sim.precision() == Precision::float32 ? copy_field<float>(v, shape, n) : copy_field<double>(v, shape, n);
}

// The component at a point, interpolated as the monitors do (a point series of one step).
py::object field_point(const Simulation& sim, Component c, const Vec3& p) {
  check_carried(sim.lattice(), c, "Simulation.get_field_point");
  PointTimeSeries series(sim.lattice(), p, {c}, sim.dt());
  if (sim.precision() == Precision::float32)
    series.update(field_arrays<float>(sim), sim.time());
  else
    series.update(field_arrays<double>(sim), sim.time());
  const double re = series.values(c).at(0), im = series.imag_values(c).at(0);
  if (sim.complex_fields()) return py::cast(std::complex<double>(re, im));
  return py::float_(re);
}

py::dict state_dict(const SimulationState& state) {
  py::dict d;
  for (const StateArray& a : state) d[py::str(a.name)] = doubles_array(a.values);
  return d;
}

SimulationState state_from(py::handle h) {
  SPIRE_CHECK(py::hasattr(h, "items"), ValueError,
              "Simulation.load_state: expected a dict {name: array} (from save_state), got ", type_name(h));
  SimulationState state;
  for (py::handle item : h.attr("items")()) {
    py::tuple kv = py::reinterpret_borrow<py::tuple>(item);
    const std::string name = py::str(kv[0]);
    auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(kv[1]);
    SPIRE_CHECK(a && a.ndim() == 1, ValueError, "Simulation.load_state: '", name, "' must be a 1-D array of numbers");
    state.push_back({name, std::vector<double>(a.data(), a.data() + a.size())});
  }
  return state;
}

}  // namespace

void bind_elec_simulation(py::module_& m, py::class_<ElecSimulation>& cls) {
  cls.def(py::init([](const Problem& problem) {
            py::gil_scoped_release release;  // subpixel sampling; amplitude functions take the GIL
            return std::make_unique<ElecSimulation>(problem);
          }),
          py::arg("problem"),
          "Builds the run of a Problem (spire.elec.Simulation makes the Problem from its arguments).");

  cls.def(
         "run",
         [](ElecSimulation& s, py::args step_funcs, py::object until, py::object until_after_sources,
            py::object steps) {
           const int given = int(!until.is_none()) + int(!until_after_sources.is_none()) + int(!steps.is_none());
           SPIRE_CHECK(given == 1, ValueError,
                       "Simulation.run: give exactly one of until (a time), until_after_sources (a time after the "
                       "last source ends) and steps");
           s.check_idle("Simulation.run");
           TemporaryCallbacks temporary(s.sim);
           size_t i = 0;
           for (py::handle f : step_funcs)
             temporary.add(s.sim.add_step_callback(
                 1, python_callback(s, py::reinterpret_borrow<py::object>(f),
                                    detail::cat("Simulation.run: step function ", i++).c_str())));
           if (!steps.is_none()) return step_n(s, steps.cast<int64_t>());
           if (!until.is_none()) return step_until(s, to_double(until, "Simulation.run: until"));
           const double after = to_double(until_after_sources, "Simulation.run: until_after_sources");
           const double end = s.sim.sources_end_time();
           SPIRE_CHECK(end > -std::numeric_limits<double>::infinity(), ValueError,
                       "Simulation.run: until_after_sources needs sources; this problem has none (use until)");
           SPIRE_CHECK(std::isfinite(end), ValueError,
                       "Simulation.run: until_after_sources: a source never ends (a ContinuousSource without "
                       "end_time); use until");
           step_until(s, end + after);
         },
         py::kw_only(), py::arg("until") = py::none(), py::arg("until_after_sources") = py::none(),
         py::arg("steps") = py::none(),
         "Steps while time < until (Meep's run(until=T)), or until `until_after_sources` after the last source "
         "ends, or `steps` steps; positional arguments are step functions f(sim) called after every step of this "
         "run. Runs without the GIL; Ctrl-C stops between steps.")
      .def(
          "step",
          [](ElecSimulation& s) {
            Running guard(s, "Simulation.step");
            py::gil_scoped_release release;
            s.step();
          },
          "One time step (H by dt/2 .. E by dt), then the callbacks.")
      .def(
          "add_step_callback",
          [](ElecSimulation& s, py::object f, int64_t every) {
            return s.sim.add_step_callback(every, python_callback(s, std::move(f), "Simulation.add_step_callback"));
          },
          py::arg("function"), py::arg("every") = 1,
          "Calls function(sim) after every `every`-th step (counted from step 0), after the monitors; returns an "
          "id for remove_step_callback. An exception stops the run and propagates.")
      .def(
          "remove_step_callback", [](ElecSimulation& s, int id) { s.sim.remove_step_callback(id); }, py::arg("id"));

  cls.def(
         "field",
         [](const ElecSimulation& s, py::handle c) { return field_array(s.sim, to_component(c, "Simulation.field")); },
         py::arg("component"),
         "A copy of one component's samples, shaped by the axes the problem has ((n_x, n_y, n_z), (n_x, n_y) in 2D, "
         "(n_z,) in 1D), in the run's precision (complex with Bloch boundaries). E is at time, H at time - dt/2; "
         "sample i sits at coordinates(component).")
      .def(
          "coordinates",
          [](const ElecSimulation& s, py::handle ch) {
            const Component c = to_component(ch, "Simulation.coordinates");
            const YeeLattice& l = s.sim.lattice();
            check_carried(l, c, "Simulation.coordinates");
            py::list out;
            for (int a = 0; a < 3; ++a) {
              if (!l.has_axis(a)) continue;
              std::vector<double> x(size_t(l.n(a)));
              for (int64_t i = 0; i < l.n(a); ++i)
                x[size_t(i)] = l.position(c, a == 0 ? i : 0, a == 1 ? i : 0, a == 2 ? i : 0)[a];
              out.append(doubles_array(x));
            }
            return py::tuple(out);
          },
          py::arg("component"), "The positions (in a) of a component's samples along each axis the problem has.")
      .def(
          "get_field_point",
          [](const ElecSimulation& s, py::handle c, py::handle p) {
            return field_point(s.sim, to_component(c, "Simulation.get_field_point"),
                               to_vec3(p, "Simulation.get_field_point: point"));
          },
          py::arg("component"), py::arg("point"),
          "Meep's get_field_point: the component interpolated (multilinearly, from its own samples) at a point.")
      .def(
          "initialize_field",
          [](ElecSimulation& s, py::handle c, py::object value) {
            s.check_idle("Simulation.initialize_field");
            const Component comp = to_component(c, "Simulation.initialize_field");
            check_carried(s.sim.lattice(), comp, "Simulation.initialize_field");
            if (is_py_number(value)) {
              const std::complex<double> v = to_complex(value, "Simulation.initialize_field: value");
              s.sim.set_field(comp, [v](const Vec3&) { return v; });
            } else {
              s.sim.set_field(comp, python_point_function(std::move(value), "Simulation.initialize_field"));
            }
          },
          py::arg("component"), py::arg("value"),
          "Meep's initialize_field: sets every sample of a component to value(Vector3) (or a number); walls that "
          "hold it at zero keep it there.")
      .def(
          "get_epsilon",
          [](const ElecSimulation& s, py::object c) {
            const YeeLattice& l = s.sim.lattice();
            Component comp = Component::Ez;
            if (c.is_none()) {
              for (Component x : l.components())
                if (is_electric(x)) {
                  comp = x;
                  break;
                }
            } else {
              comp = to_component(c, "Simulation.get_epsilon");
            }
            SPIRE_CHECK(is_electric(comp) && l.has(comp), ValueError, "Simulation.get_epsilon: ", to_string(comp),
                        " is not an electric component of this ", to_string(l.dimensions()), " problem");
            const std::vector<double>& inv = s.sim.materials().inverse[size_t(int(comp))];
            std::vector<double> eps(inv.size());
            for (size_t i = 0; i < inv.size(); ++i)
              eps[i] = inv[i] == 0 ? std::numeric_limits<double>::infinity() : 1 / inv[i];
            py::array_t<double> a(field_shape(l));
            std::memcpy(a.mutable_data(), eps.data(), eps.size() * sizeof(double));
            return a;
          },
          py::arg("component") = py::none(),
          "The (subpixel-averaged) permittivity each sample of an E component sees (1 / inv_eps; inf inside PEC).");

  cls.def(
         "energy", [](const ElecSimulation& s) { return s.sim.energy(); },
         "The discrete electromagnetic energy of the cell (simulation.h), conserved exactly in a closed lossless cell.")
      .def("electric_energy", [](const ElecSimulation& s) { return s.sim.electric_energy(); })
      .def("magnetic_energy", [](const ElecSimulation& s) { return s.sim.magnetic_energy(); })
      .def(
          "save_state", [](const ElecSimulation& s) { return state_dict(s.sim.save_state()); },
          "Every array the stepping carries (E, H, D, CPML, polarisations, distributed sources) and the step "
          "count, as {name: float64 array}. Monitors are not included.")
      .def(
          "load_state",
          [](ElecSimulation& s, py::handle state) {
            s.check_idle("Simulation.load_state", true);
            s.sim.load_state(state_from(state));
            s.broken.clear();  // every array the stepping carries is restored
          },
          py::arg("state"),
          "Restores save_state()'s arrays into a run built from the same problem; it continues bit for bit as the "
          "run that saved them. ValueError naming the first array that is missing or of another length.");

  cls.def_property_readonly(
         "time", [](const ElecSimulation& s) { return s.sim.time(); },
         "steps * dt: the time of E (H lags by dt/2); Meep's meep_time().")
      .def_property_readonly("dt", [](const ElecSimulation& s) { return s.sim.dt(); })
      .def_property_readonly("steps", [](const ElecSimulation& s) { return s.sim.steps(); })
      .def_property_readonly("courant", [](const ElecSimulation& s) { return s.sim.courant(); })
      .def_property_readonly("courant_limit", [](const ElecSimulation& s) { return s.sim.courant_limit(); })
      .def_property_readonly("resolution", [](const ElecSimulation& s) { return s.sim.lattice().resolution(); })
      .def_property_readonly(
          "dimensions", [](const ElecSimulation& s) { return to_string(s.sim.lattice().dimensions()); },
          "\"1d\", \"2d_tm\", \"2d_te\" or \"3d\".")
      .def_property_readonly("components",
                             [](const ElecSimulation& s) {
                               std::vector<std::string> names;
                               for (Component c : s.sim.lattice().components()) names.push_back(to_string(c));
                               return names;
                             })
      .def_property_readonly(
          "shape", [](const ElecSimulation& s) { return py::tuple(py::cast(field_shape(s.sim.lattice()))); },
          "Samples per axis the problem has (the shape of field()).")
      .def_property_readonly(
          "cell_size", [](const ElecSimulation& s) { return vector3(s.sim.lattice().size()); },
          "The cell's extent in whole cells (cell_size rounded to the grid).")
      .def_property_readonly("precision", [](const ElecSimulation& s) { return to_string(s.sim.precision()); })
      .def_property_readonly("platform", [](const ElecSimulation& s) { return s.sim.platform(); })
      .def_property_readonly("complex_fields", [](const ElecSimulation& s) { return s.sim.complex_fields(); })
      .def_property_readonly(
          "sources_end_time", [](const ElecSimulation& s) { return s.sim.sources_end_time(); },
          "When the last source turns off (-inf without sources, inf for a source that never does).")
      .def("__repr__", [](const ElecSimulation& s) {
        const YeeLattice& l = s.sim.lattice();
        std::string cells;
        for (int a = 0; a < 3; ++a)
          if (l.has_axis(a)) cells += (cells.empty() ? "" : "x") + std::to_string(l.n(a));
        return detail::cat("Simulation(", to_string(l.dimensions()), ", ", cells, " cells, resolution ", l.resolution(),
                           ", ", to_string(s.sim.precision()), ", step ", s.sim.steps(), ", t = ", s.sim.time(), ")");
      });
}

}  // namespace spire::python::elec_py
