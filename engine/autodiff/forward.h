// Forward mode. A tensor carries one tangent per live forward level; each op propagates them with
// its forward rule. Levels nest (jvp of jvp), and a rule for level L runs with L switched off, so
// tangents of different levels never get confused.
#pragma once
#include "engine/core/tensor.h"

namespace spire::forward_ad {

int enter_level();            // returns the new level
void exit_level(int level);   // tangents of that level become unreachable
bool any_level_active();
bool level_enabled(int level);

// RAII guard for a level.
class Level {
 public:
  Level() : level_(enter_level()) {}
  ~Level() { exit_level(level_); }
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;
  int get() const { return level_; }

 private:
  int level_;
};

// A new tensor with the value of `primal` (and its reverse-mode history) carrying `tangent` at level.
Tensor make_dual(const Tensor& primal, const Tensor& tangent, int level);
// The tangent of `t` at `level`; undefined when it has none (zero).
Tensor tangent(const Tensor& t, int level);

// Records that `t` carries a tangent or Taylor coefficients at `level`; exit_level drops them. Under
// reverse mode a tangent's history refers back to its primal (exp: t * y), so a tensor and its
// tangent form a reference cycle that only dropping the tangent breaks.
void note_carrier(const Tensor& t, int level);

// Used by dispatch: a scope during which `level` is ignored.
class DisableLevel {
 public:
  explicit DisableLevel(int level);
  ~DisableLevel();

 private:
  int level_;
};

}  // namespace spire::forward_ad
