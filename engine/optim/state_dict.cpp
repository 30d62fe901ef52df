#include "engine/optim/state_dict.h"

#include <algorithm>

namespace spire::optim {
namespace {

std::string keys_of(const std::vector<StateDict::Item>& items) {
  std::string s;
  for (const auto& [k, v] : items) s += (s.empty() ? "'" : ", '") + k + "'";
  return s.empty() ? std::string("none") : s;
}

const char* kind_of(const StateValue& v) {
  return std::holds_alternative<Tensor>(v) ? "a tensor" : std::holds_alternative<double>(v) ? "a number" : "an integer";
}

}  // namespace

void StateDict::set(const std::string& key, StateValue value) {
  for (auto& [k, v] : items_)
    if (k == key) {
      v = std::move(value);
      return;
    }
  items_.emplace_back(key, std::move(value));
}

bool StateDict::contains(const std::string& key) const {
  return std::any_of(items_.begin(), items_.end(), [&](const Item& i) { return i.first == key; });
}

const StateValue& StateDict::at(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return v;
  SPIRE_CHECK(false, ValueError, "state_dict: missing key '", key, "'; the keys present are ", keys_of(items_));
  throw;  // unreachable
}

Tensor StateDict::tensor(const std::string& key) const {
  const StateValue& v = at(key);
  SPIRE_CHECK(std::holds_alternative<Tensor>(v) && std::get<Tensor>(v).defined(), ValueError, "state_dict: '", key,
              "' must be a tensor, got ", kind_of(v));
  return std::get<Tensor>(v);
}

double StateDict::number(const std::string& key) const {
  const StateValue& v = at(key);
  if (auto* i = std::get_if<int64_t>(&v)) return double(*i);
  SPIRE_CHECK(std::holds_alternative<double>(v), ValueError, "state_dict: '", key, "' must be a number, got ",
              kind_of(v));
  return std::get<double>(v);
}

int64_t StateDict::integer(const std::string& key) const {
  const StateValue& v = at(key);
  if (auto* d = std::get_if<double>(&v)) {
    SPIRE_CHECK(*d == double(int64_t(*d)), ValueError, "state_dict: '", key, "' must be an integer, got ", *d);
    return int64_t(*d);
  }
  SPIRE_CHECK(std::holds_alternative<int64_t>(v), ValueError, "state_dict: '", key, "' must be an integer, got ",
              kind_of(v));
  return std::get<int64_t>(v);
}

}  // namespace spire::optim
