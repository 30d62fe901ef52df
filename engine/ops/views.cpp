// Views: ops whose output shares memory with the input (alias, reshape, expand, permute) and the
// copy that makes a view contiguous.
#include <algorithm>
#include <numeric>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;

// Strides for viewing x with `shape` without copying, or empty if impossible (as PyTorch's
// computeStride: each run of merged input axes must be contiguous within itself).
std::optional<Shape> view_strides(const Tensor& x, const Shape& shape) {
  if (x.is_contiguous()) return contiguous_strides(shape);
  const Shape& os = x.shape();
  const Shape& ost = x.strides();
  Shape st(shape.size());
  int64_t view_d = int64_t(shape.size()) - 1;
  int64_t chunk = 1;
  int64_t tensor_numel = 1;
  int64_t base_stride = ost.empty() ? 1 : ost.back();
  for (int64_t d = int64_t(os.size()) - 1; d >= 0; --d) {
    tensor_numel *= os[d];
    if (d == 0 || (os[d - 1] != 1 && ost[d - 1] != tensor_numel * base_stride)) {
      while (view_d >= 0 && (chunk < tensor_numel || shape[view_d] == 1)) {
        st[view_d] = chunk * base_stride;
        chunk *= shape[view_d];
        --view_d;
      }
      if (chunk != tensor_numel) return std::nullopt;
      if (d > 0) {
        base_stride = ost[d - 1];
        tensor_numel = 1;
        chunk = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return st;
}

SPIRE_DEFINE_OP({
    .name = "alias",
    .infer = same_as_input,
    .view = [](auto& in, auto&) { return in[0].alias(); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {c.grads[0]}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {c.tangents[0]}; },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> { return {alias(c.inputs[0])}; },
    .samples = [] { return std::vector<OpSample>{{{sample({2, 3})}, {}, "alias"}}; },
});

SPIRE_DEFINE_OP({
    .name = "reshape",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      return {{a.template get<Shape>("shape"), in[0].dtype()}};
    },
    .view = [](auto& in, const Attrs& a) {
      const Shape& s = a.template get<Shape>("shape");
      auto st = view_strides(in[0], s);
      SPIRE_CHECK(st, ShapeError, "reshape: internal: input is not viewable as ", shape_str(s));
      return make_view(in[0], s, *st, in[0].offset());
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {reshape(c.grads[0], c.inputs[0].shape())}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {reshape(c.tangents[0], c.attrs.get<Shape>("shape"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      Shape s = c.attrs.get<Shape>("shape");
      s.insert(s.begin(), c.size);
      return {reshape(c.inputs[0], s)};
    },
    .samples = [] {
      return std::vector<OpSample>{{{sample({2, 6})}, {{"shape", Shape{3, 4}}}, "split"},
                                   {{sample({2, 3, 2})}, {{"shape", Shape{12}}}, "flatten"}};
    },
});

SPIRE_DEFINE_OP({
    .name = "expand",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      return {{a.template get<Shape>("shape"), in[0].dtype()}};
    },
    .view = [](auto& in, const Attrs& a) {
      const Shape& s = a.template get<Shape>("shape");
      const Tensor& x = in[0];
      Shape st(s.size(), 0);
      int64_t lead = int64_t(s.size()) - x.dim();
      for (int64_t i = 0; i < x.dim(); ++i) st[lead + i] = x.shape()[i] == s[lead + i] ? x.strides()[i] : 0;
      return make_view(x, s, st, x.offset());
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {sum_to(c.grads[0], c.inputs[0].shape())}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {expand(c.tangents[0], c.attrs.get<Shape>("shape"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      // Line the input up with the target rank first, so the mapped axis stays in front.
      Shape target = c.attrs.get<Shape>("shape");
      Shape in(c.inputs[0].shape().begin() + 1, c.inputs[0].shape().end());
      in.insert(in.begin(), target.size() - in.size(), 1);
      in.insert(in.begin(), c.size);
      target.insert(target.begin(), c.size);
      return {expand(reshape(c.inputs[0], in), target)};
    },
    .samples = [] {
      return std::vector<OpSample>{{{sample({3, 1})}, {{"shape", Shape{2, 3, 4}}}, "broadcast"}};
    },
});

SPIRE_DEFINE_OP({
    .name = "permute",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      auto& p = a.template get<std::vector<int64_t>>("perm");
      Shape s;
      for (int64_t i : p) s.push_back(in[0].shape()[i]);
      return {{s, in[0].dtype()}};
    },
    .view = [](auto& in, const Attrs& a) {
      auto& p = a.template get<std::vector<int64_t>>("perm");
      Shape s, st;
      for (int64_t i : p) {
        s.push_back(in[0].shape()[i]);
        st.push_back(in[0].strides()[i]);
      }
      return make_view(in[0], s, st, in[0].offset());
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      auto& p = c.attrs.get<std::vector<int64_t>>("perm");
      std::vector<int64_t> inv(p.size());
      for (size_t i = 0; i < p.size(); ++i) inv[p[i]] = int64_t(i);
      return {permute(c.grads[0], inv)};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {permute(c.tangents[0], c.attrs.get<std::vector<int64_t>>("perm"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      std::vector<int64_t> p{0};
      for (int64_t a : c.attrs.get<std::vector<int64_t>>("perm")) p.push_back(a + 1);
      return {permute(c.inputs[0], p)};
    },
    .samples = [] {
      return std::vector<OpSample>{{{sample({2, 3, 4})}, {{"perm", std::vector<int64_t>{2, 0, 1}}}, "3d"}};
    },
});

SPIRE_DEFINE_OP({
    .name = "copy",
    .infer = same_as_input,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {c.grads[0]}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {c.tangents[0]}; },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> { return {copy(c.inputs[0])}; },
    .samples = [] { return std::vector<OpSample>{{{permute(sample({2, 3}), {1, 0})}, {}, "transposed"}}; },
});

}  // namespace

Tensor alias(const Tensor& x) {
  static const OpDef& d = op_def("alias");
  return call1(d, {x});
}

Tensor reshape(const Tensor& x, const Shape& shape) {
  static const OpDef& d = op_def("reshape");
  Shape s = shape;
  int64_t known = 1, infer_at = -1;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == -1) {
      SPIRE_CHECK(infer_at < 0, ShapeError, "reshape: only one dimension can be -1, got ", shape_str(shape));
      infer_at = int64_t(i);
    } else {
      SPIRE_CHECK(s[i] >= 0, ShapeError, "reshape: invalid dimension ", s[i], " in ", shape_str(shape));
      known *= s[i];
    }
  }
  if (infer_at >= 0) {
    SPIRE_CHECK(known > 0 && x.numel() % known == 0, ShapeError, "reshape: cannot reshape ",
                shape_str(x.shape()), " (", x.numel(), " elements) into ", shape_str(shape));
    s[infer_at] = x.numel() / known;
  }
  SPIRE_CHECK(numel_of(s) == x.numel(), ShapeError, "reshape: cannot reshape ", shape_str(x.shape()),
              " (", x.numel(), " elements) into ", shape_str(shape), " (", numel_of(s), " elements)");
  if (s == x.shape()) return x;
  Tensor src = view_strides(x, s) ? x : contiguous(x);
  return call1(d, {src}, Attrs{{"shape", s}});
}

Tensor expand(const Tensor& x, const Shape& shape) {
  static const OpDef& d = op_def("expand");
  SPIRE_CHECK(int64_t(shape.size()) >= x.dim(), ShapeError, "expand: cannot expand ", shape_str(x.shape()),
              " to fewer dimensions ", shape_str(shape));
  int64_t lead = int64_t(shape.size()) - x.dim();
  for (int64_t i = 0; i < x.dim(); ++i)
    SPIRE_CHECK(x.shape()[i] == shape[lead + i] || x.shape()[i] == 1, ShapeError, "expand: cannot expand ",
                shape_str(x.shape()), " to ", shape_str(shape), " (axis ", i, " has size ", x.shape()[i],
                ", must be 1 or ", shape[lead + i], ")");
  if (shape == x.shape()) return x;
  return call1(d, {x}, Attrs{{"shape", shape}});
}

Tensor broadcast_to(const Tensor& x, const Shape& shape) { return expand(x, shape); }

Tensor permute(const Tensor& x, const std::vector<int64_t>& perm) {
  static const OpDef& d = op_def("permute");
  SPIRE_CHECK(int64_t(perm.size()) == x.dim(), ShapeError, "permute: got ", perm.size(), " axes for a ",
              x.dim(), "-d tensor");
  std::vector<int64_t> p;
  std::vector<bool> seen(perm.size());
  for (int64_t a : perm) {
    int64_t n = normalize_axis(a, x.dim(), "permute");
    SPIRE_CHECK(!seen[n], ShapeError, "permute: axis ", a, " appears twice");
    seen[n] = true;
    p.push_back(n);
  }
  bool identity = true;
  for (size_t i = 0; i < p.size(); ++i) identity &= p[i] == int64_t(i);
  if (identity) return x;
  return call1(d, {x}, Attrs{{"perm", p}});
}

Tensor moveaxis(const Tensor& x, const std::vector<int64_t>& source, const std::vector<int64_t>& destination) {
  SPIRE_CHECK(source.size() == destination.size(), ShapeError, "moveaxis: ", source.size(),
              " source axes but ", destination.size(), " destinations");
  int64_t n = x.dim();
  std::vector<std::pair<int64_t, int64_t>> moves;  // (destination, source)
  for (size_t k = 0; k < source.size(); ++k)
    moves.emplace_back(normalize_axis(destination[k], n, "moveaxis"), normalize_axis(source[k], n, "moveaxis"));
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i)
    if (std::none_of(moves.begin(), moves.end(), [&](auto& m) { return m.second == i; })) order.push_back(i);
  std::sort(moves.begin(), moves.end());
  for (auto [d, s] : moves) order.insert(order.begin() + d, s);
  return permute(x, order);
}

Tensor moveaxis(const Tensor& x, int64_t source, int64_t destination) {
  return moveaxis(x, std::vector<int64_t>{source}, std::vector<int64_t>{destination});
}

Tensor transpose(const Tensor& x, int64_t a, int64_t b) {
  std::vector<int64_t> p(x.dim());
  std::iota(p.begin(), p.end(), 0);
  std::swap(p[normalize_axis(a, x.dim(), "transpose")], p[normalize_axis(b, x.dim(), "transpose")]);
  return permute(x, p);
}

Tensor mT(const Tensor& x) {
  SPIRE_CHECK(x.dim() >= 2, ShapeError, "mT: needs at least 2 dimensions, got shape ", shape_str(x.shape()));
  return transpose(x, -2, -1);
}

Tensor copy(const Tensor& x) {
  static const OpDef& d = op_def("copy");
  return call1(d, {x});
}

Tensor contiguous(const Tensor& x) { return x.is_contiguous() ? x : copy(x); }

Tensor squeeze(const Tensor& x, const std::vector<int64_t>& axes) {
  Shape s;
  if (axes.empty()) {
    for (int64_t d : x.shape())
      if (d != 1) s.push_back(d);
  } else {
    Axes ax = normalize_axes(axes, x.dim(), "squeeze");
    for (int64_t i = 0; i < x.dim(); ++i) {
      bool drop = std::binary_search(ax.begin(), ax.end(), i);
      SPIRE_CHECK(!drop || x.shape()[i] == 1, ShapeError, "squeeze: axis ", i, " has size ", x.shape()[i],
                  ", only size-1 axes can be squeezed");
      if (!drop) s.push_back(x.shape()[i]);
    }
  }
  return reshape(x, s);
}

Tensor unsqueeze(const Tensor& x, int64_t axis) {
  int64_t a = normalize_axis(axis, x.dim() + 1, "unsqueeze");
  Shape s = x.shape();
  s.insert(s.begin() + a, 1);
  return reshape(x, s);
}

Tensor flatten(const Tensor& x, int64_t start_axis, int64_t end_axis) {
  if (x.dim() == 0) return reshape(x, {1});
  int64_t a = normalize_axis(start_axis, x.dim(), "flatten"), b = normalize_axis(end_axis, x.dim(), "flatten");
  Shape s(x.shape().begin(), x.shape().begin() + a);
  int64_t m = 1;
  for (int64_t i = a; i <= b; ++i) m *= x.shape()[i];
  s.push_back(m);
  s.insert(s.end(), x.shape().begin() + b + 1, x.shape().end());
  return reshape(x, s);
}

}  // namespace spire
