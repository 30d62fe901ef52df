// The fused optimizer-update ops (ops/optim_update.h).
#include "engine/ops/optim_update.h"

#include <cmath>

#include "engine/core/op.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

// Every tensor of an update has the parameter's shape and a floating dtype shared by all.
void check_update_inputs(const char* op, const std::vector<Tensor>& in, const char* const* names) {
  DType t = in[0].dtype();
  SPIRE_CHECK(is_floating(t), DTypeError, op, ": the parameter has dtype ", name(t),
              "; allowed: float32, float64");
  for (size_t i = 1; i < in.size(); ++i) {
    SPIRE_CHECK(in[i].dtype() == t, DTypeError, op, ": ", names[i], " has dtype ", name(in[i].dtype()),
                " but the parameter has ", name(t));
    SPIRE_CHECK(in[i].shape() == in[0].shape(), ShapeError, op, ": ", names[i], " has shape ",
                shape_str(in[i].shape()), " but the parameter has ", shape_str(in[0].shape()));
  }
}

}  // namespace

AdamStep adam_step(const Attrs& a) {
  AdamStep s;
  s.h = {.lr = a.get<double>("lr"), .beta1 = a.get<double>("beta1"), .beta2 = a.get<double>("beta2"),
         .eps = a.get<double>("eps"), .weight_decay = a.get<double>("weight_decay"),
         .decoupled = a.get<bool>("decoupled"), .amsgrad = a.get<bool>("amsgrad"),
         .maximize = a.get<bool>("maximize"), .step = a.get<int64_t>("step")};
  double step = double(s.h.step);
  s.step_size = s.h.lr / (1 - std::pow(s.h.beta1, step));
  s.bias_correction2_sqrt = std::pow(1 - std::pow(s.h.beta2, step), 0.5);
  s.one_minus_beta1 = 1 - s.h.beta1;
  return s;
}

namespace {

Attrs adam_attrs(const AdamHyper& h) {
  return {{"lr", h.lr},           {"beta1", h.beta1},         {"beta2", h.beta2},
          {"eps", h.eps},         {"weight_decay", h.weight_decay}, {"decoupled", h.decoupled},
          {"amsgrad", h.amsgrad}, {"maximize", h.maximize},   {"step", h.step}};
}

SPIRE_DEFINE_OP({
    .name = "adam_update",
    .num_inputs = -1,  // param, grad, exp_avg, exp_avg_sq[, max_exp_avg_sq]
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      const bool amsgrad = a.get<bool>("amsgrad");
      SPIRE_CHECK(in.size() == (amsgrad ? 5u : 4u), ValueError, "adam_update: expected ", amsgrad ? 5 : 4,
                  " tensors (param, grad, exp_avg, exp_avg_sq", amsgrad ? ", max_exp_avg_sq" : "",
                  ") with amsgrad=", amsgrad ? "true" : "false", ", got ", in.size());
      static const char* const names[] = {"param", "grad", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"};
      check_update_inputs("adam_update", in, names);
      SPIRE_CHECK(a.get<int64_t>("step") >= 1, ValueError, "adam_update: step must be >= 1, got ",
                  a.get<int64_t>("step"));
      return std::vector<TensorMeta>(in.size() - 1, TensorMeta{in[0].shape(), in[0].dtype()});
    },
    .differentiable = false,
    .samples = [] {
      auto call_of = [](AdamHyper h, uint64_t seed, const char* label) {
        Shape s{3, 4};
        std::vector<Tensor> in{sample(s, -1, 1, seed), sample(s, -1, 1, seed + 1), sample(s, -0.1, 0.1, seed + 2),
                               sample(s, 0, 0.01, seed + 3)};
        if (h.amsgrad) in.push_back(sample(s, 0, 0.02, seed + 4));
        return OpSample{in, adam_attrs(h), label};
      };
      return std::vector<OpSample>{
          call_of({.step = 1}, 1, "adam"),
          call_of({.lr = 0.01, .weight_decay = 0.1, .step = 3}, 11, "adam l2"),
          call_of({.lr = 0.01, .weight_decay = 0.1, .decoupled = true, .step = 5}, 21, "adamw"),
          call_of({.beta1 = 0.3, .amsgrad = true, .maximize = true, .step = 2}, 31, "amsgrad maximize"),
      };
    },
});

Attrs sgd_attrs(const SGDHyper& h, bool has_buffer) {
  return {{"lr", h.lr},         {"momentum", h.momentum},         {"dampening", h.dampening},
          {"weight_decay", h.weight_decay}, {"nesterov", h.nesterov}, {"maximize", h.maximize},
          {"has_buffer", has_buffer}};
}

SPIRE_DEFINE_OP({
    .name = "sgd_update",
    .num_inputs = -1,  // param, grad[, momentum_buffer]
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      const bool momentum = a.get<double>("momentum") != 0, has_buffer = a.get<bool>("has_buffer");
      SPIRE_CHECK(!has_buffer || momentum, ValueError, "sgd_update: a momentum buffer needs momentum != 0");
      SPIRE_CHECK(in.size() == (has_buffer ? 3u : 2u), ValueError, "sgd_update: expected ", has_buffer ? 3 : 2,
                  " tensors (param, grad", has_buffer ? ", momentum_buffer" : "", "), got ", in.size());
      static const char* const names[] = {"param", "grad", "momentum_buffer"};
      check_update_inputs("sgd_update", in, names);
      return std::vector<TensorMeta>(momentum ? 2 : 1, TensorMeta{in[0].shape(), in[0].dtype()});
    },
    .differentiable = false,
    .samples = [] {
      auto call_of = [](SGDHyper h, bool buffer, uint64_t seed, const char* label) {
        Shape s{3, 4};
        std::vector<Tensor> in{sample(s, -1, 1, seed), sample(s, -1, 1, seed + 1)};
        if (buffer) in.push_back(sample(s, -1, 1, seed + 2));
        return OpSample{in, sgd_attrs(h, buffer), label};
      };
      return std::vector<OpSample>{
          call_of({.lr = 0.1}, false, 1, "plain"),
          call_of({.lr = 0.1, .momentum = 0.9, .weight_decay = 0.01}, false, 11, "first momentum step"),
          call_of({.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .nesterov = false, .maximize = true}, true, 21,
                  "momentum"),
          call_of({.lr = 0.1, .momentum = 0.9, .weight_decay = 0.1, .nesterov = true}, true, 31, "nesterov"),
      };
    },
});

Attrs rmsprop_attrs(const RMSpropHyper& h) {
  return {{"lr", h.lr},        {"alpha", h.alpha},       {"eps", h.eps},           {"weight_decay", h.weight_decay},
          {"momentum", h.momentum}, {"centered", h.centered}, {"maximize", h.maximize}};
}

SPIRE_DEFINE_OP({
    .name = "rmsprop_update",
    .num_inputs = -1,  // param, grad, square_avg[, grad_avg][, momentum_buffer]
    .infer = [](const std::vector<Tensor>& in, const Attrs& a) -> std::vector<TensorMeta> {
      const bool centered = a.get<bool>("centered"), momentum = a.get<double>("momentum") > 0;
      const size_t n = 3 + centered + momentum;
      SPIRE_CHECK(in.size() == n, ValueError, "rmsprop_update: expected ", n, " tensors (param, grad, square_avg",
                  centered ? ", grad_avg" : "", momentum ? ", momentum_buffer" : "", "), got ", in.size());
      const char* names[] = {"param", "grad", "square_avg", centered ? "grad_avg" : "momentum_buffer",
                             "momentum_buffer"};
      check_update_inputs("rmsprop_update", in, names);
      return std::vector<TensorMeta>(n - 1, TensorMeta{in[0].shape(), in[0].dtype()});
    },
    .differentiable = false,
    .samples = [] {
      auto call_of = [](RMSpropHyper h, uint64_t seed, const char* label) {
        Shape s{3, 4};
        std::vector<Tensor> in{sample(s, -1, 1, seed), sample(s, -1, 1, seed + 1), sample(s, 0.5, 1, seed + 2)};
        if (h.centered) in.push_back(sample(s, -0.1, 0.1, seed + 3));
        if (h.momentum > 0) in.push_back(sample(s, -1, 1, seed + 4));
        return OpSample{in, rmsprop_attrs(h), label};
      };
      return std::vector<OpSample>{
          call_of({}, 1, "plain"),
          call_of({.weight_decay = 0.1, .momentum = 0.9, .maximize = true}, 11, "momentum"),
          call_of({.alpha = 0.3, .centered = true}, 21, "centered"),
          call_of({.momentum = 0.5, .centered = true}, 31, "centered momentum"),
      };
    },
});

}  // namespace

bool fused_update_available(const char* op, const Tensor& t) {
  return is_floating(t.dtype()) && bool(op_def(op).kernels[int(t.device().kind)]);
}

AdamUpdate adam_update(const Tensor& param, const Tensor& grad, const Tensor& exp_avg, const Tensor& exp_avg_sq,
                       const Tensor& max_exp_avg_sq, const AdamHyper& h) {
  static const OpDef& d = op_def("adam_update");
  SPIRE_CHECK(h.amsgrad == max_exp_avg_sq.defined(), ValueError, "adam_update: max_exp_avg_sq must be given ",
              h.amsgrad ? "with amsgrad" : "only with amsgrad");
  std::vector<Tensor> in{param, grad, exp_avg, exp_avg_sq};
  if (h.amsgrad) in.push_back(max_exp_avg_sq);
  std::vector<Tensor> out = call(d, std::move(in), adam_attrs(h));
  return {out[0], out[1], out[2], h.amsgrad ? out[3] : Tensor()};
}

}  // namespace spire

namespace spire {

SGDUpdate sgd_update(const Tensor& param, const Tensor& grad, const Tensor& momentum_buffer, const SGDHyper& h) {
  static const OpDef& d = op_def("sgd_update");
  std::vector<Tensor> in{param, grad};
  if (momentum_buffer.defined()) in.push_back(momentum_buffer);
  std::vector<Tensor> out = call(d, std::move(in), sgd_attrs(h, momentum_buffer.defined()));
  return {out[0], out.size() > 1 ? out[1] : Tensor()};
}

}  // namespace spire

namespace spire {

RMSpropUpdate rmsprop_update(const Tensor& param, const Tensor& grad, const Tensor& square_avg,
                             const Tensor& grad_avg, const Tensor& momentum_buffer, const RMSpropHyper& h) {
  static const OpDef& d = op_def("rmsprop_update");
  SPIRE_CHECK(h.centered == grad_avg.defined(), ValueError, "rmsprop_update: grad_avg must be given ",
              h.centered ? "when centered" : "only when centered");
  SPIRE_CHECK((h.momentum > 0) == momentum_buffer.defined(), ValueError,
              "rmsprop_update: momentum_buffer must be given ", h.momentum > 0 ? "with" : "only with",
              " momentum > 0");
  std::vector<Tensor> in{param, grad, square_avg};
  if (h.centered) in.push_back(grad_avg);
  if (h.momentum > 0) in.push_back(momentum_buffer);
  std::vector<Tensor> out = call(d, std::move(in), rmsprop_attrs(h));
  RMSpropUpdate u{out[0], out[1], {}, {}};
  size_t k = 2;
  if (h.centered) u.grad_avg = out[k++];
  if (h.momentum > 0) u.momentum_buffer = out[k++];
  return u;
}

}  // namespace spire
