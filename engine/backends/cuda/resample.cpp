// resample_axis on CUDA: the CSR matrix (attrs row_ptr, cols, weights) is uploaded to the device
// for each call, weights rounded to the data's type as on the CPU, and applied by resample.cu.
#include <cstring>

#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/resample.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/shape.h"

namespace spire::cuda {
namespace {
using Ints = std::vector<int64_t>;

void resample_axis_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor& y = out[0];
  SPIRE_CHECK(is_floating(y.dtype()), DTypeError, "resample_axis: cuda kernel takes float32 or float64, got ",
              name(y.dtype()));
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  const Tensor x = contiguous(in[0]);  // a strided view is copied first, as on the CPU
  const int64_t axis = a.get<int64_t>("axis");
  const Ints &row_ptr = a.get<Ints>("row_ptr"), &cols = a.get<Ints>("cols");
  const std::vector<double>& weights = a.get<std::vector<double>>("weights");
  const int64_t n = x.shape(axis), m = y.shape(axis);
  int64_t Q = 1;
  for (int64_t d = axis + 1; d < x.dim(); ++d) Q *= x.shape(d);
  const int64_t P = y.numel() / (m * Q);
  visit_dtype(y.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      // One buffer, one copy: row_ptr, cols (int64), then the weights in T.
      const size_t nr = row_ptr.size(), nnz = cols.size();
      std::vector<unsigned char> host((nr + nnz) * sizeof(int64_t) + nnz * sizeof(T));
      std::memcpy(host.data(), row_ptr.data(), nr * sizeof(int64_t));
      std::memcpy(host.data() + nr * sizeof(int64_t), cols.data(), nnz * sizeof(int64_t));
      T* w = reinterpret_cast<T*>(host.data() + (nr + nnz) * sizeof(int64_t));
      for (size_t k = 0; k < nnz; ++k) w[k] = T(weights[k]);
      Tensor dev = empty({int64_t((host.size() + 7) / 8)}, DType::Int64, y.device());
      auto* base = static_cast<unsigned char*>(dev.raw_data());
      // From pageable memory: the call returns once the bytes are staged, so `host` may go at the
      // end of this scope; `dev` is freed in stream order, after the kernel has read it.
      SPIRE_CUDA_CHECK(cudaMemcpyAsync(base, host.data(), host.size(), cudaMemcpyHostToDevice, current_stream()),
                       "resample_axis: copy of the matrix to the device");
      const auto* d_row_ptr = reinterpret_cast<const int64_t*>(base);
      const auto* d_cols = d_row_ptr + nr;
      const void* d_w = base + (nr + nnz) * sizeof(int64_t);
      check_launch(launch_resample_axis(elem(x.dtype()), x.raw_data(), y.raw_data(), P, n, m, Q, d_row_ptr, d_cols,
                                        d_w),
                   "resample_axis");
    }
  });
}
SPIRE_REGISTER_KERNEL("resample_axis", DeviceKind::CUDA, resample_axis_kernel);

}  // namespace
}  // namespace spire::cuda
