// Joining and padding: concat (the primitive), stack (concat of unsqueezed views) and pad (a
// primitive for constant padding; circular and reflect padding gather along each padded axis, so
// their reverse is the scatter-add of the gather).
#include <algorithm>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"
#include "engine/ops/device.h"

namespace spire {
namespace {
using namespace rules;

Tensor concat_raw(const std::vector<Tensor>& xs, int64_t axis) {
  static const OpDef& d = op_def("concat");
  return call1(d, xs, Attrs{{"axis", axis}});
}

Tensor pad_raw(const Tensor& x, const std::vector<int64_t>& pads, Scalar value) {
  static const OpDef& d = op_def("pad");
  return call1(d, {x}, Attrs{{"pads", pads}, {"value", value}});
}

SPIRE_DEFINE_OP({
    .name = "concat",
    .num_inputs = -1,
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      require_same_dtype("concat", in);
      int64_t axis = a.template get<int64_t>("axis");
      Shape s = in[0].shape();
      s[axis] = 0;
      for (auto& t : in) s[axis] += t.shape()[axis];
      return {{s, in[0].dtype()}};
    },
    // Each input's gradient is its slab of g: a view, no copy.
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      int64_t axis = c.attrs.get<int64_t>("axis");
      std::vector<Tensor> out(c.inputs.size());
      int64_t at = 0;
      for (size_t i = 0; i < c.inputs.size(); ++i) {
        int64_t n = c.inputs[i].shape()[axis];
        if (c.needs_grad[i]) out[i] = slice(c.grads[0], axis, at, at + n);
        at += n;
      }
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      std::vector<Tensor> parts;
      for (size_t i = 0; i < c.inputs.size(); ++i)
        parts.push_back(c.tangents[i].defined() ? c.tangents[i] : zeros_like(c.inputs[i]));
      return {concat_raw(parts, c.attrs.get<int64_t>("axis"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      std::vector<Tensor> parts;
      for (size_t i = 0; i < c.inputs.size(); ++i) parts.push_back(batching::mapped_input(c, i));
      return {concat_raw(parts, c.attrs.get<int64_t>("axis") + 1)};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({2, 3}, -1, 1, 1), sample({4, 3}, -1, 1, 2)}, {{"axis", int64_t(0)}}, "axis 0"},
          {{sample({2, 1}, -1, 1, 3), mT(sample({3, 2}, -1, 1, 4)), sample({2, 2}, -1, 1, 5)},
           {{"axis", int64_t(1)}}, "three, one strided"},
          {{sample({3}, -1, 1, 6, DType::Complex128), sample({2}, -1, 1, 7, DType::Complex128)},
           {{"axis", int64_t(0)}}, "complex"},
      };
    },
});

// Constant padding; "pads" holds (before, after) for every axis, all >= 0 (the wrapper crops first
// where a pad is negative).
SPIRE_DEFINE_OP({
    .name = "pad",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      auto& p = a.template get<std::vector<int64_t>>("pads");
      Shape s = in[0].shape();
      for (size_t i = 0; i < s.size(); ++i) s[i] += p[2 * i] + p[2 * i + 1];
      return {{s, in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      auto& p = c.attrs.get<std::vector<int64_t>>("pads");
      Tensor g = c.grads[0];
      for (int64_t ax = 0; ax < c.inputs[0].dim(); ++ax)
        if (p[2 * ax] || p[2 * ax + 1]) g = slice(g, ax, p[2 * ax], p[2 * ax] + c.inputs[0].shape()[ax]);
      return {g};
    },
    // The fill value is a constant: tangents are padded with zeros.
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {pad_raw(c.tangents[0], c.attrs.get<std::vector<int64_t>>("pads"), Scalar(0.0))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      std::vector<int64_t> pads{0, 0};
      for (int64_t p : c.attrs.get<std::vector<int64_t>>("pads")) pads.push_back(p);
      return {pad_raw(c.inputs[0], pads, c.attrs.get<Scalar>("value"))};
    },
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4})}, {{"pads", std::vector<int64_t>{1, 2, 0, 1}}, {"value", Scalar(0.5)}}, "2-d"},
          {{sample({2, 3}, -1, 1, 2, DType::Complex128)},
           {{"pads", std::vector<int64_t>{0, 0, 2, 0}}, {"value", Scalar(0.0)}}, "complex"},
      };
    },
});

int64_t nonneg_mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

// Source positions along an axis of size n padded by (before, after), for the index-based modes.
// Reflect mirrors about the edge elements without repeating them (NumPy's "reflect", PyTorch's
// "reflect"), periodically for pads wider than the axis, as NumPy does.
Tensor pad_positions(int64_t n, int64_t before, int64_t after, PadMode mode) {
  std::vector<int64_t> idx(size_t(before + n + after));
  int64_t period = 2 * (n - 1);
  for (int64_t i = 0; i < int64_t(idx.size()); ++i) {
    int64_t j = i - before;
    if (mode == PadMode::Circular) idx[i] = nonneg_mod(j, n);
    else if (n == 1) idx[i] = 0;
    else {
      int64_t r = nonneg_mod(j, period);
      idx[i] = r < n ? r : period - r;
    }
  }
  return from_vector(idx, {int64_t(idx.size())});
}

}  // namespace

Tensor concat(const std::vector<Tensor>& xs, int64_t axis) {
  SPIRE_CHECK(!xs.empty(), ValueError, "concat: needs at least one tensor");
  int64_t nd = xs[0].dim();
  SPIRE_CHECK(nd > 0, ShapeError, "concat: cannot concatenate 0-d tensors (stack them instead)");
  int64_t ax = normalize_axis(axis, nd, "concat");
  DType t = xs[0].dtype();
  for (size_t i = 1; i < xs.size(); ++i) {
    const Shape& s = xs[i].shape();
    bool ok = xs[i].dim() == nd;
    for (int64_t d = 0; ok && d < nd; ++d) ok = d == ax || s[d] == xs[0].shape()[d];
    SPIRE_CHECK(ok, ShapeError, "concat: tensor ", i, " has shape ", shape_str(s), " and tensor 0 has shape ",
                shape_str(xs[0].shape()), "; shapes must agree on every axis except axis ", ax);
    t = promote(t, xs[i].dtype());
  }
  std::vector<Tensor> parts;
  for (auto& x : xs) parts.push_back(cast(x, t));
  return concat_raw(parts, ax);
}

Tensor stack(const std::vector<Tensor>& xs, int64_t axis) {
  SPIRE_CHECK(!xs.empty(), ValueError, "stack: needs at least one tensor");
  int64_t ax = normalize_axis(axis, xs[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < xs.size(); ++i) {
    SPIRE_CHECK(xs[i].shape() == xs[0].shape(), ShapeError, "stack: tensor ", i, " has shape ",
                shape_str(xs[i].shape()), " and tensor 0 has shape ", shape_str(xs[0].shape()),
                "; all must have the same shape");
    parts.push_back(unsqueeze(xs[i], ax));
  }
  return concat(parts, ax);
}

Tensor pad(const Tensor& x, const std::vector<std::pair<int64_t, int64_t>>& pads, PadMode mode, Scalar value) {
  int64_t nd = x.dim(), np = int64_t(pads.size());
  SPIRE_CHECK(np <= nd, ShapeError, "pad: ", np, " (before, after) pairs for a tensor of shape ",
              shape_str(x.shape()), " (at most one pair per axis)");
  int64_t first = nd - np;
  if (mode == PadMode::Constant) {
    // Negative pads crop, as in PyTorch's constant padding.
    Tensor y = x;
    std::vector<int64_t> full(2 * size_t(nd), 0);
    for (int64_t i = 0; i < np; ++i) {
      int64_t ax = first + i, n = y.shape()[ax];
      auto [before, after] = pads[i];
      if (before < 0 || after < 0) {
        int64_t lo = std::max<int64_t>(-before, 0), hi = n - std::max<int64_t>(-after, 0);
        SPIRE_CHECK(lo <= hi, ShapeError, "pad: negative pads (", before, ", ", after,
                    ") crop more than the ", n, " elements of axis ", ax);
        y = slice(y, ax, lo, hi);
      }
      full[2 * ax] = std::max<int64_t>(before, 0);
      full[2 * ax + 1] = std::max<int64_t>(after, 0);
    }
    return pad_raw(y, full, value);
  }
  const char* mode_name = mode == PadMode::Circular ? "circular" : "reflect";
  Tensor y = x;
  bool padded = false;
  for (int64_t i = 0; i < np; ++i) {
    int64_t ax = first + i, n = x.shape()[ax];
    auto [before, after] = pads[i];
    SPIRE_CHECK(before >= 0 && after >= 0, ValueError, "pad: negative pads (", before, ", ", after,
                ") are only allowed in constant mode, not ", mode_name);
    if (before == 0 && after == 0) continue;
    SPIRE_CHECK(n > 0, ShapeError, "pad: cannot pad axis ", ax, " of size 0 in ", mode_name, " mode");
    y = index_select(y, ax, to(pad_positions(n, before, after, mode), x.device()));
    padded = true;
  }
  return padded ? y : copy(x);
}

}  // namespace spire
