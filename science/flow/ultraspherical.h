// The ultraspherical spectral method of Olver & Townsend (SIAM Review 2013), as Dedalus uses it for
// bounded intervals: a derivative of order d maps Chebyshev T coefficients to ultraspherical
// C^(d) coefficients with one sparse diagonal, and conversions C^(l) -> C^(l+1) are sparse too, so
// an equation of x order K written in C^(K) gives banded, well-conditioned matrices. Everything
// here is on the reference interval xi in [-1, 1]; the caller scales derivatives by 2/(x1 - x0).
//
// All matrices are the n x n truncations. They are exact on polynomials of degree < n because
// conversions are upper triangular and derivatives shift coefficients down.
#pragma once
#include <Eigen/Sparse>

#include <complex>

namespace spire::flow::ultraspherical {

using Sparse = Eigen::SparseMatrix<double>;

// S_0: T -> C^(1); S_l: C^(l) -> C^(l+1) for l >= 1.
Sparse conversion(int lambda, int n);

// D_d: T -> C^(d), the d-th derivative in xi (d >= 1); the identity for d = 0.
Sparse derivative(int order, int n);

// d^order/dxi^order from T coefficients to C^(K) coefficients: S_{K-1} ... S_order D_order
// (order 0: S_{K-1} ... S_0; the identity when K = 0). Needs order <= K.
Sparse operator_matrix(int order, int K, int n);

// Converts coefficients in place from C^(from) to C^(to) (0 stands for T), with no allocation:
// each S has entries on the diagonal and the second superdiagonal only, so an ascending sweep
// reads every input before overwriting it.
void convert(std::complex<double>* c, int n, int from, int to);

// The row of a*u(side) + b*u'(side) acting on T coefficients (side 0: xi = -1, 1: xi = +1), with
// u' = dxi_dx * du/dxi: T_i(+-1) = (+-1)^i, T_i'(+-1) = (+-1)^(i+1) i^2.
void boundary_row(double* row, int n, int side, double a, double b, double dxi_dx);

}  // namespace spire::flow::ultraspherical
