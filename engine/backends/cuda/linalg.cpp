// CUDA kernels of the factorisation-based ops (the CPU's are engine/backends/cpu/linalg.cpp):
//   solve, inverse, det: LU with partial pivoting (cuSOLVER getrf) and getrs;
//   cholesky:            potrf of the Hermitian part (a + a^H) / 2, lower factor;
//   triangular_solve:    cuBLAS trsm on the matrices in place.
// cuSOLVER and cuBLAS are column-major: each matrix is copied once into a column-major workspace
// (which the factorisation overwrites anyway) and results are copied back row-major. Batches of
// small matrices (order <= 32) go to the batched library calls (cuBLAS getrf/getrs/trsm, cuSOLVER
// potrf: one launch per batch); larger matrices one call each. All work is on current_stream().
//
// Errors as on the CPU: a singular matrix (a zero pivot) for solve and inverse, a zero on the
// diagonal for triangular_solve, not positive definite for cholesky, each naming the first batch
// index that failed. Whether to raise depends on the data, so those four ops copy one status flag
// per matrix back to the host: their one synchronisation. det raises nothing and never waits.
#include <cusolverDn.h>

#include <algorithm>

#include "engine/backends/cpu/batched.h"
#include "engine/backends/cuda/blas_handle.h"
#include "engine/backends/cuda/linalg.h"
#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/backends/cuda/solver_handle.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

using cpu::batch_index_str;

void check_inexact(DType t) {
  SPIRE_CHECK(is_inexact(t), DTypeError, "linalg kernel: unsupported dtype ", name(t));
}

Shape batch_of(const Tensor& t) { return Shape(t.shape().begin(), t.shape().end() - 2); }

// Address of element `offset` of t's storage region starting at raw_data().
void* at(const Tensor& t, int64_t offset) { return static_cast<char*>(t.raw_data()) + offset * int64_t(t.itemsize()); }

// t viewed as batch + t's last two axes, broadcast along the batch axes (stride 0).
Tensor broadcast_batch(const Tensor& t, const Shape& batch) {
  Shape shape = batch, st = broadcast_strides(t, batch, 2);
  shape.push_back(t.shape(-2));
  shape.push_back(t.shape(-1));
  st.push_back(t.strides()[t.dim() - 2]);
  st.push_back(t.strides().back());
  return make_view(t, shape, st, t.offset());
}

// A view of w ([nb, cols, rows] contiguous: each matrix column-major) as batch + [rows, cols].
Tensor column_major_view(const Tensor& w, const Shape& batch, int64_t rows, int64_t cols) {
  Shape shape = batch;
  shape.push_back(rows);
  shape.push_back(cols);
  Shape st(shape.size());
  int64_t s = rows * cols;
  for (int64_t d = int64_t(batch.size()) - 1; d >= 0; --d) {
    st[d] = s;
    s *= batch[d];
  }
  st[batch.size()] = 1;
  st[batch.size() + 1] = rows;
  return make_view(w, shape, st, w.offset());
}

// Each matrix of t (broadcast to `batch`) copied column-major into a fresh [nb, cols, rows] tensor.
Tensor to_column_major(const Tensor& t, const Shape& batch, const char* op) {
  int64_t rows = t.shape(-2), cols = t.shape(-1);
  Tensor w = empty({numel_of(batch), cols, rows}, t.dtype(), t.device());
  copy_layout(broadcast_batch(t, batch), column_major_view(w, batch, rows, cols), op);
  return w;
}

// out (contiguous, batch + [rows, cols]) = the column-major matrices of w.
void from_column_major(const Tensor& w, Tensor& out, const char* op) {
  copy_layout(column_major_view(w, batch_of(out), out.shape(-2), out.shape(-1)), out, op);
}

// Copies one int flag per matrix to the host and returns the first nonzero index, or -1. This is
// the synchronisation the error ops need: the copy to pageable memory waits for the stream.
int64_t first_failure(const Tensor& flags, const char* op) {
  std::vector<int> host(size_t(flags.numel()));
  if (host.empty()) return -1;
  std::string what = detail::cat(op, ": reading back the per-matrix status");
  SPIRE_CUDA_CHECK(cudaMemcpyAsync(host.data(), flags.raw_data(), host.size() * sizeof(int), cudaMemcpyDeviceToHost,
                                   current_stream()),
                   what.c_str());
  SPIRE_CUDA_CHECK(cudaStreamSynchronize(current_stream()), what.c_str());
  for (size_t r = 0; r < host.size(); ++r)
    if (host[r] != 0) return int64_t(r);
  return -1;
}

Tensor device_buffer(size_t bytes, Device d) {
  return empty({std::max<int64_t>(1, int64_t((bytes + 7) / 8))}, DType::Int64, d);
}

// Matrices up to this order, in batches, go to the batched library calls (one launch for the whole
// batch); larger ones or single matrices to the per-matrix calls, one each.
constexpr int64_t kSmallMatrix = 32;

// A device array of the addresses of nb matrices of t, `step` elements apart.
Tensor pointer_table(const Tensor& t, int64_t nb, int64_t step, const char* op) {
  std::vector<uintptr_t> addresses(static_cast<size_t>(nb));
  auto base = reinterpret_cast<uintptr_t>(t.raw_data());
  for (int64_t r = 0; r < nb; ++r) addresses[r] = base + uintptr_t(r * step) * t.itemsize();
  return address_table(addresses, t.device(), op);
}

// LU factorisations (getrf, partial pivoting as the CPU's) of the nb column-major n x n matrices
// of a workspace, in place.
struct LU {
  bool batched = false;   // cuBLAS batched getrf (int32 pivots) rather than cuSOLVER (int64)
  Tensor ipiv;            // [nb, n], 1-based
  Tensor info;            // [nb] int32; > 0: a zero pivot (U exactly singular)
  Tensor table;           // batched: the matrices' addresses
  std::vector<char> host; // cuSOLVER's host workspace: must outlive the queued work
};

LU lu_factor(Tensor& w, int64_t nb, int64_t n, const char* op) {
  LU lu;
  lu.batched = nb > 1 && n <= kSmallMatrix;
  lu.ipiv = empty({nb, n}, lu.batched ? DType::Int32 : DType::Int64, w.device());
  lu.info = empty({nb}, DType::Int32, w.device());
  auto* inf = static_cast<int*>(lu.info.raw_data());
  if (lu.batched) {
    lu.table = pointer_table(w, nb, n * n, op);
    getrf_batched(w.dtype(), n, static_cast<void* const*>(lu.table.raw_data()), static_cast<int*>(lu.ipiv.raw_data()),
                  inf, nb, op);
    return lu;
  }
  cusolverDnHandle_t h = solver_handle();
  cudaDataType type = blas_type(w.dtype());
  size_t dev_bytes = 0, host_bytes = 0;
  std::string what = detail::cat("cuSOLVER getrf for '", op, "'");
  check_cusolver(cusolverDnXgetrf_bufferSize(h, solver_params(), n, n, type, w.raw_data(), n, type, &dev_bytes,
                                             &host_bytes),
                 what.c_str());
  Tensor dev = device_buffer(dev_bytes, w.device());
  lu.host.resize(host_bytes);
  auto* piv = static_cast<int64_t*>(lu.ipiv.raw_data());
  for (int64_t r = 0; r < nb; ++r)
    check_cusolver(cusolverDnXgetrf(h, solver_params(), n, n, type, at(w, r * n * n), n, piv + r * n, type,
                                    dev.raw_data(), dev_bytes, lu.host.data(), host_bytes, inf + r),
                   what.c_str());
  return lu;
}

// x[r] = A[r]^-1 x[r] for the LU factors in w: x holds nb column-major n x k right-hand sides.
void lu_solve(const Tensor& w, const LU& lu, Tensor& x, int64_t nb, int64_t n, int64_t k, const char* op) {
  if (lu.batched) {
    Tensor rhs = pointer_table(x, nb, n * k, op);
    getrs_batched(w.dtype(), n, k, static_cast<void* const*>(lu.table.raw_data()),
                  static_cast<const int*>(lu.ipiv.raw_data()), static_cast<void* const*>(rhs.raw_data()), nb, op);
    return;
  }
  cusolverDnHandle_t h = solver_handle();
  cudaDataType type = blas_type(w.dtype());
  Tensor status = empty({1}, DType::Int32, w.device());  // getrs reports only invalid arguments
  std::string what = detail::cat("cuSOLVER getrs for '", op, "'");
  auto* piv = static_cast<const int64_t*>(lu.ipiv.raw_data());
  for (int64_t r = 0; r < nb; ++r)
    check_cusolver(cusolverDnXgetrs(h, solver_params(), CUBLAS_OP_N, n, k, type, at(w, r * n * n), n, piv + r * n,
                                    type, at(x, r * n * k), n, static_cast<int*>(status.raw_data())),
                   what.c_str());
}

void raise_singular(const char* op, int64_t bad, const Shape& batch) {
  SPIRE_CHECK(bad < 0, ValueError, op, ": the matrix", batch_index_str(bad, batch),
              " is singular (a zero pivot in its LU factorisation)");
}

void solve_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& x = out[0];
  if (x.numel() == 0) return;
  check_inexact(x.dtype());
  DeviceGuard guard(x.device());
  const Shape batch = batch_of(x);
  const int64_t nb = numel_of(batch), n = x.shape(-2), k = x.shape(-1);
  Tensor w = to_column_major(in[0], batch, "solve"), rhs = to_column_major(in[1], batch, "solve");
  LU lu = lu_factor(w, nb, n, "solve");
  lu_solve(w, lu, rhs, nb, n, k, "solve");
  raise_singular("solve", first_failure(lu.info, "solve"), batch);
  from_column_major(rhs, x, "solve");
}

void inverse_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& x = out[0];
  if (x.numel() == 0) return;
  check_inexact(x.dtype());
  DeviceGuard guard(x.device());
  const Shape batch = batch_of(x);
  const int64_t nb = numel_of(batch), n = x.shape(-1);
  Tensor w = to_column_major(in[0], batch, "inverse");
  Tensor inv = empty({nb, n, n}, x.dtype(), x.device());
  check_launch(launch_identity(elem(x.dtype()), inv.raw_data(), nb, n), "inverse");
  LU lu = lu_factor(w, nb, n, "inverse");
  lu_solve(w, lu, inv, nb, n, n, "inverse");
  raise_singular("inverse", first_failure(lu.info, "inverse"), batch);
  from_column_major(inv, x, "inverse");
}

// Singular matrices are no error here: their determinant is 0 (a zero on U's diagonal).
void det_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& d = out[0];
  if (d.numel() == 0) return;
  check_inexact(d.dtype());
  DeviceGuard guard(d.device());
  const Shape batch = d.shape();
  const int64_t nb = numel_of(batch), n = in[0].shape(-1);
  if (n == 0) {  // the empty product
    check_launch(launch_identity(elem(d.dtype()), d.raw_data(), nb, 1), "det");
    return;
  }
  Tensor w = to_column_major(in[0], batch, "det");
  LU lu = lu_factor(w, nb, n, "det");
  check_launch(launch_det_from_lu(elem(d.dtype()), w.raw_data(), lu.ipiv.raw_data(), !lu.batched, d.raw_data(), nb, n),
               "det");
  // cuSOLVER's host workspace (empty for getrf in current releases) must outlive the queued work;
  // only if there is one does det wait. Device buffers are released in stream order.
  if (!lu.host.empty()) SPIRE_CUDA_CHECK(cudaStreamSynchronize(current_stream()), "det: cuSOLVER host workspace");
}

void cholesky_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& l = out[0];
  if (l.numel() == 0) return;
  check_inexact(l.dtype());
  DeviceGuard guard(l.device());
  const Shape batch = batch_of(l);
  const int64_t nb = numel_of(batch), n = l.shape(-1);
  const Elem e = elem(l.dtype());
  // The input broadcast to the batch as dense row-major matrices, then its Hermitian part
  // column-major (the matrix potrf factors; it reads only the lower triangle).
  Tensor a = empty(l.shape(), l.dtype(), l.device());
  copy_layout(broadcast_batch(in[0], batch), a, "cholesky");
  Tensor w = empty({nb, n, n}, l.dtype(), l.device());
  check_launch(launch_hermitian_part(e, a.raw_data(), w.raw_data(), nb, n), "cholesky");

  Tensor info = empty({nb}, DType::Int32, l.device());
  auto* inf = static_cast<int*>(info.raw_data());
  cusolverDnHandle_t h = solver_handle();
  std::vector<char> host;  // cuSOLVER's host workspace; outlives the queued work (first_failure waits)
  if (nb > 1 && n <= kSmallMatrix) {  // one batched call for many small matrices
    Tensor table = pointer_table(w, nb, n * n, "cholesky");
    potrf_batched(l.dtype(), n, static_cast<void* const*>(table.raw_data()), inf, nb, "cholesky");
  } else {
    cudaDataType type = blas_type(l.dtype());
    size_t dev_bytes = 0, host_bytes = 0;
    check_cusolver(cusolverDnXpotrf_bufferSize(h, solver_params(), CUBLAS_FILL_MODE_LOWER, n, type, w.raw_data(), n,
                                               type, &dev_bytes, &host_bytes),
                   "cuSOLVER potrf for 'cholesky'");
    Tensor dev = device_buffer(dev_bytes, l.device());
    host.resize(host_bytes);
    for (int64_t r = 0; r < nb; ++r)
      check_cusolver(cusolverDnXpotrf(h, solver_params(), CUBLAS_FILL_MODE_LOWER, n, type, at(w, r * n * n), n, type,
                                      dev.raw_data(), dev_bytes, host.data(), host_bytes, inf + r),
                     "cuSOLVER potrf for 'cholesky'");
  }
  check_launch(launch_cholesky_check(e, w.raw_data(), inf, nb, n), "cholesky");
  int64_t bad = first_failure(info, "cholesky");
  SPIRE_CHECK(bad < 0, ValueError, "cholesky: the matrix", batch_index_str(bad, batch), " is not positive definite");
  check_launch(launch_lower_factor(e, w.raw_data(), l.raw_data(), nb, n), "cholesky");
}

// Row-major X (n x k) is column-major X^T (k x n), so A X = B is solved as X^T op(A)^T = B^T with
// trsm from the right, in place on x. A is read where it lies when one of its last two axes has
// unit stride: row-major, cuBLAS sees M = A^T (triangle flipped); column-major, M = A.
void triangular_solve_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
  Tensor& x = out[0];
  if (x.numel() == 0) return;
  check_inexact(x.dtype());
  DeviceGuard guard(x.device());
  const bool lower = attrs.get<bool>("lower"), transpose = attrs.get<bool>("transpose_a");
  const Shape batch = batch_of(x);
  const int64_t nb = numel_of(batch), n = x.shape(-2), k = x.shape(-1);
  Tensor a = in[0];
  auto strides = [&] { return std::pair{a.strides()[a.dim() - 2], a.strides().back()}; };
  auto [sr, sc] = strides();
  bool row_major = n == 1 || (sc == 1 && sr >= n), col_major = !row_major && sr == 1 && sc >= n;
  if (!row_major && !col_major) {
    a = dense(a, "triangular_solve");
    std::tie(sr, sc) = strides();
    row_major = true;
  }
  const int64_t lda = n == 1 ? 1 : row_major ? sr : sc;
  // op(A)^T is A^T without transpose_a, A with it; M is A^T (row-major) or A (column-major).
  const bool m_transposed = row_major ? transpose : !transpose;
  const bool m_lower = row_major ? !lower : lower;

  // A zero on a diagonal is an error on the CPU (trsm would divide by it silently).
  BatchLayout layout;
  {
    Shape st(batch.size(), 0);
    int64_t tb = a.dim() - 2, lead = int64_t(batch.size()) - tb;
    for (int64_t i = 0; i < tb; ++i) st[lead + i] = a.shape()[i] == 1 ? 0 : a.strides()[i];
    for (size_t d = 0; d < batch.size(); ++d) {
      if (batch[d] == 1) continue;
      SPIRE_CHECK(layout.ndim < kMaxDims, ValueError, "triangular_solve: cuda kernel with more than ", kMaxDims,
                  " batch axes of size > 1: ", shape_str(x.shape()));
      layout.sizes[layout.ndim] = batch[d];
      layout.strides[layout.ndim] = st[d];
      ++layout.ndim;
    }
  }
  Tensor flags = empty({nb}, DType::Int32, x.device());
  check_launch(launch_zero_diagonal(elem(a.dtype()), a.raw_data(), layout, sr, sc,
                                    static_cast<int*>(flags.raw_data()), nb, n),
               "triangular_solve");

  copy_layout(broadcast_batch(in[1], batch), x, "triangular_solve");
  const cublasFillMode_t uplo = m_lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
  const cublasOperation_t op_m = m_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  auto oa = cpu::batch_offsets(a, batch);
  if (nb > 1 && n <= kSmallMatrix) {  // one batched call for many small systems
    std::vector<uintptr_t> addresses(2 * static_cast<size_t>(nb));
    for (int64_t r = 0; r < nb; ++r) {
      addresses[r] = reinterpret_cast<uintptr_t>(at(a, oa[r]));
      addresses[nb + r] = reinterpret_cast<uintptr_t>(at(x, r * n * k));
    }
    Tensor table = address_table(addresses, x.device(), "triangular_solve");
    auto* mats = static_cast<void* const*>(table.raw_data());
    trsm_batched(x.dtype(), uplo, op_m, k, n, mats, lda, mats + nb, k, nb, "triangular_solve");
  } else {
    for (int64_t r = 0; r < nb; ++r)
      trsm(x.dtype(), uplo, op_m, k, n, at(a, oa[r]), lda, at(x, r * n * k), k, "triangular_solve");
  }
  int64_t bad = first_failure(flags, "triangular_solve");
  SPIRE_CHECK(bad < 0, ValueError, "triangular_solve: the matrix", batch_index_str(bad, batch),
              " is singular (a zero on its diagonal)");
}

SPIRE_REGISTER_KERNEL("solve", DeviceKind::CUDA, solve_kernel);
SPIRE_REGISTER_KERNEL("inverse", DeviceKind::CUDA, inverse_kernel);
SPIRE_REGISTER_KERNEL("det", DeviceKind::CUDA, det_kernel);
SPIRE_REGISTER_KERNEL("cholesky", DeviceKind::CUDA, cholesky_kernel);
SPIRE_REGISTER_KERNEL("triangular_solve", DeviceKind::CUDA, triangular_solve_kernel);

}  // namespace
}  // namespace spire::cuda
