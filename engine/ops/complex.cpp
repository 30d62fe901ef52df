// Complex parts. On real tensors real and conj are identities (no op is recorded) and imag gives
// zeros, so generic code can call them on any inexact tensor.
#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

std::vector<TensorMeta> to_real(const std::vector<Tensor>& in, const Attrs&) {
  return {{in[0].shape(), real_dtype(in[0].dtype())}};
}
std::vector<OpSample> complex_samples() {
  return {{{sample({3, 4}, -1, 1, 1, DType::Complex128)}, {}, "complex"}};
}

SPIRE_DEFINE_OP({
    .name = "real",
    .infer = to_real,
    // L depends on Re z only: dL/dRe = g, dL/dIm = 0, so the gradient is g + 0i.
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {cast(c.grads[0], c.inputs[0].dtype())};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {real(c.tangents[0])}; },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = complex_samples,
});

SPIRE_DEFINE_OP({
    .name = "imag",
    .infer = to_real,
    // dL/dIm = g: the gradient is 0 + i g.
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {complex(zeros_like(c.grads[0]), c.grads[0])};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {imag(c.tangents[0])}; },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = complex_samples,
});

SPIRE_DEFINE_OP({
    .name = "conj",
    .infer = same_as_input,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {conj(c.grads[0])}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> { return {conj(c.tangents[0])}; },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = complex_samples,
});

SPIRE_DEFINE_OP({
    .name = "complex",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) -> std::vector<TensorMeta> {
      require_same_dtype("complex", in);
      SPIRE_CHECK(is_floating(in[0].dtype()), DTypeError, "complex: parts must be float32 or float64, got ",
                  name(in[0].dtype()));
      TensorMeta m = broadcast_meta("complex", in);
      return {{m.shape, complex_dtype(m.dtype)}};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {sum_to(real(c.grads[0]), c.inputs[0].shape()),
              sum_to(imag(c.grads[0]), c.inputs[1].shape())};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      if (!c.tangents[0].defined() && !c.tangents[1].defined()) return {Tensor()};
      Tensor re = c.tangents[0].defined() ? c.tangents[0] : zeros_like(c.inputs[0]);
      Tensor im = c.tangents[1].defined() ? c.tangents[1] : zeros_like(c.inputs[1]);
      return {expand_to(complex(re, im), c.outputs[0].shape())};
    },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] {
      return std::vector<OpSample>{{{sample({3, 2}), sample({2}, -1, 1, 2)}, {}, "broadcast"}};
    },
});

}  // namespace

Tensor real(const Tensor& x) {
  static const OpDef& d = op_def("real");
  return is_complex(x.dtype()) ? call1(d, {x}) : x;
}
Tensor imag(const Tensor& x) {
  static const OpDef& d = op_def("imag");
  return is_complex(x.dtype()) ? call1(d, {x}) : zeros_like(rules::as_inexact(x));
}
Tensor conj(const Tensor& x) {
  static const OpDef& d = op_def("conj");
  return is_complex(x.dtype()) ? call1(d, {x}) : x;
}
Tensor complex(const Tensor& re, const Tensor& im) {
  static const OpDef& d = op_def("complex");
  auto [a, b] = rules::promoted(rules::as_inexact(re), rules::as_inexact(im), true);
  return call1(d, {a, b});
}

}  // namespace spire
