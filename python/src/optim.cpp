// Optimizers from Python (spire.optim): the engine's SGD, Adam, AdamW and L-BFGS (engine/optim/)
// with PyTorch's constructor signatures.
#include "common.h"
#include "engine/optim/adam.h"
#include "engine/optim/lbfgs.h"
#include "engine/optim/sgd.h"

namespace spire::python {
namespace {

std::string type_name(py::handle h) { return py::str(py::type::of(h).attr("__name__")); }

// The parameters: any iterable of tensors (a list, a generator). Parameter groups (dicts) are not
// supported: there is one set of options per optimizer.
Tensors to_params(py::handle params, const char* optimizer) {
  std::string who(optimizer);
  if (tensor_ptr(params) || !py::isinstance<py::iterable>(params) || py::isinstance<py::dict>(params))
    throw py::type_error(who + ": params must be an iterable of tensors, got " + type_name(params));
  Tensors out;
  size_t i = 0;
  for (auto item : params) {
    if (py::isinstance<py::dict>(item))
      throw py::type_error(who + ": parameter groups (dicts) are not supported; pass one list of tensors");
    const Tensor* t = tensor_ptr(item);
    if (!t)
      throw py::type_error(who + ": params[" + std::to_string(i) + "] must be a spire.Tensor, got " +
                           type_name(item));
    out.push_back(*t);
    ++i;
  }
  return out;
}

std::pair<double, double> to_betas(py::handle betas, const char* optimizer) {
  py::sequence seq;
  if (!py::isinstance<py::sequence>(betas) || py::len(betas) != 2)
    throw py::value_error(std::string(optimizer) + ": betas must be a pair (beta1, beta2), got " +
                          std::string(py::repr(betas)));
  seq = py::reinterpret_borrow<py::sequence>(betas);
  return {seq[0].cast<double>(), seq[1].cast<double>()};
}

// Runs one step; a Python closure may return the loss as a tensor or a number. Returns what the
// closure's first call returned, as PyTorch does, or None without a closure. For large models the
// GIL is released around the update and taken back only while the closure runs.
py::object step(optim::Optimizer& opt, py::object closure) {
  int64_t work = work_of(opt.params());
  if (closure.is_none()) {
    maybe_release(work, [&] { opt.step(); });
    return py::none();
  }
  if (!PyCallable_Check(closure.ptr()))
    throw py::type_error("step: closure must be callable or None, got " + type_name(closure));
  py::object first;
  optim::Closure c = [&]() -> Tensor {
    py::gil_scoped_acquire gil;
    py::object r = closure();
    if (!first) first = r;
    if (const Tensor* t = tensor_ptr(r)) return *t;
    if (is_py_number(r) && !PyComplex_Check(r.ptr())) return scalar_tensor(Scalar(r.cast<double>()), DType::Float64);
    throw py::type_error("step: the closure must return the loss (a tensor or a number), got " + type_name(r));
  };
  maybe_release(work, [&] { opt.step(c); });
  return first;
}

}  // namespace

void bind_optim(py::module_& m) {
  using namespace pybind11::literals;
  py::module_ o = m.def_submodule("_optim", "Raw optimizer bindings (use spire.optim).");

  py::class_<optim::Optimizer>(o, "Optimizer", "Base of the optimizers; holds a list of parameter tensors.")
      .def("zero_grad", &optim::Optimizer::zero_grad, py::arg("set_to_none") = true,
           "Drops every parameter's .grad (or sets it to zeros when set_to_none=False).")
      .def("step", &step, py::arg("closure") = py::none(),
           "One update. closure() (optional except for LBFGS) re-evaluates the model: zeroes the "
           "gradients, computes the loss, calls backward and returns the loss, which step returns.")
      .def_property_readonly("params", [](const optim::Optimizer& opt) { return opt.params(); },
                             "The parameter tensors, in the order given.")
      .def_property("lr", &optim::Optimizer::lr, &optim::Optimizer::set_lr,
                    "The learning rate, settable between steps.")
      .def_property_readonly("step_count", &optim::Optimizer::step_count, "How many times step() has run.")
      .def("__repr__", [](py::handle self) {
        py::dict d = self.attr("defaults");
        std::string s = type_name(self) + "(";
        bool first = true;
        for (auto [k, v] : d) {
          s += (first ? "" : ", ") + std::string(py::str(k)) + "=" + std::string(py::repr(v));
          first = false;
        }
        return s + ")";
      });

  py::class_<optim::SGD, optim::Optimizer>(o, "SGD", "Stochastic gradient descent with (Nesterov) momentum.")
      .def(py::init([](py::handle params, double lr, double momentum, double dampening, double weight_decay,
                       bool nesterov, bool maximize) {
             return new optim::SGD(to_params(params, "SGD"), {.lr = lr, .momentum = momentum, .dampening = dampening,
                                                               .weight_decay = weight_decay, .nesterov = nesterov,
                                                               .maximize = maximize});
           }),
           py::arg("params"), py::arg("lr") = 1e-3, py::arg("momentum") = 0.0, py::arg("dampening") = 0.0,
           py::arg("weight_decay") = 0.0, py::arg("nesterov") = false, py::kw_only(), py::arg("maximize") = false)
      .def_property_readonly("defaults", [](const optim::SGD& s) {
        const auto& o = s.options();
        return py::dict("lr"_a = o.lr, "momentum"_a = o.momentum, "dampening"_a = o.dampening,
                        "weight_decay"_a = o.weight_decay, "nesterov"_a = o.nesterov, "maximize"_a = o.maximize);
      });

  auto adam_defaults = [](const optim::Adam& a) {
    const auto& o = a.options();
    return py::dict("lr"_a = o.lr, "betas"_a = py::make_tuple(o.beta1, o.beta2), "eps"_a = o.eps,
                    "weight_decay"_a = o.weight_decay, "amsgrad"_a = o.amsgrad, "maximize"_a = o.maximize);
  };
  py::class_<optim::Adam, optim::Optimizer>(o, "Adam", "Adam (Kingma & Ba), weight decay as an L2 penalty.")
      .def(py::init([](py::handle params, double lr, py::handle betas, double eps, double weight_decay,
                       bool amsgrad, bool maximize) {
             auto [b1, b2] = to_betas(betas, "Adam");
             return new optim::Adam(to_params(params, "Adam"), {.lr = lr, .beta1 = b1, .beta2 = b2, .eps = eps,
                                                                 .weight_decay = weight_decay, .amsgrad = amsgrad,
                                                                 .maximize = maximize});
           }),
           py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = py::make_tuple(0.9, 0.999),
           py::arg("eps") = 1e-8, py::arg("weight_decay") = 0.0, py::arg("amsgrad") = false, py::kw_only(),
           py::arg("maximize") = false)
      .def_property_readonly("defaults", adam_defaults);

  py::class_<optim::AdamW, optim::Adam>(o, "AdamW", "Adam with decoupled weight decay (Loshchilov & Hutter).")
      .def(py::init([](py::handle params, double lr, py::handle betas, double eps, double weight_decay,
                       bool amsgrad, bool maximize) {
             auto [b1, b2] = to_betas(betas, "AdamW");
             return new optim::AdamW(to_params(params, "AdamW"), {.lr = lr, .beta1 = b1, .beta2 = b2, .eps = eps,
                                                                   .weight_decay = weight_decay, .amsgrad = amsgrad,
                                                                   .maximize = maximize});
           }),
           py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = py::make_tuple(0.9, 0.999),
           py::arg("eps") = 1e-8, py::arg("weight_decay") = 1e-2, py::arg("amsgrad") = false, py::kw_only(),
           py::arg("maximize") = false);

  py::class_<optim::LBFGS, optim::Optimizer>(o, "LBFGS", "L-BFGS with an optional strong-Wolfe line search.")
      .def(py::init([](py::handle params, double lr, int64_t max_iter, std::optional<int64_t> max_eval,
                       double tolerance_grad, double tolerance_change, int64_t history_size,
                       std::optional<std::string> line_search_fn, bool maximize) {
             optim::LineSearch ls = optim::LineSearch::None;
             if (line_search_fn) {
               if (*line_search_fn != "strong_wolfe")
                 throw py::value_error("LBFGS: line_search_fn must be None or 'strong_wolfe', got '" +
                                       *line_search_fn + "'");
               ls = optim::LineSearch::StrongWolfe;
             }
             return new optim::LBFGS(to_params(params, "LBFGS"),
                                     {.lr = lr, .max_iter = max_iter, .max_eval = max_eval,
                                      .tolerance_grad = tolerance_grad, .tolerance_change = tolerance_change,
                                      .history_size = history_size, .line_search = ls, .maximize = maximize});
           }),
           py::arg("params"), py::arg("lr") = 1.0, py::arg("max_iter") = 20, py::arg("max_eval") = py::none(),
           py::arg("tolerance_grad") = 1e-7, py::arg("tolerance_change") = 1e-9, py::arg("history_size") = 100,
           py::arg("line_search_fn") = py::none(), py::kw_only(), py::arg("maximize") = false)
      .def_property_readonly("defaults", [](const optim::LBFGS& l) {
        const auto& o = l.options();
        return py::dict("lr"_a = o.lr, "max_iter"_a = o.max_iter, "max_eval"_a = *o.max_eval,
                        "tolerance_grad"_a = o.tolerance_grad, "tolerance_change"_a = o.tolerance_change,
                        "history_size"_a = o.history_size,
                        "line_search_fn"_a = o.line_search == optim::LineSearch::StrongWolfe
                                                 ? py::object(py::str("strong_wolfe")) : py::object(py::none()),
                        "maximize"_a = o.maximize);
      })
      .def_property_readonly("iterations", &optim::LBFGS::iterations, "Iterations over all steps so far.")
      .def_property_readonly("function_evaluations", &optim::LBFGS::function_evaluations,
                             "Closure calls over all steps so far.");
}

}  // namespace spire::python
