// spire._C._nn: Module, Sequential and ModuleList (engine/nn/module.h, containers.h) for Python.
//
// A Python class may subclass Module: PyModule (the trampoline) routes the engine's forward to the
// Python `forward`, and its name and extra_repr to the Python class. Attribute assignment registers
// what PyTorch registers: a leaf tensor that requires grad becomes a parameter, a Module a child;
// buffers are registered explicitly. Attribute reads fall back to those registries.
//
// Lifetime: a module handed to the engine (as a child, or to a container) is held through a
// shared_ptr that also owns a reference to its Python object, so a Python subclass stays alive (and
// its `forward` callable) for as long as any engine-side parent holds it.
//
// Calling a module (__call__) runs its hooks around forward. Hooks live in the engine module
// (Module::register_*_hook), so the engine's own calls (Sequential calling a child) run them too; a
// hook registered from Python keeps its Python callable next to the engine wrapper, and this file's
// __call__ calls that directly, with whatever Python objects forward takes and returns.
//
// Parameter is a Python subclass of Tensor over the same engine Tensor (a handle to the same
// tensor), so isinstance(p, Parameter) holds for what modules hand out (attribute reads,
// parameters(), named_parameters()) and for what Parameter(...) makes, and not for other tensors.
//
// Layers (bind_nn_layers) derive from Module with std::shared_ptr holders:
//   py::class_<nn::Linear, nn::Module, std::shared_ptr<nn::Linear>>(nn_module, "Linear")
#include "common.h"
#include "engine/nn/checkpoint.h"  // bind_checkpoint
#include "engine/nn/containers.h"
#include "engine/nn/module.h"

namespace spire::python {
namespace {

using nn::Module;
using nn::ModulePtr;

// torch.nn.Parameter: the engine Tensor of a parameter, as a distinct Python type deriving from
// Tensor. It is a handle like Tensor: a registered parameter handed out twice is two Python objects
// over one tensor, which optimizers and load_state_dict update in place (set_data).
struct Parameter : Tensor {
  explicit Parameter(const Tensor& t) : Tensor(t) {}
};

py::object parameter_or_none(const Tensor& t) { return t.defined() ? py::cast(Parameter(t)) : py::none(); }
bool is_parameter(py::handle h) { return py::isinstance<Parameter>(h); }


// The outputs of a Python forward as engine tensors: a tensor, or a tuple/list of tensors.
Tensors to_tensors(const py::object& r, const std::string& who) {
  if (const Tensor* t = tensor_ptr(r)) return {*t};
  if (py::isinstance<py::tuple>(r) || py::isinstance<py::list>(r)) {
    Tensors out;
    for (auto item : r) {
      const Tensor* t = tensor_ptr(item);
      if (!t)
        throw py::type_error(who + ".forward returned a sequence holding " + type_name(item) +
                             "; the engine can only pass tensors between modules");
      out.push_back(*t);
    }
    return out;
  }
  throw py::type_error(who + ".forward must return a tensor or a tuple of tensors to be called from the engine "
                       "(inside Sequential), got " + type_name(r));
}

// The trampoline for Python subclasses.
class PyModule : public Module {
 public:
  using Module::Module;
  using Module::forward;

  Tensors forward(const Tensors& inputs) override {
    {
      py::gil_scoped_acquire gil;
      py::function f = py::get_override(static_cast<const Module*>(this), "forward");
      if (f) {
        py::tuple args(inputs.size());
        for (size_t i = 0; i < inputs.size(); ++i) args[i] = py::cast(inputs[i]);
        return to_tensors(f(*args), type_name());
      }
    }
    return Module::forward(inputs);
  }

  std::string type_name() const override {
    py::gil_scoped_acquire gil;
    py::handle self = py::detail::get_object_handle(static_cast<const Module*>(this),
                                                    py::detail::get_type_info(typeid(Module)));
    if (self) return python::type_name(self);
    return Module::type_name();
  }

  std::string extra_repr() const override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const Module*>(this), "extra_repr");
    if (f) return py::str(f());
    return Module::extra_repr();
  }
};

// A shared_ptr to the module that also keeps its Python object alive (see the file comment).
ModulePtr hold_module(py::handle obj) {
  auto sp = obj.cast<ModulePtr>();
  if (!sp) throw py::value_error("the module is None");
  auto* ref = new py::object(py::reinterpret_borrow<py::object>(obj));
  std::shared_ptr<void> keep(ref, [](py::object* o) {
    if (!Py_IsInitialized()) return;  // at interpreter exit: leave it to the OS
    py::gil_scoped_acquire gil;
    delete o;
  });
  // Aliasing: points at the module, owns the Python reference (which owns the holder).
  return ModulePtr(keep, sp.get());
}

bool is_module(py::handle h) { return py::isinstance<Module>(h); }

// Whether Module.__init__ has run for self (before it, the instance holds no engine object).
bool constructed(py::handle self) {
  if (!py::isinstance<Module>(self)) return false;
  auto* inst = reinterpret_cast<py::detail::instance*>(self.ptr());
  // The instance's first (and, for modules, only) C++ value: Module or the layer deriving from it.
  return inst->get_value_and_holder(nullptr, false).holder_constructed();
}

// The module inside self, or a clear error when Module.__init__ has not run yet.
Module* module_of(py::handle self, const std::string& what) {
  Module* m = constructed(self) ? self.cast<Module*>() : nullptr;
  if (!m)
    throw py::attribute_error("cannot " + what + " before Module.__init__() call (call super().__init__() first in " +
                              type_name(self) + ".__init__)");
  return m;
}

bool is_python_subclass(const Module* m) { return dynamic_cast<const PyModule*>(m) != nullptr; }
// A layer written in C++ (not Module itself, not a Python subclass of it): it keeps its own handles.
bool is_engine_layer(const Module* m) { return !is_python_subclass(m) && typeid(*m) != typeid(Module); }

void drop_from_dict(py::handle self, const std::string& name) {
  if (py::hasattr(self, "__dict__")) {
    py::dict d = self.attr("__dict__");
    if (d.contains(name)) PyDict_DelItemString(d.ptr(), name.c_str());
  }
}

py::object tensor_or_none(const Tensor& t) { return t.defined() ? py::cast(t) : py::none(); }
py::object module_or_none(const ModulePtr& m) { return m ? py::cast(m) : py::none(); }

// For a C++ layer, a parameter or buffer is rebound in place: the layer's own handle to it must see
// the new values. A Python module reads its tensors through the registry, so it may take the new
// tensor itself, as in PyTorch. A Parameter keeps its requires_grad (a frozen one stays frozen).
void assign_tensor(Module* m, const std::string& name, const Tensor& value, bool param, bool is_param_object) {
  Tensor old = param ? m->parameter(name) : m->buffer(name);
  if (is_engine_layer(m) && old.defined()) {
    if (param && !value.requires_grad() && !is_param_object)
      throw py::type_error("cannot assign a tensor that does not require grad as parameter '" + name +
                           "' (use spire.nn.Parameter)");
    old.set_data(value.detach());
    if (param) old.set_requires_grad(value.requires_grad());
    return;
  }
  if (param) {
    bool requires_grad = value.requires_grad();
    Tensor p = m->register_parameter(name, value);
    if (is_param_object && !requires_grad) p.set_requires_grad(false);
  } else {
    m->register_buffer(name, value, m->buffer_is_persistent(name));
  }
}

void module_setattr(py::handle self, const std::string& name, py::object value) {
  Module* m = module_of(self, "assign attribute '" + name + "'");
  if (const Tensor* t = tensor_ptr(value)) {
    // A Parameter always becomes a parameter (as torch); a plain leaf tensor that requires grad
    // does too, unless the name is a buffer's.
    bool param_object = is_parameter(value);
    if (m->has_buffer(name) && !param_object) return assign_tensor(m, name, *t, false, false);
    if (param_object || (t->is_leaf() && t->requires_grad())) {
      drop_from_dict(self, name);
      if (m->has_child(name) || m->has_buffer(name)) m->unregister(name);
      return assign_tensor(m, name, *t, true, param_object);
    }
    if (m->has_parameter(name))
      throw py::type_error("cannot assign a tensor that is not a leaf requiring grad as parameter '" + name +
                           "' of " + m->type_name() + " (wrap it in spire.nn.Parameter(...), or assign None)");
  } else if (is_module(value)) {
    drop_from_dict(self, name);
    if (m->has_parameter(name) || m->has_buffer(name)) m->unregister(name);
    m->register_module(name, hold_module(value));
    return;
  } else if (value.is_none() && (m->has_parameter(name) || m->has_buffer(name) || m->has_child(name))) {
    if (m->has_parameter(name)) m->register_parameter(name, Tensor());
    else if (m->has_buffer(name)) m->register_buffer(name, Tensor(), m->buffer_is_persistent(name));
    else m->register_module<Module>(name, nullptr);
    return;
  } else if (m->has_parameter(name) || m->has_child(name) || m->has_buffer(name)) {
    const char* kind = m->has_parameter(name) ? "parameter" : m->has_buffer(name) ? "buffer" : "child module";
    throw py::type_error("cannot assign " + type_name(value) + " as " + kind + " '" + name + "' of " +
                         m->type_name() + " (a tensor, a Module or None is expected)");
  }
  py::module_::import("builtins").attr("object").attr("__setattr__")(self, name, value);
}

py::object module_getattr(py::handle self, const std::string& name) {
  Module* m = constructed(self) ? self.cast<Module*>() : nullptr;
  if (m) {
    if (m->has_parameter(name)) return parameter_or_none(m->parameter(name));
    if (m->has_buffer(name)) return tensor_or_none(m->buffer(name));
    if (m->has_child(name)) return module_or_none(m->child(name));
  }
  throw py::attribute_error("'" + type_name(self) + "' object has no attribute '" + name + "'");
}

void module_delattr(py::handle self, const std::string& name) {
  Module* m = module_of(self, "delete attribute '" + name + "'");
  if (m->unregister(name)) return;
  py::module_::import("builtins").attr("object").attr("__delattr__")(self, name);
}

template <class Pairs, class F>
py::iterator iter_named(const Pairs& pairs, F value) {
  py::list out;
  for (auto& [k, v] : pairs) out.append(py::make_tuple(k, value(v)));
  return py::iter(out);
}
template <class Items, class F>
py::iterator iter_values(const Items& items, F value) {
  py::list out;
  for (auto& v : items) out.append(value(v));
  return py::iter(out);
}

nn::StateDict to_state_dict(py::handle state) {
  if (!py::hasattr(state, "items"))
    throw py::type_error("load_state_dict: expected a mapping of names to tensors (a dict), got " +
                         type_name(state));
  nn::StateDict sd;
  for (auto item : state.attr("items")()) {
    auto kv = item.cast<py::tuple>();
    if (!py::isinstance<py::str>(kv[0]))
      throw py::type_error("load_state_dict: keys must be strings, got " + type_name(kv[0]));
    sd.insert(kv[0].cast<std::string>(), to_tensor(kv[1]));
  }
  return sd;
}

py::object incompatible_keys_type() {
  static py::object* type = new py::object(py::module_::import("collections")
                                               .attr("namedtuple")("IncompatibleKeys",
                                                                   py::make_tuple("missing_keys", "unexpected_keys")));
  return *type;
}

// dtype-like or device-like, as Tensor.to.
void module_to(Module& m, py::handle what) {
  bool is_device = py::isinstance<Device>(what);
  if (!is_device && py::isinstance<py::str>(what)) {
    std::string s = what.cast<std::string>();
    is_device = s == "cpu" || s.rfind("cuda", 0) == 0;
  }
  if (is_device) m.to(py::isinstance<Device>(what) ? what.cast<Device>() : Device::parse(what.cast<std::string>()));
  else m.to(to_dtype(what));
}

py::object call_forward(Module& m, py::args args) {
  Tensors xs;
  for (auto a : args) xs.push_back(to_tensor(a));
  if (xs.size() == 1) return py::cast(m.forward(xs[0]));
  Tensors out = m.forward(xs);
  if (out.size() == 1) return py::cast(out[0]);
  py::tuple t(out.size());
  for (size_t i = 0; i < out.size(); ++i) t[i] = py::cast(out[i]);
  return std::move(t);
}

// ---- Hooks

py::tuple tuple_of(const Tensors& xs) {
  py::tuple t(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) t[i] = tensor_or_none(xs[i]);
  return t;
}

// A hook's tensors (None is an undefined tensor, e.g. a gradient a backward hook leaves out).
Tensors hook_tensors(const py::object& r, const std::string& what) {
  if (const Tensor* t = tensor_ptr(r)) return {*t};
  if (py::isinstance<py::tuple>(r) || py::isinstance<py::list>(r)) {
    Tensors out;
    for (auto item : r) {
      if (item.is_none()) {
        out.emplace_back();
        continue;
      }
      const Tensor* t = tensor_ptr(item);
      if (!t) throw py::type_error(what + " holds " + type_name(item) + " where a tensor or None is expected");
      out.push_back(*t);
    }
    return out;
  }
  throw py::type_error(what + " must be a tensor or a tuple of tensors, got " + type_name(r));
}

// The Python object of a module the engine hands to a hook (its existing wrapper when it has one).
py::object module_object(Module& m) { return py::cast(&m, py::return_value_policy::reference); }

std::shared_ptr<py::object> hook_callable(py::object hook, const char* who) {
  if (!PyCallable_Check(hook.ptr())) throw py::type_error(std::string(who) + ": the hook must be callable, got " +
                                                          type_name(hook));
  return hold(std::move(hook));
}

// Engine-side wrappers of Python hooks, for calls the engine makes (Sequential's children).
nn::ForwardPreHook engine_pre_hook(std::shared_ptr<py::object> f) {
  return [f](Module& m, const Tensors& in) -> std::optional<Tensors> {
    py::gil_scoped_acquire gil;
    py::object r = (*f)(module_object(m), tuple_of(in));
    if (r.is_none()) return std::nullopt;
    return hook_tensors(r, "the value returned by a forward pre-hook of " + m.type_name());
  };
}
nn::ForwardHook engine_forward_hook(std::shared_ptr<py::object> f) {
  return [f](Module& m, const Tensors& in, const Tensors& out) -> std::optional<Tensors> {
    py::gil_scoped_acquire gil;
    py::object o = out.size() == 1 ? tensor_or_none(out[0]) : py::object(tuple_of(out));
    py::object r = (*f)(module_object(m), tuple_of(in), o);
    if (r.is_none()) return std::nullopt;
    return hook_tensors(r, "the value returned by a forward hook of " + m.type_name());
  };
}
nn::BackwardHook engine_backward_hook(std::shared_ptr<py::object> f) {
  return [f](Module& m, const Tensors& gi, const Tensors& go) -> std::optional<Tensors> {
    py::gil_scoped_acquire gil;
    py::object r = (*f)(module_object(m), tuple_of(gi), tuple_of(go));
    if (r.is_none()) return std::nullopt;
    if (const Tensor* t = tensor_ptr(r)) return Tensors{*t};
    return hook_tensors(r, "the value returned by a full backward hook of " + m.type_name());
  };
}

// Positions of the tensors among call arguments (or outputs), and the tensors.
std::pair<std::vector<size_t>, Tensors> tensors_in(const py::sequence& items) {
  std::pair<std::vector<size_t>, Tensors> out;
  for (size_t i = 0; i < items.size(); ++i)
    if (const Tensor* t = tensor_ptr(items[i])) {
      out.first.push_back(i);
      out.second.push_back(*t);
    }
  return out;
}

// Every argument as a tensor, for an engine (C++) hook called from Python.
Tensors all_tensors(const py::tuple& args, Module& m) {
  auto [pos, ts] = tensors_in(args);
  if (pos.size() != args.size())
    throw py::type_error(m.type_name() + ": a hook registered from C++ needs tensor arguments only");
  return ts;
}
Tensors output_tensors(const py::object& out, Module& m) {
  return hook_tensors(out, m.type_name() + ": for a hook registered from C++, the output");
}
py::object output_object(const Tensors& xs) {
  return xs.size() == 1 ? tensor_or_none(xs[0]) : py::object(tuple_of(xs));
}

// Module.__call__: forward with the hooks around it, in torch's order: pre-hooks (each may replace
// the arguments; a non-tuple is one argument), the backward hooks' input record, forward, forward
// hooks (each may replace the output), the backward hooks' output record.
py::object module_call(py::handle self, py::args args, py::kwargs kwargs) {
  Module* m = module_of(self, "call the module");
  if (!m->has_hooks()) return self.attr("forward")(*args, **kwargs);
  const nn::ModuleHooks h = m->hooks();
  py::tuple a = args;
  for (auto& e : h.forward_pre) {
    py::object r;
    if (e.binding) {
      r = (*static_cast<py::object*>(e.binding.get()))(self, a);
    } else if (auto res = e.fn(*m, all_tensors(a, *m))) {
      r = tuple_of(*res);
    }
    if (!r.is_none()) a = py::isinstance<py::tuple>(r) ? py::tuple(r) : py::make_tuple(r);
  }
  nn::BackwardHookCall bw(*m);
  if (bw.active()) {
    auto [pos, ts] = tensors_in(a);
    Tensors wrapped = bw.wrap_inputs(ts);
    py::list items(a);
    for (size_t k = 0; k < pos.size(); ++k) items[pos[k]] = py::cast(wrapped[k]);
    a = py::tuple(items);
  }
  py::object out = self.attr("forward")(*a, **kwargs);
  for (auto& e : h.forward) {
    py::object r;
    if (e.binding) {
      r = (*static_cast<py::object*>(e.binding.get()))(self, a, out);
    } else if (auto res = e.fn(*m, all_tensors(a, *m), output_tensors(out, *m))) {
      r = output_object(*res);
    }
    if (!r.is_none()) out = r;
  }
  if (bw.active()) {
    if (tensor_ptr(out)) {
      out = py::cast(bw.wrap_outputs({*tensor_ptr(out)})[0]);
    } else if (py::isinstance<py::tuple>(out) || py::isinstance<py::list>(out)) {
      py::list items(out);
      auto [pos, ts] = tensors_in(items);
      Tensors wrapped = bw.wrap_outputs(ts);
      for (size_t k = 0; k < pos.size(); ++k) items[pos[k]] = py::cast(wrapped[k]);
      out = py::isinstance<py::tuple>(out) ? py::object(py::tuple(items)) : py::object(items);
    }
  }
  return out;
}

std::vector<ModulePtr> hold_all(py::handle modules) {
  std::vector<ModulePtr> out;
  for (auto m : modules) {
    if (!is_module(m))
      throw py::type_error("expected spire.nn.Module instances, got " + type_name(m));
    out.push_back(hold_module(m));
  }
  return out;
}

}  // namespace

void bind_checkpoint(py::module_& nnm);  // checkpoints, at the end of this file

void bind_nn(py::module_& m) {
  py::module_ nnm = m.def_submodule("_nn", "Neural-network modules (use spire.nn).");
  bind_checkpoint(nnm);

  py::class_<Parameter, Tensor>(nnm, "Parameter",
      "A tensor that is a module parameter (torch.nn.Parameter): a leaf sharing data's memory, requiring grad "
      "unless requires_grad=False. Assigned to a Module attribute it becomes a parameter; parameters read back "
      "from a module are Parameter instances.")
      .def(py::init([](py::object data, bool requires_grad) {
        // Shares memory with data, without its history; no data is an empty float32 tensor.
        Tensor t = data.is_none() ? empty({0}, DType::Float32) : to_tensor(data).detach();
        t.set_requires_grad(requires_grad);
        return Parameter(t);
      }), py::arg("data") = py::none(), py::arg("requires_grad") = true);

  py::class_<nn::HookHandle>(nnm, "RemovableHandle",
      "What register_*_hook returns (torch.utils.hooks.RemovableHandle): remove() unregisters the hook; "
      "usable as a context manager.")
      .def("remove", &nn::HookHandle::remove)
      .def_property_readonly("id", &nn::HookHandle::id)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](nn::HookHandle& h, py::args) { h.remove(); });

  py::class_<Module, PyModule, std::shared_ptr<Module>> mod(nnm, "Module", py::dynamic_attr(),
      "Base of all neural-network modules (torch.nn.Module). Subclass it, assign parameters "
      "(spire.nn.Parameter) and submodules as attributes in __init__ after super().__init__(), and "
      "define forward.");
  mod.def(py::init<>())
      .def("__setattr__", &module_setattr)
      .def("__getattr__", &module_getattr)
      .def("__delattr__", &module_delattr)
      .def("__dir__", [](py::handle self) {
        py::list out = py::module_::import("builtins").attr("object").attr("__dir__")(self);
        Module* md = constructed(self) ? self.cast<Module*>() : nullptr;
        if (md) {
          for (auto& [k, v] : md->own_parameters()) out.append(k);
          for (auto& [k, v] : md->own_buffers()) out.append(k);
          for (auto& [k, v] : md->own_children()) out.append(k);
        }
        return out;
      })
      .def("forward", &call_forward, "Runs the module on tensors (subclasses define it).")
      .def("__call__", &module_call, "Runs forward with the module's hooks around it.")
      .def("register_forward_pre_hook", [](py::handle self, py::object hook, bool prepend) {
        auto f = hook_callable(hook, "register_forward_pre_hook");
        return module_of(self, "register a hook")->register_forward_pre_hook(engine_pre_hook(f), prepend, f);
      }, py::arg("hook"), py::kw_only(), py::arg("prepend") = false,
      "hook(module, args) runs before forward and may return replacement args (a tuple, or one value).")
      .def("register_forward_hook", [](py::handle self, py::object hook, bool prepend) {
        auto f = hook_callable(hook, "register_forward_hook");
        return module_of(self, "register a hook")->register_forward_hook(engine_forward_hook(f), prepend, f);
      }, py::arg("hook"), py::kw_only(), py::arg("prepend") = false,
      "hook(module, args, output) runs after forward and may return a replacement output.")
      .def("register_full_backward_hook", [](py::handle self, py::object hook, bool prepend) {
        auto f = hook_callable(hook, "register_full_backward_hook");
        return module_of(self, "register a hook")->register_full_backward_hook(engine_backward_hook(f), prepend, f);
      }, py::arg("hook"), py::arg("prepend") = false,
      "hook(module, grad_input, grad_output) runs when the gradients with respect to the module's inputs are "
      "computed (tuples, None for inputs that need none) and may return replacement grad_input.")
      .def("register_parameter", [](py::handle self, const std::string& name, py::object value) {
        Module* md = module_of(self, "register parameter '" + name + "'");
        const Tensor* t = tensor_ptr(value);
        if (!t && !value.is_none())
          throw py::type_error("register_parameter: expected a tensor or None, got " + type_name(value));
        drop_from_dict(self, name);
        bool frozen = t && is_parameter(value) && !t->requires_grad();
        Tensor p = md->register_parameter(name, t ? *t : Tensor());
        if (frozen) p.set_requires_grad(false);
      }, py::arg("name"), py::arg("param"))
      .def("register_buffer", [](py::handle self, const std::string& name, py::object value, bool persistent) {
        Module* md = module_of(self, "register buffer '" + name + "'");
        const Tensor* t = tensor_ptr(value);
        if (!t && !value.is_none())
          throw py::type_error("register_buffer: expected a tensor or None, got " + type_name(value));
        drop_from_dict(self, name);
        md->register_buffer(name, t ? *t : Tensor(), persistent);
      }, py::arg("name"), py::arg("tensor"), py::arg("persistent") = true)
      .def("register_module", [](py::handle self, const std::string& name, py::object value) {
        Module* md = module_of(self, "register module '" + name + "'");
        drop_from_dict(self, name);
        if (value.is_none()) md->register_module<Module>(name, nullptr);
        else if (is_module(value)) md->register_module(name, hold_module(value));
        else throw py::type_error("register_module: expected a Module or None, got " + type_name(value));
      }, py::arg("name"), py::arg("module"))
      .def("add_module", [](py::handle self, const std::string& name, py::object value) {
        self.attr("register_module")(name, value);
      }, py::arg("name"), py::arg("module"))
      .def("parameters", [](const Module& md, bool recurse) {
        return iter_values(md.parameters(recurse), [](const Tensor& t) { return py::cast(Parameter(t)); });
      }, py::arg("recurse") = true, "An iterator over the parameters (each once, in registration order).")
      .def("named_parameters", [](const Module& md, const std::string& prefix, bool recurse) {
        return iter_named(md.named_parameters(prefix, recurse), [](const Tensor& t) { return py::cast(Parameter(t)); });
      }, py::arg("prefix") = "", py::arg("recurse") = true, "An iterator over (dotted name, parameter).")
      .def("buffers", [](const Module& md, bool recurse) {
        return iter_values(md.buffers(recurse), [](const Tensor& t) { return py::cast(t); });
      }, py::arg("recurse") = true)
      .def("named_buffers", [](const Module& md, const std::string& prefix, bool recurse) {
        return iter_named(md.named_buffers(prefix, recurse), [](const Tensor& t) { return py::cast(t); });
      }, py::arg("prefix") = "", py::arg("recurse") = true)
      .def("children", [](const Module& md) {
        return iter_values(md.children(), [](const ModulePtr& c) { return py::cast(c); });
      })
      .def("named_children", [](const Module& md) {
        return iter_named(md.named_children(), [](const ModulePtr& c) { return py::cast(c); });
      })
      .def("modules", [](py::object self) {
        // Self first as the Python object itself (named_modules on the engine side cannot know it).
        py::list out;
        out.append(self);
        auto all = self.cast<Module&>().named_modules();
        for (size_t i = 1; i < all.size(); ++i) out.append(py::cast(all[i].second));
        return py::iter(out);
      })
      .def("named_modules", [](py::object self, const std::string& prefix) {
        py::list out;
        out.append(py::make_tuple(prefix, self));
        auto all = self.cast<Module&>().named_modules(prefix);
        for (size_t i = 1; i < all.size(); ++i) out.append(py::make_tuple(all[i].first, py::cast(all[i].second)));
        return py::iter(out);
      }, py::arg("prefix") = "")
      .def("get_submodule", [](py::object self, const std::string& target) {
        py::object cur = self;
        size_t start = 0;
        while (!target.empty() && start <= target.size()) {
          size_t dot = target.find('.', start);
          std::string part = target.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
          ModulePtr c = cur.cast<Module&>().child(part);
          if (!c)
            throw py::attribute_error(type_name(cur) + " has no submodule '" + part + "' (in '" + target + "')");
          cur = py::cast(c);
          if (dot == std::string::npos) break;
          start = dot + 1;
        }
        return cur;
      }, py::arg("target"))
      .def("apply", [](py::object self, py::function fn) {
        for (auto c : self.attr("children")()) c.attr("apply")(fn);
        fn(self);
        return self;
      }, py::arg("fn"), "Calls fn on every submodule (children first), then on self; returns self.")
      .def("state_dict", [](const Module& md) {
        py::object od = py::module_::import("collections").attr("OrderedDict")();
        for (auto& [k, v] : md.state_dict()) od[py::str(k)] = py::cast(v);
        return od;
      }, "An OrderedDict of the parameters and persistent buffers by dotted name (detached).")
      .def("load_state_dict", [](Module& md, py::handle state, bool strict) {
        nn::LoadResult r = md.load_state_dict(to_state_dict(state), strict);
        return incompatible_keys_type()(py::cast(r.missing_keys), py::cast(r.unexpected_keys));
      }, py::arg("state_dict"), py::arg("strict") = true,
      "Copies values into the existing parameters and buffers after checking keys, shapes and dtypes; "
      "returns (missing_keys, unexpected_keys).")
      .def("train", [](py::object self, bool on) {
        self.cast<Module&>().train(on);
        return self;
      }, py::arg("mode") = true)
      .def("eval", [](py::object self) {
        self.cast<Module&>().eval();
        return self;
      })
      .def_property("training", &Module::is_training, &Module::set_training_flag)
      .def("requires_grad_", [](py::object self, bool on) {
        for (auto& p : self.cast<Module&>().parameters()) p.set_requires_grad(on);
        return self;
      }, py::arg("requires_grad") = true)
      .def("zero_grad", &Module::zero_grad, py::arg("set_to_none") = true)
      .def("to", [](py::object self, py::handle what) {
        module_to(self.cast<Module&>(), what);
        return self;
      }, py::arg("dtype_or_device"), "Converts parameters and buffers in place (floating ones for a dtype).")
      .def("double", [](py::object self) { self.cast<Module&>().to(DType::Float64); return self; })
      .def("float", [](py::object self) { self.cast<Module&>().to(DType::Float32); return self; })
      .def("cpu", [](py::object self) { self.cast<Module&>().to(kCPU); return self; })
      .def("cuda", [](py::object self) { self.cast<Module&>().to(Device::parse("cuda")); return self; })
      // A C++ layer's own options; a Python subclass overrides this method itself (the trampoline
      // reads that override), so for it the base answer is "".
      .def("extra_repr", [](const Module& md) {
        return is_python_subclass(&md) ? md.Module::extra_repr() : md.extra_repr();
      })
      .def("__repr__", [](const Module& md) { return md.repr(); });

  py::class_<nn::Sequential, Module, std::shared_ptr<nn::Sequential>>(nnm, "Sequential", py::dynamic_attr(),
      "Calls its modules in order, each on the previous one's output (torch.nn.Sequential). Takes modules, or "
      "one dict of name -> module.")
      .def(py::init([](py::args args) {
        auto s = std::make_shared<nn::Sequential>();
        if (args.size() == 1 && py::hasattr(args[0], "items") && !is_module(args[0])) {
          for (auto item : args[0].attr("items")()) {
            auto kv = item.cast<py::tuple>();
            if (!is_module(kv[1]))
              throw py::type_error("Sequential: expected modules, got " + type_name(kv[1]));
            s->register_module(kv[0].cast<std::string>(), hold_module(kv[1]));
          }
          return s;
        }
        for (auto& md : hold_all(args)) s->append(md);
        return s;
      }))
      .def("append", [](py::object self, py::handle md) {
        self.cast<nn::Sequential&>().append(hold_all(py::make_tuple(md))[0]);
        return self;
      }, py::arg("module"))
      .def("extend", [](py::object self, py::iterable mods) {
        for (auto& md : hold_all(mods)) self.cast<nn::Sequential&>().append(md);
        return self;
      }, py::arg("modules"))
      .def("__len__", &nn::Sequential::size)
      .def("__getitem__", [](const nn::Sequential& s, int64_t i) { return s.at(i); })
      .def("__getitem__", [](const nn::Sequential& s, py::slice sl) {
        size_t start, stop, step, len;
        if (!sl.compute(s.size(), &start, &stop, &step, &len)) throw py::error_already_set();
        auto out = std::make_shared<nn::Sequential>();
        for (size_t k = 0, i = start; k < len; ++k, i += step) out->append(s.at(int64_t(i)));
        return out;
      })
      .def("__iter__", [](const nn::Sequential& s) {
        py::list out;
        for (auto& [k, v] : s.own_children()) out.append(py::cast(v));
        return py::iter(out);
      });

  py::class_<nn::ModuleList, Module, std::shared_ptr<nn::ModuleList>>(nnm, "ModuleList", py::dynamic_attr(),
      "A list of modules whose parameters are registered (torch.nn.ModuleList).")
      .def(py::init([](py::object modules) {
        auto l = std::make_shared<nn::ModuleList>();
        if (!modules.is_none()) l->extend(hold_all(modules));
        return l;
      }), py::arg("modules") = py::none())
      .def("append", [](py::object self, py::handle md) {
        self.cast<nn::ModuleList&>().append(hold_all(py::make_tuple(md))[0]);
        return self;
      }, py::arg("module"))
      .def("extend", [](py::object self, py::iterable mods) {
        self.cast<nn::ModuleList&>().extend(hold_all(mods));
        return self;
      }, py::arg("modules"))
      .def("insert", [](nn::ModuleList& l, int64_t i, py::handle md) { l.insert(i, hold_all(py::make_tuple(md))[0]); },
           py::arg("index"), py::arg("module"))
      .def("__len__", &nn::ModuleList::size)
      .def("__getitem__", [](const nn::ModuleList& l, int64_t i) { return l.at(i); })
      .def("__getitem__", [](const nn::ModuleList& l, py::slice sl) {
        size_t start, stop, step, len;
        if (!sl.compute(l.size(), &start, &stop, &step, &len)) throw py::error_already_set();
        auto out = std::make_shared<nn::ModuleList>();
        for (size_t k = 0, i = start; k < len; ++k, i += step) out->append(l.at(int64_t(i)));
        return out;
      })
      .def("__setitem__", [](nn::ModuleList& l, int64_t i, py::handle md) { l.set(i, hold_all(py::make_tuple(md))[0]); })
      .def("__iter__", [](const nn::ModuleList& l) {
        py::list out;
        for (auto& v : l.items()) out.append(py::cast(v));
        return py::iter(out);
      });
}


// ===================================================================================================
// Checkpoints (engine/nn/checkpoint.h): the raw read and write of a checkpoint file, for
// python/spire/checkpoint.py, which gathers the state_dicts from (and restores them into) the live
// objects, so that Python subclasses of Module and of the optimizers work as well.
// ===================================================================================================
void bind_checkpoint(py::module_& nnm) {
  nnm.def("_write_checkpoint", [](const std::string& path, py::handle model, py::handle optimizer,
                                   py::handle scheduler, py::list rng, int64_t epoch, int64_t step,
                                   py::dict metadata, py::dict state) {
        nn::CheckpointData d;
        if (!model.is_none()) d.model = to_state_dict(model);
        if (!optimizer.is_none()) d.optimizer = state_dict_from_py(optimizer, "save_checkpoint: the optimizer state");
        if (!scheduler.is_none()) d.scheduler = state_dict_from_py(scheduler, "save_checkpoint: the scheduler state");
        for (auto item : rng) {
          auto t = item.cast<py::tuple>();
          d.rng.emplace_back(t[0].cast<std::string>(),
                             nn::GeneratorState{t[1].cast<uint64_t>(), t[2].cast<uint64_t>(), t[3].cast<uint64_t>()});
        }
        for (auto [name, sd] : state)
          d.state.emplace_back(name.cast<std::string>(),
                               state_dict_from_py(sd, "save_checkpoint: state '" + name.cast<std::string>() + "'"));
        d.epoch = epoch;
        d.step = step;
        for (auto [k, v] : metadata) {
          if (!py::isinstance<py::str>(k) || !py::isinstance<py::str>(v))
            throw py::type_error("save_checkpoint: metadata must map str to str, got " + type_name(k) + " -> " +
                                 type_name(v));
          d.metadata.emplace_back(k.cast<std::string>(), v.cast<std::string>());
        }
        py::gil_scoped_release release;
        nn::write_checkpoint(path, d);
      }, py::arg("path"), py::arg("model"), py::arg("optimizer"), py::arg("scheduler"), py::arg("rng"),
      py::arg("epoch"), py::arg("step"), py::arg("metadata"), py::arg("state"));
  nnm.def("_read_checkpoint", [](const std::string& path) {
        nn::CheckpointData d;
        {
          py::gil_scoped_release release;
          d = nn::read_checkpoint(path);
        }
        py::dict out;
        if (d.model) {
          py::object od = py::module_::import("collections").attr("OrderedDict")();
          for (auto& [k, v] : *d.model) od[py::str(k)] = py::cast(v);
          out["model"] = od;
        } else {
          out["model"] = py::none();
        }
        out["optimizer"] = d.optimizer ? py::object(state_dict_to_py(*d.optimizer)) : py::none();
        out["scheduler"] = d.scheduler ? py::object(state_dict_to_py(*d.scheduler)) : py::none();
        py::dict rng;
        for (auto& [name, st] : d.rng) rng[py::str(name)] = py::make_tuple(st.seed, st.stream, st.offset);
        out["rng"] = rng;
        out["epoch"] = d.epoch;
        out["step"] = d.step;
        py::dict meta;
        for (auto& [k, v] : d.metadata) meta[py::str(k)] = py::str(v);
        out["metadata"] = meta;
        py::dict state;
        for (auto& [name, sd] : d.state) state[py::str(name)] = state_dict_to_py(sd);
        out["state"] = state;
        return out;
      }, py::arg("path"));
  nnm.def("_set_generator_state", [](Generator& g, uint64_t seed, uint64_t stream, uint64_t offset) {
        g = Generator(seed, stream);
        g.set_offset(offset);
      }, py::arg("generator"), py::arg("seed"), py::arg("stream"), py::arg("offset"));
}

}  // namespace spire::python
