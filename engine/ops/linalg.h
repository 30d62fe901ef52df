// Linear algebra. Matrix ops act on the last two axes and broadcast over the leading ones.
#pragma once
#include <string>

#include "engine/core/tensor.h"

namespace spire {

// NumPy matmul semantics: 1-d operands are promoted and the added axis removed.
Tensor matmul(const Tensor& a, const Tensor& b);
// einsum("bij,bjk->bik", {a, b}); implicit output ("ij,jk") follows NumPy.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);
Tensor solve(const Tensor& a, const Tensor& b);  // a x = b; b is [..., n] or [..., n, k]
Tensor inverse(const Tensor& a);
Tensor cholesky(const Tensor& a);  // lower factor L with a = L L^H
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a = false);
Tensor det(const Tensor& a);
// ord: "fro" (default for matrices), "2" (vector 2-norm), "1", "inf", or "nuc"; axes as NumPy.
Tensor norm(const Tensor& x, const std::string& ord = "fro", const std::vector<int64_t>& axes = {},
            bool keepdims = false);
Tensor vector_norm(const Tensor& x, double ord = 2.0, const std::vector<int64_t>& axes = {},
                   bool keepdims = false);
Tensor outer(const Tensor& a, const Tensor& b);
Tensor dot(const Tensor& a, const Tensor& b);

}  // namespace spire
