// add, sub, mul, div, neg: the arithmetic every reverse rule is written in.
#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

std::vector<TensorMeta> infer_binary(const char* op, const std::vector<Tensor>& in) {
  require_same_dtype(op, in);
  return {broadcast_meta(op, in)};
}

std::vector<OpSample> binary_samples(double lo_b = -1.0, double hi_b = 1.0) {
  return {
      {{sample({3, 4}, -1, 1, 1), sample({3, 4}, lo_b, hi_b, 2)}, {}, "same shape"},
      {{sample({2, 3, 1}, -1, 1, 3), sample({4}, lo_b, hi_b, 4)}, {}, "broadcast"},
      {{sample({3}, -1, 1, 5, DType::Complex128), sample({2, 3}, lo_b, hi_b, 6, DType::Complex128)},
       {}, "complex"},
  };
}

SPIRE_DEFINE_OP({
    .name = "add",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) { return infer_binary("add", in); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {sum_to(c.grads[0], c.inputs[0].shape()), sum_to(c.grads[0], c.inputs[1].shape())};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      Tensor t = plus(c.tangents[0], c.tangents[1]);
      return {t.defined() ? expand_to(t, c.outputs[0].shape()) : t};
    },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] { return binary_samples(); },
});

SPIRE_DEFINE_OP({
    .name = "sub",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) { return infer_binary("sub", in); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {sum_to(c.grads[0], c.inputs[0].shape()), sum_to(neg(c.grads[0]), c.inputs[1].shape())};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      Tensor tb = c.tangents[1].defined() ? neg(c.tangents[1]) : Tensor();
      Tensor t = plus(c.tangents[0], tb);
      return {t.defined() ? expand_to(t, c.outputs[0].shape()) : t};
    },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] { return binary_samples(); },
});

SPIRE_DEFINE_OP({
    .name = "mul",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) { return infer_binary("mul", in); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor& g = c.grads[0];
      std::vector<Tensor> out(2);
      if (c.needs_grad[0]) out[0] = sum_to(mul(g, conj_if_complex(c.inputs[1])), c.inputs[0].shape());
      if (c.needs_grad[1]) out[1] = sum_to(mul(g, conj_if_complex(c.inputs[0])), c.inputs[1].shape());
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      Tensor t = plus(times(c.tangents[0], c.inputs[1]), times(c.inputs[0], c.tangents[1]));
      return {t.defined() ? expand_to(t, c.outputs[0].shape()) : t};
    },
    .taylor = jets::bilinear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] { return binary_samples(); },
});

SPIRE_DEFINE_OP({
    .name = "div",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) { return infer_binary("div", in); },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      const Tensor& g = c.grads[0];
      std::vector<Tensor> out(2);
      Tensor gb = div(g, conj_if_complex(c.inputs[1]));  // g / conj(b)
      if (c.needs_grad[0]) out[0] = sum_to(gb, c.inputs[0].shape());
      if (c.needs_grad[1])
        out[1] = sum_to(neg(mul(gb, conj_if_complex(c.outputs[0]))), c.inputs[1].shape());
      return out;
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      // d(a/b) = (da - (a/b) db) / b
      Tensor num = plus(c.tangents[0], c.tangents[1].defined() ? neg(mul(c.outputs[0], c.tangents[1])) : Tensor());
      if (!num.defined()) return {Tensor()};
      return {expand_to(div(num, c.inputs[1]), c.outputs[0].shape())};
    },
    .taylor = [](const TaylorContext& c) -> std::vector<Series> {
      return {jets::tail(jets::div(jets::input(c, 0), jets::input(c, 1), c.outputs[0]))};
    },
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] { return binary_samples(0.5, 2.0); },
});

SPIRE_DEFINE_OP({
    .name = "neg",
    .infer = same_as_input,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {neg(c.grads[0])}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {neg(c.tangents[0])}; },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] {
      return std::vector<OpSample>{{{sample({3, 4})}, {}, "real"},
                                   {{sample({5}, -1, 1, 2, DType::Complex128)}, {}, "complex"}};
    },
});

}  // namespace

Tensor add(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("add");
  auto [x, y] = promoted(a, b);
  return call1(d, {x, y});
}
Tensor sub(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("sub");
  auto [x, y] = promoted(a, b);
  return call1(d, {x, y});
}
Tensor mul(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("mul");
  auto [x, y] = promoted(a, b);
  return call1(d, {x, y});
}
Tensor div(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("div");
  auto [x, y] = promoted(a, b, /*inexact=*/true);
  return call1(d, {x, y});
}
Tensor neg(const Tensor& x) {
  static const OpDef& d = op_def("neg");
  return call1(d, {x});
}
Tensor add(const Tensor& a, Scalar b) { return add(a, scalar_like(a, b)); }
Tensor sub(const Tensor& a, Scalar b) { return sub(a, scalar_like(a, b)); }
Tensor mul(const Tensor& a, Scalar b) { return mul(a, scalar_like(a, b)); }
Tensor div(const Tensor& a, Scalar b) { return div(rules::as_inexact(a), scalar_like(rules::as_inexact(a), b)); }

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    SPIRE_CHECK(da == db || da == 1 || db == 1, ShapeError, op, ": shapes ", shape_str(a), " and ",
                shape_str(b), " cannot be broadcast together (axis ", int64_t(i) - int64_t(n),
                " has sizes ", da, " and ", db, ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

}  // namespace spire
