#include <algorithm>

#include "engine/core/op.h"

namespace spire {

OpRegistry& OpRegistry::get() {
  static auto* r = new OpRegistry();
  return *r;
}

OpDef& OpRegistry::define(OpDef def) {
  if (load_ && find(def.name)) {
    load_->errors.push_back("op '" + def.name + "' is already registered (names must be unique)");
    load_->refused.push_back(std::make_unique<OpDef>(std::move(def)));
    return *load_->refused.back();
  }
  SPIRE_CHECK(!find(def.name), ValueError, "op '", def.name, "' is defined twice");
  SPIRE_CHECK(def.infer || def.view, ValueError, "op '", def.name, "' has no infer function");
  ops_.push_back(std::make_unique<OpDef>(std::move(def)));
  OpDef& d = *ops_.back();
  // Kernels registered before their op (static initialisation order across files is unspecified).
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (std::get<0>(*it) == d.name) {
      d.kernels[int(std::get<1>(*it))] = std::get<2>(*it);
      if (load_ && size_t(it - pending_.begin()) < load_->first_pending) --load_->first_pending;
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
      if (load_ && size_t(&d - ops_.data()) < load_->first_op) {
        if (d->kernels[int(kind)]) {
          load_->errors.push_back("op '" + op + "' already has a " + Device{kind, 0}.str() +
                                  " kernel (a library may add kernels, not replace them)");
          return;
        }
        load_->added_kernels.emplace_back(d.get(), kind);
      }
      d->kernels[int(kind)] = std::move(fn);
      return;
    }
  pending_.emplace_back(op, kind, std::move(fn));
}

void OpRegistry::begin_load() {
  SPIRE_CHECK(!load_, ValueError, "a library is already being loaded (load one at a time)");
  load_ = std::make_unique<Load>();
  load_->first_op = ops_.size();
  load_->first_pending = pending_.size();
}

std::pair<std::vector<std::string>, std::vector<std::string>> OpRegistry::end_load(bool keep) {
  SPIRE_CHECK(load_, ValueError, "end_load() without begin_load()");
  std::unique_ptr<Load> load = std::move(load_);
  for (size_t i = load->first_pending; i < pending_.size(); ++i)
    load->errors.push_back("a kernel was registered for op '" + std::get<0>(pending_[i]) +
                           "', which is not defined");
  std::vector<std::string> names;
  for (size_t i = load->first_op; i < ops_.size(); ++i) names.push_back(ops_[i]->name);
  if (!keep || !load->errors.empty()) {
    // Undo everything: nothing may keep code of a library that is about to be closed.
    ops_.resize(load->first_op);
    pending_.resize(std::min(pending_.size(), load->first_pending));
    for (auto& [d, kind] : load->added_kernels) d->kernels[int(kind)] = nullptr;
  }
  return {std::move(load->errors), std::move(names)};
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
