// Stopping a run cleanly on SIGINT (Ctrl-C) or SIGTERM (what mpirun and batch schedulers send):
// while an InterruptScope lives, the signal only sets a flag that the run checks between updates,
// so the run ends with its history and checkpoint written. A second SIGINT ends the process at
// once, as usual. The previous handlers come back when the scope ends.
#pragma once

namespace spire::rl::dataflow {

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
  // Whether a signal came since the outermost scope began.
  static bool requested();
};

}  // namespace spire::rl::dataflow
