// The relu and relu_backward ops (ops/relu.h). relu is piecewise linear, so its rules are the
// linear ones with relu_backward as the derivative; relu_backward is linear in grad, its own
// derivative in grad being relu_backward again, so every order reuses the same pass.
#include "engine/ops/relu.h"

#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

void require_real(const char* op, const Tensor& x) {
  DType t = x.dtype();
  SPIRE_CHECK(is_floating(t) || is_integral(t), DTypeError, op, ": got a ", name(t),
              " tensor; allowed: int32, int64, float32, float64");
}

// Samples stay at least 0.05 away from the kink at 0, where finite differences would straddle it.
Tensor away_from_zero(const Shape& shape, uint64_t seed) {
  Tensor u = sample(shape, 0.05, 1.0, seed);
  Tensor s = sample(shape, -1, 1, seed + 100);
  return where(gt(s, 0.0), u, neg(u));
}

SPIRE_DEFINE_OP({
    .name = "relu",
    .infer = [](auto& in, auto& a) {
      require_real("relu", in[0]);
      return same_as_input(in, a);
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {relu_backward(c.grads[0], c.inputs[0])}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      if (!c.tangents[0].defined()) return {Tensor()};
      return {relu_backward(c.tangents[0], c.inputs[0])};
    },
    .taylor = jets::linear,  // piecewise linear: exact away from 0
    .batch = batching::batch_elementwise, .pointwise = true,
    .samples = [] {
      return std::vector<OpSample>{{{away_from_zero({3, 4}, 1)}, {}, "matrix"},
                                   {{away_from_zero({2, 3, 5}, 2)}, {}, "3-d"}};
    },
});

SPIRE_DEFINE_OP({
    .name = "relu_backward",
    .num_inputs = 2,
    .infer = [](auto& in, auto&) -> std::vector<TensorMeta> {
      require_real("relu_backward", in[0]);
      require_real("relu_backward", in[1]);
      require_same_dtype("relu_backward", in);
      return {broadcast_meta("relu_backward", in)};
    },
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      return {sum_to(relu_backward(c.grads[0], c.inputs[1]), c.inputs[0].shape()), Tensor()};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      if (!c.tangents[0].defined()) return {Tensor()};
      return {expand_to(relu_backward(c.tangents[0], c.inputs[1]), c.outputs[0].shape())};
    },
    .taylor = jets::linear,
    .batch = batching::batch_elementwise, .pointwise = true,
    .nondiff_inputs = {1},
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({3, 4}, -1, 1, 3), away_from_zero({3, 4}, 4)}, {}, "same shape"},
          {{sample({4}, -1, 1, 5), away_from_zero({3, 4}, 6)}, {}, "broadcast grad"},
          {{sample({2, 3, 4}, -1, 1, 7), away_from_zero({3, 1}, 8)}, {}, "broadcast x"},
      };
    },
});

}  // namespace

Tensor relu(const Tensor& x) {
  static const OpDef& d = op_def("relu");
  return call1(d, {x});
}

Tensor relu_backward(const Tensor& grad, const Tensor& x) {
  static const OpDef& d = op_def("relu_backward");
  return call1(d, {grad, x});
}

}  // namespace spire
