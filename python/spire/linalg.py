"""Linear algebra on the last two axes, batched over the leading ones (solve, inv, cholesky, det,
solve_triangular, norms). Differentiable."""

from ._C.linalg import *  # noqa: F401,F403
from ._C.linalg import (cholesky, det, dot, inv, inverse, matmul, matrix_norm, norm, outer, solve,
                        solve_triangular, vector_norm)

__all__ = ["cholesky", "det", "dot", "inv", "inverse", "matmul", "matrix_norm", "norm", "outer",
           "solve", "solve_triangular", "vector_norm"]
