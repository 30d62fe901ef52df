// CPU kernels of the factorisation-based ops, one Eigen factorisation per batch matrix (Eigen hands
// its blocked updates to BLAS under EIGEN_USE_BLAS). Batches of small matrices run in parallel;
// large ones run one at a time with BLAS threading inside. Singular and non-positive-definite
// inputs are reported after the loop, naming the first batch index that failed.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "engine/backends/cpu/batched.h"
#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

// Matrices up to this order are factorised in parallel over the batch (one per thread, unblocked).
constexpr int64_t kSmallMatrix = 32;

template <class T>
using ColMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using DynStride = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
template <class T>
using InMap = Eigen::Map<const RowMat<T>, 0, DynStride>;
template <class T>
using OutMap = Eigen::Map<RowMat<T>>;

// The matrix of `t` at element offset `off` (any strides, including broadcast zeros).
template <class T>
InMap<T> matrix_at(const Tensor& t, int64_t off) {
  return InMap<T>(t.data<T>() + off, t.shape(-2), t.shape(-1),
                  DynStride(t.strides()[t.dim() - 2], t.strides().back()));
}

template <class F>
void visit_inexact(DType t, F&& f) {
  switch (t) {
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
    case DType::Complex64: return f.template operator()<c64>();
    case DType::Complex128: return f.template operator()<c128>();
    default: SPIRE_CHECK(false, DTypeError, "linalg kernel: unsupported dtype ", name(t));
  }
}

// Runs ok(r) for every batch r; returns the first r for which it returned false, or -1.
template <class F>
int64_t for_each_matrix(int64_t nb, int64_t n, F ok) {
  int64_t bad = nb;
  bool parallel = nb > 1 && n <= kSmallMatrix && nb * n * n * n >= kParallelGrain;
  if (!parallel) {  // serial without entering the OpenMP runtime (costs ~1 us)
    for (int64_t r = 0; r < nb; ++r)
      if (!ok(r)) bad = std::min(bad, r);
  } else {
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (int64_t r = 0; r < nb; ++r)
      if (!ok(r)) bad = std::min(bad, r);
  }
  return bad == nb ? -1 : bad;
}

// Runs f on a factorisation object of type W: a per-thread one reused across calls for small
// matrices (no allocations per batch), a fresh one for large matrices (no thread keeps big buffers).
template <class W, class F>
bool with_workspace(int64_t n, F&& f) {
  if (n <= kSmallMatrix) {
    static thread_local W w;
    return f(w);
  }
  W w;
  return f(w);
}

template <class M>
bool zero_on_diagonal(const M& m) {
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    if (m(i, i) == typename M::Scalar(0)) return true;
  return false;
}

Shape batch_of(const Tensor& t, int64_t core = 2) { return Shape(t.shape().begin(), t.shape().end() - core); }

// LU-factorises matrix r of `a` (batch offsets `oa`) for every r in the batch and hands the
// factorisation to write(r, lu); a zero pivot is reported as singular, naming `op` and the batch.
template <class T, class Write>
void for_each_lu(const char* op, const Tensor& a, const Shape& batch, int64_t n, Write&& write) {
  auto oa = batch_offsets(a, batch);
  int64_t bad = for_each_matrix(numel_of(batch), n, [&](int64_t r) {
    return with_workspace<Eigen::PartialPivLU<ColMat<T>>>(n, [&](auto& lu) {
      lu.compute(matrix_at<T>(a, oa[r]));
      if (zero_on_diagonal(lu.matrixLU())) return false;
      write(r, lu);
      return true;
    });
  });
  SPIRE_CHECK(bad < 0, ValueError, op, ": the matrix", batch_index_str(bad, batch),
              " is singular (a zero pivot in its LU factorisation)");
}

void solve_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& x = out[0];
  if (x.numel() == 0) return;
  const Shape batch = batch_of(x);
  const int64_t n = x.shape(-2), k = x.shape(-1);
  visit_inexact(x.dtype(), [&]<class T>() {
    auto ob = batch_offsets(in[1], batch);
    T* px = x.data<T>();
    for_each_lu<T>("solve", in[0], batch, n, [&](int64_t r, auto& lu) {
      OutMap<T>(px + r * n * k, n, k) = lu.solve(matrix_at<T>(in[1], ob[r]));
    });
  });
}

void inverse_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& x = out[0];
  if (x.numel() == 0) return;
  const Shape batch = batch_of(x);
  const int64_t n = x.shape(-1);
  visit_inexact(x.dtype(), [&]<class T>() {
    T* px = x.data<T>();
    for_each_lu<T>("inverse", in[0], batch, n,
                   [&](int64_t r, auto& lu) { OutMap<T>(px + r * n * n, n, n) = lu.inverse(); });
  });
}

// Singular matrices are no error here: their determinant is 0.
void det_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& d = out[0];
  if (d.numel() == 0) return;
  const Shape batch = d.shape();
  const int64_t n = in[0].shape(-1);
  visit_inexact(d.dtype(), [&]<class T>() {
    auto oa = batch_offsets(in[0], batch);
    T* pd = d.data<T>();
    for_each_matrix(numel_of(batch), n, [&](int64_t r) {
      if (n == 0) {
        pd[r] = T(1);
        return true;
      }
      return with_workspace<Eigen::PartialPivLU<ColMat<T>>>(n, [&](auto& lu) {
        lu.compute(matrix_at<T>(in[0], oa[r]));
        pd[r] = lu.determinant();
        return true;
      });
    });
  });
}

void cholesky_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& l = out[0];
  if (l.numel() == 0) return;
  const Shape batch = batch_of(l);
  const int64_t n = l.shape(-1);
  visit_inexact(l.dtype(), [&]<class T>() {
    using Real = typename Eigen::NumTraits<T>::Real;
    auto oa = batch_offsets(in[0], batch);
    T* pl = l.data<T>();
    int64_t bad = for_each_matrix(numel_of(batch), n, [&](int64_t r) {
      return with_workspace<Eigen::LLT<ColMat<T>, Eigen::Lower>>(n, [&](auto& llt) {
        auto a = matrix_at<T>(in[0], oa[r]);
        llt.compute((a + a.adjoint()) * Real(0.5));  // the op factors the Hermitian part
        if (llt.info() != Eigen::Success) return false;
        OutMap<T> L(pl + r * n * n, n, n);
        L = llt.matrixL();
        for (int64_t i = 0; i < n; ++i)
          if (!(std::real(L(i, i)) > Real(0)) || !std::isfinite(std::real(L(i, i)))) return false;
        return true;
      });
    });
    SPIRE_CHECK(bad < 0, ValueError, "cholesky: the matrix", batch_index_str(bad, batch),
                " is not positive definite");
  });
}

void triangular_solve_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
  Tensor& x = out[0];
  if (x.numel() == 0) return;
  const bool lower = attrs.get<bool>("lower"), transpose = attrs.get<bool>("transpose_a");
  const Shape batch = batch_of(x);
  const int64_t n = x.shape(-2), k = x.shape(-1);
  visit_inexact(x.dtype(), [&]<class T>() {
    auto oa = batch_offsets(in[0], batch), ob = batch_offsets(in[1], batch);
    T* px = x.data<T>();
    int64_t bad = for_each_matrix(numel_of(batch), n, [&](int64_t r) {
      return with_workspace<ColMat<T>>(n, [&](ColMat<T>& a) {
        // A contiguous copy of A: Eigen's triangular solver wants unit inner stride.
        a = matrix_at<T>(in[0], oa[r]);
        if (zero_on_diagonal(a)) return false;
        OutMap<T> X(px + r * n * k, n, k);
        X = matrix_at<T>(in[1], ob[r]);
        // op(A) is lower triangular when A is lower and not transposed, or upper and transposed.
        if (transpose) {
          if (lower) a.transpose().template triangularView<Eigen::Upper>().solveInPlace(X);
          else a.transpose().template triangularView<Eigen::Lower>().solveInPlace(X);
        } else {
          if (lower) a.template triangularView<Eigen::Lower>().solveInPlace(X);
          else a.template triangularView<Eigen::Upper>().solveInPlace(X);
        }
        return true;
      });
    });
    SPIRE_CHECK(bad < 0, ValueError, "triangular_solve: the matrix", batch_index_str(bad, batch),
                " is singular (a zero on its diagonal)");
  });
}

SPIRE_REGISTER_KERNEL("solve", DeviceKind::CPU, solve_kernel);
SPIRE_REGISTER_KERNEL("inverse", DeviceKind::CPU, inverse_kernel);
SPIRE_REGISTER_KERNEL("det", DeviceKind::CPU, det_kernel);
SPIRE_REGISTER_KERNEL("cholesky", DeviceKind::CPU, cholesky_kernel);
SPIRE_REGISTER_KERNEL("triangular_solve", DeviceKind::CPU, triangular_solve_kernel);

}  // namespace
}  // namespace spire::cpu
