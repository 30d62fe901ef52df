// The reverse-mode engine.
#pragma once
#include <vector>

#include "engine/core/tensor.h"

namespace spire::autodiff {

// Gradients of `outputs` (weighted by `grad_outputs`; undefined means ones for a scalar output)
// with respect to `inputs`. An input the outputs do not depend on gets an undefined tensor when
// allow_unused, and an error otherwise. With create_graph the result is itself differentiable.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {}, bool retain_graph = false,
                         bool create_graph = false, bool allow_unused = true);

// Accumulates gradients into the .grad of every leaf that `outputs` depend on.
void backward(const std::vector<Tensor>& outputs, const std::vector<Tensor>& grad_outputs = {},
              bool retain_graph = false, bool create_graph = false);

}  // namespace spire::autodiff
