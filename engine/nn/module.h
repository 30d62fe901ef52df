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
// the other, so callers may use either (and operator()). A layer that overrides one form should
// write `using Module::forward;` so that the other stays visible.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
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
  Tensor operator()(const Tensor& input) { return forward(input); }
  Tensors operator()(const Tensors& inputs) { return forward(inputs); }

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

  std::string type_name_;
  bool training_ = true;
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::pair<std::string, Tensor>> buffers_;
  std::vector<bool> buffer_persistent_;
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> children_;
};

using ModulePtr = std::shared_ptr<Module>;

// Indents every line after the first by `spaces` (for nested reprs).
std::string indent_repr(const std::string& s, int spaces = 2);

}  // namespace spire::nn
