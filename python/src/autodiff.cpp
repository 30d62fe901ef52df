// Autodiff from Python: grad mode and anomaly switches, autograd.grad/backward, forward-mode duals,
// and the functional transforms over flat tensor lists (spire/_transforms.py adds pytrees).
#include "common.h"
#include "engine/autodiff/hooks.h"
#include "engine/autodiff/backward.h"
#include "engine/autodiff/forward.h"
#include "engine/autodiff/functional.h"
#include "engine/autodiff/mode.h"
#include "engine/core/error.h"

namespace spire::python {

std::shared_ptr<py::object> hold(py::object f) {
  return std::shared_ptr<py::object>(new py::object(std::move(f)), [](py::object* p) {
    if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than crash
    py::gil_scoped_acquire gil;
    delete p;
  });
}

Function tensor_list_function(py::object f, const std::string& what) {
  auto holder = hold(std::move(f));
  return [holder, what](const Tensors& xs) -> Tensors {
    py::gil_scoped_acquire gil;
    py::list args(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) args[i] = py::cast(xs[i]);
    py::object r = (*holder)(args);
    Tensors out;
    for (auto item : r) {
      const Tensor* t = tensor_ptr(item);
      if (!t) throw py::type_error(what + " must return tensors, got " + type_name(item));
      out.push_back(*t);
    }
    return out;
  };
}
namespace {

// A C++ function over tensor lists, callable from Python (what grad(f) and friends return).
struct CFunction {
  Function fn;
  std::string name;
};

// Python objects that may be a CFunction already (nested transforms skip a round trip through Python).
Function to_function(py::handle f) {
  if (py::isinstance<CFunction>(f)) return f.cast<const CFunction&>().fn;
  return tensor_list_function(py::reinterpret_borrow<py::object>(f), "a function being transformed");
}

py::list to_list(const Tensors& xs) {
  py::list out(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) out[i] = xs[i].defined() ? py::cast(xs[i]) : py::none();
  return out;
}

Tensors from_list(py::handle seq, bool allow_none = false) {
  Tensors out;
  for (auto item : seq) {
    if (item.is_none() && allow_none) {
      out.emplace_back();
      continue;
    }
    out.push_back(to_tensor(item));
  }
  return out;
}

std::vector<int> argnums_of(py::handle h) {
  std::vector<int> out;
  for (auto a : to_axes(h)) out.push_back(int(a));
  return out;
}

}  // namespace

void bind_autodiff(py::module_& m) {
  m.def("is_grad_enabled", &GradMode::enabled);
  m.def("_set_grad_enabled", &GradMode::set, py::arg("on"));
  m.def("is_anomaly_enabled", &AnomalyMode::enabled);
  m.def("_set_anomaly_enabled", &AnomalyMode::set, py::arg("on"));

  py::module_ ag = m.def_submodule("_autograd", "Raw reverse-mode bindings (use spire.autograd).");
  ag.def("grad", [](py::handle outputs, py::handle inputs, py::handle grad_outputs, bool retain_graph,
                    bool create_graph, bool allow_unused) {
    Tensors outs = from_list(outputs), ins = from_list(inputs);
    Tensors gos = grad_outputs.is_none() ? Tensors{} : from_list(grad_outputs, true);
    Tensors r;
    {
      py::gil_scoped_release release;
      r = autodiff::grad(outs, ins, gos, retain_graph, create_graph, allow_unused);
    }
    return to_list(r);
  });
  ag.def("_add_post_accumulate_grad_hook", [](const Tensor& leaf, py::object fn) {
    auto f = hold(std::move(fn));
    return autodiff::add_post_accumulate_grad_hook(leaf, [f](const Tensor& t) {
      py::gil_scoped_acquire gil;  // backward runs with the GIL released
      (*f)(t);
    });
  });
  ag.def("_remove_post_accumulate_grad_hook", &autodiff::remove_post_accumulate_grad_hook);
  ag.def("backward", [](py::handle outputs, py::handle grad_outputs, bool retain_graph, bool create_graph) {
    Tensors outs = from_list(outputs);
    Tensors gos = grad_outputs.is_none() ? Tensors{} : from_list(grad_outputs, true);
    py::gil_scoped_release release;
    autodiff::backward(outs, gos, retain_graph, create_graph);
  });

  py::module_ fw = m.def_submodule("_forward_ad", "Raw forward-mode bindings (use spire.forward_ad).");
  fw.def("enter_level", &forward_ad::enter_level);
  fw.def("exit_level", &forward_ad::exit_level, py::arg("level"));
  fw.def("make_dual", &forward_ad::make_dual, py::arg("primal"), py::arg("tangent"), py::arg("level"));
  fw.def("tangent", [](const Tensor& t, int level) -> std::optional<Tensor> {
    Tensor r = forward_ad::tangent(t, level);
    if (!r.defined()) return std::nullopt;
    return r;
  }, py::arg("tensor"), py::arg("level"));

  py::class_<CFunction>(m, "_CFunction", "A transformed function over flat lists of tensors.")
      .def("__call__", [](const CFunction& f, py::handle args) { return to_list(f.fn(from_list(args))); })
      .def("__repr__", [](const CFunction& f) { return "<spire transformed function " + f.name + ">"; });

  py::module_ fn = m.def_submodule("_functional", "Transforms over flat tensor lists (use spire.grad, ...).");
  auto transform = [&fn](const char* name, Function (*t)(const Function&, const std::vector<int>&)) {
    fn.def(name, [t, name](py::handle f, py::handle argnums) {
      return CFunction{t(to_function(f), argnums_of(argnums)), name};
    }, py::arg("f"), py::arg("argnums"));
  };
  transform("grad", &spire::grad);
  transform("value_and_grad", &spire::value_and_grad);
  transform("jacrev", &spire::jacrev);
  transform("jacfwd", &spire::jacfwd);
  transform("hessian", &spire::hessian);
  fn.def("vjp", [](py::handle f, py::handle primals) {
    auto [outs, back] = spire::vjp(to_function(f), from_list(primals));
    return py::make_tuple(to_list(outs), CFunction{back, "vjp"});
  }, py::arg("f"), py::arg("primals"));
  fn.def("jvp", [](py::handle f, py::handle primals, py::handle tangents) {
    auto [outs, touts] = spire::jvp(to_function(f), from_list(primals), from_list(tangents));
    return py::make_tuple(to_list(outs), to_list(touts));
  }, py::arg("f"), py::arg("primals"), py::arg("tangents"));
  fn.def("hvp", [](py::handle f, py::handle primals, py::handle v) {
    return to_list(spire::hvp(to_function(f), from_list(primals), from_list(v)));
  }, py::arg("f"), py::arg("primals"), py::arg("tangents"));
}

}  // namespace spire::python
