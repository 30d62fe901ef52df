// The Module: a node of a model tree that owns named parameters (leaf tensors that require grad),
// named buffers (state that is saved but not trained, such as BatchNorm's running statistics) and
// named child modules, as torch.nn.Module.
//
// Modules are held by std::shared_ptr. A layer registers what it owns in its constructor and keeps
// the returned handles for forward():
//
//   struct Affine : Module {
//     Tensor w, b;
//     Affine(int64_t n, int64_t m) : Module("Affine") {
//       w = register_parameter("weight", randn({m, n}));
//       b = register_parameter("bias", zeros({m}));
//     }
//     using Module::forward;
//     Tensor forward(const Tensor& x) override { return matmul(x, transpose(w)) + b; }
//   };
//
// A registered parameter is the same Tensor object for the module's whole life: optimizers and
// load_state_dict rebind its values with Tensor::set_data, so the handles kept by a layer (and by
// an optimizer, or a closure) always see the current values.
//
// forward comes in two virtual forms: single-tensor layers override forward(const Tensor&),
// layers with several inputs or outputs override forward(const Tensors&); each default forwards to
// the other. A layer that overrides one form should write `using Module::forward;` so that the
// other stays visible.
//
// Calling a module is operator(): it runs the module's hooks around forward (torch's
// Module.__call__). Parents call their children with operator(), never forward() directly, so a
// hook on a child runs whichever parent (C++ or Python) calls it:
//
//   auto h = layer->register_forward_hook([](Module&, const Tensors& in, const Tensors& out)
//                                             -> std::optional<Tensors> { return std::nullopt; });
//   h.remove();
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::nn {

// Name -> tensor in insertion order (what state_dict returns and load_state_dict takes).
class StateDict {
 public:
  using Item = std::pair<std::string, Tensor>;
  StateDict() = default;
  StateDict(std::initializer_list<Item> items);

  // Adds name or replaces its value (keeping its position).
  void insert(const std::string& name, const Tensor& value);
  bool contains(const std::string& name) const;
  const Tensor& at(const std::string& name) const;  // ValueError naming the key when absent
  bool erase(const std::string& name);
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::vector<std::string> keys() const;
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
};

// What a non-strict load_state_dict left out (PyTorch's _IncompatibleKeys).
struct LoadResult {
  std::vector<std::string> missing_keys;     // in the module, not in the dict
  std::vector<std::string> unexpected_keys;  // in the dict, not in the module
};

class Module;

// Hooks, as torch.nn.Module's. Each may return replacement values (std::nullopt keeps them):
// a forward pre-hook sees the inputs before forward and may replace them; a forward hook sees the
// inputs and outputs after it and may replace the outputs; a full backward hook sees the gradients
// with respect to the module's inputs and outputs when they are computed and may replace the
// input gradients. In grad_input an undefined tensor stands for an input that needs no gradient.
using ForwardPreHook = std::function<std::optional<Tensors>(Module&, const Tensors& inputs)>;
using ForwardHook = std::function<std::optional<Tensors>(Module&, const Tensors& inputs, const Tensors& outputs)>;
using BackwardHook =
    std::function<std::optional<Tensors>(Module&, const Tensors& grad_input, const Tensors& grad_output)>;

template <class F>
struct HookEntry {
  uint64_t id;
  F fn;
  // For bindings: the foreign callable (a Python function) fn was made from. A binding's own call
  // path calls it directly with its own argument types (Python objects that are not tensors).
  std::shared_ptr<void> binding;
};

// One module's hooks, in calling order. Handles refer to it weakly.
struct ModuleHooks {
  uint64_t next_id = 1;
  std::vector<HookEntry<ForwardPreHook>> forward_pre;
  std::vector<HookEntry<ForwardHook>> forward;
  std::vector<HookEntry<BackwardHook>> backward;
  bool empty() const { return forward_pre.empty() && forward.empty() && backward.empty(); }
  bool remove(uint64_t id);
};

// What register_*_hook returns (torch's RemovableHandle): remove() unregisters the hook; removing
// twice, or after the module is gone, does nothing.
class HookHandle {
 public:
  HookHandle() = default;
  HookHandle(std::weak_ptr<ModuleHooks> hooks, uint64_t id) : hooks_(std::move(hooks)), id_(id) {}
  void remove();
  uint64_t id() const { return id_; }

 private:
  std::weak_ptr<ModuleHooks> hooks_;
  uint64_t id_ = 0;
};

// The full backward hooks of one module call: wrap_inputs (after the pre-hooks) and wrap_outputs
// (after the forward hooks) pass the tensors through identity records whose reverse steps collect
// the output gradients and then call the hooks with the input gradients, as torch's
// BackwardHook. Inactive (wrapping nothing) when the module has no backward hooks, when gradients
// are not being recorded, or inside vmap.
class BackwardHookCall {
 public:
  explicit BackwardHookCall(Module& module);
  bool active() const { return state_ != nullptr; }
  // Only the tensors that require grad get a record; the others come back as they are.
  Tensors wrap_inputs(const Tensors& inputs);
  Tensors wrap_outputs(const Tensors& outputs);

  struct State;

 private:
  std::shared_ptr<State> state_;
};

class Module : public std::enable_shared_from_this<Module> {
 public:
  explicit Module(std::string type_name = "Module");
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // --- Registration (names are non-empty, without '.', unique across parameters, buffers and
  // children; registering a name again of the same kind replaces it).
  // Makes `value` a parameter: a leaf tensor (detached first if it was computed) that requires grad.
  // An undefined tensor registers "no parameter" (a bias=false layer's "bias"), skipped everywhere.
  // Returns the registered tensor: the handle to keep.
  Tensor register_parameter(const std::string& name, Tensor value);
  // Buffers are saved in state_dict unless persistent is false; an undefined tensor is allowed.
  Tensor register_buffer(const std::string& name, Tensor value, bool persistent = true);
  template <class M>
  std::shared_ptr<M> register_module(const std::string& name, std::shared_ptr<M> module) {
    register_module_impl(name, module);
    return module;
  }
  // Removes a parameter, buffer or child of this name; false when there is none.
  bool unregister(const std::string& name);

  // --- Direct members, by name (nullptr / undefined when absent).
  bool has_parameter(const std::string& name) const;
  bool has_buffer(const std::string& name) const;
  bool has_child(const std::string& name) const;
  Tensor parameter(const std::string& name) const;
  Tensor buffer(const std::string& name) const;
  std::shared_ptr<Module> child(const std::string& name) const;
  bool buffer_is_persistent(const std::string& name) const;
  // Direct members in registration order (undefined / null entries included).
  const std::vector<std::pair<std::string, Tensor>>& own_parameters() const { return params_; }
  const std::vector<std::pair<std::string, Tensor>>& own_buffers() const { return buffers_; }
  const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& own_children() const { return children_; }

  // --- The tree. Names are dotted paths ("encoder.0.weight") in registration order, depth first;
  // a tensor or module reachable twice (shared weights) is listed once, under its first name.
  Tensors parameters(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_parameters(const std::string& prefix = "",
                                                                bool recurse = true) const;
  Tensors buffers(bool recurse = true) const;
  std::vector<std::pair<std::string, Tensor>> named_buffers(const std::string& prefix = "",
                                                             bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_children() const;
  // This module (named prefix) and every descendant.
  std::vector<std::shared_ptr<Module>> modules();
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> named_modules(const std::string& prefix = "");
  // Calls fn on every descendant, then on this module (as torch's apply).
  Module& apply(const std::function<void(Module&)>& fn);

  // --- State. Parameters and persistent buffers, detached (sharing memory with the module).
  StateDict state_dict() const;
  // Checks every key, shape and dtype first, then writes values into the existing tensors with
  // set_data (a copy of the value, moved to the tensor's device, without history). Shape and dtype
  // mismatches always throw; missing and unexpected keys throw when strict, else are returned. The
  // error lists all missing keys, unexpected keys and mismatches at once.
  LoadResult load_state_dict(const StateDict& state, bool strict = true);

  // --- Modes and gradients.
  // Sets training mode on this module and every descendant (on_train_changed hooks each one).
  Module& train(bool on = true);
  Module& eval() { return train(false); }
  bool is_training() const { return training_; }
  // Only this module's flag (Python's `self.training = ...`).
  void set_training_flag(bool on) { training_ = on; }
  // Drops (set_to_none) or zeroes every parameter's gradient.
  void zero_grad(bool set_to_none = true);
  // Converts every parameter and buffer in place (same Tensor objects; gradients are dropped):
  // floating-point ones to `dtype`, all of them to `device`.
  Module& to(DType dtype);
  Module& to(Device device);

  // --- Forward.
  virtual Tensors forward(const Tensors& inputs);
  virtual Tensor forward(const Tensor& input);
  // Calls forward with the hooks around it (torch's __call__). The one-tensor form calls
  // forward(const Tensor&) unless a pre-hook replaced the input by several tensors.
  Tensor operator()(const Tensor& input) {
    if (!hooks_ || hooks_->empty()) return forward(input);
    return call_with_hooks(Tensors{input}, true)[0];
  }
  Tensors operator()(const Tensors& inputs) {
    if (!hooks_ || hooks_->empty()) return forward(inputs);
    return call_with_hooks(inputs, false);
  }

  // --- Hooks (see ForwardPreHook above). Each runs on every call, in registration order (prepend
  // puts it first); `binding` is for language bindings (see HookEntry).
  HookHandle register_forward_pre_hook(ForwardPreHook hook, bool prepend = false,
                                       std::shared_ptr<void> binding = nullptr);
  HookHandle register_forward_hook(ForwardHook hook, bool prepend = false, std::shared_ptr<void> binding = nullptr);
  HookHandle register_full_backward_hook(BackwardHook hook, bool prepend = false,
                                         std::shared_ptr<void> binding = nullptr);
  bool has_hooks() const { return hooks_ && !hooks_->empty(); }
  // A copy of the hooks (empty when none): what a binding's call path iterates over, so that a
  // hook removing itself or adding another affects the next call, not this one.
  ModuleHooks hooks() const { return hooks_ ? *hooks_ : ModuleHooks(); }

  // --- Description.
  // The class name shown by repr ("Linear").
  virtual std::string type_name() const { return type_name_; }
  // The options shown inside the parentheses ("in_features=2, out_features=3, bias=True").
  virtual std::string extra_repr() const { return ""; }
  // PyTorch's layout: "Net(\n  (fc1): Linear(...)\n  (act): ReLU()\n)".
  std::string repr() const;

 protected:
  void set_type_name(std::string name) { type_name_ = std::move(name); }
  // Called by train() on each module after its flag changed.
  virtual void on_train_changed(bool) {}

 private:
  void register_module_impl(const std::string& name, std::shared_ptr<Module> module);
  void check_new_name(const std::string& name, const char* kind, int own_kind) const;
  void collect_tensors(bool params, const std::string& prefix, bool recurse, bool persistent_only,
                       std::vector<std::pair<std::string, Tensor>>& out,
                       std::vector<const TensorImpl*>& seen) const;
  void collect_modules(const std::string& prefix, std::vector<std::pair<std::string, std::shared_ptr<Module>>>& out,
                       std::vector<const Module*>& seen, const std::shared_ptr<Module>& self);
  Tensors call_with_hooks(Tensors inputs, bool single);
  ModuleHooks& hook_registry();

  std::string type_name_;
  bool training_ = true;
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, Tensor>> buffers_;
  std::vector<bool> buffer_persistent_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
  std::shared_ptr<ModuleHooks> hooks_;  // made by the first registration
};

using ModulePtr = std::shared_ptr<Module>;

// Indents every line after the first by `spaces` (for nested reprs).
std::string indent_repr(const std::string& s, int spaces = 2);

}  // namespace spire::nn
