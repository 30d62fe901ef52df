// Indexing with integer arrays. Four linear primitives in two adjoint pairs:
//   index_select (take along consecutive axes)  <->  index_add (scatter-add of whole slices)
//   gather (take_along_axis, elementwise)       <->  scatter_add
// each pair's reverse rules being each other, so derivatives of any order stay in these four ops.
// Plus one_hot and nonzero (no gradient), and masked_select composed from nonzero and index_select.
//
// The index input of index_select/index_add is packed: shape [k, B...] holds k index arrays of
// shape B, one per indexed axis axis..axis+k-1 (NumPy advanced indexing with several arrays over
// adjacent axes); k = 1 is np.take / torch.index_select with an index of any shape.
//
// Negative indices count from the end. Index values are checked in `infer` (read on the host), so an
// out-of-range index is a ValueError naming the op, the index, the axis and the allowed range, and
// kernels can trust every index.
#include <algorithm>
#include <limits>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;

int64_t geti(const Attrs& a, const char* key) { return a.get<int64_t>(key); }

// Calls f(value) for every element of a strided integer tensor, in row-major order.
template <class I, class F>
void scan(const Tensor& t, F&& f) {
  const I* p = static_cast<const I*>(t.raw_data());
  int64_t n = t.numel(), nd = t.dim();
  if (n == 0) return;
  std::vector<int64_t> idx(nd, 0);
  int64_t off = 0;
  for (int64_t k = 0; k < n; ++k) {
    f(int64_t(p[off]));
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < t.shape()[d]) {
        off += t.strides()[d];
        break;
      }
      off -= t.strides()[d] * (t.shape()[d] - 1);
      idx[d] = 0;
    }
  }
}

std::pair<int64_t, int64_t> min_max(const Tensor& t) {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  auto f = [&](int64_t v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  };
  if (t.dtype() == DType::Int32) scan<int32_t>(t, f);
  else scan<int64_t>(t, f);
  return {lo, hi};
}

// Whether any value lies outside [-n, n): a branch-free pass that vectorises, on all threads for
// large index arrays (a gather's index is as big as its output).
template <class I>
bool any_out_of_range(const Tensor& t, int64_t n) {
  if (!t.is_contiguous()) {
    bool bad = false;
    scan<I>(t, [&](int64_t v) { bad |= v < -n || v >= n; });
    return bad;
  }
  const I* p = static_cast<const I*>(t.raw_data());
  int64_t count = t.numel(), bad = 0;
  if (count < (1 << 18)) {  // serial without entering the OpenMP runtime (costs ~1 us)
#pragma omp simd reduction(| : bad)
    for (int64_t i = 0; i < count; ++i) bad |= int64_t(p[i] < -n) | int64_t(p[i] >= n);
    return bad != 0;
  }
#pragma omp parallel for simd reduction(| : bad)
  for (int64_t i = 0; i < count; ++i) bad |= int64_t(p[i] < -n) | int64_t(p[i] >= n);
  return bad != 0;
}

// The first value outside [-n, n) in row-major order (only called when there is one).
int64_t first_out_of_range(const Tensor& t, int64_t n) {
  int64_t found = 0;
  bool done = false;
  auto f = [&](int64_t v) {
    if (!done && (v < -n || v >= n)) {
      found = v;
      done = true;
    }
  };
  if (t.dtype() == DType::Int32) scan<int32_t>(t, f);
  else scan<int64_t>(t, f);
  return found;
}

void require_index_dtype(const char* op, const Tensor& idx) {
  SPIRE_CHECK(is_integral(idx.dtype()), DTypeError, op, ": indices must be int32 or int64, got ",
              name(idx.dtype()),
              idx.dtype() == DType::Bool ? " (a boolean mask selects through masked_select or nonzero)" : "");
}

// Index values and data-dependent sizes are read on the host. For a tensor on another device that
// costs a copy and a synchronisation; it keeps one meaning, and one error, for every backend.
Tensor on_host(const Tensor& t) { return t.device().kind == DeviceKind::CPU ? t : to(t.detach(), kCPU); }

// Whether every op named has a kernel on `d`: then a verdict can be computed where the data lives
// and only one scalar copied back.
bool ops_on(Device d, std::initializer_list<const char*> names) {
  for (const char* n : names)
    if (!op_def(n).kernels[int(d.kind)]) return false;
  return true;
}

// Every value of idx must lie in [-n, n) (n = the size of `axis`, or the number of classes when
// axis < 0).
void check_range(const char* op, const Tensor& index, int64_t axis, int64_t n) {
  if (index.numel() == 0) return;
  if (index.device().kind != DeviceKind::CPU && ops_on(index.device(), {"lt", "ge", "logical_or", "cast", "sum"})) {
    Tensor i = index.detach();
    Tensor bad = logical_or(lt(i, Scalar(-n)), ge(i, Scalar(n)));
    // One scalar back (the synchronisation a data-dependent error needs); the whole index only
    // when it holds a bad value, for the message.
    if (sum(cast(bad, DType::Int64)).item<int64_t>() == 0) return;
  }
  Tensor idx = on_host(index);
  bool out = idx.dtype() == DType::Int32 ? any_out_of_range<int32_t>(idx, n) : any_out_of_range<int64_t>(idx, n);
  if (!out) return;
  int64_t bad = first_out_of_range(idx, n);
  std::string place = axis < 0 ? detail::cat(n, " classes") : detail::cat("axis ", axis, " of size ", n);
  throw ValueError(detail::cat(op, ": index ", bad, " is out of range for ", place,
                               n > 0 ? detail::cat(" (allowed: ", -n, " to ", n - 1, ")")
                                     : std::string(" (an empty axis has no valid index)")));
}

// Component c of a packed index [k, B...]: a view of shape B.
Tensor component(const Tensor& packed, int64_t c) {
  Shape s(packed.shape().begin() + 1, packed.shape().end());
  Shape st(packed.strides().begin() + 1, packed.strides().end());
  return make_view(packed, s, st, packed.offset() + c * packed.strides()[0]);
}

// x.shape[:axis] + B + x.shape[axis+k:] for a packed index [k, B...].
Shape take_shape(const Shape& x, const Tensor& packed, int64_t axis) {
  int64_t k = packed.shape()[0];
  Shape s(x.begin(), x.begin() + axis);
  s.insert(s.end(), packed.shape().begin() + 1, packed.shape().end());
  s.insert(s.end(), x.begin() + axis + k, x.end());
  return s;
}

void check_packed(const char* op, const Tensor& x, const Tensor& packed, int64_t axis) {
  require_index_dtype(op, packed);
  SPIRE_CHECK(packed.dim() >= 1 && packed.shape()[0] >= 1 && axis + packed.shape()[0] <= x.dim(), ShapeError,
              op, ": packed index of shape ", shape_str(packed.shape()), " does not fit axis ", axis,
              " of shape ", shape_str(x.shape()));
  for (int64_t c = 0; c < packed.shape()[0]; ++c)
    check_range(op, component(packed, c), axis + c, x.shape()[axis + c]);
}

Tensor index_select_raw(const Tensor& x, const Tensor& packed, int64_t axis) {
  static const OpDef& d = op_def("index_select");
  return call1(d, {x, packed}, Attrs{{"axis", axis}});
}
Tensor index_add_raw(const Tensor& x, const Tensor& packed, const Tensor& src, int64_t axis) {
  static const OpDef& d = op_def("index_add");
  return call1(d, {x, packed, src}, Attrs{{"axis", axis}});
}
Tensor gather_raw(const Tensor& x, const Tensor& index, int64_t axis) {
  static const OpDef& d = op_def("gather");
  return call1(d, {x, index}, Attrs{{"axis", axis}});
}
Tensor scatter_add_raw(const Tensor& x, const Tensor& index, const Tensor& src, int64_t axis) {
  static const OpDef& d = op_def("scatter_add");
  return call1(d, {x, index, src}, Attrs{{"axis", axis}});
}


// A mapped packed index [n, k, B...] as the packed index [k+1, n, B...] whose first component is
// the batch position: it indexes x with its mapped axis moved next to the indexed axes, so each
// batch entry takes from its own slice in one call.
Tensor with_batch_component(const Tensor& packed, int64_t n) {
  Tensor moved = moveaxis(packed, 0, 1);
  Shape b(moved.shape().begin() + 1, moved.shape().end()), column(b.size(), 1);
  column[0] = n;
  Tensor position = expand(reshape(to(arange(0, double(n), 1, packed.dtype()), packed.device()), column), b);
  return concat({unsqueeze(position, 0), moved}, 0);
}

// For gather and scatter_add: index has x's rank and x's sizes except along axis.
void check_along(const char* op, const Tensor& x, const Tensor& index, int64_t axis) {
  require_index_dtype(op, index);
  bool ok = index.dim() == x.dim();
  for (int64_t d = 0; ok && d < x.dim(); ++d) ok = d == axis || index.shape()[d] == x.shape()[d];
  SPIRE_CHECK(ok, ShapeError, op, ": index of shape ", shape_str(index.shape()), " does not match x of shape ",
              shape_str(x.shape()), " on the axes other than ", axis);
  check_range(op, index, axis, x.shape()[axis]);
}

SPIRE_DEFINE_OP({
    .name = "index_select",
    .num_inputs = 2,
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      int64_t axis = geti(a, "axis");
      check_packed("index_select", in[0], in[1], axis);
      return {{take_shape(in[0].shape(), in[1], axis), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {index_add_raw(zeros_like(c.inputs[0]), c.inputs[1], c.grads[0], geti(c.attrs, "axis")), Tensor()};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {index_select_raw(c.tangents[0], c.inputs[1], geti(c.attrs, "axis"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      int64_t axis = geti(c.attrs, "axis");
      const Tensor &x = c.inputs[0], &packed = c.inputs[1];
      if (!c.batched[1]) return {index_select_raw(x, packed, axis + 1)};
      // The index's batch axis lands at `axis` of the result, in place of the indexed axes.
      if (!c.batched[0]) return {moveaxis(index_select_raw(x, moveaxis(packed, 0, 1), axis), axis, 0)};
      return {moveaxis(index_select_raw(moveaxis(x, 0, axis), with_batch_component(packed, c.size), axis), axis, 0)};
    },
    .nondiff_inputs = {1},
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({5, 3}), from_vector<int64_t>({3, -1, 0, 3}, {1, 4})}, {{"axis", int64_t(0)}},
           "rows with repeats and a negative index"},
          {{sample({2, 4, 3}), from_vector<int32_t>({1, -4, 2, 2, 0, 1}, {1, 2, 3})}, {{"axis", int64_t(1)}},
           "2-d int32 index in the middle"},
          {{sample({4, 5, 2}), from_vector<int64_t>({0, 3, 3, 1, 4, 1}, {2, 3})}, {{"axis", int64_t(0)}},
           "two index arrays"},
          {{sample({4, 3}, -1, 1, 2, DType::Complex128), from_vector<int64_t>({2, 0}, {1, 2})},
           {{"axis", int64_t(1)}}, "complex"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "index_add",
    .num_inputs = 3,
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      int64_t axis = geti(a, "axis");
      check_packed("index_add", in[0], in[1], axis);
      SPIRE_CHECK(in[2].dtype() == in[0].dtype(), DTypeError, "index_add: x is ", name(in[0].dtype()),
                  " but src is ", name(in[2].dtype()));
      Shape want = take_shape(in[0].shape(), in[1], axis);
      SPIRE_CHECK(in[2].shape() == want, ShapeError, "index_add: src has shape ", shape_str(in[2].shape()),
                  ", expected ", shape_str(want));
      return {{in[0].shape(), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      std::vector<Tensor> out(3);
      if (c.needs_grad[0]) out[0] = c.grads[0];
      if (c.needs_grad[2]) out[2] = index_select_raw(c.grads[0], c.inputs[1], geti(c.attrs, "axis"));
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      if (!c.tangents[2].defined()) return {c.tangents[0]};
      Tensor base = c.tangents[0].defined() ? c.tangents[0] : zeros_like(c.inputs[0]);
      return {index_add_raw(base, c.inputs[1], c.tangents[2], geti(c.attrs, "axis"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      int64_t axis = geti(c.attrs, "axis");
      Tensor x = batching::mapped_input(c, 0), src = batching::mapped_input(c, 2);
      if (!c.batched[1]) return {index_add_raw(x, c.inputs[1], src, axis + 1)};
      Tensor packed = with_batch_component(c.inputs[1], c.size);
      return {moveaxis(index_add_raw(moveaxis(x, 0, axis), packed, moveaxis(src, 0, axis), axis), axis, 0)};
    },
    .nondiff_inputs = {1},
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({5, 3}, -1, 1, 1), from_vector<int64_t>({3, -1, 0, 3}, {1, 4}), sample({4, 3}, -1, 1, 2)},
           {{"axis", int64_t(0)}}, "repeated rows"},
          {{sample({4, 5, 2}, -1, 1, 3), from_vector<int64_t>({0, 3, 3, 1, 4, 1}, {2, 3}), sample({3, 2}, -1, 1, 4)},
           {{"axis", int64_t(0)}}, "two index arrays"},
          {{sample({3, 4}, -1, 1, 5, DType::Complex128), from_vector<int32_t>({1, 1, -1}, {1, 3}),
            sample({3, 3}, -1, 1, 6, DType::Complex128)},
           {{"axis", int64_t(1)}}, "complex"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "gather",
    .num_inputs = 2,
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      int64_t axis = geti(a, "axis");
      SPIRE_CHECK(in[0].dim() > 0, ShapeError, "gather: x must have at least one dimension");
      check_along("gather", in[0], in[1], axis);
      return {{in[1].shape(), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {scatter_add_raw(zeros_like(c.inputs[0]), c.inputs[1], c.grads[0], geti(c.attrs, "axis")), Tensor()};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {gather_raw(c.tangents[0], c.inputs[1], geti(c.attrs, "axis"))};
    },
    .taylor = jets::linear,
    // Broadcast inputs are views, so an unmapped x or index is not copied.
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {gather_raw(batching::mapped_input(c, 0), batching::mapped_input(c, 1), geti(c.attrs, "axis") + 1)};
    },
    .nondiff_inputs = {1},
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4}), from_vector<int64_t>({0, 3, -1, 1, 2, 2}, {3, 2})}, {{"axis", int64_t(1)}}, "last axis"},
          {{sample({3, 2, 2}), from_vector<int32_t>({2, 0, 1, 1, -3, 2, 0, 0}, {2, 2, 2})}, {{"axis", int64_t(0)}},
           "first axis, int32"},
          {{sample({2, 3}, -1, 1, 2, DType::Complex128), from_vector<int64_t>({1, 1, 0, 2}, {2, 2})},
           {{"axis", int64_t(1)}}, "complex"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "scatter_add",
    .num_inputs = 3,
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      int64_t axis = geti(a, "axis");
      SPIRE_CHECK(in[0].dim() > 0, ShapeError, "scatter_add: x must have at least one dimension");
      check_along("scatter_add", in[0], in[1], axis);
      SPIRE_CHECK(in[2].dtype() == in[0].dtype(), DTypeError, "scatter_add: x is ", name(in[0].dtype()),
                  " but src is ", name(in[2].dtype()));
      SPIRE_CHECK(in[2].shape() == in[1].shape(), ShapeError, "scatter_add: src has shape ",
                  shape_str(in[2].shape()), " but index has shape ", shape_str(in[1].shape()));
      return {{in[0].shape(), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      std::vector<Tensor> out(3);
      if (c.needs_grad[0]) out[0] = c.grads[0];
      if (c.needs_grad[2]) out[2] = gather_raw(c.grads[0], c.inputs[1], geti(c.attrs, "axis"));
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      if (!c.tangents[2].defined()) return {c.tangents[0]};
      Tensor base = c.tangents[0].defined() ? c.tangents[0] : zeros_like(c.inputs[0]);
      return {scatter_add_raw(base, c.inputs[1], c.tangents[2], geti(c.attrs, "axis"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {scatter_add_raw(batching::mapped_input(c, 0), batching::mapped_input(c, 1),
                              batching::mapped_input(c, 2), geti(c.attrs, "axis") + 1)};
    },
    .nondiff_inputs = {1},
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4}, -1, 1, 1), from_vector<int64_t>({0, 3, 3, -1, 1, 2, 2, 0, 1, 1, 1, 1, 0, -4, 2}, {3, 5}),
            sample({3, 5}, -1, 1, 2)},
           {{"axis", int64_t(1)}}, "collisions"},
          {{sample({2, 3}, -1, 1, 3, DType::Complex128), from_vector<int32_t>({1, 0, 1, 1, 1, 0, 0, 0, 1}, {3, 3}),
            sample({3, 3}, -1, 1, 4, DType::Complex128)},
           {{"axis", int64_t(0)}}, "complex, first axis"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "one_hot",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      int64_t n = geti(a, "num_classes");
      require_index_dtype("one_hot", in[0]);
      check_range("one_hot", in[0], -1, n);
      Shape s = in[0].shape();
      s.push_back(n);
      return {{s, a.template get<DType>("dtype")}};
    },
    .batch = [](const BatchContext& c) -> std::vector<Tensor> { return call(c.op, c.inputs, c.attrs); },
    .differentiable = false,
    .samples = [] {
      return std::vector<OpSample>{{{from_vector<int64_t>({0, 4, -1, 2}, {2, 2})},
                                    {{"num_classes", int64_t(5)}, {"dtype", DType::Float64}}, "2-d"}};
    },
});

// The output size of nonzero: a pass over the data (walked as rows of the last axis).
int64_t count_nonzero(const Tensor& input) {
  if (input.numel() == 0) return 0;
  if (input.device().kind != DeviceKind::CPU && ops_on(input.device(), {"ne", "cast", "sum"})) {
    // One scalar back: the output's size depends on the data. != 0 as the CPU pass below (NaN
    // counts; a complex value counts when either part is nonzero); a bool is its own verdict.
    Tensor x = input.detach();
    Tensor nz = x.dtype() == DType::Bool ? x : ne(x, Scalar(0));
    return sum(cast(nz, DType::Int64)).item<int64_t>();
  }
  Tensor x = on_host(input);
  if (x.dim() == 0) return visit_dtype(x.dtype(), [&]<class T>() -> int64_t {
    return *static_cast<const T*>(x.raw_data()) != T(0);
  });
  int64_t nd = x.dim(), L = x.shape()[nd - 1], ls = x.strides()[nd - 1], R = x.numel() / L;
  int64_t count = 0;
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* p = static_cast<const T*>(x.raw_data());
    std::vector<int64_t> idx(size_t(nd), 0);
    int64_t off = 0;
    for (int64_t r = 0; r < R; ++r) {
      const T* row = p + off;
      if (ls == 1)
        for (int64_t l = 0; l < L; ++l) count += row[l] != T(0);
      else
        for (int64_t l = 0; l < L; ++l) count += row[l * ls] != T(0);
      for (int64_t d = nd - 2; d >= 0; --d) {
        if (++idx[d] < x.shape()[d]) {
          off += x.strides()[d];
          break;
        }
        off -= x.strides()[d] * (x.shape()[d] - 1);
        idx[d] = 0;
      }
    }
  });
  return count;
}

// No batching rule: the count differs between batch entries, so vmap runs it once per entry (and
// the results stack only where the counts agree).
SPIRE_DEFINE_OP({
    .name = "nonzero",
    .infer = [](auto& in, const Attrs&) -> std::vector<TensorMeta> {
      return {{Shape{count_nonzero(in[0]), in[0].dim()}, DType::Int64}};
    },
    .differentiable = false,
    .samples = [] {
      // A mask, its main use. (A float sample would need the core to carry nondiff_origin through
      // the cast the registry test applies to int outputs.)
      return std::vector<OpSample>{{{from_vector<bool>({true, false, true, false, false, true}, {2, 3})}, {}, "mask"}};
    },
});

// Packs k index arrays (broadcast together) into one [k, B...] tensor.
Tensor pack_indices(const char* fn, const std::vector<Tensor>& indices) {
  SPIRE_CHECK(!indices.empty(), ValueError, fn, ": needs at least one index array");
  Shape b = indices[0].shape();
  DType t = indices[0].dtype();
  for (auto& i : indices) {
    require_index_dtype(fn, i);
    b = broadcast_shapes(b, i.shape(), fn);
    if (i.dtype() != t) t = DType::Int64;
  }
  if (indices.size() == 1) return unsqueeze(indices[0], 0);
  std::vector<Tensor> parts;
  for (auto& i : indices) parts.push_back(expand(cast(i, t), b));
  return stack(parts, 0);
}

Tensor take_impl(const char* fn, const Tensor& x, const std::vector<Tensor>& indices, int64_t axis) {
  SPIRE_CHECK(x.dim() > 0, ShapeError, fn, ": cannot index a 0-d tensor");
  int64_t ax = normalize_axis(axis, x.dim(), fn), k = int64_t(indices.size());
  SPIRE_CHECK(ax + k <= x.dim(), ShapeError, fn, ": ", k, " index arrays from axis ", ax,
              " do not fit a tensor of shape ", shape_str(x.shape()));
  return index_select_raw(x, pack_indices(fn, indices), ax);
}

Tensor take_add_impl(const char* fn, const Tensor& x, const std::vector<Tensor>& indices, const Tensor& src,
                     int64_t axis) {
  SPIRE_CHECK(x.dim() > 0, ShapeError, fn, ": cannot index a 0-d tensor");
  int64_t ax = normalize_axis(axis, x.dim(), fn), k = int64_t(indices.size());
  SPIRE_CHECK(ax + k <= x.dim(), ShapeError, fn, ": ", k, " index arrays from axis ", ax,
              " do not fit a tensor of shape ", shape_str(x.shape()));
  Tensor packed = pack_indices(fn, indices);
  Shape want = take_shape(x.shape(), packed, ax);
  SPIRE_CHECK(broadcast_shapes(src.shape(), want, fn) == want, ShapeError, fn, ": src of shape ",
              shape_str(src.shape()), " does not broadcast to the indexed shape ", shape_str(want));
  DType t = promote(x.dtype(), src.dtype());
  return index_add_raw(cast(x, t), packed, expand_to(cast(src, t), want), ax);
}

}  // namespace

Tensor take(const Tensor& x, const std::vector<Tensor>& indices, int64_t axis) {
  return take_impl("take", x, indices, axis);
}

Tensor take_add(const Tensor& x, const std::vector<Tensor>& indices, const Tensor& src, int64_t axis) {
  return take_add_impl("take_add", x, indices, src, axis);
}

Tensor index_select(const Tensor& x, int64_t axis, const Tensor& index) {
  return take_impl("index_select", x, {index}, axis);
}

Tensor index_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src) {
  return take_add_impl("index_add", x, {index}, src, axis);
}

Tensor take_along_axis(const Tensor& x, const Tensor& index, int64_t axis) {
  const char* fn = "take_along_axis";
  require_index_dtype(fn, index);
  SPIRE_CHECK(x.dim() > 0 && index.dim() == x.dim(), ShapeError, fn, ": index of shape ",
              shape_str(index.shape()), " and x of shape ", shape_str(x.shape()),
              " must have the same number of dimensions (at least 1)");
  int64_t ax = normalize_axis(axis, x.dim(), fn);
  // The axes other than `axis` broadcast against each other, as in NumPy.
  Shape xs = x.shape(), is = index.shape();
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d == ax) continue;
    SPIRE_CHECK(xs[d] == is[d] || xs[d] == 1 || is[d] == 1, ShapeError, fn, ": index of shape ",
                shape_str(index.shape()), " does not broadcast against x of shape ", shape_str(x.shape()),
                " (axis ", d, ")");
    xs[d] = is[d] = std::max(xs[d], is[d]);
  }
  return gather_raw(expand_to(x, xs), expand_to(index, is), ax);
}

Tensor gather(const Tensor& x, int64_t axis, const Tensor& index) { return take_along_axis(x, index, axis); }

Tensor scatter_add(const Tensor& x, int64_t axis, const Tensor& index, const Tensor& src) {
  const char* fn = "scatter_add";
  require_index_dtype(fn, index);
  SPIRE_CHECK(x.dim() > 0 && index.dim() == x.dim(), ShapeError, fn, ": index of shape ",
              shape_str(index.shape()), " and x of shape ", shape_str(x.shape()),
              " must have the same number of dimensions (at least 1)");
  int64_t ax = normalize_axis(axis, x.dim(), fn);
  Shape is = x.shape();
  is[ax] = index.shape()[ax];
  for (int64_t d = 0; d < x.dim(); ++d)
    SPIRE_CHECK(index.shape()[d] == is[d] || index.shape()[d] == 1, ShapeError, fn, ": index of shape ",
                shape_str(index.shape()), " does not broadcast to x of shape ", shape_str(x.shape()),
                " on axis ", d);
  SPIRE_CHECK(broadcast_shapes(src.shape(), is, fn) == is, ShapeError, fn, ": src of shape ",
              shape_str(src.shape()), " does not broadcast to the index shape ", shape_str(is));
  DType t = promote(x.dtype(), src.dtype());
  return scatter_add_raw(cast(x, t), expand_to(index, is), expand_to(cast(src, t), is), ax);
}

Tensor one_hot(const Tensor& index, int64_t num_classes, DType dtype) {
  static const OpDef& d = op_def("one_hot");
  require_index_dtype("one_hot", index);
  if (num_classes == -1) {
    SPIRE_CHECK(!index.impl()->batched, ValueError,
                "one_hot: num_classes=-1 reads the indices, which a tensor inside vmap cannot give; pass num_classes");
    SPIRE_CHECK(index.numel() > 0, ValueError, "one_hot: num_classes=-1 needs a nonempty index to infer it from");
    auto [lo, hi] = min_max(on_host(index));
    SPIRE_CHECK(lo >= 0, ValueError, "one_hot: with num_classes=-1 indices must be >= 0, got ", lo);
    num_classes = hi + 1;
  }
  SPIRE_CHECK(num_classes >= 0, ValueError, "one_hot: num_classes must be >= 0 (or -1 to infer), got ",
              num_classes);
  return call1(d, {index}, Attrs{{"num_classes", num_classes}, {"dtype", dtype}});
}

Tensor nonzero(const Tensor& x) {
  static const OpDef& d = op_def("nonzero");
  return call1(d, {x});
}

Tensor masked_select(const Tensor& x, const Tensor& mask) {
  SPIRE_CHECK(mask.dtype() == DType::Bool, DTypeError, "masked_select: mask must be bool, got ", name(mask.dtype()));
  Shape s = broadcast_shapes(x.shape(), mask.shape(), "masked_select");
  Tensor flat_mask = reshape(expand_to(mask, s), {-1});
  Tensor where_true = reshape(nonzero(flat_mask), {-1});
  return index_select(reshape(expand_to(x, s), {-1}), 0, where_true);
}

}  // namespace spire
