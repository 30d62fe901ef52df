// CPU kernels of the indexing ops. Every operand is seen as [pre, indexed, post] through AxisGroup
// offset tables, so any strides work. Gathers write each output once and run in parallel freely.
// Scatter-adds stay deterministic without atomics: work is split over (pre, block of post)
// positions, which no two threads share, and each thread adds its indices in index order, so
// every output element receives its contributions in the same order whatever the thread count.
#include <algorithm>

#include "engine/backends/cpu/index_loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

// The offset in x of index position b of a packed index [k, B...] over axes axis..axis+k-1. A
// single contiguous index array is read in place; otherwise the offsets are tabulated once.
struct PackedOffsets {
  const void* direct = nullptr;  // the index data when read in place
  DType dtype = DType::Int64;
  int64_t n = 0, stride = 0;  // size and stride of the indexed axis (direct case)
  std::vector<int64_t> table;
  int64_t size = 0;

  PackedOffsets(const Tensor& x, const Tensor& packed, int64_t axis) {
    int64_t k = packed.shape()[0];
    AxisGroup b(packed, 1, packed.dim());
    size = b.size;
    dtype = packed.dtype();
    if (k == 1 && b.unit) {
      direct = packed.raw_data();
      n = x.shape()[axis];
      stride = x.strides()[axis];
      return;
    }
    table.assign(size_t(size), 0);
    visit_index(packed.dtype(), [&]<class I>() {
      const I* p = static_cast<const I*>(packed.raw_data());
      for (int64_t c = 0; c < k; ++c) {
        int64_t nc = x.shape()[axis + c], sc = x.strides()[axis + c];
        const I* pc = p + c * packed.strides()[0];
        parallel_for(size, size, [&](int64_t i) { table[i] += wrap_index(pc[b[i]], nc) * sc; });
      }
    });
  }
  // Calls f(offset_of) with a callable b -> offset, specialised for the two representations.
  template <class F>
  void visit(F&& f) const {
    if (!direct) {
      const int64_t* t = table.data();
      f([t](int64_t b) { return t[b]; });
      return;
    }
    int64_t nn = n, st = stride;
    visit_index(dtype, [&]<class I>() {
      const I* p = static_cast<const I*>(direct);
      f([p, nn, st](int64_t b) { return wrap_index(p[b], nn) * st; });
    });
  }
};

// out[p, b, q] = x[pre(p) + offset(b) + post(q)]
void index_select_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& packed = in[1];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis"), k = packed.shape()[0];
  AxisGroup pre(x, 0, axis), post(x, axis + k, x.dim());
  PackedOffsets offsets(x, packed, axis);
  int64_t P = pre.size, B = offsets.size, Q = post.size;
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    T* py = y.data<T>();
    offsets.visit([&](auto offset_of) {
      for_each_block(P, B, Q, [&](int64_t p, int64_t b0, int64_t b1) {
        const T* xb = px + pre[p];
        T* yb = py + p * B * Q;
        if (Q == 1) {
          for (int64_t b = b0; b < b1; ++b) yb[b] = xb[offset_of(b)];
        } else if (post.unit) {
          for (int64_t b = b0; b < b1; ++b) {
            const T* src = xb + offset_of(b);
            T* dst = yb + b * Q;
            for (int64_t q = 0; q < Q; ++q) dst[q] = src[q];
          }
        } else {
          for (int64_t b = b0; b < b1; ++b) {
            const T* src = xb + offset_of(b);
            T* dst = yb + b * Q;
            for (int64_t q = 0; q < Q; ++q) dst[q] = src[post.table[q]];
          }
        }
      });
    });
  });
}
SPIRE_REGISTER_KERNEL("index_select", DeviceKind::CPU, index_select_kernel);

// y = x; y[pre(p) + offset(b) + q] += src[p, b, q], tasks owning (p, range of q), b in order.
void index_add_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& packed = in[1];
  const Tensor& src = in[2];
  Tensor& y = out[0];
  copy_into(x, y);
  if (src.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis"), nb = packed.dim() - 1;
  PackedOffsets offsets(y, packed, axis);
  AxisGroup spre(src, 0, axis), sb(src, axis, axis + nb), spost(src, axis + nb, src.dim());
  int64_t P = spre.size, B = sb.size, Q = spost.size;
  int64_t y_pre_stride = axis > 0 ? y.strides()[axis - 1] : 0;  // y is contiguous
  visit_dtype(y.dtype(), [&]<class T>() {
    const T* ps = static_cast<const T*>(src.raw_data());
    T* py = y.data<T>();
    offsets.visit([&](auto offset_of) {
      for_each_block(P, Q, B, [&](int64_t p, int64_t q0, int64_t q1) {
        T* yb = py + p * y_pre_stride;
        const T* s0 = ps + spre[p];
        for (int64_t b = 0; b < B; ++b) {
          T* dst = yb + offset_of(b);
          const T* s = s0 + sb[b];
          if (spost.unit)
            for (int64_t q = q0; q < q1; ++q) dst[q] = T(dst[q] + s[q]);
          else
            for (int64_t q = q0; q < q1; ++q) dst[q] = T(dst[q] + s[spost.table[q]]);
        }
      });
    });
  });
}
SPIRE_REGISTER_KERNEL("index_add", DeviceKind::CPU, index_add_kernel);

// out[p, j, q] = x[p, index[p, j, q], q] with p over the axes before `axis`, q over those after.
void gather_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& index = in[1];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis"), nd = x.dim();
  AxisGroup xpre(x, 0, axis), xpost(x, axis + 1, nd), ipre(index, 0, axis), ipost(index, axis + 1, nd);
  int64_t P = xpre.size, J = index.shape()[axis], Q = xpost.size, n = x.shape()[axis];
  int64_t xs = x.strides()[axis], is = index.strides()[axis];
  visit_dtype(x.dtype(), [&]<class T>() {
    visit_index(index.dtype(), [&]<class I>() {
      const T* px = static_cast<const T*>(x.raw_data());
      const I* pi = static_cast<const I*>(index.raw_data());
      T* py = y.data<T>();
      for_each_block(P, J, Q, [&](int64_t p, int64_t j0, int64_t j1) {
        const T* xb = px + xpre[p];
        const I* ib = pi + ipre[p];
        T* yb = py + p * J * Q;
        if (Q == 1) {
          for (int64_t j = j0; j < j1; ++j) yb[j] = xb[wrap_index(ib[j * is], n) * xs];
        } else if (xpost.unit && ipost.unit) {
          for (int64_t j = j0; j < j1; ++j) {
            const I* ir = ib + j * is;
            T* dst = yb + j * Q;
            for (int64_t q = 0; q < Q; ++q) dst[q] = xb[wrap_index(ir[q], n) * xs + q];
          }
        } else {
          for (int64_t j = j0; j < j1; ++j) {
            const I* ir = ib + j * is;
            T* dst = yb + j * Q;
            for (int64_t q = 0; q < Q; ++q) dst[q] = xb[wrap_index(ir[ipost[q]], n) * xs + xpost[q]];
          }
        }
      });
    });
  });
}
SPIRE_REGISTER_KERNEL("gather", DeviceKind::CPU, gather_kernel);

// y = x; y[p, index[p, j, q], q] += src[p, j, q]; tasks own (p, range of q) and run j in order.
void scatter_add_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  const Tensor& index = in[1];
  const Tensor& src = in[2];
  Tensor& y = out[0];
  copy_into(x, y);
  if (index.numel() == 0) return;
  int64_t axis = a.get<int64_t>("axis"), nd = x.dim();
  AxisGroup ipre(index, 0, axis), ipost(index, axis + 1, nd), spre(src, 0, axis), spost(src, axis + 1, nd);
  int64_t P = ipre.size, J = index.shape()[axis], Q = ipost.size, n = y.shape()[axis];
  int64_t is = index.strides()[axis], ss = src.strides()[axis];
  visit_dtype(y.dtype(), [&]<class T>() {
    visit_index(index.dtype(), [&]<class I>() {
      const T* ps = static_cast<const T*>(src.raw_data());
      const I* pi = static_cast<const I*>(index.raw_data());
      T* py = y.data<T>();
      for_each_block(P, Q, J, [&](int64_t p, int64_t q0, int64_t q1) {
        T* yb = py + p * n * Q;  // y is contiguous: [P, n, Q]
        const I* ib = pi + ipre[p];
        const T* sb = ps + spre[p];
        if (Q == 1) {
          for (int64_t j = 0; j < J; ++j) {
            T& dst = yb[wrap_index(ib[j * is], n)];
            dst = T(dst + sb[j * ss]);
          }
        } else if (ipost.unit && spost.unit) {
          for (int64_t j = 0; j < J; ++j) {
            const I* ir = ib + j * is;
            const T* sr = sb + j * ss;
            for (int64_t q = q0; q < q1; ++q) {
              T& dst = yb[wrap_index(ir[q], n) * Q + q];
              dst = T(dst + sr[q]);
            }
          }
        } else {
          for (int64_t j = 0; j < J; ++j) {
            const I* ir = ib + j * is;
            const T* sr = sb + j * ss;
            for (int64_t q = q0; q < q1; ++q) {
              T& dst = yb[wrap_index(ir[ipost[q]], n) * Q + q];
              dst = T(dst + sr[spost[q]]);
            }
          }
        }
      });
    });
  });
}
SPIRE_REGISTER_KERNEL("scatter_add", DeviceKind::CPU, scatter_add_kernel);

void one_hot_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& index = in[0];
  Tensor& y = out[0];
  zero_fill(y);
  int64_t c = a.get<int64_t>("num_classes");
  AxisGroup all(index, 0, index.dim());
  int64_t n = index.numel();
  visit_dtype(y.dtype(), [&]<class T>() {
    visit_index(index.dtype(), [&]<class I>() {
      const I* pi = static_cast<const I*>(index.raw_data());
      T* py = y.data<T>();
      parallel_for(n, n * c, [&](int64_t i) { py[i * c + wrap_index(pi[all[i]], c)] = T(1); });
    });
  });
}
SPIRE_REGISTER_KERNEL("one_hot", DeviceKind::CPU, one_hot_kernel);

// Coordinates of the nonzero elements in row-major order. x is walked as rows of its last axis;
// ranges of rows are counted in parallel, then each range writes from its prefix-sum start, so
// the result does not depend on how the rows were cut.
void nonzero_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  int64_t nd = x.dim();
  if (y.numel() == 0) return;
  int64_t L = x.shape()[nd - 1], ls = x.strides()[nd - 1];
  AxisGroup rows(x, 0, nd - 1);
  int64_t R = rows.size;
  int64_t pieces = std::clamp<int64_t>(x.numel() / kParallelGrain, 1, 4 * int64_t(omp_get_max_threads()));
  pieces = std::min(pieces, R);
  std::vector<int64_t> start(size_t(pieces) + 1, 0);
  auto lo = [&](int64_t piece) { return R * piece / pieces; };
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* px = static_cast<const T*>(x.raw_data());
    int64_t* py = y.data<int64_t>();
    parallel_for(pieces, x.numel(), [&](int64_t s) {  // pieces > 1 only when numel >= 2 grains
      int64_t count = 0;
      for (int64_t r = lo(s); r < lo(s + 1); ++r) {
        const T* row = px + rows[r];
        if (ls == 1)
          for (int64_t l = 0; l < L; ++l) count += row[l] != T(0);
        else
          for (int64_t l = 0; l < L; ++l) count += row[l * ls] != T(0);
      }
      start[s + 1] = count;
    });
    for (int64_t s = 0; s < pieces; ++s) start[s + 1] += start[s];
    parallel_for(pieces, x.numel(), [&](int64_t s) {  // pieces > 1 only when numel >= 2 grains
      int64_t* o = py + start[s] * nd;
      // Coordinates of the first row of the range, then an odometer over the leading axes.
      std::vector<int64_t> idx(size_t(nd), 0);
      for (int64_t d = nd - 2, r = lo(s); d >= 0; --d) {
        idx[d] = r % x.shape()[d];
        r /= x.shape()[d];
      }
      for (int64_t r = lo(s); r < lo(s + 1); ++r) {
        const T* row = px + rows[r];
        for (int64_t l = 0; l < L; ++l)
          if (row[l * ls] != T(0)) {
            for (int64_t d = 0; d + 1 < nd; ++d) o[d] = idx[d];  // a call to memmove costs more
            o[nd - 1] = l;
            o += nd;
          }
        for (int64_t d = nd - 2; d >= 0; --d) {
          if (++idx[d] < x.shape()[d]) break;
          idx[d] = 0;
        }
      }
    });
  });
}
SPIRE_REGISTER_KERNEL("nonzero", DeviceKind::CPU, nonzero_kernel);

}  // namespace
}  // namespace spire::cpu
