// What the files of spire._C._sponge share (sponge.cpp: units, boxes, states, the submodule;
// sponge_system.cpp: the System; sponge_build.cpp: builders and PDB files; sponge_forces.cpp: force
// terms and the force field; sponge_dynamics.cpp: integrators, thermostats, barostats, minimisers;
// sponge_simulation.cpp: reporters and the Simulation): conversions between NumPy arrays and the
// MD package's vectors, and text streams that write to Python file objects.
//
// Arrays always copy, in and out: positions and velocities are (N, 3) float64 NumPy arrays that
// belong to the caller, so nothing Python holds can change under a run that goes on without the GIL.
#pragma once
#include <cstdint>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "common.h"
#include "science/sponge/box.h"
#include "science/sponge/force.h"
#include "science/sponge/system.h"
#include "science/sponge/units.h"
#include "science/sponge/vec3.h"

namespace spire::python::sponge_py {

using namespace spire::sponge;

// (N, 3) float64 copy of a list of vectors.
py::array_t<double> vec3_array(const std::vector<Vec3>& v);
// An (N, 3) array-like as vectors; `who` starts the error (ValueError) that names the shape found
// and, when expected >= 0, the number of rows wanted. Non-finite values are refused.
std::vector<Vec3> to_vec3_list(py::handle h, const std::string& who, int64_t expected = -1);
// Three numbers (a tuple, list or array of shape (3,)).
Vec3 to_vec3(py::handle h, const std::string& who);
py::array_t<double> vec3_1d(const Vec3& v);
// 3x3 float64 copy (row-major: m[r][c]).
py::array_t<double> mat3_array(const Mat3& m);
// A 1-D float64 array (copy) and back (any 1-D array-like of numbers; ValueError naming `who`).
py::array_t<double> doubles_array(const std::vector<double>& v);
std::vector<double> to_doubles(py::handle h, const std::string& who);
// The unit system of a Units object or of its name ("md", "lj").
Units to_units(py::handle h);
// Energies per term as an ordered dict {term: energy}.
py::dict energies_dict(const ForceResult& result);
// A number for a repr (10 significant digits), a path from str or os.PathLike, a box's repr.
std::string number(double x);
std::string fspath(py::handle path);
std::string box_repr(const Box& box);

// A std::ostream whose text goes to a Python file object's write() (and flush() at std::endl),
// taking the GIL for each line, so C++ code running without the GIL (a run's thermo log and
// progress lines) can print where Python prints: a notebook's cell, a redirected sys.stdout.
// Built from "stdout" or "stderr" (sys.stdout / sys.stderr looked up at each write, so later
// redirections are followed), a file object with write(), or a path (str or os.PathLike: a file
// written by C++ alone). Errors raised by the Python file are reported as unraisable, not thrown
// into the C++ run.
std::unique_ptr<std::ostream> python_text_stream(py::handle target, const std::string& who);

// The parts of the submodule, in the order bind_sponge (sponge.cpp) calls them.
void bind_sponge_system(py::module_& m);
void bind_sponge_builders(py::module_& m);
void bind_sponge_forces(py::module_& m);
void bind_sponge_dynamics(py::module_& m);
void bind_sponge_simulation(py::module_& m);

}  // namespace spire::python::sponge_py
