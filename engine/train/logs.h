// The numbers fit reports after each epoch ("loss", "val_loss", "lr", metrics, "time", what
// callbacks add), as an ordered name -> value map, as Keras's logs dict.
#pragma once
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/error.h"

namespace spire::train {

// A key asked of the logs that they do not hold (the message names those they do). Python sees a
// KeyError.
class MissingKeyError : public ValueError {
  using ValueError::ValueError;
};

class Logs {
 public:
  using Item = std::pair<std::string, double>;
  Logs() = default;
  Logs(std::initializer_list<Item> items);

  // Adds key at the end, or replaces its value in place.
  void set(const std::string& key, double value);
  bool contains(const std::string& key) const;
  std::optional<double> get(const std::string& key) const;
  // MissingKeyError naming the keys present.
  double at(const std::string& key) const;
  bool erase(const std::string& key);
  std::vector<std::string> keys() const;
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }

 private:
  std::vector<Item> items_;
};

// logs[key] for `who` (a callback) that monitors key; MissingKeyError naming the available keys
// and, for val_* keys, that they need validation data.
double monitored(const Logs& logs, const std::string& key, const std::string& who);

// "min" or "max" for a monitor: "auto" is "max" for accuracies and utilisations (Keras's rule),
// else "min". ValueError naming `who` for anything but auto, min, max.
std::string resolve_mode(const std::string& mode, const std::string& monitor, const std::string& who);

}  // namespace spire::train
