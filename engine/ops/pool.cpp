// Pooling primitives over the last D spatial axes (D = the length of the window attributes); every
// leading axis is a plane, so vmap's mapped axis is just one more plane.
//   max_pool(x)                   -> (values, indices): indices are flat positions in the input plane
//   avg_pool(x)                   -> y[o] = sum_{i in window(o)} x[i] / divisor(o)
//   avg_pool_backward(g)          -> its transpose: x[i] = sum_{o : i in window(o)} g[o] / divisor(o)
//   max_unpool(x, indices)        -> zeros with y[indices] = x (torch's MaxUnpool)
// max_pool is locally linear: its reverse rule scatter-adds the gradient to the argmax and its
// forward and Taylor rules gather the tangent there (engine/ops/indexing.cpp), so derivatives of
// any order stay in gather/scatter_add. avg_pool and avg_pool_backward are each other's reverse
// rules. The windows (engine/ops/pool_internal.h) are regular (kernel, stride, padding, dilation,
// ceil_mode) or adaptive (output_size).
#include "engine/ops/pool.h"

#include <algorithm>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/pool_internal.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace pool {

using Ints = std::vector<int64_t>;

Shape Windows::out_sizes() const {
  Shape s;
  for (auto& a : axes) s.push_back(a.out);
  return s;
}
int64_t Windows::in_plane() const {
  int64_t n = 1;
  for (auto& a : axes) n *= a.in;
  return n;
}
int64_t Windows::out_plane() const {
  int64_t n = 1;
  for (auto& a : axes) n *= a.out;
  return n;
}
Windows Windows::as_3d() const {
  Windows w;
  w.divisor_override = divisor_override;
  for (int64_t i = spatial(); i < 3; ++i) w.axes.push_back(AxisWindows{1, 1, 1, {0}, {1}, {1}});
  w.axes.insert(w.axes.end(), axes.begin(), axes.end());
  return w;
}

namespace {

// torch's pooling_output_shape: floor (or ceil) of (padded - dilated kernel) / stride, plus one; with
// ceil_mode the last window must start inside the input or its left padding.
int64_t regular_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t q = num >= 0 ? num / s : -((-num + s - 1) / s);  // rounded towards -infinity
  int64_t out = q + 1;
  if (ceil_mode && out > 0 && (out - 1) * s >= in + p) --out;
  return out;
}

}  // namespace

Windows windows(const char* op, const Attrs& a, const Shape& in) {
  Windows w;
  int64_t D = int64_t(in.size());
  if (a.has("output_size")) {
    const Ints& os = a.get<Ints>("output_size");
    SPIRE_CHECK(int64_t(os.size()) == D, ValueError, op, ": output_size ", shape_str(os), " needs ", D,
                " entries for ", D, " spatial axes");
    for (int64_t i = 0; i < D; ++i) {
      SPIRE_CHECK(in[i] >= 1, ShapeError, op, ": the input is empty along spatial axis ", i, " (spatial sizes ",
                  shape_str(in), "); adaptive pooling needs at least one element per window");
      SPIRE_CHECK(os[i] >= 0, ValueError, op, ": output_size must be >= 0, got ", shape_str(os));
      AxisWindows ax{in[i], os[i], 1, {}, {}, {}};
      for (int64_t o = 0; o < os[i]; ++o) {
        int64_t start = o * in[i] / os[i], end = ((o + 1) * in[i] + os[i] - 1) / os[i];
        ax.first.push_back(start);
        ax.count.push_back(end - start);
        ax.divisor.push_back(end - start);
      }
      w.axes.push_back(std::move(ax));
    }
    return w;
  }
  const Ints &k = a.get<Ints>("kernel"), &s = a.get<Ints>("stride"), &p = a.get<Ints>("padding"),
             &d = a.get<Ints>("dilation");
  bool ceil_mode = a.get<bool>("ceil_mode");
  bool include_pad = a.get_or<bool>("count_include_pad", true);
  w.divisor_override = a.get_or<int64_t>("divisor_override", 0);
  SPIRE_CHECK(int64_t(k.size()) == D && int64_t(s.size()) == D && int64_t(p.size()) == D && int64_t(d.size()) == D,
              ValueError, op, ": kernel_size, stride, padding and dilation need ", D, " entries for ", D,
              " spatial axes");
  SPIRE_CHECK(w.divisor_override >= 0, ValueError, op, ": divisor_override must be positive, got ",
              w.divisor_override);
  for (int64_t i = 0; i < D; ++i) {
    SPIRE_CHECK(k[i] >= 1, ValueError, op, ": kernel_size must be >= 1, got ", shape_str(k));
    SPIRE_CHECK(s[i] >= 1, ValueError, op, ": stride must be >= 1, got ", shape_str(s));
    SPIRE_CHECK(d[i] >= 1, ValueError, op, ": dilation must be >= 1, got ", shape_str(d));
    SPIRE_CHECK(p[i] >= 0, ValueError, op, ": padding must be >= 0, got ", shape_str(p));
    SPIRE_CHECK(p[i] <= k[i] / 2, ValueError, op, ": padding ", shape_str(p),
                " must be at most half the kernel size ", shape_str(k), " (PyTorch's rule: a window never lies",
                " mostly in the padding)");
    int64_t out = regular_out_size(in[i], k[i], s[i], p[i], d[i], ceil_mode);
    int64_t eff = d[i] * (k[i] - 1) + 1;
    SPIRE_CHECK(out >= 1, ShapeError, op, ": kernel of size ", k[i], " (dilated to ", eff,
                ") is larger than the padded input of size ", in[i] + 2 * p[i], " along spatial axis ", i,
                " (spatial sizes ", shape_str(in), ", padding ", shape_str(p), "): the output would be empty");
    AxisWindows ax{in[i], out, d[i], {}, {}, {}};
    for (int64_t o = 0; o < out; ++o) {
      int64_t start = o * s[i] - p[i];
      int64_t jlo = start >= 0 ? 0 : (-start + d[i] - 1) / d[i];
      int64_t jhi = in[i] - 1 - start < 0 ? 0 : std::min(k[i], (in[i] - 1 - start) / d[i] + 1);
      int64_t count = std::max<int64_t>(0, jhi - jlo);
      SPIRE_CHECK(count > 0, ShapeError, op, ": window ", o, " along spatial axis ", i,
                  " covers only padding (input size ", in[i], ", kernel ", k[i], ", dilation ", d[i], ", padding ",
                  p[i], ")");
      ax.first.push_back(start + jlo * d[i]);
      ax.count.push_back(count);
      ax.divisor.push_back(include_pad ? std::min(start + k[i], in[i] + p[i]) - start : count);
    }
    w.axes.push_back(std::move(ax));
  }
  return w;
}

}  // namespace pool

namespace {
using namespace rules;
using Ints = std::vector<int64_t>;

// Spatial axes of a call: the number of window entries in its attributes.
int64_t spatial_of(const Attrs& a) {
  return int64_t((a.has("output_size") ? a.get<Ints>("output_size") : a.get<Ints>("kernel")).size());
}

Shape leading(const Tensor& t, int64_t D) { return Shape(t.shape().begin(), t.shape().end() - D); }
Shape trailing(const Tensor& t, int64_t D) { return Shape(t.shape().end() - D, t.shape().end()); }
Shape joined(Shape a, const Shape& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void check_rank(const char* op, const Tensor& x, int64_t D) {
  SPIRE_CHECK(D >= 1 && D <= 3, ValueError, op, ": pools 1 to 3 spatial axes, got ", D);
  SPIRE_CHECK(x.dim() >= D, ShapeError, op, ": input of shape ", shape_str(x.shape()), " has fewer than ", D,
              " spatial axes");
}

// Output shape of max_pool / avg_pool on x.
Shape pooled_shape(const char* op, const Tensor& x, const Attrs& a) {
  int64_t D = spatial_of(a);
  check_rank(op, x, D);
  return joined(leading(x, D), pool::windows(op, a, trailing(x, D)).out_sizes());
}

// x viewed as [..., plane] (the spatial axes flattened).
Tensor planes(const Tensor& x, int64_t D) {
  Shape s = leading(x, D);
  s.push_back(numel_of(trailing(x, D)));
  return reshape(x, s);
}

Attrs without(const Attrs& a, const std::string& key) {
  Attrs out;
  for (auto& [k, v] : a.items())
    if (k != key) out.set(k, v);
  return out;
}

Tensor max_pool_p(const Tensor& x, const Attrs& a, Tensor* indices = nullptr) {
  static const OpDef& d = op_def("max_pool");
  auto out = call(d, {x}, a);
  if (indices) *indices = out[1];
  return out[0];
}
Tensor avg_pool_p(const Tensor& x, const Attrs& a) {
  static const OpDef& d = op_def("avg_pool");
  return call1(d, {x}, a);
}
Tensor avg_pool_backward_p(const Tensor& g, Attrs a, const Shape& input_size) {
  static const OpDef& d = op_def("avg_pool_backward");
  a.set("input_size", Ints(input_size));
  return call1(d, {g}, a);
}

Attrs regular_attrs(const Ints& k, const Ints& s, const Ints& p, const Ints& d, bool ceil_mode) {
  return Attrs{{"kernel", k}, {"stride", s}, {"padding", p}, {"dilation", d}, {"ceil_mode", ceil_mode}};
}
Attrs adaptive_attrs(const Ints& out) { return Attrs{{"output_size", out}}; }

// The gradient (or tangent) at the argmax, from the saved indices: a gather of t's planes.
Tensor at_argmax(const Tensor& t, const Tensor& indices, int64_t D) {
  Tensor flat = gather(planes(t, D), int64_t(t.dim() - D), planes(indices, D));
  return reshape(flat, indices.shape());
}

SPIRE_DEFINE_OP({
    .name = "max_pool",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      const Tensor& x = in[0];
      SPIRE_CHECK(is_floating(x.dtype()) || is_integral(x.dtype()), DTypeError,
                  "max_pool: needs a real (floating or integer) tensor, got ", name(x.dtype()));
      Shape out = pooled_shape("max_pool", x, a);
      return {{out, x.dtype()}, {out, DType::Int64}};
    },
    // The gradient of each output lands on its argmax; windows sharing one argmax add up.
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor &x = c.inputs[0], &idx = c.outputs[1];
      int64_t D = spatial_of(c.attrs);
      Tensor g = scatter_add(planes(zeros_like(x), D), x.dim() - D, planes(idx, D), planes(c.grads[0], D));
      return {reshape(g, x.shape())};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {at_argmax(c.tangents[0], c.outputs[1], spatial_of(c.attrs)), Tensor()};
    },
    .taylor = jets::linear,  // locally linear: a gather at the argmax
    .batch = [](const BatchContext& c) -> std::vector<Tensor> { return call(c.op, c.inputs, c.attrs); },
    // rules::sample draws distinct values, so the argmax is unique and finite differences are exact.
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({2, 3, 7}, -1, 1, 1)}, regular_attrs({3}, {2}, {1}, {1}, true), "1d stride 2 pad 1 ceil"},
          {{sample({1, 2, 5, 6}, -1, 1, 2)}, regular_attrs({2, 3}, {2, 1}, {1, 1}, {1, 2}, false),
           "2d overlapping, dilation"},
          {{sample({2, 4, 3, 5}, -1, 1, 3)}, regular_attrs({2, 2, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, true),
           "3d unbatched, ceil"},
          {{sample({1, 2, 5, 7}, -1, 1, 4)}, adaptive_attrs({3, 4}), "adaptive 2d, sizes that do not divide"},
          {{sample({1, 1, 3, 4, 5}, -1, 1, 5)}, adaptive_attrs({2, 3, 2}), "adaptive 3d"},
      };
    },
});

// avg_pool and avg_pool_backward: floating-point data, spatial sizes from the windows.
void check_floating(const char* op, const Tensor& x) {
  SPIRE_CHECK(is_floating(x.dtype()), DTypeError, op, ": needs a floating-point tensor, got ", name(x.dtype()),
              " (cast it first)");
}

std::vector<OpSample> avg_samples(bool backward) {
  auto with = [](Attrs a, bool include_pad, int64_t divisor) {
    return a.set("count_include_pad", include_pad).set("divisor_override", divisor);
  };
  std::vector<OpSample> s{
      {{sample({2, 3, 7}, -1, 1, 1)}, with(regular_attrs({3}, {2}, {1}, {1}, true), true, 0),
       "1d pad 1 ceil, count_include_pad"},
      {{sample({1, 2, 5, 6}, -1, 1, 2)}, with(regular_attrs({2, 3}, {2, 1}, {1, 1}, {1, 1}, true), false, 0),
       "2d ceil, padding not counted"},
      {{sample({2, 4, 3, 5}, -1, 1, 3)}, with(regular_attrs({2, 2, 3}, {1, 2, 2}, {0, 1, 1}, {1, 1, 1}, false), true, 5),
       "3d unbatched, divisor_override"},
      {{sample({1, 2, 5, 7}, -1, 1, 4)}, adaptive_attrs({3, 4}), "adaptive 2d"},
      {{sample({1, 1, 3, 4, 5}, -1, 1, 5)}, adaptive_attrs({2, 3, 2}), "adaptive 3d"},
  };
  if (!backward) return s;
  // The same windows, run backwards: the gradient has the pooled shape.
  for (auto& c : s) {
    Tensor y = avg_pool_p(c.inputs[0], c.attrs);
    c.attrs.set("input_size", Ints(c.inputs[0].shape().end() - spatial_of(c.attrs), c.inputs[0].shape().end()));
    c.inputs[0] = sample(y.shape(), -1, 1, 7);
  }
  return s;
}

SPIRE_DEFINE_OP({
    .name = "avg_pool",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      check_floating("avg_pool", in[0]);
      return {{pooled_shape("avg_pool", in[0], a), in[0].dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {avg_pool_backward_p(c.grads[0], c.attrs, trailing(c.inputs[0], spatial_of(c.attrs)))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {avg_pool_p(c.tangents[0], c.attrs)}; },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> { return call(c.op, c.inputs, c.attrs); },
    .samples = [] { return avg_samples(false); },
});

SPIRE_DEFINE_OP({
    .name = "avg_pool_backward",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      const Tensor& g = in[0];
      const char* op = "avg_pool_backward";
      check_floating(op, g);
      int64_t D = spatial_of(a);
      check_rank(op, g, D);
      Shape input_size = a.get<Ints>("input_size");
      Shape want = pool::windows(op, a, input_size).out_sizes();
      SPIRE_CHECK(trailing(g, D) == want, ShapeError, op, ": gradient of shape ", shape_str(g.shape()),
                  " does not end in the pooled sizes ", shape_str(want), " of an input of spatial sizes ",
                  shape_str(input_size));
      return {{joined(leading(g, D), input_size), g.dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {avg_pool_p(c.grads[0], without(c.attrs, "input_size"))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {avg_pool_backward_p(c.tangents[0], without(c.attrs, "input_size"), c.attrs.get<Ints>("input_size"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> { return call(c.op, c.inputs, c.attrs); },
    .samples = [] { return avg_samples(true); },
});

// max_unpool(x, indices): [..., *in] values and their flat positions in [..., *output_size] planes.
// Linear in x; the reverse rule gathers the gradient at the indices (torch's rule, the exact adjoint
// where the indices do not repeat, which is what max_pool with stride >= kernel gives).
Tensor max_unpool_p(const Tensor& x, const Tensor& indices, const Ints& output_size) {
  static const OpDef& d = op_def("max_unpool");
  return call1(d, {x, indices}, Attrs{{"output_size", output_size}});
}

SPIRE_DEFINE_OP({
    .name = "max_unpool",
    .num_inputs = 2,
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      const Tensor &x = in[0], &idx = in[1];
      const char* op = "max_unpool";
      const Ints& out = a.template get<Ints>("output_size");
      int64_t D = int64_t(out.size());
      check_rank(op, x, D);
      SPIRE_CHECK(is_floating(x.dtype()) || is_integral(x.dtype()), DTypeError, op,
                  ": needs a real tensor, got ", name(x.dtype()));
      SPIRE_CHECK(idx.dtype() == DType::Int64, DTypeError, op, ": indices must be int64 (as max_pool returns them), got ",
                  name(idx.dtype()));
      SPIRE_CHECK(idx.shape() == x.shape(), ShapeError, op, ": indices of shape ", shape_str(idx.shape()),
                  " must have the shape of the input ", shape_str(x.shape()));
      for (int64_t o : out) SPIRE_CHECK(o >= 0, ValueError, op, ": output_size must be >= 0, got ", shape_str(out));
      int64_t plane = numel_of(out);
      // Read on the host, so a bad index is an error naming it rather than a write out of bounds.
      Tensor host = contiguous(to(idx.detach(), kCPU));
      const int64_t* p = host.data<int64_t>();
      for (int64_t i = 0; i < host.numel(); ++i)
        SPIRE_CHECK(p[i] >= 0 && p[i] < plane, ValueError, op, ": index ", p[i], " is out of range for an output plane of ",
                    plane, " elements (spatial sizes ", shape_str(out), ")");
      return {{joined(leading(x, D), out), x.dtype()}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      int64_t D = int64_t(c.attrs.get<Ints>("output_size").size());
      return {at_argmax(c.grads[0], c.inputs[1], D), Tensor()};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      return {max_unpool_p(c.tangents[0], c.inputs[1], c.attrs.get<Ints>("output_size"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {max_unpool_p(batching::mapped_input(c, 0), batching::mapped_input(c, 1), c.attrs.get<Ints>("output_size"))};
    },
    .nondiff_inputs = {1},
    .samples = [] {
      // Indices from max_pool with stride = kernel: distinct, as the adjoint identity needs.
      auto pooled = [](const Tensor& x, const Attrs& a) {
        Tensor idx;
        max_pool_p(x, a, &idx);
        return idx;
      };
      Tensor x1 = sample({2, 3, 7}, -1, 1, 1), x2 = sample({1, 2, 6, 5}, -1, 1, 2);
      Tensor i1 = pooled(x1, regular_attrs({2}, {2}, {0}, {1}, true));
      Tensor i2 = pooled(x2, regular_attrs({3, 2}, {3, 2}, {1, 0}, {1, 1}, false));
      return std::vector<OpSample>{
          {{sample(i1.shape(), -1, 1, 3), i1}, Attrs{{"output_size", Ints{7}}}, "1d ceil_mode"},
          {{sample(i2.shape(), -1, 1, 4), i2}, Attrs{{"output_size", Ints{6, 5}}}, "2d padded"},
      };
    },
});

// A per-axis option as D entries: empty gives `fallback`, one value is repeated.
Ints per_axis(const char* op, const char* what, const Ints& v, int64_t D, const Ints& fallback) {
  if (v.empty()) return fallback;
  if (v.size() == 1) return Ints(size_t(D), v[0]);
  SPIRE_CHECK(int64_t(v.size()) == D, ValueError, op, ": ", what, " has ", v.size(),
              " entries; give 1 or one per spatial axis (", D, ")");
  return v;
}

Attrs options_attrs(const char* op, const Tensor& x, int64_t D, const PoolOptions& o) {
  check_rank(op, x, D);
  SPIRE_CHECK(!o.kernel_size.empty(), ValueError, op, ": kernel_size is required");
  Ints k = per_axis(op, "kernel_size", o.kernel_size, D, {});
  return regular_attrs(k, per_axis(op, "stride", o.stride, D, k), per_axis(op, "padding", o.padding, D, Ints(D, 0)),
                       per_axis(op, "dilation", o.dilation, D, Ints(D, 1)), o.ceil_mode);
}

Tensor as_floating(const char* op, const Tensor& x) {
  SPIRE_CHECK(!is_complex(x.dtype()), DTypeError, op, ": complex numbers have no order or average here, got ",
              name(x.dtype()));
  return as_inexact(x);
}

}  // namespace

std::pair<Tensor, Tensor> max_pool(const Tensor& x, int64_t spatial, const PoolOptions& opt) {
  const char* op = "max_pool";
  SPIRE_CHECK(!is_complex(x.dtype()) && x.dtype() != DType::Bool, DTypeError, op,
              ": needs a real (floating or integer) tensor, got ", name(x.dtype()));
  Tensor idx;
  Tensor v = max_pool_p(x, options_attrs(op, x, spatial, opt), &idx);
  return {v, idx};
}

Tensor avg_pool(const Tensor& x, int64_t spatial, const PoolOptions& opt, bool count_include_pad,
                std::optional<int64_t> divisor_override) {
  const char* op = "avg_pool";
  Attrs a = options_attrs(op, x, spatial, opt);
  for (int64_t d : a.get<Ints>("dilation"))
    SPIRE_CHECK(d == 1, ValueError, op, ": average pooling has no dilation, got ", shape_str(opt.dilation));
  SPIRE_CHECK(!divisor_override || *divisor_override > 0, ValueError, op,
              ": divisor_override must be positive, got ", divisor_override.value_or(0));
  a.set("count_include_pad", count_include_pad).set("divisor_override", divisor_override.value_or(0));
  return avg_pool_p(as_floating(op, x), a);
}

std::pair<Tensor, Tensor> adaptive_max_pool(const Tensor& x, const std::vector<int64_t>& output_size) {
  const char* op = "adaptive_max_pool";
  SPIRE_CHECK(!is_complex(x.dtype()) && x.dtype() != DType::Bool, DTypeError, op,
              ": needs a real (floating or integer) tensor, got ", name(x.dtype()));
  check_rank(op, x, int64_t(output_size.size()));
  Tensor idx;
  Tensor v = max_pool_p(x, adaptive_attrs(output_size), &idx);
  return {v, idx};
}

Tensor max_unpool(const Tensor& x, const Tensor& indices, const std::vector<int64_t>& output_size) {
  const char* op = "max_unpool";
  check_rank(op, x, int64_t(output_size.size()));
  SPIRE_CHECK(!is_complex(x.dtype()) && x.dtype() != DType::Bool, DTypeError, op, ": needs a real tensor, got ",
              name(x.dtype()));
  return max_unpool_p(x, cast(indices, DType::Int64), output_size);
}

Tensor adaptive_avg_pool(const Tensor& x, const std::vector<int64_t>& output_size) {
  const char* op = "adaptive_avg_pool";
  check_rank(op, x, int64_t(output_size.size()));
  return avg_pool_p(as_floating(op, x), adaptive_attrs(output_size));
}

}  // namespace spire
