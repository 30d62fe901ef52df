// Named, typed attributes of one op call (axes, strides, fill values). Keys are short literals;
// lookup is linear because calls carry a handful at most.
#pragma once
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/core/dtype.h"
#include "engine/core/error.h"
#include "engine/core/scalar.h"

namespace spire {

using AttrValue = std::variant<int64_t, double, bool, std::vector<int64_t>, std::string, DType,
                               Scalar, std::vector<double>>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) : items_(items) {}

  bool has(const std::string& key) const { return find(key) != nullptr; }
  template <class T>
  const T& get(const std::string& key) const {
    const AttrValue* v = find(key);
    SPIRE_CHECK(v, ValueError, "missing attribute '", key, "'");
    const T* p = std::get_if<T>(v);
    SPIRE_CHECK(p, ValueError, "attribute '", key, "' has another type");
    return *p;
  }
  template <class T>
  T get_or(const std::string& key, T fallback) const {
    const AttrValue* v = find(key);
    if (!v) return fallback;
    const T* p = std::get_if<T>(v);
    return p ? *p : fallback;
  }
  Attrs& set(const std::string& key, AttrValue value) {
    for (auto& [k, v] : items_)
      if (k == key) {
        v = std::move(value);
        return *this;
      }
    items_.emplace_back(key, std::move(value));
    return *this;
  }
  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  std::string str() const;

 private:
  const AttrValue* find(const std::string& key) const {
    for (auto& [k, v] : items_)
      if (k == key) return &v;
    return nullptr;
  }
  std::vector<std::pair<std::string, AttrValue>> items_;
};

}  // namespace spire
