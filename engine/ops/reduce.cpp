// Reductions beyond sum: prod, amax, amin, argmax, argmin (primitives) and mean, logsumexp, var,
// std (composites of primitives, so their derivatives of every order come for free).
#include <cmath>
#include <limits>

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/reduce_internal.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;
using detail::unreduce;

std::vector<TensorMeta> infer_reduction(const char* op, const std::vector<Tensor>& in, const Attrs& a,
                                        bool real_only) {
  SPIRE_CHECK(!real_only || !is_complex(in[0].dtype()), DTypeError, op,
              ": complex numbers have no order, got ", name(in[0].dtype()));
  return {{reduced_shape(in[0].shape(), a.get<Axes>("axes"), a.get<bool>("keepdims")), in[0].dtype()}};
}

Attrs reduce_attrs(const Axes& axes, bool keepdims) { return Attrs{{"axes", axes}, {"keepdims", keepdims}}; }

// For each element, the product of the other elements of its reduction group: exclusive cumulative
// products from both ends, multiplied. No division, so it is exact where the input has zeros.
Tensor product_of_others(const Tensor& x, const Axes& axes) {
  std::vector<int64_t> perm;
  Shape flat;
  for (int64_t i = 0; i < x.dim(); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), i)) {
      perm.push_back(i);
      flat.push_back(x.shape()[i]);
    }
  int64_t last = int64_t(flat.size());
  flat.push_back(detail::reduced_count(x.shape(), axes));
  perm.insert(perm.end(), axes.begin(), axes.end());
  Tensor xp = permute(x, perm);
  Tensor xf = reshape(xp, flat);
  Tensor others = mul(cumprod(xf, last, true, false), cumprod(xf, last, true, true));
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inverse[perm[i]] = int64_t(i);
  return permute(reshape(others, xp.shape()), inverse);
}

// The series of a product by a tree of pairwise products of jets (reduced elements side by side in
// the last axis, halved at each level): no division, so zeros in x need no special care.
std::vector<Series> prod_taylor(const TaylorContext& c) {
  const Axes& axes = c.attrs.get<Axes>("axes");
  const Shape& shape = c.inputs[0].shape();
  int64_t n = detail::reduced_count(shape, axes);
  if (n == 0) return {};  // the empty product is the constant 1
  std::vector<int64_t> perm;
  Shape flat;
  for (int64_t i = 0; i < int64_t(shape.size()); ++i)
    if (!std::binary_search(axes.begin(), axes.end(), i)) {
      perm.push_back(i);
      flat.push_back(shape[i]);
    }
  perm.insert(perm.end(), axes.begin(), axes.end());
  flat.push_back(n);
  int64_t last = int64_t(flat.size()) - 1;
  jets::Jet x = jets::input(c, 0);
  for (auto& t : x)
    if (t.defined()) t = reshape(permute(t, perm), flat);
  for (; n > 1; n = (n + 1) / 2) {
    if (n % 2)  // one more factor: 1 in the value, 0 in the higher coefficients
      for (size_t k = 0; k < x.size(); ++k)
        if (x[k].defined()) x[k] = pad(x[k], {{0, 1}}, PadMode::Constant, k == 0 ? 1.0 : 0.0);
    int64_t h = (n + 1) / 2;
    jets::Jet lo(x.size()), hi(x.size());
    for (size_t k = 0; k < x.size(); ++k)
      if (x[k].defined()) {
        lo[k] = slice(x[k], last, 0, h);
        hi[k] = slice(x[k], last, h, 2 * h);
      }
    x = jets::mul(lo, hi, mul(lo[0], hi[0]));
  }
  Shape out = reduced_shape(shape, axes, c.attrs.get<bool>("keepdims"));
  Series z = jets::tail(x);
  for (auto& t : z)
    if (t.defined()) t = reshape(t, out);
  return {z};
}

// Reductions over `axes` (or one `axis`) batch by reducing the same axes one further in.
std::vector<Tensor> batch_reduction(const BatchContext& c) {
  Attrs a = c.attrs;
  if (a.has("axes")) a.set("axes", batching::shift_axes(c.attrs.get<Axes>("axes")));
  else a.set("axis", c.attrs.get<int64_t>("axis") + 1);
  return call(c.op, {c.inputs[0]}, a);
}

SPIRE_DEFINE_OP({
    .name = "prod",
    .infer = [](auto& in, const Attrs& a) { return infer_reduction("prod", in, a, false); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Axes& axes = c.attrs.get<Axes>("axes");
      Tensor others = product_of_others(c.inputs[0], axes);
      return {mul(unreduce(c.grads[0], c.inputs[0].shape(), axes, c.attrs.get<bool>("keepdims")),
                  conj_if_complex(others))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      const Axes& axes = c.attrs.get<Axes>("axes");
      return {sum(mul(c.tangents[0], product_of_others(c.inputs[0], axes)), axes, c.attrs.get<bool>("keepdims"))};
    },
    .taylor = prod_taylor,
    .batch = batch_reduction,
    // Away from zero: the second-order rule goes through cumprod's, which divides by the input.
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4, 2}, 0.5, 1.5)}, reduce_attrs({1}, false), "middle axis"},
          {{mul(sample({2, 3, 2}, 0.5, 1.5, 2), from_vector<double>({1, -1, -1, 1, 1, -1, -1, -1, 1, 1, 1, -1}, {2, 3, 2}))},
           reduce_attrs({0, 2}, true), "two axes keepdims, mixed signs"},
          {{sample({5}, 0.5, 1.5, 4)}, reduce_attrs({0}, false), "all"},
          {{sample({2, 3}, 0.5, 1.0, 5, DType::Complex128)}, reduce_attrs({1}, false), "complex"},
      };
    },
});

// Gradient weights of amax/amin: the gradient is shared evenly among the elements that attain the
// extreme (as JAX and PyTorch do), so ties get 1/count each.
Tensor extreme_weights(const Tensor& x, const Tensor& out, const Axes& axes, bool keepdims) {
  Tensor hit = cast(eq(x, unreduce(out, x.shape(), axes, keepdims)), x.dtype());
  return div(hit, sum(hit, axes, true));
}

OpDef extreme_op(const char* name) {
  return OpDef{
      .name = name,
      .infer = [name](auto& in, const Attrs& a) { return infer_reduction(name, in, a, true); },
      .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
        const Axes& axes = c.attrs.get<Axes>("axes");
        bool keep = c.attrs.get<bool>("keepdims");
        return {mul(unreduce(c.grads[0], c.inputs[0].shape(), axes, keep),
                    extreme_weights(c.inputs[0], c.outputs[0], axes, keep))};
      },
      .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
        const Axes& axes = c.attrs.get<Axes>("axes");
        bool keep = c.attrs.get<bool>("keepdims");
        return {sum(mul(c.tangents[0], extreme_weights(c.inputs[0], c.outputs[0], axes, keep)), axes, keep)};
      },
      .taylor = jets::linear,  // locally linear away from ties
      .batch = batch_reduction,
      // rules::sample draws distinct values, so there are no ties.
      .samples = [] {
        return std::vector<OpSample>{
            {{sample({3, 4, 5})}, reduce_attrs({1}, false), "middle axis"},
            {{sample({3, 4, 5}, -1, 1, 2)}, reduce_attrs({0, 2}, true), "two axes keepdims"},
            {{sample({7}, -1, 1, 3)}, reduce_attrs({0}, false), "all"},
        };
      },
  };
}
detail::OpRegistrar amax_op(extreme_op("amax"));
detail::OpRegistrar amin_op(extreme_op("amin"));

OpDef arg_extreme_op(const char* name) {
  return OpDef{
      .name = name,
      .infer = [name](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
        SPIRE_CHECK(!is_complex(in[0].dtype()), DTypeError, name, ": complex numbers have no order, got ",
                    spire::name(in[0].dtype()));
        return {{reduced_shape(in[0].shape(), {a.template get<int64_t>("axis")}, a.template get<bool>("keepdims")),
                 DType::Int64}};
      },
      .batch = batch_reduction,
      .differentiable = false,
      .samples = [] {
        return std::vector<OpSample>{
            {{sample({3, 4})}, {{"axis", int64_t(1)}, {"keepdims", false}}, "last axis"},
            {{sample({3, 4}, -1, 1, 2)}, {{"axis", int64_t(0)}, {"keepdims", true}}, "first axis keepdims"},
        };
      },
  };
}
detail::OpRegistrar argmax_op(arg_extreme_op("argmax"));
detail::OpRegistrar argmin_op(arg_extreme_op("argmin"));

Tensor call_extreme(const char* op, const Tensor& x, const Axes& axes, bool keepdims) {
  const OpDef& d = op_def(op);
  SPIRE_CHECK(!is_complex(x.dtype()), DTypeError, op, ": complex numbers have no order, got ", name(x.dtype()));
  Axes ax = normalize_axes(axes, x.dim(), op);
  SPIRE_CHECK(detail::reduced_count(x.shape(), ax) > 0, ValueError, op,
              ": the reduction of shape ", shape_str(x.shape()), " over axes with no elements has no identity");
  return call1(d, {x}, reduce_attrs(ax, keepdims));
}

Tensor call_arg_extreme(const char* op, const Tensor& x, int64_t axis, bool keepdims) {
  const OpDef& d = op_def(op);
  SPIRE_CHECK(!is_complex(x.dtype()), DTypeError, op, ": complex numbers have no order, got ", name(x.dtype()));
  int64_t a = normalize_axis(axis, x.dim(), op);
  SPIRE_CHECK(x.shape()[a] > 0, ValueError, op, ": axis ", axis, " of shape ", shape_str(x.shape()),
              " is empty, so there is no extreme");
  return call1(d, {x}, Attrs{{"axis", a}, {"keepdims", keepdims}});
}

}  // namespace

Tensor prod(const Tensor& x, const Axes& axes, bool keepdims) {
  static const OpDef& d = op_def("prod");
  Tensor in = x.dtype() == DType::Bool ? cast(x, DType::Int64) : x;
  return call1(d, {in}, reduce_attrs(normalize_axes(axes, x.dim(), "prod"), keepdims));
}

Tensor amax(const Tensor& x, const Axes& axes, bool keepdims) { return call_extreme("amax", x, axes, keepdims); }
Tensor amin(const Tensor& x, const Axes& axes, bool keepdims) { return call_extreme("amin", x, axes, keepdims); }
Tensor argmax(const Tensor& x, int64_t axis, bool keepdims) { return call_arg_extreme("argmax", x, axis, keepdims); }
Tensor argmin(const Tensor& x, int64_t axis, bool keepdims) { return call_arg_extreme("argmin", x, axis, keepdims); }

// Integers and bools average to float32; the mean of nothing is NaN (0 / 0), as in NumPy.
Tensor mean(const Tensor& x, const Axes& axes, bool keepdims) {
  Tensor v = as_inexact(x);
  Axes ax = normalize_axes(axes, v.dim(), "mean");
  return div(sum(v, ax, keepdims), Scalar(double(detail::reduced_count(v.shape(), ax))));
}

// log(sum(exp(x))) shifted by the maximum, so that no exp overflows. The shift cancels exactly in
// value and derivative, so it is taken without gradient: ties in the maximum cost nothing.
Tensor logsumexp(const Tensor& x, const Axes& axes, bool keepdims) {
  SPIRE_CHECK(!is_complex(x.dtype()), DTypeError, "logsumexp: takes real tensors, got ", name(x.dtype()));
  Tensor v = as_inexact(x);
  Axes ax = normalize_axes(axes, v.dim(), "logsumexp");
  if (detail::reduced_count(v.shape(), ax) == 0)  // log of an empty sum
    return full(reduced_shape(v.shape(), ax, keepdims), -std::numeric_limits<double>::infinity(), v.dtype(),
                v.device());
  Tensor m = amax(v.detach(), ax, true);
  m = where(isfinite(m), m, zeros_like(m));  // all -inf (or an inf): no shift
  Tensor s = log(sum(exp(sub(v, m)), ax, keepdims));
  return add(s, keepdims ? m : reshape(m, s.shape()));
}

// Two passes (subtract the mean, then sum squares): accurate where the one-pass formula cancels.
// Complex inputs give the real variance E|x - mean|^2.
Tensor var(const Tensor& x, const Axes& axes, int64_t ddof, bool keepdims) {
  Tensor v = as_inexact(x);
  Axes ax = normalize_axes(axes, v.dim(), "var");
  int64_t n = detail::reduced_count(v.shape(), ax);
  SPIRE_CHECK(ddof >= 0 && n - ddof > 0, ValueError, "var: ddof=", ddof, " leaves no degrees of freedom for ", n,
              " elements per output (shape ", shape_str(v.shape()), "); need 0 <= ddof < ", n);
  Tensor d = sub(v, mean(v, ax, true));
  Tensor sq = is_complex(v.dtype()) ? real(mul(d, conj(d))) : mul(d, d);
  return div(sum(sq, ax, keepdims), Scalar(double(n - ddof)));
}

Tensor std(const Tensor& x, const Axes& axes, int64_t ddof, bool keepdims) {
  return sqrt(var(x, axes, ddof, keepdims));
}

}  // namespace spire
