#include "science/flow/ultraspherical.h"

#include <vector>

#include "engine/core/error.h"

namespace spire::flow::ultraspherical {

namespace {
// S_lambda's diagonal and second superdiagonal entries in row i:
//   T_0 = C1_0, T_i = (C1_i - C1_{i-2}) / 2                      (lambda = 0)
//   C^l_i = l / (i + l) (C^{l+1}_i - C^{l+1}_{i-2})            (lambda >= 1)
inline double diagonal(int lambda, int i) {
  if (lambda == 0) return i == 0 ? 1.0 : 0.5;
  return double(lambda) / double(i + lambda);
}
inline double super2(int lambda, int i) {
  if (lambda == 0) return -0.5;
  return -double(lambda) / double(i + 2 + lambda);
}
}  // namespace

Sparse conversion(int lambda, int n) {
  SPIRE_CHECK(lambda >= 0 && n >= 1, ValueError, "ultraspherical conversion: lambda ", lambda,
              " and n ", n, " must be >= 0 and >= 1");
  std::vector<Eigen::Triplet<double>> t;
  t.reserve(2 * size_t(n));
  for (int i = 0; i < n; ++i) {
    t.emplace_back(i, i, diagonal(lambda, i));
    if (i + 2 < n) t.emplace_back(i, i + 2, super2(lambda, i));
  }
  Sparse s(n, n);
  s.setFromTriplets(t.begin(), t.end());
  return s;
}

Sparse derivative(int order, int n) {
  SPIRE_CHECK(order >= 0, ValueError, "ultraspherical derivative: order ", order, " must be >= 0");
  Sparse d(n, n);
  if (order == 0) {
    d.setIdentity();
    return d;
  }
  // d^k/dxi^k T_i = 2^(k-1) (k-1)! i C^(k)_{i-k}
  double factor = 1;
  for (int k = 1; k < order; ++k) factor *= 2.0 * k;
  std::vector<Eigen::Triplet<double>> t;
  for (int i = order; i < n; ++i) t.emplace_back(i - order, i, factor * i);
  d.setFromTriplets(t.begin(), t.end());
  return d;
}

Sparse operator_matrix(int order, int K, int n) {
  SPIRE_CHECK(order >= 0 && order <= K, ValueError, "ultraspherical operator: derivative order ",
              order, " exceeds the basis order ", K);
  Sparse a = derivative(order, n);
  for (int l = order; l < K; ++l) a = Sparse(conversion(l, n) * a);
  return a;
}

void convert(std::complex<double>* c, int n, int from, int to) {
  for (int l = from; l < to; ++l)
    for (int i = 0; i < n; ++i) {
      std::complex<double> v = diagonal(l, i) * c[i];
      if (i + 2 < n) v += super2(l, i) * c[i + 2];
      c[i] = v;
    }
}

void boundary_row(double* row, int n, int side, double a, double b, double dxi_dx) {
  const double s = side == 0 ? -1.0 : 1.0;
  double sign = 1;  // s^i
  for (int i = 0; i < n; ++i) {
    const double di = double(i);
    row[i] = a * sign + b * dxi_dx * sign * s * di * di;
    sign *= s;
  }
}

}  // namespace spire::flow::ultraspherical
