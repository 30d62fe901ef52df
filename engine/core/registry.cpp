#include <algorithm>

#include "engine/core/op.h"

namespace spire {

OpRegistry& OpRegistry::get() {
  static auto* r = new OpRegistry();
  return *r;
}

OpDef& OpRegistry::define(OpDef def) {
  SPIRE_CHECK(!find(def.name), ValueError, "op '", def.name, "' is defined twice");
  SPIRE_CHECK(def.infer || def.view, ValueError, "op '", def.name, "' has no infer function");
  ops_.push_back(std::make_unique<OpDef>(std::move(def)));
  OpDef& d = *ops_.back();
  // Kernels registered before their op (static initialisation order across files is unspecified).
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (std::get<0>(*it) == d.name) {
      d.kernels[int(std::get<1>(*it))] = std::get<2>(*it);
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  return d;
}

void OpRegistry::add_kernel(const std::string& op, DeviceKind kind, KernelFn fn) {
  for (auto& d : ops_)
    if (d->name == op) {
      d->kernels[int(kind)] = std::move(fn);
      return;
    }
  pending_.emplace_back(op, kind, std::move(fn));
}

const OpDef* OpRegistry::find(const std::string& name) const {
  for (auto& d : ops_)
    if (d->name == name) return d.get();
  return nullptr;
}

const OpDef& OpRegistry::at(const std::string& name) const {
  if (const OpDef* d = find(name)) return *d;
  std::string known;
  for (auto& d : ops_) known += (known.empty() ? "" : ", ") + d->name;
  throw ValueError("unknown op '" + name + "'; known ops: " + known);
}

std::vector<const OpDef*> OpRegistry::all() const {
  std::vector<const OpDef*> out;
  for (auto& d : ops_) out.push_back(d.get());
  std::sort(out.begin(), out.end(), [](auto* a, auto* b) { return a->name < b->name; });
  return out;
}

}  // namespace spire
