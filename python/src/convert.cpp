// Python values to engine values and back: numbers, axes, shapes, array-likes, NumPy memory.
#include <cstring>

#include "common.h"
#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::python {

Scalar to_scalar(py::handle h) {
  PyObject* o = h.ptr();
  if (PyBool_Check(o)) return Scalar(o == Py_True);
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw ValueError("integer " + std::string(py::str(h)) + " does not fit in int64");
    return Scalar(int64_t(v));
  }
  if (PyFloat_Check(o)) return Scalar(PyFloat_AS_DOUBLE(o));
  if (PyComplex_Check(o)) return Scalar(std::complex<double>(PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)));
  // NumPy scalars and other number-likes.
  py::object dt = py::getattr(h, "dtype", py::none());
  if (!dt.is_none()) {
    char kind = py::dtype::from_args(dt).kind();
    if (kind == 'b') return Scalar(PyObject_IsTrue(h.ptr()) == 1);
    if (kind == 'i' || kind == 'u') return Scalar(py::cast<int64_t>(py::int_(py::reinterpret_borrow<py::object>(h))));
    if (kind == 'c') return Scalar(h.cast<std::complex<double>>());
    return Scalar(py::cast<double>(py::float_(py::reinterpret_borrow<py::object>(h))));
  }
  if (hasattr(h, "__index__")) return Scalar(py::cast<int64_t>(py::int_(py::reinterpret_borrow<py::object>(h))));
  if (hasattr(h, "__float__")) return Scalar(py::cast<double>(py::float_(py::reinterpret_borrow<py::object>(h))));
  if (hasattr(h, "__complex__")) return Scalar(h.cast<std::complex<double>>());
  throw py::type_error("expected a number, got " + std::string(py::str(py::type::of(h).attr("__name__"))));
}

py::object scalar_to_py(const Scalar& s) {
  switch (s.kind()) {
    case DType::Bool: return py::bool_(s.to<bool>());
    case DType::Complex64:
    case DType::Complex128: {
      auto z = s.to_complex();
      return py::reinterpret_steal<py::object>(PyComplex_FromDoubles(z.real(), z.imag()));
    }
    case DType::Int32:
    case DType::Int64: return py::int_(s.to_int());
    default: return py::float_(s.to_double());
  }
}

namespace {
int64_t to_int(py::handle h, const char* what) {
  PyObject* o = h.ptr();
  if (PyLong_Check(o) && !PyBool_Check(o)) return PyLong_AsLongLong(o);
  if (const Tensor* t = tensor_ptr(h)) {
    if (t->numel() == 1 && is_integral(t->dtype())) return t->item().to_int();
  } else if (hasattr(h, "__index__")) {
    return py::cast<int64_t>(py::int_(py::reinterpret_borrow<py::object>(h)));
  }
  throw py::type_error(std::string(what) + " must be integers, got " + std::string(py::str(py::repr(h))));
}
}  // namespace

std::vector<int64_t> to_axes(py::handle h) {
  if (h.is_none()) return {};
  if (PyLong_Check(h.ptr())) return {to_int(h, "axes")};
  std::vector<int64_t> axes;
  if (PyTuple_Check(h.ptr()) || PyList_Check(h.ptr())) {
    for (auto item : h) axes.push_back(to_int(item, "axes"));
    return axes;
  }
  return {to_int(h, "axes")};
}

Shape to_shape(py::handle h) {
  if (PyLong_Check(h.ptr())) return {to_int(h, "shape entries")};
  if (const Tensor* t = tensor_ptr(h)) {
    Shape s;
    for (double v : t->to_vector()) s.push_back(int64_t(v));
    return s;
  }
  Shape s;
  for (auto item : h) s.push_back(to_int(item, "shape entries"));
  return s;
}

const Tensor* tensor_ptr(py::handle h) {
  static PyTypeObject* tensor_type = nullptr;
  if (!tensor_type) tensor_type = reinterpret_cast<PyTypeObject*>(py::type::of<Tensor>().ptr());
  if (!PyObject_TypeCheck(h.ptr(), tensor_type)) return nullptr;
  py::detail::make_caster<Tensor> c;
  if (!c.load(h, false)) return nullptr;
  return &py::detail::cast_op<const Tensor&>(c);
}

// ---- NumPy memory ------------------------------------------------------------------------------

namespace {
// Keeps a Python object alive from C++ (a Storage's owner). The reference is dropped with the GIL
// held, whichever thread frees the last tensor.
std::shared_ptr<void> python_owner(py::handle h) {
  h.inc_ref();
  return std::shared_ptr<void>(h.ptr(), [](void* p) {
    if (!Py_IsInitialized()) return;
    py::gil_scoped_acquire gil;
    Py_DECREF(static_cast<PyObject*>(p));
  });
}

// The dtype spire copies a NumPy dtype it has no equivalent for into (uint8 -> int32, float16 ->
// float32, ...), as the nearest type that holds every value.
DType widened_dtype(const py::dtype& d, const std::string& what) {
  switch (d.kind()) {
    case 'b': return DType::Bool;
    case 'i': return d.itemsize() <= 4 ? DType::Int32 : DType::Int64;
    case 'u': return d.itemsize() <= 2 ? DType::Int32 : DType::Int64;
    case 'f': return d.itemsize() <= 4 ? DType::Float32 : DType::Float64;
    case 'c': return d.itemsize() <= 8 ? DType::Complex64 : DType::Complex128;
    default:
      throw DTypeError(what + ": NumPy dtype " + std::string(py::str(d)) +
                       " has no spire equivalent; allowed: bool, integers, floats, complex");
  }
}
}  // namespace

Tensor tensor_from_numpy(py::array a, bool share) {
  py::dtype d = a.dtype();
  auto t = from_numpy_dtype(d);
  Shape shape(a.shape(), a.shape() + a.ndim());
  bool layout_ok = true;
  Shape strides(a.ndim());
  int64_t isz = d.itemsize();
  for (py::ssize_t i = 0; i < a.ndim(); ++i) {
    if (a.strides(i) < 0 || a.strides(i) % isz != 0) layout_ok = false;
    strides[i] = a.strides(i) / isz;
  }
  bool aligned = reinterpret_cast<uintptr_t>(a.data()) % std::min<int64_t>(isz, 16) == 0;
  if (share) {
    if (!t)
      throw DTypeError("from_numpy: NumPy dtype " + std::string(py::str(d)) +
                       " cannot be shared; allowed: bool, int32, int64, float32, float64, complex64, "
                       "complex128 (spire.tensor(a) copies and converts)");
    SPIRE_CHECK(layout_ok && aligned, ValueError, "from_numpy: the array has negative, misaligned or "
                "non-element strides ", shape_str(Shape(a.strides(), a.strides() + a.ndim())),
                "; pass a.copy() (or use spire.tensor(a), which copies)");
    if (a.size() == 0) return empty(shape, *t);
    return from_blob(const_cast<void*>(a.data()), shape, strides, *t, kCPU, python_owner(a));
  }
  // Copy: contiguous, converting dtypes spire lacks (NumPy converts only when it must).
  DType target = t ? *t : widened_dtype(d, "tensor");
  py::array c = py::module_::import("numpy").attr("ascontiguousarray")(a, numpy_dtype(target));
  Tensor out = empty(shape, target);
  if (out.nbytes()) std::memcpy(out.raw_data(), c.data(), out.nbytes());
  return out;
}

py::array numpy_view(const Tensor& t, py::handle owner) {
  SPIRE_CHECK(t.device().kind == DeviceKind::CPU, DeviceError, "numpy(): the tensor is on ",
              t.device().str(), "; NumPy arrays live on the CPU");
  std::vector<py::ssize_t> shape(t.shape().begin(), t.shape().end());
  std::vector<py::ssize_t> strides(t.dim());
  for (int64_t i = 0; i < t.dim(); ++i) strides[i] = t.strides()[i] * int64_t(t.itemsize());
  return py::array(numpy_dtype(t.dtype()), shape, strides, t.raw_data(), owner);
}

Tensor to_tensor(py::handle h) {
  if (const Tensor* t = tensor_ptr(h)) return *t;
  PyObject* o = h.ptr();
  // Python numbers: the framework defaults (float32, int64, complex64).
  if (PyBool_Check(o)) return scalar_tensor(Scalar(o == Py_True), DType::Bool);
  if (PyLong_Check(o)) return scalar_tensor(to_scalar(h), DType::Int64);
  if (PyFloat_Check(o) && !py::hasattr(h, "dtype")) return scalar_tensor(to_scalar(h), DType::Float32);
  if (PyComplex_Check(o) && !py::hasattr(h, "dtype")) return scalar_tensor(to_scalar(h), DType::Complex64);
  if (py::isinstance<py::array>(h)) {
    py::array a = py::reinterpret_borrow<py::array>(h);
    if (from_numpy_dtype(a.dtype())) {
      try {
        return tensor_from_numpy(a, /*share=*/true);
      } catch (const ValueError&) {  // a layout that cannot be shared: copy
      }
    }
    return tensor_from_numpy(a, /*share=*/false);
  }
  if (py::hasattr(h, "__dlpack__") && !py::hasattr(h, "__array_interface__") && !py::isinstance<py::sequence>(h))
    return py::module_::import("spire").attr("from_dlpack")(h).cast<Tensor>();
  // Sequences and NumPy scalars: through NumPy, then Python-number defaults for what NumPy widened.
  py::array a = py::array::ensure(h);
  if (!a) throw py::error_already_set();
  bool from_python = !py::hasattr(h, "dtype");
  py::dtype d = a.dtype();
  if (from_python && d.kind() == 'f' && d.itemsize() == 8) a = a.attr("astype")("float32");
  else if (from_python && d.kind() == 'c' && d.itemsize() == 16) a = a.attr("astype")("complex64");
  if (a.dtype().kind() == 'O')
    throw py::type_error("cannot make a tensor from " + std::string(py::str(py::type::of(h).attr("__name__"))));
  return tensor_from_numpy(a, /*share=*/false);
}

Tensor new_tensor(py::handle data, py::handle dtype, bool requires_grad) {
  Tensor t;
  if (const Tensor* src = tensor_ptr(data)) {
    t = maybe_release(src->numel(), [&] { return copy(src->detach()); });
  } else if (py::isinstance<py::array>(data)) {
    t = tensor_from_numpy(py::reinterpret_borrow<py::array>(data), /*share=*/false);
  } else if (!dtype.is_none() && !py::hasattr(data, "__dlpack__")) {
    // Numbers and sequences with a dtype: convert once, straight to it (not through float32).
    DType target = to_dtype(dtype);
    t = tensor_from_numpy(py::module_::import("numpy").attr("asarray")(data, numpy_dtype(target)), false);
  } else {
    t = to_tensor(data);  // numbers and sequences: already a fresh tensor
    if (py::hasattr(data, "__dlpack__")) t = copy(t);  // DLPack producers are shared: copy
  }
  if (!dtype.is_none()) t = cast(t, to_dtype(dtype));
  if (requires_grad) t.set_requires_grad(true);
  return t;
}

Tensor operand_like(py::handle h, const Tensor& other) {
  if (const Tensor* t = tensor_ptr(h)) return *t;
  if (is_py_number(h) && !py::hasattr(h, "dtype")) return scalar_like(other, to_scalar(h));
  return to_tensor(h);
}

std::pair<Tensor, Tensor> binary_operands(py::handle a, py::handle b) {
  const Tensor* ta = tensor_ptr(a);
  const Tensor* tb = tensor_ptr(b);
  if (ta && tb) return {*ta, *tb};
  if (ta) return {*ta, operand_like(b, *ta)};
  if (tb) return {operand_like(a, *tb), *tb};
  // Neither is a tensor: numbers take their defaults unless the other side is an array.
  bool na = is_py_number(a), nb = is_py_number(b);
  if (na && !nb) {
    Tensor y = to_tensor(b);
    return {operand_like(a, y), y};
  }
  Tensor x = to_tensor(a);
  return {x, operand_like(b, x)};
}

}  // namespace spire::python
