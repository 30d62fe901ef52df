// A table of factories by name that users extend at run time: games, selection rules, evaluators.
// Built-ins are passed to the constructor, and the table is built on first use (a function-local
// static), so no static registrar can be dropped by the linker or run in the wrong order.
#pragma once
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"

namespace spire::rl {

template <class Factory>
class NamedRegistry {
 public:
  // `what` names an entry in messages ("game", "selection rule", "evaluator").
  NamedRegistry(std::string what, std::map<std::string, Factory> builtins)
      : what_(std::move(what)), factories_(std::move(builtins)) {}

  // A second registration of a name replaces the first.
  void add(const std::string& name, Factory factory) {
    SPIRE_CHECK(!name.empty(), ValueError, "registering a ", what_, ": the name is empty");
    SPIRE_CHECK(static_cast<bool>(factory), ValueError, "registering ", what_, " '", name, "': the factory is empty");
    std::lock_guard lock(mutex_);
    factories_[name] = std::move(factory);
  }

  // The factory of `name`; ValueError naming the registered ones when there is none.
  Factory find(const std::string& name) const {
    std::lock_guard lock(mutex_);
    auto it = factories_.find(name);
    if (it != factories_.end()) return it->second;
    std::string known;
    for (auto& [n, f] : factories_) known += (known.empty() ? "" : ", ") + n;
    throw ValueError(detail::cat("unknown ", what_, " '", name, "'; registered ", what_, "s: ", known));
  }

  std::vector<std::string> names() const {
    std::lock_guard lock(mutex_);
    std::vector<std::string> out;
    for (auto& [n, f] : factories_) out.push_back(n);
    return out;
  }

  const std::string& what() const { return what_; }

 private:
  std::string what_;
  mutable std::mutex mutex_;
  std::map<std::string, Factory> factories_;
};

}  // namespace spire::rl
