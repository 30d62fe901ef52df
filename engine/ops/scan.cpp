// Cumulative sums and products along one axis. Both carry `exclusive` (position i folds the
// elements before i only) and `reverse` (fold from the end) so that their reverse rules are scans
// of the same kind, with no flips or pads: the reverse of an inclusive forward scan is an inclusive
// reverse scan of the gradient.
#include "engine/autodiff/series.h"
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

struct ScanAttrs {
  int64_t axis;
  bool exclusive, reverse;
  explicit ScanAttrs(const Attrs& a)
      : axis(a.get<int64_t>("axis")), exclusive(a.get<bool>("exclusive")), reverse(a.get<bool>("reverse")) {}
};

std::vector<OpSample> scan_samples(double lo, double hi) {
  auto attrs = [](int64_t axis, bool exclusive, bool reverse) {
    return Attrs{{"axis", axis}, {"exclusive", exclusive}, {"reverse", reverse}};
  };
  return {
      {{sample({3, 4}, lo, hi)}, attrs(1, false, false), "last axis"},
      {{sample({4, 3, 2}, lo, hi, 2)}, attrs(0, false, true), "first axis reverse"},
      {{sample({3, 5}, lo, hi, 3)}, attrs(1, true, false), "exclusive"},
      {{sample({2, 4, 3}, lo, hi, 4)}, attrs(1, true, true), "exclusive reverse"},
      {{sample({2, 3}, lo, hi, 5, DType::Complex128)}, attrs(1, false, false), "complex"},
  };
}

std::vector<Tensor> batch_scan(const BatchContext& c) {
  Attrs a = c.attrs;
  a.set("axis", c.attrs.get<int64_t>("axis") + 1);
  return call(c.op, {c.inputs[0]}, a);
}

// z' = z cumsum(x' / x) along the scan: the series of log x (its value is never needed), scanned
// coefficient by coefficient, then exponentiated. Like the rules above it needs x != 0.
std::vector<Series> cumprod_taylor(const TaylorContext& c) {
  ScanAttrs s(c.attrs);
  jets::Jet log_x = jets::log(jets::input(c, 0), Tensor());
  for (size_t k = 1; k < log_x.size(); ++k)
    if (log_x[k].defined()) log_x[k] = cumsum(log_x[k], s.axis, s.exclusive, s.reverse);
  return {jets::tail(jets::exp(log_x, c.outputs[0]))};
}

SPIRE_DEFINE_OP({
    .name = "cumsum",
    .infer = same_as_input,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      ScanAttrs s(c.attrs);
      return {cumsum(c.grads[0], s.axis, s.exclusive, !s.reverse)};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      ScanAttrs s(c.attrs);
      return {cumsum(c.tangents[0], s.axis, s.exclusive, s.reverse)};
    },
    .taylor = jets::linear,
    .batch = batch_scan,
    .samples = [] { return scan_samples(-1, 1); },
});

// y_k = prod_{j <= k} x_j, so dy_k/dx_i = y_k / x_i for i <= k: the rules divide by x, and the
// samples keep away from zero.
SPIRE_DEFINE_OP({
    .name = "cumprod",
    .infer = same_as_input,
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> {
      ScanAttrs s(c.attrs);
      Tensor gy = mul(c.grads[0], conj_if_complex(c.outputs[0]));
      return {div(cumsum(gy, s.axis, s.exclusive, !s.reverse), conj_if_complex(c.inputs[0]))};
    },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      ScanAttrs s(c.attrs);
      return {mul(c.outputs[0], cumsum(div(c.tangents[0], c.inputs[0]), s.axis, s.exclusive, s.reverse))};
    },
    .taylor = cumprod_taylor,
    .batch = batch_scan,
    .samples = [] { return scan_samples(0.5, 1.5); },
});

Tensor scan(const char* op, const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  const OpDef& d = op_def(op);
  Tensor in = x.dtype() == DType::Bool ? cast(x, DType::Int64) : x;
  return call1(d, {in}, Attrs{{"axis", normalize_axis(axis, x.dim(), op)}, {"exclusive", exclusive},
                              {"reverse", reverse}});
}

}  // namespace

Tensor cumsum(const Tensor& x, int64_t axis) { return scan("cumsum", x, axis, false, false); }
Tensor cumprod(const Tensor& x, int64_t axis) { return scan("cumprod", x, axis, false, false); }
Tensor cumsum(const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  return scan("cumsum", x, axis, exclusive, reverse);
}
Tensor cumprod(const Tensor& x, int64_t axis, bool exclusive, bool reverse) {
  return scan("cumprod", x, axis, exclusive, reverse);
}

}  // namespace spire
