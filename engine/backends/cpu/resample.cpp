// CPU kernel of resample_axis (engine/ops/interpolate.cpp): a sparse matrix in CSR form applied
// along one axis, x seen as [P, n, Q] and y as [P, m, Q]. Each output row is written by one task,
// summing its entries in order, so results do not depend on the thread count. Weights are used in
// the data's precision (they were computed in it).
#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {
using Ints = std::vector<int64_t>;

void resample_axis_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor x = in[0];
  if (!x.is_contiguous()) {
    Tensor c = empty(x.shape(), x.dtype(), x.device());
    copy_into(x, c);
    x = c;
  }
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis");
  const Ints &row_ptr = a.get<Ints>("row_ptr"), &cols = a.get<Ints>("cols");
  const std::vector<double>& weights = a.get<std::vector<double>>("weights");
  int64_t n = x.shape(axis), m = y.shape(axis), Q = 1;
  for (int64_t d = axis + 1; d < x.dim(); ++d) Q *= x.shape(d);
  int64_t P = y.numel() / (m * Q);
  int64_t work = y.numel() * std::max<int64_t>(1, int64_t(cols.size()) / std::max<int64_t>(m, 1));
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      std::vector<T> w(weights.begin(), weights.end());
      const T* px = static_cast<const T*>(x.raw_data());
      T* py = y.data<T>();
      if (Q == 1) {  // the innermost axis: rows of the plane, a few taps each
        parallel_for(P, work, [&](int64_t p) {
          const T* src = px + p * n;
          T* dst = py + p * m;
          for (int64_t o = 0; o < m; ++o) {
            T acc = 0;
            for (int64_t k = row_ptr[o]; k < row_ptr[o + 1]; ++k) acc += w[k] * src[cols[k]];
            dst[o] = acc;
          }
        });
        return;
      }
      parallel_for(P * m, work, [&](int64_t task) {
        int64_t p = task / m, o = task % m;
        T* dst = py + task * Q;
        const T* src = px + p * n * Q;
        int64_t k0 = row_ptr[o], k1 = row_ptr[o + 1];
        if (k0 == k1) {
          std::fill(dst, dst + Q, T(0));
          return;
        }
        const T* r0 = src + cols[k0] * Q;
        T w0 = w[k0];
        for (int64_t q = 0; q < Q; ++q) dst[q] = w0 * r0[q];
        for (int64_t k = k0 + 1; k < k1; ++k) {
          const T* r = src + cols[k] * Q;
          T wk = w[k];
          for (int64_t q = 0; q < Q; ++q) dst[q] += wk * r[q];
        }
      });
    }
  });
}
SPIRE_REGISTER_KERNEL("resample_axis", DeviceKind::CPU, resample_axis_kernel);

}  // namespace
}  // namespace spire::cpu
