// Optimizers from Python (spire.optim): the engine's SGD, Adam, AdamW, RMSprop and L-BFGS
// (engine/optim/) with PyTorch's constructor signatures, gradient clipping, the learning-rate
// schedulers (spire.optim.lr_scheduler), and the loss functions (spire._C._losses, wrapped by
// spire.nn.losses), which live here as they are what a training step calls.
#include <cmath>

#include "common.h"
#include "engine/nn/functional/loss.h"
#include "engine/optim/adam.h"
#include "engine/optim/clip.h"
#include "engine/optim/lbfgs.h"
#include "engine/optim/rmsprop.h"
#include "engine/optim/scheduler.h"
#include "engine/optim/sgd.h"

namespace spire::python {
namespace {


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

// clip_grad_*'s parameters: one tensor or an iterable of them.
Tensors clip_params(py::handle params, const char* who) {
  if (const Tensor* t = tensor_ptr(params)) return {*t};
  return to_params(params, who);
}

double to_norm_type(py::handle h) {
  if (py::isinstance<py::str>(h)) {
    std::string s = py::str(h);
    if (s == "inf") return INFINITY;
    throw py::value_error("clip_grad_norm_: norm_type must be a number or 'inf', got '" + s + "'");
  }
  return h.cast<double>();
}

Tensor opt_tensor(py::handle h) { return h.is_none() ? Tensor() : to_tensor(h); }

using nn::functional::Reduction;
Reduction reduction_of(const std::string& r, const char* loss) { return nn::functional::parse_reduction(r, loss); }

void bind_losses(py::module_& m) {
  namespace F = nn::functional;
  py::module_ l = m.def_submodule("_losses", "Raw loss bindings (use spire.nn.losses / spire.nn.functional).");
  auto pair_loss = [&](const char* name, Tensor (*f)(const Tensor&, const Tensor&, Reduction), const char* doc) {
    l.def(name, [f, name](py::handle input, py::handle target, const std::string& reduction) {
          Tensor x = to_tensor(input), y = to_tensor(target);
          Reduction r = reduction_of(reduction, name);
          return maybe_release(work_of(x), [&] { return f(x, y, r); });
        }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", doc);
  };
  pair_loss("mse_loss", &F::mse_loss, "Mean squared error (input - target)^2.");
  pair_loss("l1_loss", &F::l1_loss, "Mean absolute error |input - target|.");
  l.def("huber_loss", [](py::handle input, py::handle target, const std::string& reduction, double delta) {
        Tensor x = to_tensor(input), y = to_tensor(target);
        Reduction r = reduction_of(reduction, "huber_loss");
        return maybe_release(work_of(x), [&] { return F::huber_loss(x, y, r, delta); });
      }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("delta") = 1.0,
      "Huber loss: d^2/2 where |d| < delta, else delta (|d| - delta/2).");
  l.def("relative_l2_loss", [](py::handle input, py::handle target, const std::string& reduction, double p) {
        Tensor x = to_tensor(input), y = to_tensor(target);
        Reduction r = reduction_of(reduction, "relative_l2_loss");
        return maybe_release(work_of(x), [&] { return F::relative_l2_loss(x, y, r, p); });
      }, py::arg("input"), py::arg("target"), py::arg("reduction") = "mean", py::arg("p") = 2.0,
      "Per-sample ||input - target||_p / ||target||_p (the FNO loss), averaged over the batch.");
  l.def("cross_entropy", [](py::handle input, py::handle target, py::handle weight, int64_t ignore_index,
                            const std::string& reduction, double label_smoothing) {
        Tensor x = to_tensor(input), y = to_tensor(target);
        F::CrossEntropyOptions o{.weight = opt_tensor(weight), .ignore_index = ignore_index,
                                 .reduction = reduction_of(reduction, "cross_entropy"),
                                 .label_smoothing = label_smoothing};
        return maybe_release(work_of(x), [&] { return F::cross_entropy(x, y, o); });
      }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("ignore_index") = -100,
      py::arg("reduction") = "mean", py::arg("label_smoothing") = 0.0,
      "Cross-entropy of logits against class indices or class probabilities.");
  l.def("binary_cross_entropy", [](py::handle input, py::handle target, py::handle weight, const std::string& reduction) {
        Tensor x = to_tensor(input), y = to_tensor(target), w = opt_tensor(weight);
        Reduction r = reduction_of(reduction, "binary_cross_entropy");
        return maybe_release(work_of(x), [&] { return F::binary_cross_entropy(x, y, w, r); });
      }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
      "Binary cross-entropy of probabilities (logs clamped at -100).");
  l.def("binary_cross_entropy_with_logits", [](py::handle input, py::handle target, py::handle weight,
                                               const std::string& reduction, py::handle pos_weight) {
        Tensor x = to_tensor(input), y = to_tensor(target), w = opt_tensor(weight), pw = opt_tensor(pos_weight);
        Reduction r = reduction_of(reduction, "binary_cross_entropy_with_logits");
        return maybe_release(work_of(x), [&] { return F::binary_cross_entropy_with_logits(x, y, w, pw, r); });
      }, py::arg("input"), py::arg("target"), py::arg("weight") = py::none(), py::arg("reduction") = "mean",
      py::arg("pos_weight") = py::none(), "Binary cross-entropy of logits, stable for every logit.");
}

void bind_schedulers(py::module_& o) {
  using namespace pybind11::literals;
  auto check_last_epoch = [](int64_t last_epoch, const char* who) {
    if (last_epoch != -1)
      throw py::value_error(std::string(who) + ": last_epoch other than -1 is not supported; resume with "
                            "load_state_dict(state_dict) instead");
  };
  py::class_<optim::LRScheduler>(o, "LRScheduler", "Base of the learning-rate schedulers.")
      .def("step", [](optim::LRScheduler& s) { s.step(); }, "Advances one epoch and sets the optimizer's lr.")
      .def("get_last_lr", [](const optim::LRScheduler& s) { return std::vector<double>{s.get_last_lr()}; },
           "The rate set by the last step, as a one-element list (one per parameter group, as PyTorch).")
      .def_property_readonly("last_epoch", &optim::LRScheduler::last_epoch)
      .def_property_readonly("base_lrs", [](const optim::LRScheduler& s) { return std::vector<double>{s.base_lr()}; })
      .def_property_readonly("optimizer", [](const optim::LRScheduler& s) -> optim::Optimizer& { return s.optimizer(); },
                             py::return_value_policy::reference)
      .def("state_dict", [](const optim::LRScheduler& s) { return state_dict_to_py(s.state_dict()); },
           "The schedule's counters as an ordered dict of numbers.")
      .def("load_state_dict", [](optim::LRScheduler& s, py::handle d) { s.load_state_dict(state_dict_from_py(d, std::string(s.name()) + ".load_state_dict")); },
           py::arg("state_dict"))
      .def("__repr__", [](py::handle self) {
        return type_name(self) + "(last_epoch=" + std::to_string(self.attr("last_epoch").cast<int64_t>()) + ")";
      });

  py::class_<optim::StepLR, optim::LRScheduler>(o, "StepLR", "lr = base_lr gamma^(epoch // step_size).")
      .def(py::init([=](optim::Optimizer& opt, int64_t step_size, double gamma, int64_t last_epoch) {
             check_last_epoch(last_epoch, "StepLR");
             return new optim::StepLR(opt, step_size, gamma);
           }),
           py::arg("optimizer"), py::arg("step_size"), py::arg("gamma") = 0.1, py::arg("last_epoch") = -1,
           py::keep_alive<1, 2>());
  py::class_<optim::ExponentialLR, optim::LRScheduler>(o, "ExponentialLR", "lr = base_lr gamma^epoch.")
      .def(py::init([=](optim::Optimizer& opt, double gamma, int64_t last_epoch) {
             check_last_epoch(last_epoch, "ExponentialLR");
             return new optim::ExponentialLR(opt, gamma);
           }),
           py::arg("optimizer"), py::arg("gamma"), py::arg("last_epoch") = -1, py::keep_alive<1, 2>());
  py::class_<optim::CosineAnnealingLR, optim::LRScheduler>(
      o, "CosineAnnealingLR", "lr = eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2.")
      .def(py::init([=](optim::Optimizer& opt, int64_t T_max, double eta_min, int64_t last_epoch) {
             check_last_epoch(last_epoch, "CosineAnnealingLR");
             return new optim::CosineAnnealingLR(opt, T_max, eta_min);
           }),
           py::arg("optimizer"), py::arg("T_max"), py::arg("eta_min") = 0.0, py::arg("last_epoch") = -1,
           py::keep_alive<1, 2>());
  py::class_<optim::WarmupCosineLR, optim::LRScheduler>(
      o, "WarmupCosineLR",
      "Linear warm-up then cosine annealing: base_lr (s + (1 - s) epoch / w) for epoch < w, then "
      "eta_min + (base_lr - eta_min) (1 + cos(pi (epoch - w) / (T_max - w))) / 2, then eta_min past T_max "
      "(w = warmup_epochs, s = warmup_start_factor).")
      .def(py::init([](optim::Optimizer& opt, int64_t warmup_epochs, int64_t T_max, double eta_min,
                       double warmup_start_factor) {
             return new optim::WarmupCosineLR(opt, warmup_epochs, T_max, eta_min, warmup_start_factor);
           }),
           py::arg("optimizer"), py::arg("warmup_epochs"), py::arg("T_max"), py::arg("eta_min") = 0.0,
           py::arg("warmup_start_factor") = 0.0, py::keep_alive<1, 2>());
  py::class_<optim::OneCycleLR, optim::LRScheduler>(o, "OneCycleLR", "The 1cycle policy; step() once per batch.")
      .def(py::init([](optim::Optimizer& opt, double max_lr, std::optional<int64_t> total_steps,
                       std::optional<int64_t> epochs, std::optional<int64_t> steps_per_epoch, double pct_start,
                       const std::string& anneal_strategy, bool cycle_momentum, double base_momentum,
                       double max_momentum, double div_factor, double final_div_factor, bool three_phase,
                       int64_t last_epoch) {
             if (last_epoch != -1)
               throw py::value_error("OneCycleLR: last_epoch other than -1 is not supported; use load_state_dict");
             if (anneal_strategy != "cos" && anneal_strategy != "linear")
               throw py::value_error("OneCycleLR: anneal_strategy must be 'cos' or 'linear', got '" + anneal_strategy + "'");
             if (!total_steps && !(epochs && steps_per_epoch))
               throw py::value_error("OneCycleLR: you must define either total_steps OR (epochs AND steps_per_epoch)");
             optim::OneCycleOptions o{.max_lr = max_lr, .total_steps = total_steps.value_or(0),
                                      .epochs = epochs.value_or(0), .steps_per_epoch = steps_per_epoch.value_or(0),
                                      .pct_start = pct_start,
                                      .anneal_strategy = anneal_strategy == "cos" ? optim::AnnealStrategy::Cos
                                                                                  : optim::AnnealStrategy::Linear,
                                      .cycle_momentum = cycle_momentum, .base_momentum = base_momentum,
                                      .max_momentum = max_momentum, .div_factor = div_factor,
                                      .final_div_factor = final_div_factor, .three_phase = three_phase};
             if (total_steps && *total_steps <= 0)
               throw py::value_error("OneCycleLR: total_steps must be > 0, got " + std::to_string(*total_steps));
             return new optim::OneCycleLR(opt, o);
           }),
           py::arg("optimizer"), py::arg("max_lr"), py::arg("total_steps") = py::none(), py::arg("epochs") = py::none(),
           py::arg("steps_per_epoch") = py::none(), py::arg("pct_start") = 0.3, py::arg("anneal_strategy") = "cos",
           py::arg("cycle_momentum") = true, py::arg("base_momentum") = 0.85, py::arg("max_momentum") = 0.95,
           py::arg("div_factor") = 25.0, py::arg("final_div_factor") = 1e4, py::arg("three_phase") = false,
           py::arg("last_epoch") = -1, py::keep_alive<1, 2>())
      .def_property_readonly("total_steps", [](const optim::OneCycleLR& s) { return s.options().total_steps; });
  py::class_<optim::ReduceLROnPlateau, optim::LRScheduler>(
      o, "ReduceLROnPlateau", "Reduces lr by factor when the metric stops improving; step(metric) once per epoch.")
      .def(py::init([](optim::Optimizer& opt, const std::string& mode, double factor, int64_t patience,
                       double threshold, const std::string& threshold_mode, int64_t cooldown, double min_lr,
                       double eps) {
             return new optim::ReduceLROnPlateau(opt, {.mode = mode, .factor = factor, .patience = patience,
                                                       .threshold = threshold, .threshold_mode = threshold_mode,
                                                       .cooldown = cooldown, .min_lr = min_lr, .eps = eps});
           }),
           py::arg("optimizer"), py::arg("mode") = "min", py::arg("factor") = 0.1, py::arg("patience") = 10,
           py::arg("threshold") = 1e-4, py::arg("threshold_mode") = "rel", py::arg("cooldown") = 0,
           py::arg("min_lr") = 0.0, py::arg("eps") = 1e-8, py::keep_alive<1, 2>())
      .def("step", [](optim::ReduceLROnPlateau& s, py::handle metrics) {
             // float() accepts numbers and one-element tensors alike, as PyTorch's float(metrics).
             double m = py::float_(py::reinterpret_borrow<py::object>(metrics)).cast<double>();
             s.step(m);
           }, py::arg("metrics"), "One epoch with the watched metric (e.g. the validation loss).")
      .def_property_readonly("best", &optim::ReduceLROnPlateau::best)
      .def_property_readonly("num_bad_epochs", &optim::ReduceLROnPlateau::num_bad_epochs);
}

}  // namespace

// A state_dict as an ordered Python dict: tensors stay spire.Tensor, numbers become float or int.
py::dict state_dict_to_py(const optim::StateDict& state) {
  py::dict d;
  for (const auto& [k, v] : state.items()) {
    if (auto* t = std::get_if<Tensor>(&v)) d[py::str(k)] = py::cast(*t);
    else if (auto* x = std::get_if<double>(&v)) d[py::str(k)] = py::float_(*x);
    else d[py::str(k)] = py::int_(std::get<int64_t>(v));
  }
  return d;
}

optim::StateDict state_dict_from_py(py::handle obj, const std::string& who) {
  if (!py::isinstance<py::dict>(obj))
    throw py::type_error(who + ": expected a dict from state_dict(), got " + type_name(obj));
  optim::StateDict state;
  for (auto [k, v] : py::reinterpret_borrow<py::dict>(obj)) {
    std::string key = py::str(k);
    if (PyBool_Check(v.ptr())) throw py::type_error(who + ": '" + key + "' is a bool");
    if (PyLong_Check(v.ptr())) state.set(key, v.cast<int64_t>());
    else if (PyFloat_Check(v.ptr())) state.set(key, v.cast<double>());
    else if (const Tensor* t = tensor_ptr(v)) state.set(key, *t);
    else if (py::hasattr(v, "__array__") || py::isinstance<py::sequence>(v)) state.set(key, to_tensor(v));
    else if (is_py_number(v)) state.set(key, v.cast<double>());  // NumPy scalars
    else
      throw py::type_error(who + ": '" + key + "' must be a tensor or a number, got " +
                           type_name(v));
  }
  return state;
}

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
      .def("state_dict", [](const optim::Optimizer& opt) { return state_dict_to_py(opt.state_dict()); },
           "The state a resumed run needs, as an ordered dict: 'lr', 'step_count', 'momentum' (if any) and "
           "per-parameter entries 'state.<i>.<name>' (tensors and numbers).")
      .def("load_state_dict", [](optim::Optimizer& opt, py::handle d) {
             optim::StateDict s = state_dict_from_py(
                 d, type_name(py::cast(&opt, py::return_value_policy::reference)) + ".load_state_dict");
             opt.load_state_dict(s);
           }, py::arg("state_dict"), "Restores a state_dict() into an optimizer over parameters of the same shapes.")
      .def("__repr__", [](py::handle self) {
        py::dict d = self.attr("defaults");
        std::string s = type_name(self) + "(";
        bool first = true;
        for (auto [k, v] : d) {
          if (!first) s += ", ";
          s += std::string(py::str(k));
          s += "=";
          s += std::string(py::repr(v));
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

  py::class_<optim::RMSprop, optim::Optimizer>(o, "RMSprop", "RMSprop, optionally centered and with momentum.")
      .def(py::init([](py::handle params, double lr, double alpha, double eps, double weight_decay, double momentum,
                       bool centered, bool maximize) {
             return new optim::RMSprop(to_params(params, "RMSprop"),
                                       {.lr = lr, .alpha = alpha, .eps = eps, .weight_decay = weight_decay,
                                        .momentum = momentum, .centered = centered, .maximize = maximize});
           }),
           py::arg("params"), py::arg("lr") = 1e-2, py::arg("alpha") = 0.99, py::arg("eps") = 1e-8,
           py::arg("weight_decay") = 0.0, py::arg("momentum") = 0.0, py::arg("centered") = false, py::kw_only(),
           py::arg("maximize") = false)
      .def_property_readonly("defaults", [](const optim::RMSprop& r) {
        const auto& o = r.options();
        return py::dict("lr"_a = o.lr, "alpha"_a = o.alpha, "eps"_a = o.eps, "weight_decay"_a = o.weight_decay,
                        "momentum"_a = o.momentum, "centered"_a = o.centered, "maximize"_a = o.maximize);
      });

  o.def("clip_grad_norm_", [](py::handle parameters, double max_norm, py::handle norm_type, bool error_if_nonfinite,
                              py::handle /*foreach*/) {
        Tensors ps = clip_params(parameters, "clip_grad_norm_");
        double p = to_norm_type(norm_type);
        return maybe_release(work_of(ps), [&] { return optim::clip_grad_norm_(ps, max_norm, p, error_if_nonfinite); });
      }, py::arg("parameters"), py::arg("max_norm"), py::arg("norm_type") = 2.0, py::arg("error_if_nonfinite") = false,
      py::arg("foreach") = py::none(),
      "Scales the gradients so that their total norm is at most max_norm; returns the total norm before clipping.");
  o.def("clip_grad_value_", [](py::handle parameters, double clip_value, py::handle /*foreach*/) {
        Tensors ps = clip_params(parameters, "clip_grad_value_");
        maybe_release(work_of(ps), [&] { optim::clip_grad_value_(ps, clip_value); });
      }, py::arg("parameters"), py::arg("clip_value"), py::arg("foreach") = py::none(),
      "Clamps every gradient element to [-clip_value, clip_value].");

  bind_schedulers(o);
  bind_losses(m);
}

}  // namespace spire::python
