// Elementwise ops as module functions, Tensor methods and Python operators. Binary ops take any mix
// of tensors, array-likes and Python numbers; numbers are weakly typed (x_f32 * 2.0 stays float32).
#include "common.h"
#include "engine/core/error.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"

namespace spire::python {
namespace {

using Unary = Tensor (*)(const Tensor&);
using Binary = Tensor (*)(const Tensor&, const Tensor&);

// Function pointers as template arguments: each binding is a direct call, no std::function.
template <Unary F>
Tensor unary(const Tensor& x) {
  return maybe_release(x.numel(), [&] { return F(x); });
}

template <Binary F>
Tensor binary(py::handle a, py::handle b) {
  auto [x, y] = binary_operands(a, b);
  return maybe_release(work_of(x, y), [&] { return F(x, y); });
}

// Python operators: NotImplemented for operands we do not understand, so Python tries the other side.
bool operand_ok(py::handle h) {
  PyObject* o = h.ptr();
  if (tensor_ptr(h) || is_py_number(h) || PyList_Check(o) || PyTuple_Check(o)) return true;
  if (PyBytes_Check(o) || PyUnicode_Check(o) || PyByteArray_Check(o)) return false;
  // NumPy arrays and scalars, and other array-likes.
  return py::isinstance<py::array>(h) || PyObject_CheckBuffer(o) || py::hasattr(h, "__array__") ||
         py::hasattr(h, "__array_interface__");
}

template <Binary F>
py::object op(const Tensor& self, py::handle other) {
  if (!operand_ok(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  Tensor y = operand_like(other, self);
  return py::cast(maybe_release(work_of(self, y), [&] { return F(self, y); }));
}
template <Binary F>
py::object rop(const Tensor& self, py::handle other) {
  if (!operand_ok(other)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  Tensor x = operand_like(other, self);
  return py::cast(maybe_release(work_of(x, self), [&] { return F(x, self); }));
}

Tensor pow_tt(const Tensor& a, const Tensor& b) { return spire::pow(a, b); }

// Floor division and remainder (Python's sign convention: the result takes the divisor's sign),
// composed from primitives; integer operands give integer results.
Tensor floor_divide(const Tensor& a, const Tensor& b) {
  Tensor q = spire::floor(div(a, b));
  return is_inexact(a.dtype()) || is_inexact(b.dtype()) ? q : cast(q, promote(a.dtype(), b.dtype()));
}
Tensor remainder(const Tensor& a, const Tensor& b) {
  if (!is_inexact(a.dtype()) && !is_inexact(b.dtype())) {
    DType t = promote(a.dtype(), b.dtype());
    return cast(sub(cast(a, DType::Float64), mul(spire::floor(div(cast(a, DType::Float64), cast(b, DType::Float64))),
                                                 cast(b, DType::Float64))), t);
  }
  return sub(a, mul(spire::floor(div(a, b)), b));
}

Tensor require_bool(const Tensor& t, const char* op) {
  if (t.dtype() != DType::Bool)
    throw DTypeError(std::string(op) + ": bitwise operators are defined for bool tensors only, got " +
                     name(t.dtype()) + "; use logical_and/logical_or/logical_xor/logical_not");
  return t;
}
Tensor and_bool(const Tensor& a, const Tensor& b) { return logical_and(require_bool(a, "&"), require_bool(b, "&")); }
Tensor or_bool(const Tensor& a, const Tensor& b) { return logical_or(require_bool(a, "|"), require_bool(b, "|")); }
Tensor xor_bool(const Tensor& a, const Tensor& b) { return logical_xor(require_bool(a, "^"), require_bool(b, "^")); }

// The weakly typed operand of where(): a number next to a tensor takes its dtype.
Tensor where_py(py::handle cond, py::handle a, py::handle b) {
  Tensor c = to_tensor(cond);
  auto [x, y] = binary_operands(a, b);
  return maybe_release(work_of(x, y), [&] { return where(c, x, y); });
}

Tensor clamp_py(const Tensor& x, std::optional<Scalar> lo, std::optional<Scalar> hi) {
  return maybe_release(x.numel(), [&] {
    if (lo && hi) return clamp(x, *lo, *hi);
    if (lo) return clamp_min(x, *lo);
    if (hi) return clamp_max(x, *hi);
    return x;
  });
}

}  // namespace

void bind_elementwise(py::module_& m, py::class_<Tensor>& cls) {
  // name, then aliases (NumPy spellings)
  struct UnaryDef {
    std::vector<const char*> names;
    Tensor (*fn)(const Tensor&);
  };
  const std::vector<UnaryDef> unaries = {
      {{"neg", "negative"}, unary<neg>},
      {{"abs", "absolute"}, unary<spire::abs>},
      {{"sign"}, unary<sign>},
      {{"exp"}, unary<spire::exp>},
      {{"expm1"}, unary<spire::expm1>},
      {{"log"}, unary<spire::log>},
      {{"log1p"}, unary<spire::log1p>},
      {{"sqrt"}, unary<spire::sqrt>},
      {{"rsqrt"}, unary<rsqrt>},
      {{"reciprocal"}, unary<reciprocal>},
      {{"square"}, unary<square>},
      {{"sin"}, unary<spire::sin>},
      {{"cos"}, unary<spire::cos>},
      {{"tan"}, unary<spire::tan>},
      {{"asin", "arcsin"}, unary<spire::asin>},
      {{"acos", "arccos"}, unary<spire::acos>},
      {{"atan", "arctan"}, unary<spire::atan>},
      {{"sinh"}, unary<spire::sinh>},
      {{"cosh"}, unary<spire::cosh>},
      {{"tanh"}, unary<spire::tanh>},
      {{"sigmoid"}, unary<sigmoid>},
      {{"softplus"}, unary<softplus>},
      {{"erf"}, unary<spire::erf>},
      {{"floor"}, unary<spire::floor>},
      {{"ceil"}, unary<spire::ceil>},
      {{"round"}, unary<spire::round>},
      {{"conj"}, unary<spire::conj>},
      {{"angle"}, unary<angle>},
      {{"logical_not"}, unary<logical_not>},
      {{"isnan"}, unary<spire::isnan>},
      {{"isfinite"}, unary<spire::isfinite>},
      {{"zeros_like"}, unary<zeros_like>},
      {{"ones_like"}, unary<ones_like>},
  };
  for (auto& u : unaries)
    for (const char* n : u.names) {
      m.def(n, u.fn, py::arg("x"));
      if (std::string(n).find("_like") == std::string::npos) cls.def(n, u.fn);
    }
  m.def("real", unary<spire::real>, py::arg("x"));
  m.def("imag", unary<spire::imag>, py::arg("x"));
  cls.def_property_readonly("real", unary<spire::real>);
  cls.def_property_readonly("imag", unary<spire::imag>);

  struct BinaryDef {
    std::vector<const char*> names;
    Tensor (*fn)(py::handle, py::handle);
  };
  const std::vector<BinaryDef> binaries = {
      {{"add"}, binary<add>},
      {{"sub", "subtract"}, binary<sub>},
      {{"mul", "multiply"}, binary<mul>},
      {{"div", "divide", "true_divide"}, binary<div>},
      {{"pow", "power"}, binary<pow_tt>},
      {{"atan2", "arctan2"}, binary<atan2>},
      {{"maximum"}, binary<maximum>},
      {{"minimum"}, binary<minimum>},
      {{"floor_divide"}, binary<floor_divide>},
      {{"remainder", "mod"}, binary<remainder>},
      {{"eq", "equal"}, binary<eq>},
      {{"ne", "not_equal"}, binary<ne>},
      {{"lt", "less"}, binary<lt>},
      {{"le", "less_equal"}, binary<le>},
      {{"gt", "greater"}, binary<gt>},
      {{"ge", "greater_equal"}, binary<ge>},
      {{"logical_and"}, binary<logical_and>},
      {{"logical_or"}, binary<logical_or>},
      {{"logical_xor"}, binary<logical_xor>},
  };
  for (auto& b : binaries)
    for (const char* n : b.names) {
      m.def(n, b.fn, py::arg("a"), py::arg("b"));
      cls.def(n, b.fn, py::arg("other"));
    }

  m.def("where", &where_py, py::arg("condition"), py::arg("x"), py::arg("y"));
  m.def("complex", [](const Tensor& re, const Tensor& im) { return spire::complex(re, im); },
        py::arg("real"), py::arg("imag"));
  m.def("cast", [](const Tensor& x, DType t) { return maybe_release(x.numel(), [&] { return cast(x, t); }); },
        py::arg("x"), py::arg("dtype"));
  m.def("full_like", [](const Tensor& x, Scalar v, std::optional<DType> dtype) {
        Tensor t = full_like(x, v);
        return dtype ? cast(t, *dtype) : t;
      }, py::arg("x"), py::arg("fill_value"), py::arg("dtype") = py::none());
  for (const char* n : {"clamp", "clip"}) {
    m.def(n, &clamp_py, py::arg("x"), py::arg("min") = py::none(), py::arg("max") = py::none());
    cls.def(n, &clamp_py, py::arg("min") = py::none(), py::arg("max") = py::none());
  }
  m.def("broadcast_shapes", [](const Shape& a, const Shape& b) {
    return broadcast_shapes(a, b, "broadcast_shapes");
  });

  // ---- operators
  cls.def("__add__", op<add>).def("__radd__", rop<add>)
      .def("__sub__", op<sub>).def("__rsub__", rop<sub>)
      .def("__mul__", op<mul>).def("__rmul__", rop<mul>)
      .def("__truediv__", op<div>).def("__rtruediv__", rop<div>)
      .def("__floordiv__", op<floor_divide>).def("__rfloordiv__", rop<floor_divide>)
      .def("__mod__", op<remainder>).def("__rmod__", rop<remainder>)
      .def("__rpow__", rop<pow_tt>)
      .def("__matmul__", op<matmul>).def("__rmatmul__", rop<matmul>)
      .def("__and__", op<and_bool>).def("__rand__", rop<and_bool>)
      .def("__or__", op<or_bool>).def("__ror__", rop<or_bool>)
      .def("__xor__", op<xor_bool>).def("__rxor__", rop<xor_bool>)
      .def("__eq__", op<eq>).def("__ne__", op<ne>)
      .def("__lt__", op<lt>).def("__le__", op<le>)
      .def("__gt__", op<gt>).def("__ge__", op<ge>)
      .def("__neg__", unary<neg>)
      .def("__pos__", [](const Tensor& x) { return x; })
      .def("__abs__", unary<spire::abs>)
      .def("__invert__", [](const Tensor& x) { return logical_not(require_bool(x, "~")); })
      // x ** 2 keeps the exponent a number so the rule stays the cheap power rule.
      .def("__pow__", [](const Tensor& x, py::handle e, py::handle mod) -> py::object {
        if (!mod.is_none()) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
        if (is_py_number(e) && !PyComplex_Check(e.ptr()) && !py::hasattr(e, "dtype")) {
          Scalar s = to_scalar(e);
          return py::cast(maybe_release(x.numel(), [&] { return spire::pow(x, s); }));
        }
        return op<pow_tt>(x, e);
      }, py::arg("exponent"), py::arg("modulo") = py::none());
}

}  // namespace spire::python
