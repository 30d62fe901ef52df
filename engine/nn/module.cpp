#include "engine/nn/module.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "engine/autodiff/mode.h"
#include "engine/autodiff/node.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::nn {

// ---------------------------------------------------------------------------------------------
// StateDict

StateDict::StateDict(std::initializer_list<Item> items) {
  for (auto& [k, v] : items) insert(k, v);
}

void StateDict::insert(const std::string& name, const Tensor& value) {
  for (auto& [k, v] : items_)
    if (k == name) {
      v = value;
      return;
    }
  items_.emplace_back(name, value);
}

bool StateDict::contains(const std::string& name) const {
  return std::any_of(items_.begin(), items_.end(), [&](const Item& i) { return i.first == name; });
}

const Tensor& StateDict::at(const std::string& name) const {
  for (auto& [k, v] : items_)
    if (k == name) return v;
  std::string keys;
  for (auto& [k, v] : items_) keys += (keys.empty() ? "" : ", ") + k;
  throw ValueError("StateDict: no key '" + name + "'; the keys are: " + (keys.empty() ? "(none)" : keys));
}

bool StateDict::erase(const std::string& name) {
  auto it = std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.first == name; });
  if (it == items_.end()) return false;
  items_.erase(it);
  return true;
}

std::vector<std::string> StateDict::keys() const {
  std::vector<std::string> out;
  for (auto& [k, v] : items_) out.push_back(k);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Registration

namespace {

enum Kind { kParam = 0, kBuffer = 1, kChild = 2 };
const char* kind_name(int k) { return k == kParam ? "parameter" : k == kBuffer ? "buffer" : "submodule"; }

template <class V>
auto find_name(V& v, const std::string& name) {
  return std::find_if(v.begin(), v.end(), [&](const auto& p) { return p.first == name; });
}

std::string join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string s;
  for (auto& n : names) s += (s.empty() ? "\"" : ", \"") + n + "\"";
  return s;
}

}  // namespace

Module::Module(std::string type_name) : type_name_(std::move(type_name)) {}

void Module::check_new_name(const std::string& name, const char* kind, int own_kind) const {
  SPIRE_CHECK(!name.empty(), ValueError, type_name(), ".register_", kind, ": the name must not be empty");
  SPIRE_CHECK(name.find('.') == std::string::npos, ValueError, type_name(), ".register_", kind, ": name '", name,
              "' must not contain '.' (dots separate the levels of state_dict keys)");
  int existing = has_parameter(name) ? kParam : has_buffer(name) ? kBuffer : has_child(name) ? kChild : -1;
  SPIRE_CHECK(existing < 0 || existing == own_kind, ValueError, type_name(), ".register_", kind, ": '", name,
              "' is already a ", kind_name(existing), " of this module");
}

Tensor Module::register_parameter(const std::string& name, Tensor value) {
  check_new_name(name, "parameter", kParam);
  if (value.defined()) {
    SPIRE_CHECK(is_inexact(value.dtype()), DTypeError, type_name(), ".register_parameter('", name,
                "'): parameters must be floating-point or complex, got ", spire::name(value.dtype()));
    if (!value.is_leaf()) value = value.detach();  // a parameter starts a history, never continues one
    value.set_requires_grad(true);
  }
  auto it = find_name(params_, name);
  if (it != params_.end()) it->second = value;
  else params_.emplace_back(name, value);
  return value;
}

Tensor Module::register_buffer(const std::string& name, Tensor value, bool persistent) {
  check_new_name(name, "buffer", kBuffer);
  auto it = find_name(buffers_, name);
  if (it != buffers_.end()) {
    it->second = value;
    buffer_persistent_[size_t(it - buffers_.begin())] = persistent;
  } else {
    buffers_.emplace_back(name, value);
    buffer_persistent_.push_back(persistent);
  }
  return value;
}

void Module::register_module_impl(const std::string& name, std::shared_ptr<Module> module) {
  check_new_name(name, "module", kChild);
  SPIRE_CHECK(module.get() != this, ValueError, type_name(), ".register_module('", name,
              "'): a module cannot be its own child");
  auto it = find_name(children_, name);
  if (it != children_.end()) it->second = std::move(module);
  else children_.emplace_back(name, std::move(module));
}

bool Module::unregister(const std::string& name) {
  if (auto it = find_name(params_, name); it != params_.end()) {
    params_.erase(it);
    return true;
  }
  if (auto it = find_name(buffers_, name); it != buffers_.end()) {
    buffer_persistent_.erase(buffer_persistent_.begin() + (it - buffers_.begin()));
    buffers_.erase(it);
    return true;
  }
  if (auto it = find_name(children_, name); it != children_.end()) {
    children_.erase(it);
    return true;
  }
  return false;
}

bool Module::has_parameter(const std::string& name) const { return find_name(params_, name) != params_.end(); }
bool Module::has_buffer(const std::string& name) const { return find_name(buffers_, name) != buffers_.end(); }
bool Module::has_child(const std::string& name) const { return find_name(children_, name) != children_.end(); }

Tensor Module::parameter(const std::string& name) const {
  auto it = find_name(params_, name);
  return it == params_.end() ? Tensor() : it->second;
}
Tensor Module::buffer(const std::string& name) const {
  auto it = find_name(buffers_, name);
  return it == buffers_.end() ? Tensor() : it->second;
}
std::shared_ptr<Module> Module::child(const std::string& name) const {
  auto it = find_name(children_, name);
  return it == children_.end() ? nullptr : it->second;
}
bool Module::buffer_is_persistent(const std::string& name) const {
  auto it = find_name(buffers_, name);
  return it != buffers_.end() && buffer_persistent_[size_t(it - buffers_.begin())];
}

// ---------------------------------------------------------------------------------------------
// The tree

void Module::collect_tensors(bool params, const std::string& prefix, bool recurse, bool persistent_only,
                             std::vector<std::pair<std::string, Tensor>>& out,
                             std::vector<const TensorImpl*>& seen) const {
  const auto& own = params ? params_ : buffers_;
  for (size_t i = 0; i < own.size(); ++i) {
    const auto& [name, t] = own[i];
    if (!t.defined()) continue;
    if (!params && persistent_only && !buffer_persistent_[i]) continue;
    if (std::find(seen.begin(), seen.end(), t.impl()) != seen.end()) continue;
    seen.push_back(t.impl());
    out.emplace_back(join(prefix, name), t);
  }
  if (!recurse) return;
  for (const auto& [name, c] : children_)
    if (c) c->collect_tensors(params, join(prefix, name), true, persistent_only, out, seen);
}

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(const std::string& prefix, bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  std::vector<const TensorImpl*> seen;
  collect_tensors(true, prefix, recurse, false, out, seen);
  return out;
}

Tensors Module::parameters(bool recurse) const {
  Tensors out;
  for (auto& [n, t] : named_parameters("", recurse)) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(const std::string& prefix, bool recurse) const {
  std::vector<std::pair<std::string, Tensor>> out;
  std::vector<const TensorImpl*> seen;
  collect_tensors(false, prefix, recurse, false, out, seen);
  return out;
}

Tensors Module::buffers(bool recurse) const {
  Tensors out;
  for (auto& [n, t] : named_buffers("", recurse)) out.push_back(t);
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_children() const {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  for (const auto& [name, c] : children_) {
    if (!c) continue;
    bool dup = std::any_of(out.begin(), out.end(), [&](const auto& p) { return p.second == c; });
    if (!dup) out.emplace_back(name, c);
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& [n, c] : named_children()) out.push_back(c);
  return out;
}

void Module::collect_modules(const std::string& prefix,
                             std::vector<std::pair<std::string, std::shared_ptr<Module>>>& out,
                             std::vector<const Module*>& seen, const std::shared_ptr<Module>& self) {
  if (std::find(seen.begin(), seen.end(), this) != seen.end()) return;
  seen.push_back(this);
  out.emplace_back(prefix, self);
  for (const auto& [name, c] : children_)
    if (c) c->collect_modules(join(prefix, name), out, seen, c);
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_modules(const std::string& prefix) {
  // A module made on the stack (not held by a shared_ptr) lists itself through a non-owning pointer.
  std::shared_ptr<Module> self = weak_from_this().lock();
  if (!self) self = std::shared_ptr<Module>(this, [](Module*) {});
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  std::vector<const Module*> seen;
  collect_modules(prefix, out, seen, self);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& [n, m] : named_modules()) out.push_back(m);
  return out;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (auto& c : children()) c->apply(fn);
  fn(*this);
  return *this;
}

// ---------------------------------------------------------------------------------------------
// State

StateDict Module::state_dict() const {
  StateDict out;
  std::vector<std::pair<std::string, Tensor>> items;
  std::vector<const TensorImpl*> seen;
  // PyTorch's order: each module's parameters, then its buffers, then its children's, depth first.
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m, const std::string& prefix) {
    m.collect_tensors(true, prefix, false, true, items, seen);
    m.collect_tensors(false, prefix, false, true, items, seen);
    for (const auto& [name, c] : m.children_)
      if (c) walk(*c, join(prefix, name));
  };
  walk(*this, "");
  for (auto& [k, v] : items) out.insert(k, v.detach());
  return out;
}

LoadResult Module::load_state_dict(const StateDict& state, bool strict) {
  // Every tensor the dict should hold, with its name; shared tensors appear under their first name.
  std::vector<std::pair<std::string, Tensor>> targets;
  std::vector<const TensorImpl*> seen;
  std::function<void(const Module&, const std::string&)> walk = [&](const Module& m, const std::string& prefix) {
    m.collect_tensors(true, prefix, false, true, targets, seen);
    m.collect_tensors(false, prefix, false, true, targets, seen);
    for (const auto& [name, c] : m.children_)
      if (c) walk(*c, join(prefix, name));
  };
  walk(*this, "");

  LoadResult result;
  std::vector<std::string> mismatches;
  std::map<std::string, bool> known;
  for (auto& [name, t] : targets) {
    known[name] = true;
    if (!state.contains(name)) {
      result.missing_keys.push_back(name);
      continue;
    }
    const Tensor& v = state.at(name);
    if (!v.defined()) {
      mismatches.push_back("value for " + name + " is an undefined tensor");
    } else if (v.shape() != t.shape()) {
      mismatches.push_back("size mismatch for " + name + ": copying a tensor of shape " + shape_str(v.shape()) +
                           " from the state dict, the shape in the current model is " + shape_str(t.shape()));
    } else if (v.dtype() != t.dtype()) {
      mismatches.push_back("dtype mismatch for " + name + ": copying a tensor of dtype " + spire::name(v.dtype()) +
                           " from the state dict, the dtype in the current model is " + spire::name(t.dtype()));
    }
  }
  for (auto& [name, v] : state)
    if (!known.count(name)) result.unexpected_keys.push_back(name);

  bool key_error = strict && (!result.missing_keys.empty() || !result.unexpected_keys.empty());
  if (key_error || !mismatches.empty()) {
    std::string msg = "Error(s) in loading state_dict for " + type_name() + ":";
    if (strict && !result.missing_keys.empty())
      msg += "\n\tMissing key(s) in state_dict: " + quoted_list(result.missing_keys) + ".";
    if (strict && !result.unexpected_keys.empty())
      msg += "\n\tUnexpected key(s) in state_dict: " + quoted_list(result.unexpected_keys) + ".";
    for (auto& m : mismatches) msg += "\n\t" + m + ".";
    if (mismatches.empty()) throw ValueError(msg);
    throw ShapeError(msg);
  }

  // Nothing is written until everything checked out, so a failed load leaves the model untouched.
  NoGradGuard no_grad;
  for (auto& [name, t] : targets) {
    if (!state.contains(name)) continue;
    Tensor v = state.at(name).detach();
    if (v.device() != t.device()) v = spire::to(v, t.device());
    // An own copy: the module must not share memory with the dict it was loaded from.
    Tensor fresh = copy(v);
    t.set_data(fresh.detach());
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Modes, gradients, conversion

Module& Module::train(bool on) {
  training_ = on;
  on_train_changed(on);
  for (auto& c : children()) c->train(on);
  return *this;
}

void Module::zero_grad(bool set_to_none) {
  for (auto& p : parameters()) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none) p.set_grad(Tensor());
    else p.set_grad(zeros(g.shape(), g.dtype(), g.device()));
  }
}

namespace {

// Rebinds t to `value` (possibly another dtype or device) in place, keeping the Tensor object.
void rebind(const Tensor& t, const Tensor& value) {
  SPIRE_CHECK(t.is_leaf() && !t.is_batched(), ValueError,
              "Module.to: parameters and buffers must be leaves outside vmap to be converted");
  TensorImpl* impl = t.impl();
  impl->storage = value.impl()->storage;
  impl->shape = value.impl()->shape;
  impl->strides = value.impl()->strides;
  impl->offset = value.impl()->offset;
  impl->dtype = value.impl()->dtype;
  if (impl->autograd) impl->autograd->grad = nullptr;  // a gradient of the old dtype/device is stale
}

DType complex_of(DType real) { return real == DType::Float64 ? DType::Complex128 : DType::Complex64; }

}  // namespace

Module& Module::to(DType dtype) {
  SPIRE_CHECK(is_inexact(dtype), DTypeError, "Module.to: only floating-point or complex dtypes are allowed, got ",
              spire::name(dtype));
  NoGradGuard no_grad;
  auto convert = [&](const Tensor& t) {
    DType want = t.dtype();
    if (is_floating(t.dtype())) want = is_floating(dtype) ? dtype : t.dtype();
    else if (is_complex(t.dtype())) want = is_complex(dtype) ? dtype : complex_of(dtype);
    if (want != t.dtype()) rebind(t, cast(t.detach(), want));
  };
  for (auto& p : parameters()) convert(p);
  for (auto& b : buffers()) convert(b);
  return *this;
}

Module& Module::to(Device device) {
  NoGradGuard no_grad;
  for (auto& p : parameters())
    if (p.device() != device) rebind(p, spire::to(p.detach(), device));
  for (auto& b : buffers())
    if (b.device() != device) rebind(b, spire::to(b.detach(), device));
  return *this;
}

// ---------------------------------------------------------------------------------------------
// Forward

namespace {
// The module whose default forward is running on this thread: when the other default is then
// reached for the same module, neither form was overridden.
thread_local const Module* g_default_forward = nullptr;

struct DefaultForwardScope {
  const Module* prev;
  explicit DefaultForwardScope(const Module* m) : prev(g_default_forward) { g_default_forward = m; }
  ~DefaultForwardScope() { g_default_forward = prev; }
};
}  // namespace

Tensors Module::forward(const Tensors& inputs) {
  SPIRE_CHECK(g_default_forward != this, ValueError, type_name(),
              " defines no forward: override forward(const Tensor&) or forward(const Tensors&)");
  SPIRE_CHECK(inputs.size() == 1, ValueError, type_name(), ".forward takes one tensor, got ", inputs.size());
  DefaultForwardScope scope(this);
  return {forward(inputs[0])};
}

Tensor Module::forward(const Tensor& input) {
  SPIRE_CHECK(g_default_forward != this, ValueError, type_name(),
              " defines no forward: override forward(const Tensor&) or forward(const Tensors&)");
  Tensors out;
  {
    DefaultForwardScope scope(this);
    out = forward(Tensors{input});
  }
  SPIRE_CHECK(out.size() == 1, ValueError, type_name(), ".forward returned ", out.size(),
              " tensors where one was expected");
  return out[0];
}

// ---------------------------------------------------------------------------------------------
// Hooks

bool ModuleHooks::remove(uint64_t id) {
  auto drop = [id](auto& v) {
    auto it = std::find_if(v.begin(), v.end(), [id](const auto& e) { return e.id == id; });
    if (it == v.end()) return false;
    v.erase(it);
    return true;
  };
  return drop(forward_pre) || drop(forward) || drop(backward);
}

void HookHandle::remove() {
  if (auto h = hooks_.lock()) h->remove(id_);
}

ModuleHooks& Module::hook_registry() {
  if (!hooks_) hooks_ = std::make_shared<ModuleHooks>();
  return *hooks_;
}

namespace {
template <class F>
HookHandle add_hook(const std::shared_ptr<ModuleHooks>& registry, std::vector<HookEntry<F>>& list, F fn,
                    bool prepend, std::shared_ptr<void> binding, const std::string& who) {
  SPIRE_CHECK(fn != nullptr, ValueError, who, ": the hook must be callable (got an empty function)");
  HookEntry<F> e{registry->next_id++, std::move(fn), std::move(binding)};
  uint64_t id = e.id;
  if (prepend) list.insert(list.begin(), std::move(e));
  else list.push_back(std::move(e));
  return HookHandle(registry, id);
}
}  // namespace

HookHandle Module::register_forward_pre_hook(ForwardPreHook hook, bool prepend, std::shared_ptr<void> binding) {
  auto& r = hook_registry();
  return add_hook(hooks_, r.forward_pre, std::move(hook), prepend, std::move(binding),
                  type_name() + ".register_forward_pre_hook");
}

HookHandle Module::register_forward_hook(ForwardHook hook, bool prepend, std::shared_ptr<void> binding) {
  auto& r = hook_registry();
  return add_hook(hooks_, r.forward, std::move(hook), prepend, std::move(binding),
                  type_name() + ".register_forward_hook");
}

HookHandle Module::register_full_backward_hook(BackwardHook hook, bool prepend, std::shared_ptr<void> binding) {
  auto& r = hook_registry();
  return add_hook(hooks_, r.backward, std::move(hook), prepend, std::move(binding),
                  type_name() + ".register_full_backward_hook");
}

Tensors Module::call_with_hooks(Tensors inputs, bool single) {
  // A snapshot: hooks that remove themselves (or add others) take effect from the next call.
  const ModuleHooks h = *hooks_;
  for (auto& e : h.forward_pre)
    if (auto r = e.fn(*this, inputs)) inputs = std::move(*r);
  BackwardHookCall bw(*this);
  if (bw.active()) inputs = bw.wrap_inputs(inputs);
  Tensors out;
  if (single && inputs.size() == 1) {
    out = {forward(inputs[0])};
  } else {
    out = forward(inputs);
  }
  for (auto& e : h.forward)
    if (auto r = e.fn(*this, inputs, out)) out = std::move(*r);
  if (bw.active()) out = bw.wrap_outputs(out);
  SPIRE_CHECK(!single || out.size() == 1, ValueError, type_name(), ": called with one tensor, the module (after its ",
              "hooks) returned ", out.size(), " tensors");
  return out;
}

// ---------------------------------------------------------------------------------------------
// Full backward hooks: two identity records around the call. The outputs' record runs first in
// the reverse pass (it was made last) and keeps the output gradients; the inputs' record then
// calls the hooks with the input gradients and passes on what they return.

struct BackwardHookCall::State {
  std::vector<HookEntry<BackwardHook>> hooks;
  // The module, held weakly when it is owned by a shared_ptr (a graph may outlive it); a module
  // made on the stack is referred to directly.
  std::weak_ptr<Module> owner;
  Module* raw = nullptr;
  size_t n_inputs = 0;
  std::vector<size_t> wrapped;  // positions of the inputs that got a record
  bool inputs_wrapped = false;
  Tensors grad_outputs;

  Tensors run(Tensors grad_input) {
    std::shared_ptr<Module> keep;
    Module* m = raw;
    if (!m) {
      keep = owner.lock();
      m = keep.get();
    }
    if (!m) return grad_input;  // the module is gone: its hooks with it
    for (auto& e : hooks) {
      auto r = e.fn(*m, grad_input, grad_outputs);
      if (!r) continue;
      SPIRE_CHECK(r->size() == grad_input.size(), ValueError, m->type_name(),
                  ": a full backward hook returned ", r->size(), " gradients for ", grad_input.size(), " inputs");
      for (size_t i = 0; i < r->size(); ++i) {
        const Tensor& g = (*r)[i];
        if (!g.defined() || !grad_input[i].defined()) continue;
        SPIRE_CHECK(g.shape() == grad_input[i].shape(), ShapeError, m->type_name(),
                    ": a full backward hook returned a gradient of shape ", shape_str(g.shape()), " for input ", i,
                    " of shape ", shape_str(grad_input[i].shape()));
      }
      grad_input = std::move(*r);
    }
    return grad_input;
  }
};

namespace {

using HookState = BackwardHookCall::State;

struct BackwardHookOutputs final : Node {
  std::shared_ptr<HookState> st;
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    st->grad_outputs = grads;
    // No input needs a gradient: the hooks run here, with no input gradients (as torch).
    if (!st->inputs_wrapped) st->run(Tensors(st->n_inputs));
    return grads;
  }
  std::string name() const override { return "BackwardHookFunctionBackward"; }
};

struct BackwardHookInputs final : Node {
  std::shared_ptr<HookState> st;
  std::vector<Tensor> apply(const std::vector<Tensor>& grads) override {
    Tensors gi(st->n_inputs);
    for (size_t k = 0; k < st->wrapped.size(); ++k) gi[st->wrapped[k]] = grads[k];
    gi = st->run(std::move(gi));
    std::vector<Tensor> out(st->wrapped.size());
    for (size_t k = 0; k < st->wrapped.size(); ++k) out[k] = gi[st->wrapped[k]];
    return out;
  }
  std::string name() const override { return "BackwardHookFunctionBackward"; }
};

// x passed through output `nr` of `node`: the same data, with forward-mode tangents and Taylor
// coefficients carried over (the record is an identity).
Tensor through(const Tensor& x, Node& node, int nr) {
  node.next.push_back(gradient_edge(x));
  node.out_meta.push_back({x.shape(), x.dtype(), x.device()});
  Tensor t = x.alias();
  if (x.impl()->autograd) {
    t.impl()->meta().tangents = x.impl()->autograd->tangents;
    t.impl()->meta().jets = x.impl()->autograd->jets;
  }
  auto& m = t.impl()->meta();
  m.requires_grad = true;
  m.grad_fn = node.shared_from_this();
  m.output_nr = nr;
  return t;
}

bool any_batched(const Tensors& xs) {
  return std::any_of(xs.begin(), xs.end(), [](const Tensor& x) { return x.defined() && x.is_batched(); });
}

}  // namespace

BackwardHookCall::BackwardHookCall(Module& module) {
  if (!module.has_hooks() || !GradMode::enabled()) return;
  ModuleHooks h = module.hooks();
  if (h.backward.empty()) return;
  state_ = std::make_shared<State>();
  state_->hooks = std::move(h.backward);
  state_->owner = module.weak_from_this();
  if (state_->owner.expired()) state_->raw = &module;
}

Tensors BackwardHookCall::wrap_inputs(const Tensors& inputs) {
  if (!state_) return inputs;
  state_->n_inputs = inputs.size();
  if (any_batched(inputs)) {
    state_.reset();  // inside vmap gradients of the logical tensors are not recorded this way
    return inputs;
  }
  auto node = std::make_shared<BackwardHookInputs>();
  node->st = state_;
  Tensors out = inputs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined() || !inputs[i].requires_grad()) continue;
    out[i] = through(inputs[i], *node, int(state_->wrapped.size()));
    state_->wrapped.push_back(i);
  }
  state_->inputs_wrapped = !state_->wrapped.empty();
  return out;
}

Tensors BackwardHookCall::wrap_outputs(const Tensors& outputs) {
  if (!state_ || any_batched(outputs)) return outputs;
  auto node = std::make_shared<BackwardHookOutputs>();
  node->st = state_;
  Tensors out = outputs;
  int n = 0;
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].defined() && outputs[i].requires_grad()) out[i] = through(outputs[i], *node, n++);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Description

std::string indent_repr(const std::string& s, int spaces) {
  std::string out, pad(size_t(spaces), ' ');
  for (char c : s) {
    out += c;
    if (c == '\n') out += pad;
  }
  return out;
}

std::string Module::repr() const {
  std::string extra = extra_repr();
  std::vector<std::string> lines;
  if (!extra.empty()) {
    std::istringstream in(extra);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
  }
  for (const auto& [name, c] : children_)
    lines.push_back("(" + name + "): " + (c ? indent_repr(c->repr(), 2) : std::string("None")));
  std::string s = type_name() + "(";
  // One line of options and no children fits on one line, as PyTorch prints Linear(...).
  if (children_.empty() && lines.size() == 1) return s + lines[0] + ")";
  if (lines.empty()) return s + ")";
  for (auto& l : lines) s += "\n  " + l;
  return s + "\n)";
}

}  // namespace spire::nn
