// Optimizers from Python (spire.optim): the engine's SGD, Adam, AdamW, RMSprop and L-BFGS
// (engine/optim/) with PyTorch's constructor signatures and parameter groups, gradient clipping, the
// learning-rate schedulers (spire.optim.lr_scheduler), and the loss functions (spire._C._losses,
// wrapped by spire.nn.losses), which live here as they are what a training step calls.
//
// A group's options are read and written by name through the options' fields (engine/optim/
// param_group.h), one generic code path for every optimizer: python/spire/optim.py builds
// torch's param_groups (live dict-like views), add_param_group and the nested state_dict on the
// raw methods bound here (_group_get, _group_set, _add_param_group, _state_dict, ...).
#include <cmath>
#include <regex>

#include "common.h"
#include "per_group.h"
#include "engine/nn/functional/loss.h"
#include "engine/optim/adam.h"
#include "engine/optim/clip.h"
#include "engine/optim/lbfgs.h"
#include "engine/optim/rmsprop.h"
#include "engine/optim/scheduler.h"
#include "engine/optim/sgd.h"

namespace spire::python {
namespace {

// A list of tensors: any iterable of them (a list, a generator, a model's parameters()).
Tensors tensor_list(py::handle params, const std::string& who, const std::string& what) {
  Tensors out;
  size_t i = 0;
  for (auto item : params) {
    const Tensor* t = tensor_ptr(item);
    if (!t) throw py::type_error(who + ": " + what + "[" + std::to_string(i) + "] must be a spire.Tensor, got " + type_name(item));
    out.push_back(*t);
    ++i;
  }
  return out;
}

// The parameters of a clip_grad_* call: one tensor or an iterable of them.
Tensors to_params(py::handle params, const char* who) {
  if (tensor_ptr(params) || !py::isinstance<py::iterable>(params) || py::isinstance<py::dict>(params))
    throw py::type_error(std::string(who) + ": params must be an iterable of tensors, got " + type_name(params));
  return tensor_list(params, who, "params");
}

// --- options by name ------------------------------------------------------------------------------
// The Python keys of an options struct: its fields' names, with "betas.0", "betas.1" as one tuple
// "betas", in order.
template <class O>
std::vector<std::string> option_keys() {
  std::vector<std::string> keys;
  for (const auto& f : O::fields()) {
    std::string name = f.name;
    if (auto dot = name.find('.'); dot != std::string::npos) name = name.substr(0, dot);
    if (keys.empty() || keys.back() != name) keys.push_back(name);
  }
  return keys;
}

// The fields under a key: the one named key, or key.0, key.1, ... for a tuple.
template <class O>
std::vector<const optim::OptionField<O>*> fields_of(const std::string& key) {
  std::vector<const optim::OptionField<O>*> out;
  for (const auto& f : O::fields()) {
    std::string name = f.name;
    if (name == key || name.rfind(key + ".", 0) == 0) out.push_back(&f);
  }
  return out;
}

template <class O>
bool has_option(const std::string& key) {
  return !fields_of<O>(key).empty();
}

template <class O>
py::object field_to_py(const O& o, const optim::OptionField<O>& f) {
  return std::visit(
      [&](auto m) -> py::object {
        using T = std::remove_cvref_t<decltype(o.*m)>;
        if constexpr (std::is_same_v<T, double>) return py::float_(o.*m);
        else if constexpr (std::is_same_v<T, int64_t>) return py::int_(o.*m);
        else if constexpr (std::is_same_v<T, bool>) return py::bool_(o.*m);
        else if constexpr (std::is_same_v<T, optim::LineSearch>)
          return o.*m == optim::LineSearch::StrongWolfe ? py::object(py::str("strong_wolfe")) : py::object(py::none());
        else return (o.*m).has_value() ? py::object(py::int_(*(o.*m))) : py::object(py::none());
      },
      f.member);
}

// The kind of a field, for python/spire/optim.py's nested state_dict view.
template <class O>
const char* field_kind(const optim::OptionField<O>& f) {
  return std::visit(
      [](auto m) -> const char* {
        using T = std::remove_cvref_t<decltype(std::declval<O>().*m)>;
        if constexpr (std::is_same_v<T, double>) return "real";
        else if constexpr (std::is_same_v<T, int64_t>) return "int";
        else if constexpr (std::is_same_v<T, bool>) return "bool";
        else if constexpr (std::is_same_v<T, optim::LineSearch>) return "line_search";
        else return "optional_int";
      },
      f.member);
}

template <class O>
void field_from_py(O& o, const optim::OptionField<O>& f, py::handle v, const std::string& who) {
  std::string key = f.name;
  auto integer = [&](py::handle h) -> int64_t {
    if (PyBool_Check(h.ptr()) || !(PyLong_Check(h.ptr()) || py::hasattr(h, "__index__")))
      throw py::type_error(who + ": " + key + " must be an integer, got " + type_name(h));
    return py::reinterpret_borrow<py::object>(h).attr("__index__")().cast<int64_t>();
  };
  std::visit(
      [&](auto m) {
        using T = std::remove_cvref_t<decltype(o.*m)>;
        if constexpr (std::is_same_v<T, double>) {
          if (!is_py_number(v) && !py::hasattr(v, "__float__"))
            throw py::type_error(who + ": " + key + " must be a number, got " + type_name(v));
          o.*m = py::float_(py::reinterpret_borrow<py::object>(v)).cast<double>();
        } else if constexpr (std::is_same_v<T, int64_t>) {
          o.*m = integer(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          if (!PyBool_Check(v.ptr()) && !PyLong_Check(v.ptr()) && !py::hasattr(v, "__bool__"))
            throw py::type_error(who + ": " + key + " must be a bool, got " + type_name(v));
          o.*m = py::bool_(py::reinterpret_borrow<py::object>(v)).cast<bool>();
        } else if constexpr (std::is_same_v<T, optim::LineSearch>) {
          if (v.is_none()) {
            o.*m = optim::LineSearch::None;
          } else if (py::isinstance<py::str>(v) && v.cast<std::string>() == "strong_wolfe") {
            o.*m = optim::LineSearch::StrongWolfe;
          } else {
            throw py::value_error(who + ": line_search_fn must be None or 'strong_wolfe', got " +
                                  std::string(py::repr(v)));
          }
        } else {
          o.*m = v.is_none() ? std::nullopt : std::optional<int64_t>(integer(v));
        }
      },
      f.member);
}

template <class O>
py::object get_option(const O& o, const std::string& key) {
  auto fs = fields_of<O>(key);
  if (fs.empty()) throw py::key_error(key);
  if (fs.size() == 1 && fs[0]->name == key) return field_to_py(o, *fs[0]);
  py::tuple t(fs.size());
  for (size_t i = 0; i < fs.size(); ++i) t[i] = field_to_py(o, *fs[i]);
  return t;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// o with option key set to v; a TypeError or ValueError naming who and the key when v does not fit.
// The caller checks the ranges (Options::check).
template <class O>
void set_option(O& o, const std::string& key, py::handle v, const std::string& who) {
  auto fs = fields_of<O>(key);
  if (fs.empty())
    throw py::key_error(who + ": no option '" + key + "'; the options are " + join(option_keys<O>()));
  if (fs.size() == 1 && fs[0]->name == key) return field_from_py(o, *fs[0], v, who);
  // A tuple-valued option (Adam's betas).
  if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v) || py::len(v) != fs.size()) {
    std::string want = key == "betas" ? "a pair (beta1, beta2)" : "a sequence of " + std::to_string(fs.size()) + " numbers";
    throw py::value_error(who + ": " + key + " must be " + want + ", got " + std::string(py::repr(v)));
  }
  auto seq = py::reinterpret_borrow<py::sequence>(v);
  for (size_t i = 0; i < fs.size(); ++i) field_from_py(o, *fs[i], seq[i], who);
}

template <class O>
py::dict options_to_py(const O& o) {
  py::dict d;
  for (const std::string& k : option_keys<O>()) d[py::str(k)] = get_option(o, k);
  return d;
}

// Calls f with the optimizer as the OptimizerOf<Options> it is.
template <class F>
auto with_options(optim::Optimizer& opt, F&& f) {
  if (auto* o = dynamic_cast<optim::OptimizerOf<optim::SGDOptions>*>(&opt)) return f(*o);
  if (auto* o = dynamic_cast<optim::OptimizerOf<optim::AdamOptions>*>(&opt)) return f(*o);
  if (auto* o = dynamic_cast<optim::OptimizerOf<optim::RMSpropOptions>*>(&opt)) return f(*o);
  if (auto* o = dynamic_cast<optim::OptimizerOf<optim::LBFGSOptions>*>(&opt)) return f(*o);
  throw py::type_error(std::string(opt.name()) + ": not an optimizer with parameter groups");
}

template <class Opt>
using OptionsOf = std::remove_cvref_t<decltype(std::declval<Opt&>().defaults())>;

// --- parameter groups -------------------------------------------------------------------------------
// A group dict's parameters: one tensor or an ordered iterable of them (not a set, whose order
// changes from run to run, as PyTorch refuses).
Tensors group_params(py::handle params, const std::string& who) {
  if (const Tensor* t = tensor_ptr(params)) return {*t};
  if (py::isinstance<py::set>(params) || py::isinstance<py::frozenset>(params))
    throw py::type_error(who + ": 'params' must be an ordered collection of tensors, not a set (its order changes "
                         "between runs)");
  if (!py::isinstance<py::iterable>(params) || py::isinstance<py::dict>(params) || py::isinstance<py::str>(params))
    throw py::type_error(who + ": 'params' must be a tensor or an iterable of tensors, got " + type_name(params));
  return tensor_list(params, who, "params");
}

// A group from a dict {"params": ..., option: value, ...}: the options are the defaults with the
// dict's keys set; a key that names no option is a KeyError (spire.optim keeps user keys aside).
template <class O>
optim::ParamGroup<O> group_from_dict(py::handle d, const O& defaults, const std::string& who) {
  auto dict = py::reinterpret_borrow<py::dict>(d);
  if (!dict.contains("params")) throw py::value_error(who + ": a parameter group needs 'params'");
  optim::ParamGroup<O> g;
  g.params = group_params(dict["params"], who);
  O o = defaults;
  for (auto [k, v] : dict) {
    std::string key = py::str(k);
    if (key != "params") set_option(o, key, v, who);
  }
  g.options = o;
  return g;
}

// The constructor's params: an iterable of tensors (one group) or of dicts (a group each).
template <class O>
std::vector<optim::ParamGroup<O>> to_groups(py::handle params, const O& defaults, const char* optimizer) {
  std::string who(optimizer);
  if (tensor_ptr(params) || !py::isinstance<py::iterable>(params) || py::isinstance<py::dict>(params) ||
      py::isinstance<py::str>(params))
    throw py::type_error(who + ": params must be an iterable of tensors or of dicts (parameter groups), got " +
                         type_name(params));
  py::list items;
  for (auto item : params) items.append(item);
  bool groups = items.size() > 0 && py::isinstance<py::dict>(items[0]);
  if (!groups) return {optim::ParamGroup<O>{tensor_list(items, who, "params"), std::nullopt}};
  std::vector<optim::ParamGroup<O>> out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!py::isinstance<py::dict>(items[i]))
      throw py::type_error(who + ": params[" + std::to_string(i) + "] must be a dict like params[0] (parameter groups), got " +
                           type_name(items[i]));
    out.push_back(group_from_dict(items[i], defaults, who + " param group " + std::to_string(i)));
  }
  return out;
}

std::pair<double, double> to_betas(py::handle betas, const char* optimizer) {
  if (!py::isinstance<py::sequence>(betas) || py::len(betas) != 2)
    throw py::value_error(std::string(optimizer) + ": betas must be a pair (beta1, beta2), got " +
                          std::string(py::repr(betas)));
  auto seq = py::reinterpret_borrow<py::sequence>(betas);
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

// The raw group methods of every optimizer class (python/spire/optim.py builds on them).
template <class Cls>
void bind_group_methods(Cls& cls) {
  using Opt = typename Cls::type;
  using O = OptionsOf<Opt>;
  py::list names, fields;
  for (const std::string& k : option_keys<O>()) names.append(k);
  for (const auto& f : O::fields()) fields.append(py::make_tuple(f.name, field_kind(f)));
  cls.attr("_option_names") = py::tuple(names);
  cls.attr("_option_fields") = py::tuple(fields);
  cls.def("_add_param_group", [](Opt& opt, py::handle group) {
        if (!py::isinstance<py::dict>(group))
          throw py::type_error(std::string(opt.name()) + ".add_param_group: the group must be a dict with 'params', got " +
                               type_name(group));
        std::string who = std::string(opt.name()) + " param group " + std::to_string(opt.num_param_groups());
        opt.add_param_group(group_from_dict(group, opt.defaults(), who));
      }, py::arg("param_group"));
  cls.def_property_readonly("defaults", [](const Opt& opt) { return options_to_py(opt.defaults()); },
                            "The constructor's options: those of a group added without its own.");
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

// From a flat dict, or from torch's nested layout ("state", "param_groups", flattened by
// spire.optim._flatten_state_dict); a list or tuple of numbers under key becomes "key.<k>" entries.
optim::StateDict state_dict_from_py(py::handle obj, const std::string& who) {
  if (!py::isinstance<py::dict>(obj))
    throw py::type_error(who + ": expected a dict from state_dict(), got " + type_name(obj));
  py::dict dict = py::reinterpret_borrow<py::dict>(obj);
  if (dict.contains("state") || dict.contains("param_groups"))
    dict = py::module_::import("spire.optim").attr("_flatten_state_dict")(dict);
  optim::StateDict state;
  std::function<void(const std::string&, py::handle)> put = [&](const std::string& key, py::handle v) {
    if (PyBool_Check(v.ptr())) throw py::type_error(who + ": '" + key + "' is a bool");
    if (PyLong_Check(v.ptr())) state.set(key, v.cast<int64_t>());
    else if (PyFloat_Check(v.ptr())) state.set(key, v.cast<double>());
    else if (const Tensor* t = tensor_ptr(v)) state.set(key, *t);
    else if (py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) {
      size_t k = 0;
      for (auto item : v) put(key + "." + std::to_string(k++), item);
    } else if (py::hasattr(v, "__array__")) state.set(key, to_tensor(v));
    else if (is_py_number(v)) state.set(key, v.cast<double>());  // NumPy scalars
    else
      throw py::type_error(who + ": '" + key + "' must be a tensor, a number or a list of numbers, got " + type_name(v));
  };
  for (auto [k, v] : dict) put(py::str(k), v);
  return state;
}

// A float or a list of floats, one per parameter group (max_lr, min_lr, ...).
optim::PerGroup per_group(py::handle h, const char* who, const char* what) {
  if (py::isinstance<py::list>(h) || py::isinstance<py::tuple>(h)) {
    std::vector<double> v;
    for (auto x : h) v.push_back(py::float_(py::reinterpret_borrow<py::object>(x)).cast<double>());
    return optim::PerGroup(std::move(v));
  }
  if (!is_py_number(h) && !py::hasattr(h, "__float__"))
    throw py::type_error(std::string(who) + ": " + what + " must be a number or a list of numbers (one per param group), got " +
                         type_name(h));
  return optim::PerGroup(py::float_(py::reinterpret_borrow<py::object>(h)).cast<double>());
}

namespace {

// A scheduler's flat state ("base_lrs.0", "base_lrs.1", ...) with lists for the per-group values, as
// PyTorch's ("base_lrs": [...]); state_dict_from_py flattens them back.
py::dict nest_lists(const optim::StateDict& state) {
  static const std::regex indexed(R"((.+)\.(\d+))");
  py::dict d;
  for (const auto& [k, v] : state.items()) {
    py::object value = std::holds_alternative<double>(v) ? py::object(py::float_(std::get<double>(v)))
                       : std::holds_alternative<int64_t>(v) ? py::object(py::int_(std::get<int64_t>(v)))
                                                            : py::cast(std::get<Tensor>(v));
    std::smatch m;
    if (std::regex_match(k, m, indexed)) {
      py::str base(m[1].str());
      if (!d.contains(base)) d[base] = py::list();
      d[base].cast<py::list>().append(value);
    } else {
      d[py::str(k)] = value;
    }
  }
  return d;
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
      .def("get_last_lr", [](const optim::LRScheduler& s) { return s.get_last_lr(); },
           "The rates set by the last step, one per parameter group.")
      .def_property_readonly("last_epoch", &optim::LRScheduler::last_epoch)
      .def_property_readonly("base_lrs", [](const optim::LRScheduler& s) { return s.base_lrs(); },
                             "The rates the schedule starts from, one per parameter group (their initial_lr).")
      .def_property_readonly("optimizer", [](const optim::LRScheduler& s) -> optim::Optimizer& { return s.optimizer(); },
                             py::return_value_policy::reference)
      .def("state_dict", [](const optim::LRScheduler& s) { return nest_lists(s.state_dict()); },
           "The schedule's counters as an ordered dict: numbers, and lists with one value per parameter group "
           "('base_lrs', 'last_lr').")
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
  py::class_<optim::OneCycleLR, optim::LRScheduler>(
      o, "OneCycleLR", "The 1cycle policy; step() once per batch. max_lr, base_momentum and max_momentum: a number, or "
      "a list with one per parameter group.")
      .def(py::init([](optim::Optimizer& opt, py::handle max_lr, std::optional<int64_t> total_steps,
                       std::optional<int64_t> epochs, std::optional<int64_t> steps_per_epoch, double pct_start,
                       const std::string& anneal_strategy, bool cycle_momentum, py::handle base_momentum,
                       py::handle max_momentum, double div_factor, double final_div_factor, bool three_phase,
                       int64_t last_epoch) {
             if (last_epoch != -1)
               throw py::value_error("OneCycleLR: last_epoch other than -1 is not supported; use load_state_dict");
             if (anneal_strategy != "cos" && anneal_strategy != "linear")
               throw py::value_error("OneCycleLR: anneal_strategy must be 'cos' or 'linear', got '" + anneal_strategy + "'");
             if (!total_steps && !(epochs && steps_per_epoch))
               throw py::value_error("OneCycleLR: you must define either total_steps OR (epochs AND steps_per_epoch)");
             optim::OneCycleOptions o{.max_lr = per_group(max_lr, "OneCycleLR", "max_lr"), .total_steps = total_steps.value_or(0),
                                      .epochs = epochs.value_or(0), .steps_per_epoch = steps_per_epoch.value_or(0),
                                      .pct_start = pct_start,
                                      .anneal_strategy = anneal_strategy == "cos" ? optim::AnnealStrategy::Cos
                                                                                  : optim::AnnealStrategy::Linear,
                                      .cycle_momentum = cycle_momentum,
                                      .base_momentum = per_group(base_momentum, "OneCycleLR", "base_momentum"),
                                      .max_momentum = per_group(max_momentum, "OneCycleLR", "max_momentum"),
                                      .div_factor = div_factor,
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
      o, "ReduceLROnPlateau", "Reduces each group's lr by factor when the metric stops improving; step(metric) once "
      "per epoch. min_lr: a number, or a list with one per parameter group.")
      .def(py::init([](optim::Optimizer& opt, const std::string& mode, double factor, int64_t patience,
                       double threshold, const std::string& threshold_mode, int64_t cooldown, py::handle min_lr,
                       double eps) {
             return new optim::ReduceLROnPlateau(opt, {.mode = mode, .factor = factor, .patience = patience,
                                                       .threshold = threshold, .threshold_mode = threshold_mode,
                                                       .cooldown = cooldown,
                                                       .min_lr = per_group(min_lr, "ReduceLROnPlateau", "min_lr"),
                                                       .eps = eps});
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

// Adam and AdamW share their keywords; only the default weight decay differs (as torch's).
template <class Opt, class Cls>
void bind_adam_init(Cls& cls, const char* who, double default_weight_decay) {
  cls.def(py::init([who](py::handle params, double lr, py::handle betas, double eps, double weight_decay,
                         bool amsgrad, bool maximize) {
            auto [b1, b2] = to_betas(betas, who);
            optim::AdamOptions d{.lr = lr, .beta1 = b1, .beta2 = b2, .eps = eps, .weight_decay = weight_decay,
                                 .amsgrad = amsgrad, .maximize = maximize};
            d.check(who);
            return new Opt(to_groups(params, d, who), d);
          }),
          py::arg("params"), py::arg("lr") = 1e-3, py::arg("betas") = py::make_tuple(0.9, 0.999),
          py::arg("eps") = 1e-8, py::arg("weight_decay") = default_weight_decay, py::arg("amsgrad") = false,
          py::kw_only(), py::arg("maximize") = false);
}

void bind_optim(py::module_& m) {
  using namespace pybind11::literals;
  py::module_ o = m.def_submodule("_optim", "Raw optimizer bindings (use spire.optim).");

  py::class_<optim::Optimizer>(o, "Optimizer", py::dynamic_attr(),
                               "Base of the optimizers; holds groups of parameter tensors, each with its options.")
      .def("zero_grad", &optim::Optimizer::zero_grad, py::arg("set_to_none") = true,
           "Drops every parameter's .grad (or sets it to zeros when set_to_none=False).")
      .def("step", &step, py::arg("closure") = py::none(),
           "One update. closure() (optional except for LBFGS) re-evaluates the model: zeroes the "
           "gradients, computes the loss, calls backward and returns the loss, which step returns.")
      .def_property_readonly("params", [](const optim::Optimizer& opt) { return opt.params(); },
                             "Every parameter tensor, group after group.")
      .def_property("lr", [](const optim::Optimizer& opt) { return opt.lr(); },
                    [](optim::Optimizer& opt, double lr) { opt.set_lr(lr); },
                    "The learning rate: reads group 0's, sets every group's (param_groups[g]['lr'] for one group).")
      .def_property_readonly("step_count", &optim::Optimizer::step_count, "How many times step() has run.")
      .def("_state_dict", [](const optim::Optimizer& opt) { return state_dict_to_py(opt.state_dict()); },
           "The flat state_dict (what checkpoints write).")
      .def("_load_state_dict", [](optim::Optimizer& opt, py::handle d) {
             opt.load_state_dict(state_dict_from_py(d, std::string(opt.name()) + ".load_state_dict"));
           }, py::arg("state_dict"))
      .def_property_readonly("_num_param_groups", &optim::Optimizer::num_param_groups)
      .def("_group_params", [](const optim::Optimizer& opt, size_t g) {
             auto ps = opt.params(g);
             return Tensors(ps.begin(), ps.end());
           }, py::arg("group"))
      .def("_group_get", [](optim::Optimizer& opt, size_t g, const std::string& key) -> py::object {
             if (key == "initial_lr") {
               auto v = opt.initial_lr(g);
               return v ? py::object(py::float_(*v)) : py::object(py::none());
             }
             return with_options(opt, [&](auto& typed) { return get_option(typed.options(g), key); });
           }, py::arg("group"), py::arg("key"))
      .def("_group_set", [](optim::Optimizer& opt, size_t g, const std::string& key, py::handle value) {
             std::string who = opt.num_param_groups() == 1 ? std::string(opt.name())
                                                            : std::string(opt.name()) + " param group " + std::to_string(g);
             if (key == "initial_lr") {
               opt.set_initial_lr(g, value.is_none() ? std::nullopt
                                                     : std::optional<double>(py::float_(py::reinterpret_borrow<py::object>(value)).cast<double>()));
               return;
             }
             with_options(opt, [&](auto& typed) {
               // Set on a copy and kept only when in range, so a bad value leaves the group as it was.
               auto o = typed.options(g);
               set_option(o, key, value, who);
               o.check(who);
               typed.options(g) = o;
               return 0;
             });
           }, py::arg("group"), py::arg("key"), py::arg("value"));

  py::class_<optim::SGD, optim::Optimizer> sgd(o, "SGD", py::dynamic_attr(),
                                                 "Stochastic gradient descent with (Nesterov) momentum.");
  sgd.def(py::init([](py::handle params, double lr, double momentum, double dampening, double weight_decay,
                      bool nesterov, bool maximize) {
            optim::SGDOptions d{.lr = lr, .momentum = momentum, .dampening = dampening, .weight_decay = weight_decay,
                                .nesterov = nesterov, .maximize = maximize};
            d.check("SGD");
            return new optim::SGD(to_groups(params, d, "SGD"), d);
          }),
          py::arg("params"), py::arg("lr") = 1e-3, py::arg("momentum") = 0.0, py::arg("dampening") = 0.0,
          py::arg("weight_decay") = 0.0, py::arg("nesterov") = false, py::kw_only(), py::arg("maximize") = false);
  bind_group_methods(sgd);

  py::class_<optim::Adam, optim::Optimizer> adam(o, "Adam", py::dynamic_attr(),
                                                   "Adam (Kingma & Ba), weight decay as an L2 penalty.");
  bind_adam_init<optim::Adam>(adam, "Adam", 0.0);
  bind_group_methods(adam);

  py::class_<optim::AdamW, optim::Adam> adamw(o, "AdamW", py::dynamic_attr(),
                                                "Adam with decoupled weight decay (Loshchilov & Hutter).");
  bind_adam_init<optim::AdamW>(adamw, "AdamW", 1e-2);

  py::class_<optim::LBFGS, optim::Optimizer> lbfgs(o, "LBFGS", py::dynamic_attr(),
                                                     "L-BFGS with an optional strong-Wolfe line search; one parameter group.");
  lbfgs.def(py::init([](py::handle params, double lr, int64_t max_iter, std::optional<int64_t> max_eval,
                        double tolerance_grad, double tolerance_change, int64_t history_size,
                        std::optional<std::string> line_search_fn, bool maximize) {
              optim::LineSearch ls = optim::LineSearch::None;
              if (line_search_fn) {
                if (*line_search_fn != "strong_wolfe")
                  throw py::value_error("LBFGS: line_search_fn must be None or 'strong_wolfe', got '" +
                                        *line_search_fn + "'");
                ls = optim::LineSearch::StrongWolfe;
              }
              optim::LBFGSOptions d{.lr = lr, .max_iter = max_iter, .max_eval = max_eval,
                                    .tolerance_grad = tolerance_grad, .tolerance_change = tolerance_change,
                                    .history_size = history_size, .line_search = ls, .maximize = maximize};
              if (!d.max_eval) d.max_eval = max_iter * 5 / 4;  // fixed now, as PyTorch's
              d.check("LBFGS");
              return new optim::LBFGS(to_groups(params, d, "LBFGS"), d);
            }),
            py::arg("params"), py::arg("lr") = 1.0, py::arg("max_iter") = 20, py::arg("max_eval") = py::none(),
            py::arg("tolerance_grad") = 1e-7, py::arg("tolerance_change") = 1e-9, py::arg("history_size") = 100,
            py::arg("line_search_fn") = py::none(), py::kw_only(), py::arg("maximize") = false)
      .def_property_readonly("iterations", &optim::LBFGS::iterations, "Iterations over all steps so far.")
      .def_property_readonly("function_evaluations", &optim::LBFGS::function_evaluations,
                             "Closure calls over all steps so far.");
  bind_group_methods(lbfgs);

  py::class_<optim::RMSprop, optim::Optimizer> rmsprop(o, "RMSprop", py::dynamic_attr(),
                                                         "RMSprop, optionally centered and with momentum.");
  rmsprop.def(py::init([](py::handle params, double lr, double alpha, double eps, double weight_decay,
                          double momentum, bool centered, bool maximize) {
                optim::RMSpropOptions d{.lr = lr, .alpha = alpha, .eps = eps, .weight_decay = weight_decay,
                                        .momentum = momentum, .centered = centered, .maximize = maximize};
                d.check("RMSprop");
                return new optim::RMSprop(to_groups(params, d, "RMSprop"), d);
              }),
              py::arg("params"), py::arg("lr") = 1e-2, py::arg("alpha") = 0.99, py::arg("eps") = 1e-8,
              py::arg("weight_decay") = 0.0, py::arg("momentum") = 0.0, py::arg("centered") = false, py::kw_only(),
              py::arg("maximize") = false);
  bind_group_methods(rmsprop);

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
