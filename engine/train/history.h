// What fit returns: the epochs it ran and, per log key, one value per epoch (Keras's History).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/train/logs.h"

namespace spire::train {

class History {
 public:
  // Records one epoch. A key first seen late (a callback's entry) is padded with NaN for the
  // epochs before it, and a key missing from this epoch's logs gets NaN, so that every column has
  // one value per epoch.
  void append(int64_t epoch, const Logs& logs);

  // The epoch numbers (0-based, from initial_epoch).
  const std::vector<int64_t>& epoch() const { return epochs_; }
  // The column of key; MissingKeyError naming the keys held.
  const std::vector<double>& operator[](const std::string& key) const;
  bool contains(const std::string& key) const;
  // In the order first seen.
  std::vector<std::string> keys() const;
  const std::vector<std::pair<std::string, std::vector<double>>>& columns() const { return columns_; }
  size_t size() const { return epochs_.size(); }
  bool empty() const { return epochs_.empty(); }

 private:
  std::vector<int64_t> epochs_;
  std::vector<std::pair<std::string, std::vector<double>>> columns_;
};

}  // namespace spire::train
