// spire.dtype and spire.Device objects, and the conversions of anything dtype-like.
#include <array>

#include "common.h"
#include "engine/core/error.h"

namespace spire::python {
namespace {

// The Python-visible dtype. One instance per DType, created at import.
struct DTypeObject {
  DType t;
};

std::array<PyObject*, kNumDTypes> g_dtype_objects{};  // strong references, kept for the process
PyTypeObject* g_dtype_type = nullptr;

}  // namespace

py::object dtype_object(DType t) { return py::reinterpret_borrow<py::object>(g_dtype_objects[int(t)]); }

py::dtype numpy_dtype(DType t) {
  if (t == DType::Bool) return py::dtype("bool");
  return py::dtype(name(t));
}

std::optional<DType> from_numpy_dtype(const py::dtype& d) {
  switch (d.kind()) {
    case 'b': return DType::Bool;
    case 'i':
      if (d.itemsize() == 4) return DType::Int32;
      if (d.itemsize() == 8) return DType::Int64;
      return std::nullopt;
    case 'f':
      if (d.itemsize() == 4) return DType::Float32;
      if (d.itemsize() == 8) return DType::Float64;
      return std::nullopt;
    case 'c':
      if (d.itemsize() == 8) return DType::Complex64;
      if (d.itemsize() == 16) return DType::Complex128;
      return std::nullopt;
    default: return std::nullopt;
  }
}

DType to_dtype(py::handle h) {
  PyObject* o = h.ptr();
  for (int i = 0; i < kNumDTypes; ++i)
    if (o == g_dtype_objects[i]) return DType(i);
  if (PyUnicode_Check(o)) {
    std::string s = h.cast<std::string>();
    if (s == "bool_") s = "bool";
    return dtype_from_name(s);
  }
  // Python types mean what they mean to NumPy (float -> float64), as in torch.tensor(dtype=float).
  py::dtype d;
  try {
    d = py::dtype::from_args(py::reinterpret_borrow<py::object>(h));
  } catch (py::error_already_set&) {
    throw DTypeError("not a dtype: " + std::string(py::str(py::repr(h))) +
                     "; allowed: spire dtypes, their names, or NumPy dtypes");
  }
  auto t = from_numpy_dtype(d);
  if (!t)
    throw DTypeError("dtype " + std::string(py::str(d)) +
                     " is not supported; allowed: bool, int32, int64, float32, float64, complex64, "
                     "complex128");
  return *t;
}

void bind_dtypes(py::module_& m) {
  py::class_<DTypeObject> cls(m, "dtype", "An element type: spire.float32, spire.int64, ...");
  cls.def_property_readonly("name", [](const DTypeObject& d) { return name(d.t); })
      .def_property_readonly("itemsize", [](const DTypeObject& d) { return itemsize(d.t); })
      .def_property_readonly("is_floating_point", [](const DTypeObject& d) { return is_floating(d.t); })
      .def_property_readonly("is_complex", [](const DTypeObject& d) { return is_complex(d.t); })
      .def_property_readonly("is_inexact", [](const DTypeObject& d) { return is_inexact(d.t); })
      .def_property_readonly("numpy", [](const DTypeObject& d) { return numpy_dtype(d.t); },
                             "The equivalent NumPy dtype.")
      .def("__repr__", [](const DTypeObject& d) { return std::string("spire.") + name(d.t); })
      .def("__str__", [](const DTypeObject& d) { return std::string(name(d.t)); })
      .def("__hash__", [](const DTypeObject& d) { return py::hash(py::str(name(d.t))); })
      .def("__eq__", [](const DTypeObject& d, py::handle other) -> py::object {
        try {
          return py::bool_(to_dtype(other) == d.t);
        } catch (const Error&) {
          return py::bool_(false);
        }
      })
      .def("__ne__", [](const DTypeObject& d, py::handle other) -> py::object {
        try {
          return py::bool_(to_dtype(other) != d.t);
        } catch (const Error&) {
          return py::bool_(true);
        }
      })
      // Lets np.dtype(spire.float32) and arr.astype(spire.float32) work.
      .def_property_readonly("dtype", [](const DTypeObject& d) { return numpy_dtype(d.t); })
      .def(py::pickle([](const DTypeObject& d) { return std::string(name(d.t)); },
                      [](const std::string& s) { return DTypeObject{dtype_from_name(s)}; }));
  g_dtype_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  for (int i = 0; i < kNumDTypes; ++i) {
    py::object o = py::cast(DTypeObject{DType(i)});
    g_dtype_objects[i] = o.release().ptr();
    m.attr(name(DType(i))) = dtype_object(DType(i));
  }
  m.attr("bool_") = dtype_object(DType::Bool);

  py::class_<Device>(m, "Device", "Where a tensor lives: Device('cpu'), Device('cuda:0').")
      .def(py::init([](const std::string& s) { return Device::parse(s); }), py::arg("device"))
      .def(py::init([](const Device& d) { return d; }))
      .def_property_readonly("type", [](const Device& d) { return d.kind == DeviceKind::CPU ? "cpu" : "cuda"; })
      .def_property_readonly("index", [](const Device& d) { return d.index; })
      .def("__repr__", [](const Device& d) { return "spire.Device('" + d.str() + "')"; })
      .def("__str__", &Device::str)
      .def("__hash__", [](const Device& d) { return py::hash(py::str(d.str())); })
      .def("__eq__", [](const Device& d, py::handle other) {
        if (py::isinstance<Device>(other)) return d == other.cast<Device>();
        if (py::isinstance<py::str>(other)) {
          try {
            return d == Device::parse(other.cast<std::string>());
          } catch (const Error&) {
            return false;
          }
        }
        return false;
      });
  py::implicitly_convertible<py::str, Device>();
}

}  // namespace spire::python
