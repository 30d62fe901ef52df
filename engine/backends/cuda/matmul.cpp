// CUDA matmul: batched GEMM over [..., m, k] x [..., k, n] with broadcast batch axes, the same
// cases as the CPU kernel (engine/backends/cpu/matmul.cpp). Inexact types go to cuBLAS, reading
// transposed or strided operands in place whenever the last two axes allow it:
//   - a batch against one shared right operand (a linear layer) folds into one tall GEMM;
//   - batches at constant element strides (0 for a broadcast operand) are one strided-batched GEMM;
//   - any other broadcast pattern is one batched GEMM over arrays of matrix addresses.
// Integer and boolean types use a kernel of their own (matmul.cu).
#include <algorithm>
#include <optional>

#include "engine/backends/cpu/batched.h"
#include "engine/backends/cuda/blas_handle.h"
#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/matmul.h"
#include "engine/backends/cuda/runtime.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

using cpu::all_broadcast;
using cpu::batch_offsets;
using cpu::blas_view;
using cpu::BlasView;
using cpu::merged_row_stride;

// The step s >= 0 when t's matrix for flat batch index r starts r * s elements after its first
// (every batch axis of size > 1 nests in the next, or all broadcast: s = 0); else nothing.
std::optional<int64_t> batch_step(const Tensor& t, const Shape& batch) {
  const Shape st = broadcast_strides(t, batch, 2);
  std::vector<std::pair<int64_t, int64_t>> dims;  // (size, stride), size > 1
  bool all_zero = true;
  for (size_t d = 0; d < batch.size(); ++d)
    if (batch[d] > 1) {
      dims.push_back({batch[d], st[d]});
      all_zero &= st[d] == 0;
    }
  if (dims.empty() || all_zero) return int64_t(0);
  for (size_t i = 0; i + 1 < dims.size(); ++i)
    if (dims[i].second != dims[i + 1].second * dims[i + 1].first) return std::nullopt;
  if (dims.back().second < 0) return std::nullopt;
  return dims.back().second;
}

void blas_matmul(Tensor a, Tensor b, Tensor& c) {
  const int64_t m = c.shape(-2), n = c.shape(-1), k = a.shape(-1);
  const Shape batch(c.shape().begin(), c.shape().end() - 2);
  const int64_t nb = numel_of(batch);
  BlasView va = blas_view(a), vb = blas_view(b);

  GemmArgs g;
  g.dtype = c.dtype();
  g.m = m, g.n = n, g.k = k;
  g.c = c.raw_data(), g.ldc = n, g.stride_c = m * n;

  // A batch against one shared right operand: one tall GEMM with the batch folded into m.
  if (nb > 1 && va.ok && vb.ok && !va.trans && all_broadcast(b)) {
    if (auto s = merged_row_stride(a, batch); s && *s >= std::max<int64_t>(1, k)) {
      g.m = nb * m;
      g.a = a.raw_data(), g.lda = *s;
      g.b = b.raw_data(), g.tb = vb.trans, g.ldb = vb.ld;
      gemm(g, "matmul");
      return;
    }
  }

  // Layouts cuBLAS cannot read (broadcast rows, gathered slices) are made contiguous once.
  if (!va.ok) {
    a = dense(a, "matmul");
    va = blas_view(a);
  }
  if (!vb.ok) {
    b = dense(b, "matmul");
    vb = blas_view(b);
  }
  g.a = a.raw_data(), g.ta = va.trans, g.lda = va.ld;
  g.b = b.raw_data(), g.tb = vb.trans, g.ldb = vb.ld;
  g.batch = nb;
  auto sa = batch_step(a, batch), sb = batch_step(b, batch);
  if (sa && sb) {
    g.stride_a = *sa, g.stride_b = *sb;
    gemm(g, "matmul");
    return;
  }

  // Batch axes that broadcast in no single stride: cuBLAS reads each matrix's address from device
  // arrays [A..., B..., C...].
  const auto oa = batch_offsets(a, batch), ob = batch_offsets(b, batch);
  const size_t item = c.itemsize();
  std::vector<uintptr_t> ptrs(3 * size_t(nb));
  auto base_a = reinterpret_cast<uintptr_t>(a.raw_data()), base_b = reinterpret_cast<uintptr_t>(b.raw_data()),
       base_c = reinterpret_cast<uintptr_t>(c.raw_data());
  for (int64_t r = 0; r < nb; ++r) {
    ptrs[r] = base_a + uintptr_t(oa[r]) * item;
    ptrs[nb + r] = base_b + uintptr_t(ob[r]) * item;
    ptrs[2 * nb + r] = base_c + uintptr_t(r * m * n) * item;
  }
  Tensor table = address_table(ptrs, c.device(), "matmul");
  auto* dev = static_cast<void**>(table.raw_data());
  gemm_pointers(g, const_cast<const void* const*>(dev), const_cast<const void* const*>(dev + nb), dev + 2 * nb,
                "matmul");
}

void int_matmul(const Tensor& a, const Tensor& b, Tensor& c) {
  const Shape batch(c.shape().begin(), c.shape().end() - 2);
  IntMatmul p;
  p.elem = elem(c.dtype());
  p.m = c.shape(-2), p.n = c.shape(-1), p.k = a.shape(-1), p.nb = numel_of(batch);
  p.a = a.raw_data(), p.sar = a.strides()[a.dim() - 2], p.sac = a.strides().back();
  p.b = b.raw_data(), p.sbr = b.strides()[b.dim() - 2], p.sbc = b.strides().back();
  p.c = c.raw_data();
  Shape sa = broadcast_strides(a, batch, 2), sb = broadcast_strides(b, batch, 2);
  for (size_t d = 0; d < batch.size(); ++d) {
    if (batch[d] == 1) continue;
    SPIRE_CHECK(p.batch.ndim < kMaxDims, ValueError, "matmul: cuda integer product with more than ", kMaxDims,
                " batch axes of size > 1: ", shape_str(c.shape()));
    p.batch.sizes[p.batch.ndim] = batch[d];
    p.batch.stride_a[p.batch.ndim] = sa[d];
    p.batch.stride_b[p.batch.ndim] = sb[d];
    ++p.batch.ndim;
  }
  check_launch(launch_int_matmul(p), "matmul");
}

void matmul_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  Tensor& c = out[0];
  if (c.numel() == 0) return;
  DeviceGuard guard(c.device());
  if (in[0].shape(-1) == 0) {  // an empty sum: zeros (all-zero bytes for every dtype)
    SPIRE_CUDA_CHECK(cudaMemsetAsync(c.raw_data(), 0, c.nbytes(), current_stream()), "matmul: zero fill");
    return;
  }
  if (is_inexact(c.dtype())) blas_matmul(in[0], in[1], c);
  else int_matmul(in[0], in[1], c);
}

SPIRE_REGISTER_KERNEL("matmul", DeviceKind::CUDA, matmul_kernel);

}  // namespace
}  // namespace spire::cuda
