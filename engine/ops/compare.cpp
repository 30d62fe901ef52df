// Comparisons, logic and float classification: bool outputs, no derivative. Inputs are promoted to
// one dtype first, so 1 == 1.0 and int32 < int64 compare values, not representations.
#include "engine/autodiff/vmap.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/rules.h"

namespace spire {
namespace {
using namespace rules;

std::vector<OpSample> pair_samples() {
  Tensor a = from_vector<double>({-1.0, 0.0, 0.5, 2.0, 3.0, -0.5}, {2, 3});
  Tensor b = from_vector<double>({-1.0, 1.0, 0.5, 1.0, 4.0, -2.0}, {2, 3});
  return {{{a, b}, {}, "same shape"}, {{sample({2, 1}, -1, 1, 1), sample({3}, -1, 1, 2)}, {}, "broadcast"}};
}
std::vector<OpSample> single_samples() {
  return {{{from_vector<double>({-1.0, 0.0, 0.5, 2.0}, {4})}, {}, "real"},
          {{sample({3}, -1, 1, 3, DType::Complex128)}, {}, "complex"}};
}

// `ordered`: <, <=, >, >= have no meaning for complex numbers (NumPy's lexicographic order is a
// convention nobody asks for on purpose; PyTorch refuses too).
OpDef comparison(const char* op, bool ordered) {
  return OpDef{
      .name = op,
      .num_inputs = 2,
      .infer = [op, ordered](const std::vector<Tensor>& in, const Attrs&) -> std::vector<TensorMeta> {
        require_same_dtype(op, in);
        SPIRE_CHECK(!ordered || !is_complex(in[0].dtype()), DTypeError, op,
                    ": complex numbers have no order (got ", name(in[0].dtype()),
                    "); compare abs() or real() instead");
        return {{broadcast_meta(op, in).shape, DType::Bool}};
      },
      .batch = batching::batch_elementwise,
      .differentiable = false,
      .samples = pair_samples,
  };
}

OpDef unary_predicate(const char* op) {
  return OpDef{
      .name = op,
      .infer = [](const std::vector<Tensor>& in, const Attrs&) -> std::vector<TensorMeta> {
        return {{in[0].shape(), DType::Bool}};
      },
      .batch = batching::batch_elementwise,
      .differentiable = false,
      .samples = single_samples,
  };
}

// Several ops from two recipes: registered directly, as SPIRE_DEFINE_OP takes a braced definition.
const detail::OpRegistrar kEq(comparison("eq", false));
const detail::OpRegistrar kNe(comparison("ne", false));
const detail::OpRegistrar kLt(comparison("lt", true));
const detail::OpRegistrar kLe(comparison("le", true));
const detail::OpRegistrar kGt(comparison("gt", true));
const detail::OpRegistrar kGe(comparison("ge", true));
// Logic takes any dtype and reads nonzero as true, as NumPy.
const detail::OpRegistrar kAnd(comparison("logical_and", false));
const detail::OpRegistrar kOr(comparison("logical_or", false));
const detail::OpRegistrar kXor(comparison("logical_xor", false));
const detail::OpRegistrar kNot(unary_predicate("logical_not"));
const detail::OpRegistrar kIsnan(unary_predicate("isnan"));
const detail::OpRegistrar kIsfinite(unary_predicate("isfinite"));

Tensor call_binary(const OpDef& d, const Tensor& a, const Tensor& b) {
  auto [x, y] = promoted(a, b);
  return call1(d, {x, y});
}

}  // namespace

#define SPIRE_BINARY_PREDICATE(fn)                                                       \
  Tensor fn(const Tensor& a, const Tensor& b) {                                          \
    static const OpDef& d = op_def(#fn);                                                 \
    return call_binary(d, a, b);                                                         \
  }                                                                                      \
  Tensor fn(const Tensor& a, Scalar b) { return fn(a, scalar_like(a, b)); }
SPIRE_BINARY_PREDICATE(eq)
SPIRE_BINARY_PREDICATE(ne)
SPIRE_BINARY_PREDICATE(lt)
SPIRE_BINARY_PREDICATE(le)
SPIRE_BINARY_PREDICATE(gt)
SPIRE_BINARY_PREDICATE(ge)
#undef SPIRE_BINARY_PREDICATE

Tensor logical_and(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("logical_and");
  return call_binary(d, a, b);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("logical_or");
  return call_binary(d, a, b);
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  static const OpDef& d = op_def("logical_xor");
  return call_binary(d, a, b);
}
Tensor logical_not(const Tensor& a) {
  static const OpDef& d = op_def("logical_not");
  return call1(d, {a});
}
Tensor isnan(const Tensor& a) {
  static const OpDef& d = op_def("isnan");
  return call1(d, {a});
}
Tensor isfinite(const Tensor& a) {
  static const OpDef& d = op_def("isfinite");
  return call1(d, {a});
}

}  // namespace spire
