// Taylor mode, vmap and the differential operators from Python, over flat lists of tensors and
// single tensors (spire/_taylor.py adds pytrees, argument checks and the public names).
//
// Every entry point converts its arguments, then runs the engine without the GIL: the engine calls
// back into Python (the function being transformed) and each callback takes the GIL for itself.
#include "common.h"
#include "engine/autodiff/differential.h"
#include "engine/autodiff/taylor.h"
#include "engine/autodiff/vmap.h"
#include "engine/core/error.h"

namespace spire::python {
namespace {

// A Python callable from one tensor to one tensor, as a C++ PointFunction.
PointFunction point_function(py::object f, std::string what) {
  auto holder = hold(std::move(f));
  return [holder, what](const Tensor& x) -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = (*holder)(py::cast(x));
    const Tensor* t = tensor_ptr(r);
    if (!t) throw py::type_error(what + ": f must return a Tensor, got " + type_name(r));
    return *t;
  };
}

Tensors from_list(py::handle seq) {
  Tensors out;
  for (auto item : seq) out.push_back(item.is_none() ? Tensor() : to_tensor(item));
  return out;
}

py::list to_list(const Tensors& xs) {
  py::list out(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) out[i] = xs[i].defined() ? py::cast(xs[i]) : py::none();
  return out;
}

// Runs a point operator on x without the GIL.
Tensor run_point(const PointFunction& op, const Tensor& x, const char* what) {
  py::gil_scoped_release release;
  return op(x);
}

LaplacianEstimator estimator_of(const std::string& name) {
  if (name == "hutchinson") return LaplacianEstimator::Hutchinson;
  if (name == "sparse") return LaplacianEstimator::Sparse;
  throw spire::ValueError("laplacian: estimator must be 'hutchinson' or 'sparse', got '" + name + "'");
}

}  // namespace

void bind_taylor(py::module_& m) {
  py::module_ t = m.def_submodule(
      "_taylor", "Taylor mode, vmap and differential operators over flat tensor lists (use spire.jet, "
                 "spire.vmap, spire.laplacian, ...).");

  t.def("jet", [](py::object f, py::handle primals, py::handle series) {
    Tensors xs = from_list(primals);
    std::vector<Series> in;
    for (auto s : series) in.push_back(from_list(s));
    Function fn = tensor_list_function(std::move(f), "jet: the function");
    std::pair<Tensors, std::vector<Series>> r;
    {
      py::gil_scoped_release release;
      r = spire::jet(fn, xs, in);
    }
    py::list out_series(r.second.size());
    for (size_t i = 0; i < r.second.size(); ++i) out_series[i] = to_list(r.second[i]);
    return py::make_tuple(to_list(r.first), out_series);
  }, py::arg("f"), py::arg("primals"), py::arg("series"),
     "f's outputs at primals and their series (k-th derivatives, lists per output); series[i] lists "
     "input i's coefficients, None for zero.");

  t.def("vmap", [](py::object f, py::handle args, const std::vector<std::optional<int64_t>>& in_axes) {
    Tensors xs = from_list(args);
    Function fn = spire::vmap(tensor_list_function(std::move(f), "vmap: the function"), in_axes);
    Tensors r;
    {
      py::gil_scoped_release release;
      r = fn(xs);
    }
    return to_list(r);
  }, py::arg("f"), py::arg("args"), py::arg("in_axes"),
     "f mapped over axis in_axes[i] of args[i] (None: not mapped); outputs get the mapped axis first.");

  auto point_op = [&t](const char* name, PointFunction (*op)(const PointFunction&), const char* doc) {
    t.def(name, [op, name](py::object f, const Tensor& x) {
      return run_point(op(point_function(std::move(f), name)), x, name);
    }, py::arg("f"), py::arg("x"), doc);
  };
  point_op("laplacian", &spire::laplacian, "The exact Laplacian of f at the points x (forward Laplacian).");
  point_op("hessian_diag", &spire::hessian_diag, "d2f/dx_i2 for every i: shape [..., *out, d].");
  point_op("input_grad", &spire::input_grad, "df/dx_i for every i: shape [..., *out, d].");
  point_op("divergence", &spire::divergence, "sum_i df_i/dx_i of f: [..., d] -> [..., d].");
  point_op("curl", &spire::curl, "The curl of f: [..., 3] -> [..., 3].");

  t.def("laplacian_estimate", [](py::object f, const Tensor& x, const std::string& estimator, int64_t samples,
                                 uint64_t seed) {
    PointFunction op = spire::laplacian(point_function(std::move(f), "laplacian"), estimator_of(estimator),
                                        samples, seed);
    return run_point(op, x, "laplacian");
  }, py::arg("f"), py::arg("x"), py::arg("estimator"), py::arg("samples"), py::arg("seed"),
     "An unbiased randomised Laplacian ('hutchinson' or 'sparse') from `samples` directions per point.");

  t.def("derivative", [](py::object f, const Tensor& x, int order, const Tensor& direction) {
    return run_point(spire::derivative(point_function(std::move(f), "derivative"), order, direction), x,
                     "derivative");
  }, py::arg("f"), py::arg("x"), py::arg("order"), py::arg("direction"),
     "The order-th derivative d^k/dt^k f(x + t v) at t = 0.");
}

}  // namespace spire::python
