// vmap: maps a function over an axis of its inputs, as JAX's vmap. Inside the mapped function a
// tensor is logical (one batch entry) and wraps a physical tensor whose dim 0 is the mapped axis;
// ops see through the wrapper and run their batching rule once for the whole batch. Levels nest
// (vmap of vmap), and the taylor transforms use a level to carry many tangent directions in one pass.
#pragma once
#include <optional>

#include "engine/autodiff/functional.h"
#include "engine/core/op.h"

namespace spire {

// f mapped over axis in_axes[i] of input i (nullopt: input i is not mapped; empty: axis 0 of every
// input); output k gets the mapped axis at out_axes[k] (empty: 0). All mapped axes must have one size.
Function vmap(const Function& f, const std::vector<std::optional<int64_t>>& in_axes = {},
              const std::vector<int64_t>& out_axes = {});

namespace batching {

// RAII scope of one vmap level of a given size.
class Level {
 public:
  explicit Level(int64_t size);
  ~Level();
  Level(const Level&) = delete;
  Level& operator=(const Level&) = delete;
  int get() const { return level_; }
  int64_t size() const { return size_; }

 private:
  int level_;
  int64_t size_;
};

bool any_level_active();
// The logical tensor for `physical` (dim 0 is the level's mapped axis).
Tensor wrap(const Tensor& physical, int level);
// The physical tensor of `t` with the level's axis first; a tensor not mapped at that level is
// broadcast along a new axis of the level's size.
Tensor unwrap(const Tensor& t, int level);
bool is_batched_at(const Tensor& t, int level);

// Used by dispatch: runs `op` on inputs some of which are mapped; returns false when none is.
bool dispatch(const OpDef& op, const std::vector<Tensor>& inputs, const Attrs& attrs,
              std::vector<Tensor>& outputs);

// --- helpers for writing batching rules --------------------------------------------------------
// The rule of every broadcasting elementwise op: mapped inputs get unit axes after the mapped one
// so that all inputs line up, then the op runs once.
std::vector<Tensor> batch_elementwise(const BatchContext& c);
// Runs the op once per batch entry and stacks the results: the rule of ops without one.
std::vector<Tensor> batch_loop(const BatchContext& c);
// Logical rank of input i (its physical rank less the mapped axis when it has one).
int64_t logical_dim(const BatchContext& c, size_t i);
// Input i with the mapped axis first, materialised (broadcast) for unmapped inputs.
Tensor mapped_input(const BatchContext& c, size_t i);
// `axes` (non-negative, in logical numbering) shifted past the mapped axis.
std::vector<int64_t> shift_axes(std::vector<int64_t> axes);

}  // namespace batching
}  // namespace spire
