// Hooks on leaf tensors that run during backward(), as torch's register_post_accumulate_grad_hook:
// once backward() has added a gradient into leaf.grad(), each hook gets the leaf. Data-parallel
// training starts the all-reduce of a bucket of gradients from them, so communication overlaps the
// rest of the backward pass. grad() (which returns gradients instead of accumulating) runs none.
#pragma once
#include <cstdint>
#include <functional>

#include "engine/core/tensor.h"

namespace spire::autodiff {

using GradHook = std::function<void(const Tensor& leaf)>;

// Adds a hook to a leaf that requires grad (ValueError otherwise); returns its id for removal.
int64_t add_post_accumulate_grad_hook(const Tensor& leaf, GradHook hook);
// Removes the hook; false when the leaf has no hook of that id.
bool remove_post_accumulate_grad_hook(const Tensor& leaf, int64_t id);

}  // namespace spire::autodiff
