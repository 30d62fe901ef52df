// CPU matmul: batched GEMM over [..., m, k] x [..., k, n] with broadcast batch axes.
// Floating types go to BLAS, reading transposed or strided operands in place (transA/transB and
// lda) whenever the last two axes allow it; a batch over a shared right operand is folded into
// one tall GEMM; many small products run in parallel over the batch with an unblocked kernel,
// since OpenBLAS threads only inside one call. Integer types use Eigen's own product.
#include <cblas.h>

#include <Eigen/Core>
#include <algorithm>
#include <climits>
#include <optional>

#include "engine/backends/cpu/batched.h"
#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

// Below this many multiply-adds per product, a batch is spread over threads, one product each.
constexpr int64_t kSmallGemm = 32 * 32 * 32;

template <class T>
void gemm(bool ta, bool tb, int m, int n, int k, const T* a, int lda, const T* b, int ldb, T* c, int ldc) {
  auto A = ta ? CblasTrans : CblasNoTrans;
  auto B = tb ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, A, B, m, n, k, 1.0f, a, lda, b, ldb, 0.0f, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, A, B, m, n, k, 1.0, a, lda, b, ldb, 0.0, c, ldc);
  } else {
    const T one(1), zero(0);
    if constexpr (std::is_same_v<T, c64>)
      cblas_cgemm(CblasRowMajor, A, B, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
    else
      cblas_zgemm(CblasRowMajor, A, B, m, n, k, &one, a, lda, b, ldb, &zero, c, ldc);
  }
}

// y = op(A) x for a stored rows x cols row-major A; y is contiguous.
template <class T>
void gemv(bool ta, int rows, int cols, const T* a, int lda, const T* x, int incx, T* y) {
  auto A = ta ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemv(CblasRowMajor, A, rows, cols, 1.0f, a, lda, x, incx, 0.0f, y, 1);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemv(CblasRowMajor, A, rows, cols, 1.0, a, lda, x, incx, 0.0, y, 1);
  } else {
    const T one(1), zero(0);
    if constexpr (std::is_same_v<T, c64>)
      cblas_cgemv(CblasRowMajor, A, rows, cols, &one, a, lda, x, incx, &zero, y, 1);
    else
      cblas_zgemv(CblasRowMajor, A, rows, cols, &one, a, lda, x, incx, &zero, y, 1);
  }
}

template <class T>
using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T>
using StridedMap = Eigen::Map<const RowMat<T>, 0, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>>;

// One product with Eigen's blocked GEMM, any strides (including 0); for integer types.
template <class T>
void eigen_product(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, int64_t sar, int64_t sac,
                   int64_t sbr, int64_t sbc) {
  StridedMap<T> A(a, m, k, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(sar, sac));
  StridedMap<T> B(b, k, n, Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>(sbr, sbc));
  Eigen::Map<RowMat<T>> C(c, m, n);
  C.noalias() = A * B;
}

// acc += a * b; complex without the Inf/NaN recovery of operator* (BLAS does none either), so it
// vectorises.
template <class T>
inline void mul_add(T& acc, T a, T b) {
  if constexpr (is_complex_v<T>)
    acc = T(acc.real() + a.real() * b.real() - a.imag() * b.imag(),
            acc.imag() + a.real() * b.imag() + a.imag() * b.real());
  else
    acc += a * b;
}

// A block of MR rows by NR columns of C, accumulated in registers over the summed index in
// ascending order (a fixed order: the same bits on any thread).
template <int MR, int NR, class T>
inline void small_block(const T* a, int64_t sar, int64_t sac, const T* b, int64_t sbr, T* c, int64_t ldc,
                        int64_t k) {
  T acc[MR][NR] = {};
  for (int64_t p = 0; p < k; ++p) {
    const T* bp = b + p * sbr;
    for (int r = 0; r < MR; ++r) {
      const T ap = a[r * sar + p * sac];
      if constexpr (is_complex_v<T>) {
        for (int j = 0; j < NR; ++j) mul_add(acc[r][j], ap, bp[j]);
      } else {
#pragma omp simd
        for (int j = 0; j < NR; ++j) acc[r][j] += ap * bp[j];
      }
    }
  }
  for (int r = 0; r < MR; ++r)
    for (int j = 0; j < NR; ++j) c[r * ldc + j] = acc[r][j];
}

template <int NR, class T>
inline void small_panel(const T* a, int64_t sar, int64_t sac, const T* b, int64_t sbr, T* c, int64_t m,
                        int64_t n, int64_t k) {
  int64_t i = 0;
  for (; i + 4 <= m; i += 4) small_block<4, NR>(a + i * sar, sar, sac, b, sbr, c + i * n, n, k);
  for (; i < m; ++i) small_block<1, NR>(a + i * sar, sar, sac, b, sbr, c + i * n, n, k);
}

// One small product, unblocked, B's rows read contiguously (from `scratch`, k * n elements, when
// B's columns are strided).
template <class T>
void small_product(const T* a, const T* b, T* c, int64_t m, int64_t n, int64_t k, int64_t sar, int64_t sac,
                   int64_t sbr, int64_t sbc, T* scratch) {
  if (sbc != 1 && n > 1) {
    for (int64_t p = 0; p < k; ++p)
      for (int64_t j = 0; j < n; ++j) scratch[p * n + j] = b[p * sbr + j * sbc];
    b = scratch;
    sbr = n;
  }
  // Column panels of 16, 8, 4 and 1: widths known at compile time keep the accumulators in registers.
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) small_panel<16>(a, sar, sac, b + j, sbr, c + j, m, n, k);
  for (; j + 8 <= n; j += 8) small_panel<8>(a, sar, sac, b + j, sbr, c + j, m, n, k);
  for (; j + 4 <= n; j += 4) small_panel<4>(a, sar, sac, b + j, sbr, c + j, m, n, k);
  for (; j < n; ++j) small_panel<1>(a, sar, sac, b + j, sbr, c + j, m, n, k);
}

template <class T>
void blas_matmul(Tensor a, Tensor b, Tensor& c) {
  const int64_t m = c.shape(-2), n = c.shape(-1), k = a.shape(-1);
  const Shape batch(c.shape().begin(), c.shape().end() - 2);
  const int64_t nb = numel_of(batch);
  T* pc = c.data<T>();

  BlasView va = blas_view(a), vb = blas_view(b);
  SPIRE_CHECK(m <= INT_MAX && n <= INT_MAX && k <= INT_MAX, ValueError,
              "matmul: dimensions beyond the 32-bit range of BLAS: ", shape_str(a.shape()), " @ ",
              shape_str(b.shape()));

  // A batch against one shared right operand: one tall GEMM with the batch folded into m.
  if (nb > 1 && va.ok && vb.ok && !va.trans && all_broadcast(b)) {
    if (auto s = merged_row_stride(a, batch);
        s && *s >= std::max<int64_t>(1, k) && *s <= INT_MAX && vb.ld <= INT_MAX && nb * m <= INT_MAX) {
      gemm<T>(false, vb.trans, int(nb * m), int(n), int(k), a.data<T>(), int(*s), b.data<T>(), int(vb.ld), pc,
              int(n));
      return;
    }
  }

  // Many small products: one per thread, unblocked, whatever the strides.
  if (nb > 1 && m * n * k <= kSmallGemm) {
    auto oa = batch_offsets(a, batch), ob = batch_offsets(b, batch);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    int64_t sar = a.strides()[a.dim() - 2], sac = a.strides().back();
    int64_t sbr = b.strides()[b.dim() - 2], sbc = b.strides().back();
    size_t scratch_size = sbc != 1 ? size_t(k * n) : 0;
    auto product = [&](int64_t r, T* scratch) {
      small_product(pa + oa[r], pb + ob[r], pc + r * m * n, m, n, k, sar, sac, sbr, sbc, scratch);
    };
    // A serial branch of its own: even `omp parallel if(false)` enters the OpenMP runtime.
    if (nb * m * n * k < kParallelGrain) {
      std::vector<T> scratch(scratch_size);
      for (int64_t r = 0; r < nb; ++r) product(r, scratch.data());
      return;
    }
#pragma omp parallel
    {
      std::vector<T> scratch(scratch_size);
#pragma omp for schedule(static)
      for (int64_t r = 0; r < nb; ++r) product(r, scratch.data());
    }
    return;
  }

  // Layouts BLAS cannot read (broadcast rows, gathered slices) are made contiguous once.
  if (!va.ok) {
    Tensor t = empty(a.shape(), a.dtype());
    copy_into(a, t);
    a = t;
    va = blas_view(a);
  }
  if (!vb.ok) {
    Tensor t = empty(b.shape(), b.dtype());
    copy_into(b, t);
    b = t;
    vb = blas_view(b);
  }
  SPIRE_CHECK(va.ld <= INT_MAX && vb.ld <= INT_MAX, ValueError, "matmul: strides beyond the 32-bit range of BLAS");
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();

  auto oa = batch_offsets(a, batch), ob = batch_offsets(b, batch);
  int64_t sbr = b.strides()[b.dim() - 2], sac = a.strides().back();
  for (int64_t r = 0; r < nb; ++r) {
    const T* A = pa + oa[r];
    const T* B = pb + ob[r];
    T* C = pc + r * m * n;
    // Matrix-vector products: GEMV streams the matrix once (GEMM with n = 1 packs it first).
    if (n == 1 && k > 1 && sbr > 0) {
      if (va.trans) gemv<T>(true, int(k), int(m), A, int(va.ld), B, int(sbr), C);
      else gemv<T>(false, int(m), int(k), A, int(va.ld), B, int(sbr), C);
    } else if (m == 1 && k > 1 && n > 1 && sac > 0) {
      if (vb.trans) gemv<T>(false, int(n), int(k), B, int(vb.ld), A, int(sac), C);
      else gemv<T>(true, int(k), int(n), B, int(vb.ld), A, int(sac), C);
    } else {
      gemm<T>(va.trans, vb.trans, int(m), int(n), int(k), A, int(va.ld), B, int(vb.ld), C, int(n));
    }
  }
}

template <class T>
void generic_matmul(const Tensor& a, const Tensor& b, Tensor& c) {
  const int64_t m = c.shape(-2), n = c.shape(-1), k = a.shape(-1);
  const Shape batch(c.shape().begin(), c.shape().end() - 2);
  const int64_t nb = numel_of(batch);
  auto oa = batch_offsets(a, batch), ob = batch_offsets(b, batch);
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* pc = c.data<T>();
  int64_t sar = a.strides()[a.dim() - 2], sac = a.strides().back();
  int64_t sbr = b.strides()[b.dim() - 2], sbc = b.strides().back();
  parallel_for(nb, nb * m * n * k, [&](int64_t r) {
    const T* A = pa + oa[r];
    const T* B = pb + ob[r];
    T* C = pc + r * m * n;
    if constexpr (std::is_same_v<T, bool>) {
      // NumPy: a boolean product is "any (a and b)".
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          bool acc = false;
          for (int64_t p = 0; p < k && !acc; ++p) acc = A[i * sar + p * sac] && B[p * sbr + j * sbc];
          C[i * n + j] = acc;
        }
    } else {
      eigen_product(A, B, C, m, n, k, sar, sac, sbr, sbc);
    }
  });
}

void matmul_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& c = out[0];
  if (c.numel() == 0) return;
  visit_dtype(c.dtype(), [&]<class T>() {
    if (in[0].shape(-1) == 0) {
      std::fill(c.data<T>(), c.data<T>() + c.numel(), T(0));
      return;
    }
    if constexpr (std::is_floating_point_v<T> || is_complex_v<T>) blas_matmul<T>(in[0], in[1], c);
    else generic_matmul<T>(in[0], in[1], c);
  });
}

SPIRE_REGISTER_KERNEL("matmul", DeviceKind::CPU, matmul_kernel);

}  // namespace
}  // namespace spire::cpu
