// Linear algebra. Matrix ops act on the last two axes and broadcast over the leading ones.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/tensor.h"

namespace spire {

// NumPy matmul semantics: 1-d operands are promoted and the added axis removed; batch axes
// broadcast. Integer operands give integer results (computed exactly, without BLAS).
Tensor matmul(const Tensor& a, const Tensor& b);
// einsum("bij,bjk->bik", {a, b}); implicit output ("ij,jk") follows NumPy: the ellipsis dimensions,
// then the letters used once, in ASCII order. Repeated letters in one operand take its diagonal;
// size-1 axes broadcast; an explicit output without "..." sums the ellipsis dimensions.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);
// a x = b. b is a vector when it is 1-d or [..., n] beside a [..., n, n] (PyTorch's rule, so
// batches of vectors work); otherwise [..., n, k]. Singular matrices raise ValueError naming the
// batch index; batch axes broadcast.
Tensor solve(const Tensor& a, const Tensor& b);
Tensor inverse(const Tensor& a);  // ValueError for singular matrices
// Lower factor L with L L^H = (a + a^H) / 2: the Hermitian part is factored (as JAX's
// symmetrize_input), so the function and its gradient are defined on every square matrix.
// ValueError (naming the batch index) when that part is not positive definite.
Tensor cholesky(const Tensor& a);
// Solves op(a) x = b, op(a) = a or a^T (not conjugated), reading only a's lower (or upper)
// triangle; b as in solve. A zero on the diagonal raises ValueError.
Tensor triangular_solve(const Tensor& a, const Tensor& b, bool lower, bool transpose_a = false);
Tensor det(const Tensor& a);  // 0 for singular matrices (no error)
// ord: "fro" (default), "1", "-1", "inf", "-inf", or a number for vectors. Without axes, "fro" is
// the 2-norm of all elements (NumPy's default); other orders need a 1-d or 2-d input. One axis: a
// vector norm ("fro" meaning 2). Two axes: a matrix norm; "2", "-2" and "nuc" need singular values
// and raise ValueError (no SVD in the engine yet).
Tensor norm(const Tensor& x, const std::string& ord = "fro", const std::vector<int64_t>& axes = {},
            bool keepdims = false);
// sum(|x|^ord)^(1/ord) over axes (all when empty); ord may be 0 (count), +-inf (max/min of |x|).
Tensor vector_norm(const Tensor& x, double ord = 2.0, const std::vector<int64_t>& axes = {},
                   bool keepdims = false);
// NumPy: outer flattens both operands; dot multiplies scalars, and otherwise contracts the last
// axis of a with the second-to-last of b (the only one when b is 1-d). Neither conjugates.
Tensor outer(const Tensor& a, const Tensor& b);
Tensor dot(const Tensor& a, const Tensor& b);

// Conjugate transpose of the last two axes (mT for real tensors).
Tensor mH(const Tensor& x);

// A well-conditioned Hermitian positive definite matrix (eigenvalues in about [1, 2.4]) of shape
// batch + [n, n], float64 or complex128: sample inputs for cholesky, solve and tests.
Tensor rules_sample_spd(const Shape& batch, int64_t n, uint64_t seed, DType dtype = DType::Float64);

}  // namespace spire
