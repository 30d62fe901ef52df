// Shared pieces of spire._C._elec, the FDTD package (science/elec) for spire.elec
// (python/spire/elec.py): conversions of Python values to the solver's (points, components,
// frequencies, time profiles), arrays out, Python callables that the solver calls without the GIL,
// and the Simulation object the Python side holds.
//
// Split: elec.cpp (the submodule, time profiles, units, analytic references, conversions),
// elec_problem.cpp (the declarative objects of elec.py -> Problem), elec_boundaries.cpp (walls,
// PML, Bloch), elec_simulation.cpp (the Simulation: run, callbacks, fields, state),
// elec_monitors.cpp (flux, DFT fields, near-to-far, harmonic inversion, point series, snapshots),
// elec_ports.cpp (lumped ports and S-parameters).
#pragma once
#include <pybind11/complex.h>

#include <complex>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "common.h"
#include "science/elec/monitors.h"
#include "science/elec/port.h"
#include "science/elec/problem.h"

namespace spire::python::elec_py {

using spire::elec::Component;
using spire::elec::Vec3;

// ---- conversions (elec.cpp) ----

// A point or size: one to three numbers (missing trailing coordinates are 0, as Meep's Vector3),
// or any object with x, y, z attributes (meep.Vector3, spire.elec.Vector3). `who` starts errors.
Vec3 to_vec3(py::handle h, const std::string& who);
// spire.elec.Vector3(x, y, z), a named tuple.
py::object vector3(const Vec3& v);
// "Ex".."Hz" (spire.elec.Ex...); ValueError naming the allowed ones otherwise.
Component to_component(py::handle h, const std::string& who);
std::vector<Component> to_components(py::handle h, const std::string& who);
// ValueError naming `who`, the components the lattice carries, and for 2D how to get the others.
void check_carried(const spire::elec::YeeLattice& lattice, Component c, const std::string& who);
// A number or a 1-D sequence of frequencies (c/a, finite, > 0).
std::vector<double> to_frequencies(py::handle h, const std::string& who);
std::complex<double> to_complex(py::handle h, const std::string& who);
double to_double(py::handle h, const std::string& who);
// A time profile made by spire.elec (GaussianSource, ContinuousSource, CustomSource).
std::shared_ptr<const spire::elec::TimeProfile> to_profile(py::handle h, const std::string& who);
// os.fspath(path) as a string.
std::string fspath_of(py::handle path);
// The attribute `name` of a declarative object (elec.py), with an error naming `who`.
py::object attribute(py::handle h, const char* name, const std::string& who);
// The declarative kind of an elec.py object ("medium", "block", ...), or "" for anything else.
std::string kind_of(py::handle h);

py::array_t<double> doubles_array(const std::vector<double>& v);
py::array_t<std::complex<double>> complex_array(const std::vector<std::complex<double>>& v,
                                                const std::vector<py::ssize_t>& shape);
// spire.elec.Mode(freq, decay, Q, amp, err) (a named tuple, Meep's Harminv.modes entries).
py::list modes_list(const std::vector<spire::elec::HarmonicMode>& modes);

// A Python function of one argument as a C++ callable that may be called without the GIL (it takes
// the GIL for the call); `who` names it when it fails or returns something that is not a number.
std::function<std::complex<double>(double)> python_time_function(py::object f, const std::string& who);
std::function<std::complex<double>(const Vec3&)> python_point_function(py::object f, const std::string& who);

// "who[i]": how errors name an item of a list argument.
inline std::string indexed(const std::string& who, size_t i) { return who + "[" + std::to_string(i) + "]"; }
// Items of a list argument (None: none); ValueError naming `who` for anything else.
std::vector<py::object> list_items(py::handle h, const std::string& who);
// ValueError naming `who` and `expected` unless h's declarative kind is one of `kinds`.
void expect_kind(py::handle h, std::initializer_list<const char*> kinds, const char* expected, const std::string& who);
// "x", "y", "z" (or 0, 1, 2).
int to_axis(py::handle h, const std::string& who);

// ---- the boundaries (elec_boundaries.cpp) ----

// The boundaries from spire.elec.Simulation's arguments of those names (None where not given).
spire::elec::Boundaries to_boundaries(py::handle boundary_layers, py::handle pml, py::handle boundaries,
                                      py::handle k_point, py::handle pml_profile);

// ---- the problem (elec_problem.cpp) ----

spire::elec::Medium to_medium(py::handle h, const std::string& who);
spire::elec::LumpedPort to_port(py::handle h, const std::string& who);
spire::elec::FluxRegion to_flux_region(py::handle h, const std::string& who);
std::vector<spire::elec::FluxRegion> to_flux_regions(py::handle h, const std::string& who);

// ---- the simulation (elec_simulation.cpp) ----

// What a spire.elec.Simulation holds: the problem, the run built from it, its monitors (made with
// the run, so they update before user callbacks each step) and its port monitors. Held by pybind11
// through a unique_ptr and never moved: the monitors keep the run's address.
class ElecSimulation {
 public:
  explicit ElecSimulation(spire::elec::Problem problem);
  ~ElecSimulation();

  spire::elec::Problem problem;
  spire::elec::Simulation sim;
  std::unique_ptr<spire::elec::Monitors> monitors;
  std::deque<std::unique_ptr<spire::elec::PortMonitor>> port_monitors;
  // Set while run()/step() step without the GIL: a step callback or another thread calling them
  // again (or load_state) would step a run that is in the middle of a step.
  bool running = false;
  // Set when an exception escaped from inside a step (a CustomSource or amplitude function that
  // raised): the fields are then half-way through the step, and stepping on is refused.
  std::string broken;

  // ValueError naming `who` when a run is in progress or a step was left half-done.
  void check_idle(const char* who, bool allow_broken = false) const;
  // One step; an exception from inside it (not from the callbacks after it) marks the run broken.
  void step();
};

// The Python object of a run (the instance the user made: callbacks receive it).
py::object python_simulation(const ElecSimulation& s);

void bind_elec_profiles(py::module_& m);  // elec.cpp
// _elec.Problem: the declarative problem, made from spire.elec.Simulation's keyword arguments.
void bind_elec_problem(py::module_& m);
void bind_elec_simulation(py::module_& m, py::class_<ElecSimulation>& cls);
void bind_elec_monitors(py::module_& m, py::class_<ElecSimulation>& cls);
void bind_elec_ports(py::module_& m, py::class_<ElecSimulation>& cls);
void bind_elec_adjoint(py::module_& m);  // elec_adjoint.cpp

}  // namespace spire::python::elec_py
