// Taylor mode. A taylor level carries truncated Taylor series (jets) through a computation: each op
// maps its inputs' coefficients to its outputs' with its Taylor rule (core/op.h). Levels share
// forward mode's numbering, so they nest with jvp, and rules are engine ops, so reverse mode
// differentiates through them.
//
// A level either carries plain jets of order K, or `directions` jets at once: coefficient 1 of
// every tensor is batched over the directions (dim 0), and coefficient 2 is either batched too or
// collapsed into its sum over the directions. The collapsed form is the forward Laplacian: one pass
// carrying the value, d tangents and one summed second-order term.
#pragma once
#include <utility>

#include "engine/autodiff/functional.h"
#include "engine/core/op.h"

namespace spire {

// Jets of f at `primals`, as jax.experimental.jet: series[i][k-1] is the k-th derivative of input
// i's path x(t) = x0 + x1 t + x2 t^2/2! + ... (undefined: zero). Returns f's outputs and their
// series in the same convention, of the same order K (every series has K entries).
std::pair<Tensors, std::vector<Series>> jet(const Function& f, const Tensors& primals,
                                            const std::vector<Series>& series);

namespace taylor {

struct LevelSpec {
  int order = 1;
  int64_t directions = 0;  // 0: plain jets; else coefficient 1 has this many directions first
  bool collapse = false;   // with directions and order 2: coefficient 2 is summed over them
};

// RAII scope of a taylor level.
class Level {
 public:
  explicit Level(const LevelSpec& spec);
  ~Level();
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;
  int get() const { return level_; }

 private:
  int level_;
};

// A tensor with the value and reverse history of `primal` carrying normalised coefficients
// x1..xK (x_k = k-th derivative / k!) at `level`.
Tensor make_jet(const Tensor& primal, const Series& coefficients, int level);
// The normalised coefficients of `t` at `level`: K entries, undefined where zero.
Series coefficients(const Tensor& t, int level);

// Used by dispatch: propagates every active taylor level from inputs to outputs.
void propagate(const OpDef& op, const Attrs& attrs, const std::vector<Tensor>& inputs,
               std::vector<Tensor>& outputs);
bool any_level_active();

}  // namespace taylor
}  // namespace spire
