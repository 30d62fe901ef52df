// Norms, dot and outer: composites of elementwise ops, reductions and matmul (no rules of their own).
#include <cmath>
#include <limits>

#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {

// |x|^2 without the kink of abs at 0 (so the 2-norm's square is smooth everywhere).
Tensor abs_squared(const Tensor& x) { return is_complex(x.dtype()) ? real(mul(x, conj(x))) : mul(x, x); }

// The shape a keepdims=true reduction result takes when keepdims is false.
Tensor finish(const Tensor& r, const Shape& in_shape, const Axes& axes, bool keepdims) {
  return keepdims ? r : reshape(r, reduced_shape(in_shape, axes, false));
}

double parse_vector_ord(const std::string& ord) {
  if (ord == "fro" || ord == "2") return 2.0;  // "fro" is the default: on one axis it is the 2-norm
  if (ord == "inf") return std::numeric_limits<double>::infinity();
  if (ord == "-inf") return -std::numeric_limits<double>::infinity();
  size_t used = 0;
  double p = 0.0;
  try {
    p = std::stod(ord, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  SPIRE_CHECK(used == ord.size() && !ord.empty(), ValueError, "norm: invalid order '", ord,
              "' for a vector norm; allowed: a number, \"inf\", \"-inf\" (\"nuc\" is for matrices)");
  return p;
}

Tensor matrix_norm(const Tensor& x, const std::string& ord, int64_t r, int64_t c, bool keepdims) {
  Axes both = normalize_axes({r, c}, x.dim(), "norm");
  if (ord == "fro") return sqrt(sum(abs_squared(x), both, keepdims));
  if (ord == "1" || ord == "-1" || ord == "inf" || ord == "-inf") {
    // "1": the largest column sum of |x| (sum over rows, extreme over columns); "inf": rows.
    bool columns = ord == "1" || ord == "-1";
    Tensor s = sum(abs(x), {columns ? r : c}, true);
    Tensor e = ord[0] == '-' ? amin(s, {columns ? c : r}, true) : amax(s, {columns ? c : r}, true);
    return finish(e, x.shape(), both, keepdims);
  }
  SPIRE_CHECK(ord != "2" && ord != "-2" && ord != "nuc", ValueError, "norm: matrix order '", ord,
              "' needs singular values, which the engine does not compute yet (no SVD); use \"fro\", "
              "\"1\", \"-1\", \"inf\" or \"-inf\"");
  SPIRE_CHECK(false, ValueError, "norm: invalid matrix order '", ord,
              "'; allowed: \"fro\", \"1\", \"-1\", \"inf\", \"-inf\" (\"2\" and \"nuc\" need an SVD)");
  return Tensor();
}

}  // namespace

Tensor vector_norm(const Tensor& x_in, double ord, const std::vector<int64_t>& axes, bool keepdims) {
  Tensor x = rules::as_inexact(x_in);
  Axes ax = normalize_axes(axes, x.dim(), "vector_norm");
  if (ord == 2.0) return sqrt(sum(abs_squared(x), ax, keepdims));
  if (ord == 1.0) return sum(abs(x), ax, keepdims);
  if (std::isinf(ord)) return ord > 0 ? amax(abs(x), ax, keepdims) : amin(abs(x), ax, keepdims);
  if (ord == 0.0) return sum(cast(ne(x, zeros_like(x)), real_dtype(x.dtype())), ax, keepdims);
  SPIRE_CHECK(!std::isnan(ord), ValueError, "vector_norm: the order is NaN");
  return pow(sum(pow(abs(x), ord), ax, keepdims), 1.0 / ord);
}

Tensor norm(const Tensor& x_in, const std::string& ord, const std::vector<int64_t>& axes, bool keepdims) {
  Tensor x = rules::as_inexact(x_in);
  if (axes.empty()) {
    // NumPy: without axes, the default order is the 2-norm of all elements (Frobenius for matrices).
    if (ord == "fro" && x.dim() != 1) return vector_norm(x, 2.0, {}, keepdims);
    SPIRE_CHECK(x.dim() == 1 || x.dim() == 2, ShapeError, "norm: order '", ord,
                "' without axes needs a 1-d or 2-d input, got shape ", shape_str(x.shape()));
    if (x.dim() == 1) return vector_norm(x, parse_vector_ord(ord), {0}, keepdims);
    return matrix_norm(x, ord, 0, 1, keepdims);
  }
  if (axes.size() == 1) return vector_norm(x, parse_vector_ord(ord), axes, keepdims);
  SPIRE_CHECK(axes.size() == 2, ShapeError, "norm: axes must name 1 (vector) or 2 (matrix) axes, got ",
              axes.size());
  int64_t r = normalize_axis(axes[0], x.dim(), "norm"), c = normalize_axis(axes[1], x.dim(), "norm");
  SPIRE_CHECK(r != c, ShapeError, "norm: the two matrix axes are the same (", axes[0], ", ", axes[1], ")");
  return matrix_norm(x, ord, r, c, keepdims);
}

Tensor outer(const Tensor& a, const Tensor& b) {
  // NumPy flattens both operands; no conjugation.
  return mul(reshape(a, {a.numel(), 1}), reshape(b, {1, b.numel()}));
}

Tensor dot(const Tensor& a, const Tensor& b) {
  // NumPy's dot: scalars multiply; otherwise the last axis of a meets the second-to-last of b
  // (the only axis when b is 1-d), and the remaining axes of both are kept, a's first.
  if (a.dim() == 0 || b.dim() == 0) return mul(a, b);
  if (b.dim() == 1 || (a.dim() <= 2 && b.dim() == 2)) return matmul(a, b);
  int64_t k = a.shape(-1);
  SPIRE_CHECK(k == b.shape(-2), ShapeError, "dot: shapes ", shape_str(a.shape()), " and ", shape_str(b.shape()),
              " are not aligned (", k, " vs ", b.shape(-2), ")");
  std::vector<int64_t> perm{b.dim() - 2};
  for (int64_t i = 0; i < b.dim() - 2; ++i) perm.push_back(i);
  perm.push_back(b.dim() - 1);
  Shape out(a.shape().begin(), a.shape().end() - 1);
  out.insert(out.end(), b.shape().begin(), b.shape().end() - 2);
  out.push_back(b.shape(-1));
  int64_t rows = numel_of(Shape(a.shape().begin(), a.shape().end() - 1));
  int64_t cols = numel_of(Shape(b.shape().begin(), b.shape().end() - 2)) * b.shape(-1);
  Tensor r = matmul(reshape(a, {rows, k}), reshape(permute(b, perm), {k, cols}));
  return reshape(r, out);
}

}  // namespace spire
