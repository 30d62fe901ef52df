// Where text output of the training loop goes (the progress bar): a write function plus whether
// it is a terminal (which decides redrawing). Python routes it to sys.stdout, so notebooks show it.
#pragma once
#include <functional>
#include <string>

namespace spire::train {

struct Stream {
  std::function<void(const std::string&)> write = nullptr;  // writes and flushes
  bool is_terminal = false;

  static Stream standard_output();
  static Stream standard_error();
};

}  // namespace spire::train
