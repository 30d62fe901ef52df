// N-d convolution (1, 2 or 3 spatial axes) as three bilinear primitives that are each other's
// reverse rules:
//   conv(x, w)              y[n,o,l]   = sum_{c,k} x[n,g*Cig+c, l*s + k*d - p] w[o,c,k]
//   conv_transpose(y, w)    x[n,c,i]   = sum_{o,k,l : l*s + k*d - p = i} y[n,o,l] w[o,c,k]
//   conv_weight_grad(x, g)  dw[o,c,k]  = sum_{n,l} x[n,g*Cig+c, l*s + k*d - p] g[n,o,l]
// (o runs over the output channels of x's group). conv_transpose is the adjoint of conv in x,
// conv_weight_grad its adjoint in w; every reverse rule below is one of the three, so derivatives
// of any order stay inside this family. Complex tensors follow the conjugate convention: the
// rule for a bilinear B(a, b) is B(g, conj(b)) in a and B(conj(a), g) in b.
#include <algorithm>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/conv.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;
using Ints = std::vector<int64_t>;

struct ConvGeometry {
  Ints stride, padding, dilation;
  int64_t groups;
  explicit ConvGeometry(const Attrs& a)
      : stride(a.get<Ints>("stride")), padding(a.get<Ints>("padding")),
        dilation(a.get<Ints>("dilation")), groups(a.get<int64_t>("groups")) {}
};

std::string shapes_of(const Tensor& a, const Tensor& b) {
  return shape_str(a.shape()) + " and " + shape_str(b.shape());
}

// Common checks on the two operands and the attributes; returns the number of spatial axes.
int64_t check_operands(const char* op, const Tensor& a, const Tensor& b, const ConvGeometry& g,
                       const char* a_name, const char* b_name) {
  require_same_dtype(op, {a, b});
  SPIRE_CHECK(is_inexact(a.dtype()), DTypeError, op, ": needs floating or complex tensors, got ",
              name(a.dtype()));
  int64_t D = a.dim() - 2;
  SPIRE_CHECK(D >= 1 && D <= 3 && b.dim() == D + 2, ShapeError, op, ": ", a_name, " and ", b_name,
              " must both have rank 3, 4 or 5 (batch, channels, 1 to 3 spatial axes), got ",
              shapes_of(a, b));
  SPIRE_CHECK(int64_t(g.stride.size()) == D && int64_t(g.padding.size()) == D &&
                  int64_t(g.dilation.size()) == D,
              ValueError, op, ": stride, padding and dilation need ", D, " entries for ", D,
              " spatial axes");
  SPIRE_CHECK(g.groups >= 1, ValueError, op, ": groups must be >= 1, got ", g.groups);
  for (int64_t i = 0; i < D; ++i) {
    SPIRE_CHECK(g.stride[i] >= 1, ValueError, op, ": stride must be >= 1, got ", shape_str(g.stride));
    SPIRE_CHECK(g.dilation[i] >= 1, ValueError, op, ": dilation must be >= 1, got ",
                shape_str(g.dilation));
    SPIRE_CHECK(g.padding[i] >= 0, ValueError, op, ": padding must be >= 0, got ", shape_str(g.padding));
  }
  return D;
}

// Spatial output sizes of conv for input sizes `in` and kernel sizes `k`, with the error naming
// `op` and the operands when the dilated kernel does not fit in the padded input.
Ints conv_out_sizes(const char* op, const Ints& in, const Ints& k, const ConvGeometry& g,
                    const std::string& shapes) {
  Ints out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    SPIRE_CHECK(k[i] >= 1, ShapeError, op, ": kernel sizes must be >= 1 (shapes ", shapes, ")");
    int64_t eff = g.dilation[i] * (k[i] - 1) + 1, padded = in[i] + 2 * g.padding[i];
    SPIRE_CHECK(eff <= padded, ShapeError, op, ": kernel of size ", k[i], " (dilated to ", eff,
                ") is larger than the padded input of size ", padded, " along spatial axis ", i,
                " (shapes ", shapes, ", padding ", shape_str(g.padding), ", dilation ",
                shape_str(g.dilation), ")");
    out[i] = (padded - eff) / g.stride[i] + 1;
  }
  return out;
}

Ints spatial(const Tensor& t) { return Ints(t.shape().begin() + 2, t.shape().end()); }

std::vector<TensorMeta> infer_conv(const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor &x = in[0], &w = in[1];
  ConvGeometry g(a);
  check_operands("conv", x, w, g, "x", "w");
  int64_t cin = x.shape(1), cout = w.shape(0);
  SPIRE_CHECK(cin % g.groups == 0 && cout % g.groups == 0, ShapeError, "conv: groups = ", g.groups,
              " must divide the input channels (", cin, ") and the output channels (", cout,
              "); x ", shape_str(x.shape()), ", w ", shape_str(w.shape()));
  SPIRE_CHECK(w.shape(1) == cin / g.groups, ShapeError, "conv: w ", shape_str(w.shape()),
              " must have C_in/groups = ", cin / g.groups, " channels in axis 1 for x ",
              shape_str(x.shape()), " with groups = ", g.groups);
  Shape out{x.shape(0), cout};
  for (int64_t s : conv_out_sizes("conv", spatial(x), spatial(w), g, shapes_of(x, w))) out.push_back(s);
  return {{out, x.dtype()}};
}

// Spatial sizes produced by conv_transpose: the inputs of a conv whose outputs have sizes `in`.
Ints transpose_out_sizes(const char* op, const Ints& in, const Ints& k, const ConvGeometry& g,
                         const Ints& output_padding, const std::string& shapes) {
  Ints out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    SPIRE_CHECK(k[i] >= 1, ShapeError, op, ": kernel sizes must be >= 1 (shapes ", shapes, ")");
    // output_padding < stride keeps conv(conv_transpose(y)) the size of y: the two stay adjoint.
    SPIRE_CHECK(output_padding[i] >= 0 && output_padding[i] < g.stride[i], ValueError, op,
                ": output_padding ", shape_str(output_padding), " must be >= 0 and smaller than the stride ",
                shape_str(g.stride));
    out[i] = (in[i] - 1) * g.stride[i] - 2 * g.padding[i] + g.dilation[i] * (k[i] - 1) + output_padding[i] + 1;
    SPIRE_CHECK(out[i] >= 1, ShapeError, op, ": padding ", shape_str(g.padding),
                " leaves no output along spatial axis ", i, " (shapes ", shapes, ")");
  }
  return out;
}

std::vector<TensorMeta> infer_conv_transpose(const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor &y = in[0], &w = in[1];
  ConvGeometry g(a);
  int64_t D = check_operands("conv_transpose", y, w, g, "x", "w");
  const Ints& op = a.get<Ints>("output_padding");
  SPIRE_CHECK(int64_t(op.size()) == D, ValueError, "conv_transpose: output_padding needs ", D, " entries");
  int64_t cy = y.shape(1);
  SPIRE_CHECK(w.shape(0) == cy, ShapeError, "conv_transpose: w ", shape_str(w.shape()),
              " must have as many channels in axis 0 as x ", shape_str(y.shape()), " has (", cy, ")");
  SPIRE_CHECK(cy % g.groups == 0, ShapeError, "conv_transpose: groups = ", g.groups,
              " must divide the input channels (", cy, "); x ", shape_str(y.shape()), ", w ",
              shape_str(w.shape()));
  Shape out{y.shape(0), w.shape(1) * g.groups};
  for (int64_t s : transpose_out_sizes("conv_transpose", spatial(y), spatial(w), g, op, shapes_of(y, w)))
    out.push_back(s);
  return {{out, y.dtype()}};
}

std::vector<TensorMeta> infer_weight_grad(const std::vector<Tensor>& in, const Attrs& a) {
  const Tensor &x = in[0], &gy = in[1];
  ConvGeometry g(a);
  int64_t D = check_operands("conv_weight_grad", x, gy, g, "x", "grad");
  const Ints& k = a.get<Ints>("kernel");
  SPIRE_CHECK(int64_t(k.size()) == D, ValueError, "conv_weight_grad: kernel needs ", D, " entries");
  SPIRE_CHECK(x.shape(0) == gy.shape(0), ShapeError, "conv_weight_grad: batch sizes of x ",
              shape_str(x.shape()), " and grad ", shape_str(gy.shape()), " differ");
  int64_t cin = x.shape(1), cout = gy.shape(1);
  SPIRE_CHECK(cin % g.groups == 0 && cout % g.groups == 0, ShapeError, "conv_weight_grad: groups = ",
              g.groups, " must divide the channels of x ", shape_str(x.shape()), " and grad ",
              shape_str(gy.shape()));
  Ints out = conv_out_sizes("conv_weight_grad", spatial(x), k, g, shapes_of(x, gy));
  SPIRE_CHECK(out == spatial(gy), ShapeError, "conv_weight_grad: grad ", shape_str(gy.shape()),
              " does not have the spatial sizes ", shape_str(out), " that conv gives for x ",
              shape_str(x.shape()), " and kernel ", shape_str(k));
  Shape w{cout, cin / g.groups};
  w.insert(w.end(), k.begin(), k.end());
  return {{w, x.dtype()}};
}

// The primitives, called with attributes already normalised.
Tensor conv_p(const Tensor& x, const Tensor& w, const Attrs& a) {
  static const OpDef& d = op_def("conv");
  return call1(d, {x, w}, a);
}
Tensor conv_transpose_p(const Tensor& y, const Tensor& w, Attrs a, const Ints& output_padding) {
  static const OpDef& d = op_def("conv_transpose");
  a.set("output_padding", output_padding);
  return call1(d, {y, w}, a);
}
Tensor conv_weight_grad_p(const Tensor& x, const Tensor& gy, Attrs a, const Ints& kernel) {
  static const OpDef& d = op_def("conv_weight_grad");
  a.set("kernel", kernel);
  return call1(d, {x, gy}, a);
}

// Geometry attributes only (the reverse rules swap the extra ones).
Attrs geometry_attrs(const Attrs& a) {
  return Attrs{{"stride", a.get<Ints>("stride")}, {"padding", a.get<Ints>("padding")},
               {"dilation", a.get<Ints>("dilation")}, {"groups", a.get<int64_t>("groups")}};
}

// The output_padding that makes conv_transpose return `in_sizes` for a conv output of `out_sizes`.
Ints output_padding_for(const Ints& in_sizes, const Ints& out_sizes, const Ints& k, const ConvGeometry& g) {
  Ints op(in_sizes.size());
  for (size_t i = 0; i < op.size(); ++i)
    op[i] = in_sizes[i] - ((out_sizes[i] - 1) * g.stride[i] - 2 * g.padding[i] + g.dilation[i] * (k[i] - 1) + 1);
  return op;
}

Tensor sum_defined(const Tensor& a, const Tensor& b) { return plus(a, b); }

Attrs make_attrs(const Ints& s, const Ints& p, const Ints& d, int64_t groups) {
  return Attrs{{"stride", s}, {"padding", p}, {"dilation", d}, {"groups", groups}};
}

std::vector<OpSample> conv_samples() {
  return {
      {{sample({2, 4, 7}, -1, 1, 1), sample({6, 2, 3}, -1, 1, 2)},
       make_attrs({2}, {1}, {1}, 2), "1d stride 2 pad 1 groups 2"},
      {{sample({1, 2, 5, 6}, -1, 1, 3), sample({3, 2, 2, 3}, -1, 1, 4)},
       make_attrs({1, 2}, {1, 0}, {2, 1}, 1), "2d stride dilation"},
      {{sample({1, 2, 3, 4, 3}, -1, 1, 5), sample({2, 1, 2, 2, 2}, -1, 1, 6)},
       make_attrs({1, 2, 1}, {1, 0, 0}, {1, 1, 1}, 2), "3d depthwise"},
      {{sample({1, 2, 5}, -1, 1, 7, DType::Complex128), sample({2, 2, 2}, -1, 1, 8, DType::Complex128)},
       make_attrs({1}, {1}, {1}, 1), "1d complex"},
  };
}

// --- batching rules ---------------------------------------------------------------------------------
// A mapped axis of size b joins one of conv's own axes: the batch axis N when only the activations
// carry it; else the channels, with b times the groups when both operands carry it (a grouped conv
// is b independent ones), or as b sets of output channels when one operand does and groups = 1.
Tensor merge_axes(const Tensor& t, int64_t axis) {  // axis and axis + 1 into one
  Shape s = t.shape();
  s[axis] *= s[axis + 1];
  s.erase(s.begin() + axis + 1);
  return reshape(t, s);
}
Tensor split_axis(const Tensor& t, int64_t axis, int64_t b, int64_t inner) {  // axis into [b, inner]
  Shape s = t.shape();
  s[axis] = inner;
  s.insert(s.begin() + axis, b);
  return reshape(t, s);
}
// [b, n, c, ...] as [n, b*c, ...], and back.
Tensor into_channels(const Tensor& t) { return merge_axes(transpose(t, 0, 1), 1); }
Tensor out_of_channels(const Tensor& t, int64_t b, int64_t c) { return transpose(split_axis(t, 1, b, c), 0, 1); }

Attrs times_groups(const Attrs& a, int64_t b) {
  Attrs out = a;
  out.set("groups", a.get<int64_t>("groups") * b);
  return out;
}

// conv and conv_transpose: activations [N, C, ...] and weights whose axis 1 is the output channels
// per group (conv: [O, C/g, ...], conv_transpose: [C, O/g, ...]).
std::vector<Tensor> batch_conv_like(const BatchContext& c) {
  const Tensor &x = c.inputs[0], &w = c.inputs[1];
  int64_t b = c.size, groups = c.attrs.get<int64_t>("groups");
  bool transposed = c.attrs.has("output_padding");
  if (!c.batched[1]) return {split_axis(call1(c.op, {merge_axes(x, 0), w}, c.attrs), 0, b, x.shape(1))};
  int64_t out_channels = transposed ? w.shape(2) * groups : w.shape(1);
  if (!c.batched[0] && groups == 1) {
    Tensor ws = transposed ? into_channels(w) : merge_axes(w, 0);
    return {out_of_channels(call1(c.op, {x, ws}, c.attrs), b, out_channels)};
  }
  Tensor y = call1(c.op, {into_channels(batching::mapped_input(c, 0)), merge_axes(w, 0)}, times_groups(c.attrs, b));
  return {out_of_channels(y, b, out_channels)};
}

// conv_weight_grad(x [N, C, ...], g [N, O, ...]) -> [O, C/groups, *kernel].
std::vector<Tensor> batch_weight_grad(const BatchContext& c) {
  const Tensor &x = c.inputs[0], &g = c.inputs[1];
  int64_t b = c.size;
  if (c.attrs.get<int64_t>("groups") == 1 && !c.batched[1])  // b sets of input channels
    return {transpose(split_axis(call1(c.op, {into_channels(x), g}, c.attrs), 1, b, x.shape(2)), 0, 1)};
  if (c.attrs.get<int64_t>("groups") == 1 && !c.batched[0])  // b sets of output channels
    return {split_axis(call1(c.op, {x, into_channels(g)}, c.attrs), 0, b, g.shape(2))};
  Tensor gm = batching::mapped_input(c, 1);
  Tensor dw = call1(c.op, {into_channels(batching::mapped_input(c, 0)), into_channels(gm)}, times_groups(c.attrs, b));
  return {split_axis(dw, 0, b, gm.shape(2))};
}

// Multiply-adds of the three conv primitives: each output-channel activation ([N, C_out, *out])
// meets a weight row of C_in/groups * prod(kernel) entries.
double conv_flops(const Tensor& activation, const Tensor& weight) {
  if (weight.shape(0) == 0) return 0;
  return mac_flops(weight.dtype(), double(activation.numel()) * double(weight.numel() / weight.shape(0)));
}

SPIRE_DEFINE_OP({
    .name = "conv",
    .num_inputs = 2,
    .infer = infer_conv,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor &x = c.inputs[0], &w = c.inputs[1], &g = c.grads[0];
      ConvGeometry geo(c.attrs);
      Attrs a = geometry_attrs(c.attrs);
      std::vector<Tensor> out(2);
      if (c.needs_grad[0])
        out[0] = conv_transpose_p(g, conj_if_complex(w), a,
                                  output_padding_for(spatial(x), spatial(g), spatial(w), geo));
      if (c.needs_grad[1]) out[1] = conv_weight_grad_p(conj_if_complex(x), g, a, spatial(w));
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor &dx = c.tangents[0], &dw = c.tangents[1];
      return {sum_defined(dx.defined() ? conv_p(dx, c.inputs[1], c.attrs) : Tensor(),
                          dw.defined() ? conv_p(c.inputs[0], dw, c.attrs) : Tensor())};
    },
    .taylor = jets::bilinear,
    .batch = batch_conv_like,
    .samples = conv_samples,
    .flops = [](const std::vector<Tensor>& in, const std::vector<Tensor>& out, const Attrs&) {
      return conv_flops(out[0], in[1]);
    },
});

SPIRE_DEFINE_OP({
    .name = "conv_transpose",
    .num_inputs = 2,
    .infer = infer_conv_transpose,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor &y = c.inputs[0], &w = c.inputs[1], &g = c.grads[0];
      Attrs a = geometry_attrs(c.attrs);
      std::vector<Tensor> out(2);
      if (c.needs_grad[0]) out[0] = conv_p(g, conj_if_complex(w), a);
      if (c.needs_grad[1]) out[1] = conv_weight_grad_p(g, conj_if_complex(y), a, spatial(w));
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor &dy = c.tangents[0], &dw = c.tangents[1];
      Attrs a = geometry_attrs(c.attrs);
      const Ints& op = c.attrs.get<Ints>("output_padding");
      return {sum_defined(dy.defined() ? conv_transpose_p(dy, c.inputs[1], a, op) : Tensor(),
                          dw.defined() ? conv_transpose_p(c.inputs[0], dw, a, op) : Tensor())};
    },
    .taylor = jets::bilinear,
    .batch = batch_conv_like,
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({2, 4, 4}, -1, 1, 11), sample({4, 3, 3}, -1, 1, 12)},
           make_attrs({2}, {1}, {1}, 2).set("output_padding", Ints{1}), "1d stride 2 groups 2"},
          {{sample({1, 3, 3, 2}, -1, 1, 13), sample({3, 2, 2, 3}, -1, 1, 14)},
           make_attrs({2, 1}, {0, 1}, {1, 2}, 1).set("output_padding", Ints{1, 0}), "2d"},
          {{sample({1, 2, 2, 2, 3}, -1, 1, 15, DType::Complex128), sample({2, 1, 2, 1, 2}, -1, 1, 16, DType::Complex128)},
           make_attrs({1, 1, 2}, {0, 0, 1}, {1, 1, 1}, 1).set("output_padding", Ints{0, 0, 0}), "3d complex"},
      };
    },
    .flops = [](const std::vector<Tensor>& in, const std::vector<Tensor>&, const Attrs&) {
      return conv_flops(in[0], in[1]);
    },
});

SPIRE_DEFINE_OP({
    .name = "conv_weight_grad",
    .num_inputs = 2,
    .infer = infer_weight_grad,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor &x = c.inputs[0], &gy = c.inputs[1], &g = c.grads[0];
      ConvGeometry geo(c.attrs);
      Attrs a = geometry_attrs(c.attrs);
      const Ints& k = c.attrs.get<Ints>("kernel");
      std::vector<Tensor> out(2);
      if (c.needs_grad[0])
        out[0] = conv_transpose_p(conj_if_complex(gy), g, a, output_padding_for(spatial(x), spatial(gy), k, geo));
      if (c.needs_grad[1]) out[1] = conv_p(conj_if_complex(x), g, a);
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Tensor &dx = c.tangents[0], &dg = c.tangents[1];
      Attrs a = geometry_attrs(c.attrs);
      const Ints& k = c.attrs.get<Ints>("kernel");
      return {sum_defined(dx.defined() ? conv_weight_grad_p(dx, c.inputs[1], a, k) : Tensor(),
                          dg.defined() ? conv_weight_grad_p(c.inputs[0], dg, a, k) : Tensor())};
    },
    .taylor = jets::bilinear,
    .batch = batch_weight_grad,
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({2, 4, 7}, -1, 1, 21), sample({2, 6, 4}, -1, 1, 22)},
           make_attrs({2}, {1}, {1}, 2).set("kernel", Ints{3}), "1d groups 2"},
          {{sample({1, 2, 4, 5}, -1, 1, 23), sample({1, 3, 2, 6}, -1, 1, 24)},
           make_attrs({1, 1}, {0, 1}, {2, 1}, 1).set("kernel", Ints{2, 2}), "2d dilation"},
          {{sample({1, 1, 4, 5}, -1, 1, 25, DType::Complex128), sample({1, 2, 3, 2}, -1, 1, 26, DType::Complex128)},
           make_attrs({1, 2}, {0, 0}, {1, 1}, 1).set("kernel", Ints{2, 2}), "2d complex"},
      };
    },
    .flops = [](const std::vector<Tensor>& in, const std::vector<Tensor>& out, const Attrs&) {
      return conv_flops(in[1], out[0]);
    },
});

// A user option of 0, 1 or D entries as D entries (0: the default, 1: the same on every axis).
Ints per_axis(const char* op, const char* what, const Ints& v, int64_t D, int64_t fallback) {
  if (v.empty()) return Ints(D, fallback);
  if (v.size() == 1) return Ints(D, v[0]);
  SPIRE_CHECK(int64_t(v.size()) == D, ValueError, op, ": ", what, " has ", v.size(),
              " entries; give 1 or one per spatial axis (", D, ")");
  return v;
}

Attrs options_attrs(const char* op, const ConvOptions& o, int64_t D) {
  return make_attrs(per_axis(op, "stride", o.stride, D, 1), per_axis(op, "padding", o.padding, D, 0),
                    per_axis(op, "dilation", o.dilation, D, 1), o.groups);
}

// Settles dtypes, the number of spatial axes (from w) and an unbatched x ([C, *spatial]), then
// calls `prim`; the batch axis added for an unbatched x is removed again.
template <class Prim>
Tensor run_conv(const char* op, const Tensor& x, const Tensor& w, int64_t want_D, Prim prim) {
  int64_t D = w.dim() - 2;
  SPIRE_CHECK(D >= 1 && D <= 3 && (want_D == 0 || D == want_D), ShapeError, op, ": w ",
              shape_str(w.shape()), " must have rank ",
              want_D ? std::to_string(want_D + 2) : std::string("3, 4 or 5"),
              " ([C_out, C_in/groups, *kernel]); x is ", shape_str(x.shape()));
  SPIRE_CHECK(x.dim() == D + 2 || x.dim() == D + 1, ShapeError, op, ": x ", shape_str(x.shape()),
              " must have rank ", D + 2, " ([N, C, *spatial]) or ", D + 1, " (unbatched) for w ",
              shape_str(w.shape()));
  auto [a, b] = promoted(x, w, /*inexact=*/true);
  bool unbatched = x.dim() == D + 1;
  Tensor out = prim(unbatched ? unsqueeze(a, 0) : a, b, D);
  return unbatched ? squeeze(out, {0}) : out;
}

Tensor conv_n(const char* op, const Tensor& x, const Tensor& w, const ConvOptions& opt, int64_t want_D) {
  return run_conv(op, x, w, want_D, [&](const Tensor& a, const Tensor& b, int64_t D) {
    return conv_p(a, b, options_attrs(op, opt, D));
  });
}

}  // namespace

Tensor conv(const Tensor& x, const Tensor& w, const ConvOptions& opt) { return conv_n("conv", x, w, opt, 0); }
Tensor conv1d(const Tensor& x, const Tensor& w, const ConvOptions& opt) { return conv_n("conv1d", x, w, opt, 1); }
Tensor conv2d(const Tensor& x, const Tensor& w, const ConvOptions& opt) { return conv_n("conv2d", x, w, opt, 2); }
Tensor conv3d(const Tensor& x, const Tensor& w, const ConvOptions& opt) { return conv_n("conv3d", x, w, opt, 3); }

Tensor conv_transpose(const Tensor& x, const Tensor& w, const ConvOptions& opt,
                      const std::vector<int64_t>& output_padding) {
  const char* op = "conv_transpose";
  return run_conv(op, x, w, 0, [&](const Tensor& a, const Tensor& b, int64_t D) {
    return conv_transpose_p(a, b, options_attrs(op, opt, D), per_axis(op, "output_padding", output_padding, D, 0));
  });
}

}  // namespace spire
