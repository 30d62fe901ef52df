// Type conversion and constant fills.
#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

SPIRE_DEFINE_OP({
    .name = "cast",
    .infer = [](auto& in, const Attrs& a) -> std::vector<TensorMeta> {
      return {{in[0].shape(), a.template get<DType>("dtype")}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      DType from = c.inputs[0].dtype();
      if (!is_inexact(from)) return {Tensor()};
      Tensor g = c.grads[0];
      // complex -> real drops the imaginary part: the reverse is embedding into the reals.
      if (is_complex(g.dtype()) && !is_complex(from)) g = real(g);
      return {cast(g, from)};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      if (!c.tangents[0].defined() || !is_inexact(c.outputs[0].dtype())) return {Tensor()};
      return {cast(c.tangents[0], c.outputs[0].dtype())};
    },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4})}, {{"dtype", DType::Complex128}}, "to complex"},
          {{sample({4}, -1, 1, 2, DType::Complex128)}, {{"dtype", DType::Float64}}, "complex to real"},
      };
    },
});

// No inputs: shape, value, dtype and device come in attributes. Not differentiable (a constant).
SPIRE_DEFINE_OP({
    .name = "full",
    .num_inputs = 0,
    .infer = [](auto&, const Attrs& a) -> std::vector<TensorMeta> {
      return {{a.template get<Shape>("shape"), a.template get<DType>("dtype")}};
    },
    .differentiable = false,
    .samples = [] {
      return std::vector<OpSample>{{{}, {{"shape", Shape{2, 3}}, {"value", Scalar(1.5)},
                                         {"dtype", DType::Float64}, {"device", std::string("cpu")}}, "fill"}};
    },
});

}  // namespace

Tensor cast(const Tensor& x, DType dtype) {
  static const OpDef& d = op_def("cast");
  if (x.dtype() == dtype) return x;
  return call1(d, {x}, Attrs{{"dtype", dtype}});
}

Tensor zeros_like(const Tensor& x) { return zeros(x.shape(), x.dtype(), x.device()); }
Tensor ones_like(const Tensor& x) { return ones(x.shape(), x.dtype(), x.device()); }
Tensor full_like(const Tensor& x, Scalar v) { return full(x.shape(), v, x.dtype(), x.device()); }

// A number next to a tensor is weakly typed: it takes the tensor's dtype unless it needs a wider
// kind (a float next to ints gives float32, a complex next to reals gives complex).
Tensor scalar_like(const Tensor& x, Scalar v) {
  DType t = x.dtype();
  if (v.kind() == DType::Complex128 && !is_complex(t)) t = complex_dtype(is_floating(t) ? t : DType::Float32);
  else if (v.kind() == DType::Float64 && !is_inexact(t)) t = DType::Float32;
  else if (v.kind() == DType::Int64 && t == DType::Bool) t = DType::Int64;
  return full({}, v, t, x.device());
}

}  // namespace spire
