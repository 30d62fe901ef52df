// Functional transforms, composable in any order as in JAX: grad, value_and_grad, vjp, jvp,
// jacrev, jacfwd, hessian, hvp. A function maps a list of tensors to a list of tensors; the
// Python layer flattens pytrees into these lists and back.
#pragma once
#include <functional>
#include <utility>
#include <vector>

#include "engine/core/tensor.h"

namespace spire {

using Function = std::function<Tensors(const Tensors&)>;
using VjpFunction = std::function<Tensors(const Tensors&)>;

// Outputs of f at primals, and the function mapping output cotangents to input cotangents.
std::pair<Tensors, VjpFunction> vjp(const Function& f, const Tensors& primals);
// Outputs of f at primals and their tangents along `tangents` (forward mode).
std::pair<Tensors, Tensors> jvp(const Function& f, const Tensors& primals, const Tensors& tangents);

// f must return one scalar as its first output (further outputs are auxiliary and passed through
// by value_and_grad). argnums selects the inputs to differentiate (empty: input 0).
Function grad(const Function& f, const std::vector<int>& argnums = {0});
// Returns {value, aux..., grads...}.
Function value_and_grad(const Function& f, const std::vector<int>& argnums = {0});

// Jacobians of every output with respect to every input in argnums, output-major
// ([d out0/d x0, d out0/d x1, ..., d out1/d x0, ...]); each has shape out.shape + in.shape.
Function jacrev(const Function& f, const std::vector<int>& argnums = {0});
Function jacfwd(const Function& f, const std::vector<int>& argnums = {0});
// Hessian of a scalar f (forward over reverse): blocks d2f/dxi dxj, i-major, each of shape
// xi.shape + xj.shape.
Function hessian(const Function& f, const std::vector<int>& argnums = {0});
// Hessian-vector product of a scalar f at primals along v (forward over reverse, ~3 gradients).
Tensors hvp(const Function& f, const Tensors& primals, const Tensors& v);

}  // namespace spire
