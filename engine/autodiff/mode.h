// Thread-local switches of autodiff: whether ops are recorded for reverse mode, which forward-mode
// levels are live, and anomaly detection.
#pragma once
#include <vector>

namespace spire {

struct GradMode {
  static bool enabled();
  static void set(bool on);
};

// RAII: no_grad scope (NoGradGuard) or force recording on (EnableGradGuard).
class GradModeGuard {
 public:
  explicit GradModeGuard(bool on) : prev_(GradMode::enabled()) { GradMode::set(on); }
  ~GradModeGuard() { GradMode::set(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};
struct NoGradGuard : GradModeGuard {
  NoGradGuard() : GradModeGuard(false) {}
};

// When on, every op checks its outputs (and every reverse rule its gradients) for NaN and Inf and
// throws naming the op that made the first one.
struct AnomalyMode {
  static bool enabled();
  static void set(bool on);
};

}  // namespace spire
