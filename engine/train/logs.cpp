#include "engine/train/logs.h"

#include <algorithm>

namespace spire::train {

Logs::Logs(std::initializer_list<Item> items) {
  for (const auto& [k, v] : items) set(k, v);
}

void Logs::set(const std::string& key, double value) {
  for (auto& item : items_)
    if (item.first == key) {
      item.second = value;
      return;
    }
  items_.emplace_back(key, value);
}

bool Logs::contains(const std::string& key) const { return get(key).has_value(); }

std::optional<double> Logs::get(const std::string& key) const {
  for (const auto& [k, v] : items_)
    if (k == key) return v;
  return std::nullopt;
}

double Logs::at(const std::string& key) const {
  if (auto v = get(key)) return *v;
  std::string have;
  for (const auto& k : keys()) have += (have.empty() ? "" : ", ") + k;
  throw MissingKeyError("logs have no '" + key + "'; they hold: " + (have.empty() ? "(nothing)" : have));
}

bool Logs::erase(const std::string& key) {
  auto it = std::find_if(items_.begin(), items_.end(), [&](const Item& i) { return i.first == key; });
  if (it == items_.end()) return false;
  items_.erase(it);
  return true;
}

std::vector<std::string> Logs::keys() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : items_) out.push_back(k);
  return out;
}

double monitored(const Logs& logs, const std::string& key, const std::string& who) {
  if (auto v = logs.get(key)) return *v;
  std::vector<std::string> keys = logs.keys();
  std::sort(keys.begin(), keys.end());
  std::string have;
  for (const auto& k : keys) have += (have.empty() ? "" : ", ") + k;
  std::string hint = key.rfind("val_", 0) == 0 ? " (val_* keys need validation data: fit(..., val))" : "";
  throw MissingKeyError(who + ": the monitored quantity '" + key + "' is not in the logs; available: " +
                        (have.empty() ? "(none)" : have) + hint);
}

std::string resolve_mode(const std::string& mode, const std::string& monitor, const std::string& who) {
  SPIRE_CHECK(mode == "auto" || mode == "min" || mode == "max", ValueError, who,
              ": mode must be 'auto', 'min' or 'max', got '", mode, "'");
  if (mode != "auto") return mode;
  bool larger_is_better = monitor.find("acc") != std::string::npos ||
                          (monitor.size() >= 11 && monitor.compare(monitor.size() - 11, 11, "utilization") == 0);
  return larger_is_better ? "max" : "min";
}

}  // namespace spire::train
