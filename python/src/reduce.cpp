// Reductions, NumPy style: axis=None (all), an int or a tuple; keepdims.
#include "common.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire::python {
namespace {

using Reduction = Tensor (*)(const Tensor&, const Axes&, bool);

template <Reduction F>
Tensor reduce(const Tensor& x, py::handle axis, bool keepdims) {
  Axes axes = to_axes(axis);
  if (!axis.is_none() && axes.empty()) return x;  // axis=() reduces nothing, as in NumPy
  return maybe_release(x.numel(), [&] { return F(x, axes, keepdims); });
}

template <Tensor (*F)(const Tensor&, const Axes&, int64_t, bool)>
Tensor reduce_ddof(const Tensor& x, py::handle axis, int64_t ddof, bool keepdims) {
  Axes axes = to_axes(axis);
  return maybe_release(x.numel(), [&] { return F(x, axes, ddof, keepdims); });
}

// argmax/argmin with axis=None look at the flattened tensor, as NumPy.
template <Tensor (*F)(const Tensor&, int64_t, bool)>
Tensor arg_reduce(const Tensor& x, std::optional<int64_t> axis, bool keepdims) {
  return maybe_release(x.numel(), [&] {
    if (axis) return F(x, *axis, keepdims);
    Tensor r = F(reshape(x, {-1}), 0, false);
    return keepdims ? reshape(r, Shape(x.dim(), 1)) : r;
  });
}

template <Tensor (*F)(const Tensor&, int64_t)>
Tensor scan(const Tensor& x, std::optional<int64_t> axis) {
  return maybe_release(x.numel(), [&] { return axis ? F(x, *axis) : F(reshape(x, {-1}), 0); });
}

// any/all count the true elements (reductions over bool tensors are not assumed).
Tensor count_true(const Tensor& x, py::handle axis, bool keepdims) {
  return reduce<sum>(cast(cast(x, DType::Bool), DType::Int64), axis, keepdims);
}
Tensor any_(const Tensor& x, py::handle axis, bool keepdims) {
  Tensor n = count_true(x, axis, keepdims);
  return gt(n, scalar_like(n, Scalar(int64_t(0))));
}
Tensor all_(const Tensor& x, py::handle axis, bool keepdims) {
  Tensor n = count_true(logical_not(cast(x, DType::Bool)), axis, keepdims);
  return eq(n, scalar_like(n, Scalar(int64_t(0))));
}

}  // namespace

void bind_reduce(py::module_& m, py::class_<Tensor>& cls) {
  struct Def {
    std::vector<const char*> names;
    Tensor (*fn)(const Tensor&, py::handle, bool);
  };
  const std::vector<Def> defs = {
      {{"sum"}, reduce<sum>},          {{"mean"}, reduce<mean>},
      {{"prod"}, reduce<prod>},        {{"amax", "max"}, reduce<amax>},
      {{"amin", "min"}, reduce<amin>}, {{"logsumexp"}, reduce<logsumexp>},
      {{"any"}, any_},                 {{"all"}, all_},
  };
  for (auto& d : defs)
    for (const char* n : d.names) {
      m.def(n, d.fn, py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
      cls.def(n, d.fn, py::arg("axis") = py::none(), py::arg("keepdims") = false);
    }
  auto def_ddof = [&](const char* n, auto fn) {
    m.def(n, fn, py::arg("x"), py::arg("axis") = py::none(), py::arg("ddof") = 0, py::arg("keepdims") = false);
    cls.def(n, fn, py::arg("axis") = py::none(), py::arg("ddof") = 0, py::arg("keepdims") = false);
  };
  def_ddof("var", &reduce_ddof<var>);
  def_ddof("std", &reduce_ddof<spire::std>);
  auto def_arg = [&](const char* n, auto fn) {
    m.def(n, fn, py::arg("x"), py::arg("axis") = py::none(), py::arg("keepdims") = false);
    cls.def(n, fn, py::arg("axis") = py::none(), py::arg("keepdims") = false);
  };
  def_arg("argmax", &arg_reduce<argmax>);
  def_arg("argmin", &arg_reduce<argmin>);
  auto def_scan = [&](const char* n, auto fn) {
    m.def(n, fn, py::arg("x"), py::arg("axis") = py::none());
    cls.def(n, fn, py::arg("axis") = py::none());
  };
  def_scan("cumsum", &scan<cumsum>);
  def_scan("cumprod", &scan<cumprod>);
  m.def("sum_to", [](const Tensor& x, py::handle shape) { return sum_to(x, to_shape(shape)); },
        py::arg("x"), py::arg("shape"));
  cls.def("sum_to", [](const Tensor& x, py::handle shape) { return sum_to(x, to_shape(shape)); },
          py::arg("shape"));
}

}  // namespace spire::python
