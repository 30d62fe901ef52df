#include "engine/train/history.h"

#include <cmath>
#include <limits>

namespace spire::train {

void History::append(int64_t epoch, const Logs& logs) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  epochs_.push_back(epoch);
  const size_t n = epochs_.size();
  for (const auto& [k, v] : logs) {
    std::vector<double>* col = nullptr;
    for (auto& c : columns_)
      if (c.first == k) col = &c.second;
    if (!col) col = &columns_.emplace_back(k, std::vector<double>(n - 1, nan)).second;
    col->push_back(v);
  }
  for (auto& c : columns_)
    if (c.second.size() < n) c.second.push_back(nan);
}

const std::vector<double>& History::operator[](const std::string& key) const {
  for (const auto& c : columns_)
    if (c.first == key) return c.second;
  std::string have;
  for (const auto& c : columns_) have += (have.empty() ? "" : ", ") + c.first;
  throw MissingKeyError("History has no '" + key + "'; it holds: " + (have.empty() ? "(nothing)" : have));
}

bool History::contains(const std::string& key) const {
  for (const auto& c : columns_)
    if (c.first == key) return true;
  return false;
}

std::vector<std::string> History::keys() const {
  std::vector<std::string> out;
  for (const auto& c : columns_) out.push_back(c.first);
  return out;
}

}  // namespace spire::train
