// The state of an optimizer or a scheduler as an ordered map from names to tensors and numbers, as
// PyTorch's state_dict(), flattened: nested keys joined by dots and list elements numbered
// ("state.0.exp_avg", "param_groups.1.lr", "param_groups.0.betas.1", "base_lrs.1"; optimizer.h and
// scheduler.h list them). Checkpoints write it entry by entry (tensors and numbers as datasets) and
// load_state_dict() restores it, so that training resumed from it continues bit for bit.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/core/tensor.h"

namespace spire::optim {

// A tensor, a real number or an integer (step counts, epochs).
using StateValue = std::variant<Tensor, double, int64_t>;

class StateDict {
 public:
  using Item = std::pair<std::string, StateValue>;

  // Replaces the value under key, or appends key at the end.
  void set(const std::string& key, StateValue value);
  bool contains(const std::string& key) const;
  // The value under key; a ValueError naming the key and the keys present when it is absent, or
  // when it holds another kind of value (an integer is accepted where a number is asked for).
  const StateValue& at(const std::string& key) const;
  Tensor tensor(const std::string& key) const;
  double number(const std::string& key) const;
  int64_t integer(const std::string& key) const;

  const std::vector<Item>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }

 private:
  std::vector<Item> items_;
};

}  // namespace spire::optim
