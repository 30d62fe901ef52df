// Containers of modules, as torch.nn.Sequential and torch.nn.ModuleList. Their children are named
// "0", "1", ... so parameter names read "0.weight", "2.bias" as in PyTorch.
#pragma once
#include <memory>
#include <vector>

#include "engine/nn/module.h"

namespace spire::nn {

// Calls its children in order, each on the previous one's output (one tensor in, one out).
class Sequential : public Module {
 public:
  Sequential() : Module("Sequential") {}
  explicit Sequential(const std::vector<ModulePtr>& modules);

  Sequential& append(ModulePtr module);
  size_t size() const { return own_children().size(); }
  bool empty() const { return size() == 0; }
  // Negative indices count from the end; out of range throws ValueError naming the size.
  ModulePtr at(int64_t index) const;
  ModulePtr operator[](int64_t index) const { return at(index); }
  // The modules in [start, stop) as a new Sequential sharing them (Python slicing).
  std::shared_ptr<Sequential> slice(int64_t start, int64_t stop) const;

  using Module::forward;
  Tensor forward(const Tensor& input) override;
  Tensors forward(const Tensors& inputs) override;
};

// Holds modules so that they are registered (their parameters found), without a forward.
class ModuleList : public Module {
 public:
  ModuleList() : Module("ModuleList") {}
  explicit ModuleList(const std::vector<ModulePtr>& modules);

  ModuleList& append(ModulePtr module);
  ModuleList& extend(const std::vector<ModulePtr>& modules);
  // Inserts before index (negative counts from the end), renumbering the ones after it.
  void insert(int64_t index, ModulePtr module);
  size_t size() const { return own_children().size(); }
  bool empty() const { return size() == 0; }
  ModulePtr at(int64_t index) const;
  ModulePtr operator[](int64_t index) const { return at(index); }
  void set(int64_t index, ModulePtr module);
  std::vector<ModulePtr> items() const {
    std::vector<ModulePtr> out;
    for (auto& [name, m] : own_children()) out.push_back(m);
    return out;
  }
};

// Checks an index against size (negative from the end); returns it in [0, size).
int64_t normalize_index(int64_t index, size_t size, const char* who);

}  // namespace spire::nn
