// The engine's error kinds as Python exceptions. Each also derives from the builtin a user would
// catch for it (ShapeError is a ValueError, DTypeError a TypeError, ...), under names that do not
// shadow the builtins: spire::ValueError becomes spire.SpireValueError, spire::IOError
// spire.SpireIOError.
#include "common.h"
#include "engine/core/error.h"

namespace spire::python {
namespace {

PyObject* make_exception(py::module_& m, const char* name, std::initializer_list<PyObject*> bases,
                         const char* doc) {
  py::tuple b(bases.size());
  size_t i = 0;
  for (PyObject* base : bases) b[i++] = py::reinterpret_borrow<py::object>(base);
  std::string qualified = std::string("spire.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, b.ptr(), nullptr);
  if (!cls) throw py::error_already_set();
  m.attr(name) = py::reinterpret_borrow<py::object>(cls);
  return cls;  // the module holds a reference; the process keeps the class
}

}  // namespace

void bind_errors(py::module_& m) {
  static PyObject* base = make_exception(m, "SpireError", {PyExc_Exception}, "Base of all Spire errors.");
  static PyObject* shape = make_exception(m, "ShapeError", {base, PyExc_ValueError},
                                          "Shapes that do not fit the operation.");
  static PyObject* dtype = make_exception(m, "DTypeError", {base, PyExc_TypeError},
                                          "A dtype the operation does not accept.");
  static PyObject* value = make_exception(m, "SpireValueError", {base, PyExc_ValueError},
                                          "An argument value out of the allowed range.");
  static PyObject* config = make_exception(m, "ConfigError", {base, PyExc_ValueError},
                                           "A bad job configuration (unknown key or value).");
  static PyObject* parse = make_exception(m, "ParseError", {base, PyExc_ValueError},
                                          "Text that does not parse (with its location).");
  static PyObject* io = make_exception(m, "SpireIOError", {base, PyExc_OSError},
                                       "A file that cannot be read or written.");
  static PyObject* autodiff = make_exception(m, "AutodiffError", {base, PyExc_RuntimeError},
                                             "A derivative that does not exist or a freed graph.");
  static PyObject* device = make_exception(m, "DeviceError", {base, PyExc_RuntimeError},
                                           "Tensors on the wrong device, or a missing kernel.");

  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ShapeError& e) {
      PyErr_SetString(shape, e.what());
    } catch (const DTypeError& e) {
      PyErr_SetString(dtype, e.what());
    } catch (const spire::ValueError& e) {
      PyErr_SetString(value, e.what());
    } catch (const ConfigError& e) {
      PyErr_SetString(config, e.what());
    } catch (const ParseError& e) {
      PyErr_SetString(parse, e.what());
    } catch (const spire::IOError& e) {
      PyErr_SetString(io, e.what());
    } catch (const AutodiffError& e) {
      PyErr_SetString(autodiff, e.what());
    } catch (const DeviceError& e) {
      PyErr_SetString(device, e.what());
    } catch (const Error& e) {
      PyErr_SetString(base, e.what());
    }
  });
}

}  // namespace spire::python
