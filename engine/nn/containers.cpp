#include "engine/nn/containers.h"

#include <algorithm>
#include <string>

namespace spire::nn {

int64_t normalize_index(int64_t index, size_t size, const char* who) {
  int64_t n = int64_t(size);
  SPIRE_CHECK(index >= -n && index < n, ValueError, who, ": index ", index, " is out of range for ", n,
              " modules (allowed: ", -n, " to ", n - 1, ")");
  return index < 0 ? index + n : index;
}

namespace {
ModulePtr checked(ModulePtr m, const char* who) {
  SPIRE_CHECK(m != nullptr, ValueError, who, ": the module must not be null");
  return m;
}
}  // namespace

// ---------------------------------------------------------------------------------------------
// Sequential

Sequential::Sequential(const std::vector<ModulePtr>& modules) : Module("Sequential") {
  for (auto& m : modules) append(m);
}

Sequential& Sequential::append(ModulePtr module) {
  register_module(std::to_string(size()), checked(std::move(module), "Sequential.append"));
  return *this;
}

ModulePtr Sequential::at(int64_t index) const {
  return own_children()[size_t(normalize_index(index, size(), "Sequential"))].second;
}

std::shared_ptr<Sequential> Sequential::slice(int64_t start, int64_t stop) const {
  auto out = std::make_shared<Sequential>();
  int64_t n = int64_t(size());
  start = std::clamp<int64_t>(start < 0 ? start + n : start, 0, n);
  stop = std::clamp<int64_t>(stop < 0 ? stop + n : stop, 0, n);
  for (int64_t i = start; i < stop; ++i) out->append(own_children()[size_t(i)].second);
  return out;
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (auto& [name, m] : own_children()) x = (*m)(x);  // with the child's hooks
  return x;
}

Tensors Sequential::forward(const Tensors& inputs) {
  SPIRE_CHECK(inputs.size() == 1, ValueError, "Sequential.forward takes one tensor, got ", inputs.size());
  return {forward(inputs[0])};
}

// ---------------------------------------------------------------------------------------------
// ModuleList

ModuleList::ModuleList(const std::vector<ModulePtr>& modules) : Module("ModuleList") { extend(modules); }

ModuleList& ModuleList::append(ModulePtr module) {
  register_module(std::to_string(size()), checked(std::move(module), "ModuleList.append"));
  return *this;
}

ModuleList& ModuleList::extend(const std::vector<ModulePtr>& modules) {
  for (auto& m : modules) append(m);
  return *this;
}

ModulePtr ModuleList::at(int64_t index) const {
  return own_children()[size_t(normalize_index(index, size(), "ModuleList"))].second;
}

void ModuleList::set(int64_t index, ModulePtr module) {
  int64_t i = normalize_index(index, size(), "ModuleList");
  register_module(std::to_string(i), checked(std::move(module), "ModuleList.__setitem__"));
}

void ModuleList::insert(int64_t index, ModulePtr module) {
  checked(module, "ModuleList.insert");
  int64_t n = int64_t(size());
  // Python's list.insert clamps out-of-range indices.
  int64_t at = std::clamp<int64_t>(index < 0 ? index + n : index, 0, n);
  std::vector<ModulePtr> all;
  for (auto& [name, m] : own_children()) all.push_back(m);
  all.insert(all.begin() + at, std::move(module));
  for (int64_t i = 0; i < n; ++i) unregister(std::to_string(i));
  for (auto& m : all) append(m);
}

}  // namespace spire::nn
