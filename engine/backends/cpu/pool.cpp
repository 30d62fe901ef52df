// CPU kernels of max_pool, avg_pool and avg_pool_backward (engine/ops/pool.cpp). One N-d loop
// serves 1 to 3 spatial axes (missing outer axes have size 1) and regular and adaptive windows
// alike (engine/ops/pool_internal.h). Work is split over (plane, outermost output row) pairs; each
// output element is written by one task in a fixed order, so results do not depend on the thread
// count. The backward of average pooling is a gather over the windows containing each input
// element (the window sets are products of per-axis ones), so it has no write conflicts either.
#include <cmath>
#include <limits>

#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"
#include "engine/ops/pool_internal.h"

namespace spire::cpu {
namespace {
using pool::AxisWindows;
using pool::Windows;
using Ints = std::vector<int64_t>;

int64_t spatial_of(const Attrs& a) {
  return int64_t((a.has("output_size") ? a.get<Ints>("output_size") : a.get<Ints>("kernel")).size());
}
Shape trailing(const Shape& s, int64_t D) { return Shape(s.end() - D, s.end()); }

Tensor contiguous_input(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = empty(t.shape(), t.dtype(), t.device());
  copy_into(t, c);
  return c;
}

// The largest window's size: the work per output element.
int64_t taps(const Windows& w) {
  int64_t n = 1;
  for (auto& a : w.axes) n *= a.out ? *std::max_element(a.count.begin(), a.count.end()) : 0;
  return std::max<int64_t>(n, 1);
}

template <class T>
bool greater_or_nan(T v, T best) {
  if constexpr (std::is_floating_point_v<T>) return v > best || std::isnan(v);
  else return v > best;
}

void max_pool_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor x = contiguous_input(in[0]);
  Tensor &y = out[0], &idx = out[1];
  if (y.numel() == 0) return;
  int64_t D = spatial_of(a);
  Windows w = pool::windows("max_pool", a, trailing(x.shape(), D)).as_3d();
  const AxisWindows &A = w.axes[0], &B = w.axes[1], &C = w.axes[2];
  int64_t in_plane = w.in_plane(), out_plane = w.out_plane(), planes = y.numel() / out_plane;
  int64_t* pi = idx.data<int64_t>();
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      const T* px = static_cast<const T*>(x.raw_data());
      T* py = y.data<T>();
      // PyTorch's rule: start at -inf with the first element in the window; a larger value or a
      // NaN takes over, so ties keep the first maximum in window order.
      const T lowest = std::is_floating_point_v<T> ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::lowest();
      parallel_for(planes * A.out, y.numel() * taps(w), [&](int64_t task) {
        int64_t plane = task / A.out, o0 = task % A.out;
        const T* xp = px + plane * in_plane;
        int64_t base = (plane * A.out + o0) * B.out * C.out;
        for (int64_t o1 = 0; o1 < B.out; ++o1)
          for (int64_t o2 = 0; o2 < C.out; ++o2) {
            int64_t best_i = (A.first[o0] * B.in + B.first[o1]) * C.in + C.first[o2];
            T best = lowest;
            for (int64_t j0 = 0, i0 = A.first[o0]; j0 < A.count[o0]; ++j0, i0 += A.step)
              for (int64_t j1 = 0, i1 = B.first[o1]; j1 < B.count[o1]; ++j1, i1 += B.step) {
                int64_t row = (i0 * B.in + i1) * C.in;
                for (int64_t j2 = 0, i2 = C.first[o2]; j2 < C.count[o2]; ++j2, i2 += C.step) {
                  T v = xp[row + i2];
                  if (greater_or_nan(v, best)) {
                    best = v;
                    best_i = row + i2;
                  }
                }
              }
            int64_t k = base + o1 * C.out + o2;
            py[k] = best;
            pi[k] = best_i;
          }
      });
    }
  });
}
SPIRE_REGISTER_KERNEL("max_pool", DeviceKind::CPU, max_pool_kernel);

// The divisor of output (o0, o1, o2): the product of the per-axis ones, or the override.
inline int64_t divisor(const Windows& w, int64_t o0, int64_t o1, int64_t o2) {
  if (w.divisor_override) return w.divisor_override;
  return w.axes[0].divisor[o0] * w.axes[1].divisor[o1] * w.axes[2].divisor[o2];
}

void avg_pool_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor x = contiguous_input(in[0]);
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  int64_t D = spatial_of(a);
  Windows w = pool::windows("avg_pool", a, trailing(x.shape(), D)).as_3d();
  const AxisWindows &A = w.axes[0], &B = w.axes[1], &C = w.axes[2];
  int64_t in_plane = w.in_plane(), out_plane = w.out_plane(), planes = y.numel() / out_plane;
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T* px = static_cast<const T*>(x.raw_data());
      T* py = y.data<T>();
      parallel_for(planes * A.out, y.numel() * taps(w), [&](int64_t task) {
        int64_t plane = task / A.out, o0 = task % A.out;
        const T* xp = px + plane * in_plane;
        T* yp = py + (plane * A.out + o0) * B.out * C.out;
        for (int64_t o1 = 0; o1 < B.out; ++o1)
          for (int64_t o2 = 0; o2 < C.out; ++o2) {
            T sum = 0;
            for (int64_t i0 = A.first[o0]; i0 < A.first[o0] + A.count[o0]; ++i0)
              for (int64_t i1 = B.first[o1]; i1 < B.first[o1] + B.count[o1]; ++i1) {
                const T* row = xp + (i0 * B.in + i1) * C.in + C.first[o2];
                for (int64_t j2 = 0; j2 < C.count[o2]; ++j2) sum += row[j2];
              }
            yp[o1 * C.out + o2] = sum / T(divisor(w, o0, o1, o2));
          }
      });
    }
  });
}
SPIRE_REGISTER_KERNEL("avg_pool", DeviceKind::CPU, avg_pool_kernel);

// For one axis: the outputs whose window holds input position i, as rows of a CSR table.
struct Inverse {
  Ints start, outs;  // outputs of i: outs[start[i] .. start[i + 1])
  explicit Inverse(const AxisWindows& a) {
    std::vector<Ints> lists(size_t(a.in));
    for (int64_t o = 0; o < a.out; ++o)
      for (int64_t j = 0; j < a.count[o]; ++j) lists[size_t(a.first[o] + j * a.step)].push_back(o);
    start.push_back(0);
    for (auto& l : lists) {
      outs.insert(outs.end(), l.begin(), l.end());
      start.push_back(int64_t(outs.size()));
    }
  }
};

void avg_pool_backward_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor g = contiguous_input(in[0]);
  Tensor& x = out[0];
  if (x.numel() == 0) return;
  Windows w = pool::windows("avg_pool_backward", a, a.get<Ints>("input_size")).as_3d();
  const AxisWindows &A = w.axes[0], &B = w.axes[1], &C = w.axes[2];
  int64_t in_plane = w.in_plane(), out_plane = w.out_plane(), planes = x.numel() / in_plane;
  visit_dtype(x.dtype(), [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      const T* pg = static_cast<const T*>(g.raw_data());
      T* px = x.data<T>();
      // Many planes: each task scatters the shares g / divisor of one plane's windows, in output
      // order (torch's loop). Few planes: tasks over input rows gather the shares of the windows
      // holding each element, also in output order. Either way every input element sums the same
      // terms in the same order, so the two give the same bits.
      if (planes >= 16) {
        parallel_for(planes, x.numel() * taps(w), [&](int64_t plane) {
          const T* gp = pg + plane * out_plane;
          T* xp = px + plane * in_plane;
          std::fill(xp, xp + in_plane, T(0));
          for (int64_t o0 = 0; o0 < A.out; ++o0)
            for (int64_t o1 = 0; o1 < B.out; ++o1)
              for (int64_t o2 = 0; o2 < C.out; ++o2) {
                T share = gp[(o0 * B.out + o1) * C.out + o2] / T(divisor(w, o0, o1, o2));
                for (int64_t i0 = A.first[o0]; i0 < A.first[o0] + A.count[o0]; ++i0)
                  for (int64_t i1 = B.first[o1]; i1 < B.first[o1] + B.count[o1]; ++i1) {
                    T* row = xp + (i0 * B.in + i1) * C.in + C.first[o2];
                    for (int64_t j2 = 0; j2 < C.count[o2]; ++j2) row[j2] += share;
                  }
              }
        });
        return;
      }
      Inverse IA(A), IB(B), IC(C);
      std::vector<T> share(size_t(g.numel()));
      parallel_for(planes * A.out, g.numel(), [&](int64_t task) {
        int64_t plane = task / A.out, o0 = task % A.out, k = (plane * A.out + o0) * B.out * C.out;
        for (int64_t o1 = 0; o1 < B.out; ++o1)
          for (int64_t o2 = 0; o2 < C.out; ++o2, ++k) share[size_t(k)] = pg[k] / T(divisor(w, o0, o1, o2));
      });
      parallel_for(planes * A.in, x.numel() * taps(w), [&](int64_t task) {
        int64_t plane = task / A.in, i0 = task % A.in;
        const T* sp = share.data() + plane * out_plane;
        T* xp = px + (plane * A.in + i0) * B.in * C.in;
        for (int64_t i1 = 0; i1 < B.in; ++i1)
          for (int64_t i2 = 0; i2 < C.in; ++i2) {
            T sum = 0;
            for (int64_t p0 = IA.start[i0]; p0 < IA.start[i0 + 1]; ++p0)
              for (int64_t p1 = IB.start[i1]; p1 < IB.start[i1 + 1]; ++p1) {
                const T* row = sp + (IA.outs[p0] * B.out + IB.outs[p1]) * C.out;
                for (int64_t p2 = IC.start[i2]; p2 < IC.start[i2 + 1]; ++p2) sum += row[IC.outs[p2]];
              }
            xp[i1 * C.in + i2] = sum;
          }
      });
    }
  });
}
SPIRE_REGISTER_KERNEL("avg_pool_backward", DeviceKind::CPU, avg_pool_backward_kernel);

// y = 0, then y[plane, indices[plane, j]] = x[plane, j] in order j (the last of repeated indices
// stays), one task per plane.
void max_unpool_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  Tensor x = contiguous_input(in[0]), idx = contiguous_input(in[1]);
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  int64_t out_plane = numel_of(a.get<Ints>("output_size"));
  int64_t planes = y.numel() / out_plane, in_plane = planes ? x.numel() / planes : 0;
  const int64_t* pi = idx.data<int64_t>();
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* py = y.data<T>();
    parallel_for(planes, y.numel() + x.numel(), [&](int64_t p) {
      T* yp = py + p * out_plane;
      std::fill(yp, yp + out_plane, T(0));
      for (int64_t j = p * in_plane; j < (p + 1) * in_plane; ++j) yp[pi[j]] = px[j];
    });
  });
}
SPIRE_REGISTER_KERNEL("max_unpool", DeviceKind::CPU, max_unpool_kernel);

}  // namespace
}  // namespace spire::cpu
