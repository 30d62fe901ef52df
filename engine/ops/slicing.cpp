// Slicing views (slice, select, diagonal) with the primitives that reverse them by writing a
// gradient into zeros (slice_backward, diagonal_backward), and the copies that rearrange one tensor
// (flip, tril, triu) or cut it into views (roll, split, chunk).
#include <algorithm>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "engine/ops/shape_views.h"

namespace spire {
namespace {
using namespace rules;

int64_t geti(const Attrs& a, const char* key) { return a.get<int64_t>(key); }

Attrs slice_attrs(int64_t axis, int64_t start, int64_t length, int64_t step) {
  return Attrs{{"axis", axis}, {"start", start}, {"length", length}, {"step", step}};
}
Attrs slice_attrs(const Attrs& a) {
  return slice_attrs(geti(a, "axis"), geti(a, "start"), geti(a, "length"), geti(a, "step"));
}
Attrs diagonal_attrs(const Attrs& a) {
  return Attrs{{"offset", geti(a, "offset")}, {"axis1", geti(a, "axis1")}, {"axis2", geti(a, "axis2")}};
}
Attrs with_shape(Attrs a, const Shape& shape) { return a.set("shape", shape); }

Tensor slice_raw(const Tensor& x, const Attrs& a) {
  static const OpDef& d = op_def("slice");
  return call1(d, {x}, slice_attrs(a));
}
// Zeros of `shape` with g written at the slice `a` describes.
Tensor slice_backward_raw(const Tensor& g, const Shape& shape, const Attrs& a) {
  static const OpDef& d = op_def("slice_backward");
  return call1(d, {g}, with_shape(slice_attrs(a), shape));
}
Tensor diagonal_raw(const Tensor& x, const Attrs& a) {
  static const OpDef& d = op_def("diagonal");
  return call1(d, {x}, diagonal_attrs(a));
}
Tensor diagonal_backward_raw(const Tensor& g, const Shape& shape, const Attrs& a) {
  static const OpDef& d = op_def("diagonal_backward");
  return call1(d, {g}, with_shape(diagonal_attrs(a), shape));
}

// Attributes `a` with the integer attributes `keys` moved past the mapped axis of a batching rule.
Attrs shifted(Attrs a, std::initializer_list<const char*> keys) {
  for (const char* k : keys) a.set(k, geti(a, k) + 1);
  return a;
}
Shape with_batch(Shape s, int64_t n) {
  s.insert(s.begin(), n);
  return s;
}

Shape without_axis(Shape s, int64_t axis) {
  s.erase(s.begin() + axis);
  return s;
}

SPIRE_DEFINE_OP({
    .name = "slice",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      Shape s = in[0].shape();
      s[geti(a, "axis")] = geti(a, "length");
      return {{s, in[0].dtype()}};
    },
    .view = [](auto& in, const Attrs& a) { return detail::slice_view(in[0], a); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {slice_backward_raw(c.grads[0], c.inputs[0].shape(), c.attrs)};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {slice_raw(c.tangents[0], c.attrs)}; },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {slice_raw(c.inputs[0], shifted(slice_attrs(c.attrs), {"axis"}))};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({4, 5})}, slice_attrs(1, 1, 2, 2), "x[:, 1:5:2]"},
          {{sample({5, 3})}, slice_attrs(0, 4, 3, -2), "x[::-2]"},
          {{sample({2, 6}, -1, 1, 3, DType::Complex128)}, slice_attrs(1, 2, 3, 1), "complex x[:, 2:5]"},
      };
    },
});

// The reverse of slice, and a primitive of its own so that its reverse (slice again) is recorded.
SPIRE_DEFINE_OP({
    .name = "slice_backward",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      return {{a.template get<Shape>("shape"), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {slice_raw(c.grads[0], c.attrs)}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {slice_backward_raw(c.tangents[0], c.attrs.get<Shape>("shape"), c.attrs)};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {slice_backward_raw(c.inputs[0], with_batch(c.attrs.get<Shape>("shape"), c.size),
                                 shifted(slice_attrs(c.attrs), {"axis"}))};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({4, 2})}, with_shape(slice_attrs(1, 1, 2, 2), {4, 5}), "step 2"},
          {{sample({3, 3})}, with_shape(slice_attrs(0, 4, 3, -2), {5, 3}), "step -2"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "select",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      return {{without_axis(in[0].shape(), geti(a, "axis")), in[0].dtype()}};
    },
    .view = [](auto& in, const Attrs& a) {
      const Tensor& x = in[0];
      int64_t axis = geti(a, "axis");
      return make_view(x, without_axis(x.shape(), axis), without_axis(x.strides(), axis),
                       x.offset() + geti(a, "index") * x.strides()[axis]);
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      int64_t axis = geti(c.attrs, "axis");
      return {slice_backward_raw(unsqueeze(c.grads[0], axis), c.inputs[0].shape(),
                                 slice_attrs(axis, geti(c.attrs, "index"), 1, 1))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      static const OpDef& d = op_def("select");
      return {call1(d, {c.tangents[0]}, c.attrs)};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {call1(c.op, {c.inputs[0]}, shifted(c.attrs, {"axis"}))};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4})}, {{"axis", int64_t(1)}, {"index", int64_t(2)}}, "x[:, 2]"},
          {{sample({3}, -1, 1, 2, DType::Complex128)}, {{"axis", int64_t(0)}, {"index", int64_t(0)}}, "complex"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "diagonal",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      return {{detail::diagonal_view(in[0], a).shape(), in[0].dtype()}};
    },
    .view = [](auto& in, const Attrs& a) { return detail::diagonal_view(in[0], a); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {diagonal_backward_raw(c.grads[0], c.inputs[0].shape(), c.attrs)};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {diagonal_raw(c.tangents[0], c.attrs)}; },
    .taylor = jets::linear,
    // The mapped axis is never one of the two, so it stays first.
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {diagonal_raw(c.inputs[0], shifted(diagonal_attrs(c.attrs), {"axis1", "axis2"}))};
    },
    .samples = [] {
      auto at = [](int64_t k, int64_t a1, int64_t a2) {
        return Attrs{{"offset", k}, {"axis1", a1}, {"axis2", a2}};
      };
      return std::vector<OpSample>{
          {{sample({3, 4})}, at(1, 0, 1), "offset 1"},
          {{sample({2, 3, 3})}, at(-1, 2, 1), "batched, offset -1, axes swapped"},
      };
    },
});

SPIRE_DEFINE_OP({
    .name = "diagonal_backward",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      return {{a.template get<Shape>("shape"), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {diagonal_raw(c.grads[0], c.attrs)}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {diagonal_backward_raw(c.tangents[0], c.attrs.get<Shape>("shape"), c.attrs)};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {diagonal_backward_raw(c.inputs[0], with_batch(c.attrs.get<Shape>("shape"), c.size),
                                    shifted(diagonal_attrs(c.attrs), {"axis1", "axis2"}))};
    },
    .samples = [] {
      return std::vector<OpSample>{{{sample({3})}, Attrs{{"offset", int64_t(1)}, {"axis1", int64_t(0)},
                                                          {"axis2", int64_t(1)}, {"shape", Shape{3, 4}}},
                                    "offset 1"}};
    },
});

// tril and triu keep one side of the diagonal of the last two axes; both are linear and self-adjoint.
std::vector<OpSample> triangle_samples() {
  return {{{sample({3, 4})}, {{"k", int64_t(0)}}, "k 0"},
          {{sample({2, 3, 3})}, {{"k", int64_t(-1)}}, "batched k -1"},
          {{sample({4, 3}, -1, 1, 2, DType::Complex128)}, {{"k", int64_t(1)}}, "complex k 1"}};
}
// They act on the last two axes, so the mapped axis in front is just one more batch axis.
std::vector<Tensor> last_two_axes(const BatchContext& c) { return call(c.op, c.inputs, c.attrs); }

SPIRE_DEFINE_OP({
    .name = "tril",
    .infer = same_as_input,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {tril(c.grads[0], geti(c.attrs, "k"))}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {tril(c.tangents[0], geti(c.attrs, "k"))}; },
    .taylor = jets::linear,
    .batch = last_two_axes,
    .samples = triangle_samples,
});

SPIRE_DEFINE_OP({
    .name = "triu",
    .infer = same_as_input,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {triu(c.grads[0], geti(c.attrs, "k"))}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {triu(c.tangents[0], geti(c.attrs, "k"))}; },
    .taylor = jets::linear,
    .batch = last_two_axes,
    .samples = triangle_samples,
});

// A copy, not a view: negative strides would follow the result into every kernel that reads it.
SPIRE_DEFINE_OP({
    .name = "flip",
    .infer = same_as_input,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {flip(c.grads[0], c.attrs.get<std::vector<int64_t>>("axes"))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {flip(c.tangents[0], c.attrs.get<std::vector<int64_t>>("axes"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {flip(c.inputs[0], batching::shift_axes(c.attrs.get<std::vector<int64_t>>("axes")))};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4})}, {{"axes", std::vector<int64_t>{0, 1}}}, "both axes"},
          {{permute(sample({4, 2, 3}), {1, 2, 0})}, {{"axes", std::vector<int64_t>{1}}}, "strided, middle axis"},
      };
    },
});

void check_index(const char* op, int64_t index, int64_t axis, int64_t n) {
  SPIRE_CHECK(index >= -n && index < n, ValueError, op, ": index ", index, " is out of range for axis ",
              axis, " of size ", n, n > 0 ? detail::cat(" (allowed: ", -n, " to ", n - 1, ")")
                                          : std::string(" (an empty axis has no valid index)"));
}

int64_t nonneg_mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

}  // namespace

Tensor slice(const Tensor& x, int64_t axis, std::optional<int64_t> start, std::optional<int64_t> stop,
             int64_t step) {
  static const OpDef& d = op_def("slice");
  SPIRE_CHECK(x.dim() > 0, ShapeError, "slice: cannot slice a 0-d tensor");
  SPIRE_CHECK(step != 0, ValueError, "slice: step must be nonzero");
  int64_t ax = normalize_axis(axis, x.dim(), "slice");
  int64_t n = x.shape()[ax];
  // Python's slice.indices(n): clamp into range, counting negative bounds from the end.
  auto bound = [&](std::optional<int64_t> v, int64_t fallback, int64_t lo, int64_t hi) {
    if (!v) return fallback;
    int64_t b = *v < 0 ? *v + n : *v;
    return std::clamp(b, lo, hi);
  };
  int64_t b0, b1, length;
  if (step > 0) {
    b0 = bound(start, 0, 0, n);
    b1 = bound(stop, n, 0, n);
    length = b1 > b0 ? (b1 - b0 + step - 1) / step : 0;
  } else {
    b0 = bound(start, n - 1, -1, n - 1);
    b1 = bound(stop, -1, -1, n - 1);
    length = b0 > b1 ? (b0 - b1 - step - 1) / -step : 0;
  }
  if (length == 0) b0 = 0;
  if (step == 1 && b0 == 0 && length == n) return x;
  return call1(d, {x}, slice_attrs(ax, b0, length, step));
}

Tensor select(const Tensor& x, int64_t axis, int64_t index) {
  static const OpDef& d = op_def("select");
  SPIRE_CHECK(x.dim() > 0, ShapeError, "select: cannot index a 0-d tensor");
  int64_t ax = normalize_axis(axis, x.dim(), "select");
  int64_t n = x.shape()[ax];
  check_index("select", index, ax, n);
  return call1(d, {x}, Attrs{{"axis", ax}, {"index", index < 0 ? index + n : index}});
}

Tensor diagonal(const Tensor& x, int64_t offset, int64_t axis1, int64_t axis2) {
  static const OpDef& d = op_def("diagonal");
  SPIRE_CHECK(x.dim() >= 2, ShapeError, "diagonal: needs at least 2 dimensions, got shape ",
              shape_str(x.shape()));
  int64_t a1 = normalize_axis(axis1, x.dim(), "diagonal"), a2 = normalize_axis(axis2, x.dim(), "diagonal");
  SPIRE_CHECK(a1 != a2, ShapeError, "diagonal: axis1 and axis2 must differ, both are axis ", a1);
  return call1(d, {x}, Attrs{{"offset", offset}, {"axis1", a1}, {"axis2", a2}});
}

Tensor tril(const Tensor& x, int64_t k) {
  static const OpDef& d = op_def("tril");
  SPIRE_CHECK(x.dim() >= 2, ShapeError, "tril: needs at least 2 dimensions, got shape ", shape_str(x.shape()));
  return call1(d, {x}, Attrs{{"k", k}});
}

Tensor triu(const Tensor& x, int64_t k) {
  static const OpDef& d = op_def("triu");
  SPIRE_CHECK(x.dim() >= 2, ShapeError, "triu: needs at least 2 dimensions, got shape ", shape_str(x.shape()));
  return call1(d, {x}, Attrs{{"k", k}});
}

Tensor flip(const Tensor& x, const std::vector<int64_t>& axes) {
  static const OpDef& d = op_def("flip");
  if (x.dim() == 0) return copy(x);
  return call1(d, {x}, Attrs{{"axes", normalize_axes(axes, x.dim(), "flip")}});
}

Tensor roll(const Tensor& x, int64_t shift, int64_t axis) {
  SPIRE_CHECK(x.dim() > 0, ShapeError, "roll: cannot roll a 0-d tensor");
  int64_t ax = normalize_axis(axis, x.dim(), "roll");
  int64_t n = x.shape()[ax];
  int64_t s = n > 0 ? nonneg_mod(shift, n) : 0;
  if (s == 0) return copy(x);
  // out[i] = x[i - s]: the last s elements come first.
  return concat({slice(x, ax, n - s, n), slice(x, ax, 0, n - s)}, ax);
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis) {
  SPIRE_CHECK(x.dim() > 0, ShapeError, "split: cannot split a 0-d tensor");
  int64_t ax = normalize_axis(axis, x.dim(), "split");
  int64_t total = 0;
  for (int64_t s : sizes) {
    SPIRE_CHECK(s >= 0, ValueError, "split: section sizes must be >= 0, got ", s);
    total += s;
  }
  SPIRE_CHECK(total == x.shape()[ax], ShapeError, "split: section sizes add up to ", total,
              " but axis ", ax, " of shape ", shape_str(x.shape()), " has size ", x.shape()[ax]);
  std::vector<Tensor> out;
  int64_t at = 0;
  for (int64_t s : sizes) {
    out.push_back(slice(x, ax, at, at + s));
    at += s;
  }
  return out;
}

std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis) {
  SPIRE_CHECK(chunks > 0, ValueError, "chunk: the number of chunks must be > 0, got ", chunks);
  SPIRE_CHECK(x.dim() > 0, ShapeError, "chunk: cannot split a 0-d tensor");
  int64_t ax = normalize_axis(axis, x.dim(), "chunk");
  int64_t n = x.shape()[ax];
  // As PyTorch: chunks of ceil(n / chunks), the last one smaller, possibly fewer than asked.
  int64_t size = std::max<int64_t>((n + chunks - 1) / chunks, 1);
  std::vector<int64_t> sizes;
  for (int64_t at = 0; at < n; at += size) sizes.push_back(std::min(size, n - at));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, ax);
}

}  // namespace spire
