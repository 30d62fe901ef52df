// CPU kernels for comparisons, logic and float classification (bool outputs).
#include <cmath>
#include <limits>

#include "engine/backends/cpu/loops.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

template <class T>
bool truthy(T v) {
  return v != T(0);
}

// Bool inputs are read as bytes (0 or 1): GCC does not vectorise loads of bool, a 1-bit type to it.
template <class T>
using Loaded = std::conditional_t<std::is_same_v<T, bool>, uint8_t, T>;

// out = pred(a, b) for inputs of one dtype (promoted by the public function).
template <class Pred>
KernelFn binary_predicate(Pred pred) {
  return [pred](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    visit_dtype(in[0].dtype(), [&]<class T>() {
      using L = Loaded<T>;
      if constexpr (std::is_invocable_r_v<bool, const Pred&, L, L>)
        map<bool, L, L>(out[0], pred, in[0], in[1]);
    });
  };
}
template <class Pred>
KernelFn unary_predicate(Pred pred) {
  return [pred](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs&) {
    visit_dtype(in[0].dtype(), [&]<class T>() { map<bool, Loaded<T>>(out[0], pred, in[0]); });
  };
}

// Complex numbers compare for (in)equality only; infer has rejected ordered comparisons.
template <class T> concept Ordered = !is_complex_v<T>;

SPIRE_REGISTER_KERNEL("eq", DeviceKind::CPU, binary_predicate([](auto a, auto b) { return a == b; }));
SPIRE_REGISTER_KERNEL("ne", DeviceKind::CPU, binary_predicate([](auto a, auto b) { return a != b; }));
SPIRE_REGISTER_KERNEL("lt", DeviceKind::CPU, binary_predicate([]<Ordered T>(T a, T b) { return a < b; }));
SPIRE_REGISTER_KERNEL("le", DeviceKind::CPU, binary_predicate([]<Ordered T>(T a, T b) { return a <= b; }));
SPIRE_REGISTER_KERNEL("gt", DeviceKind::CPU, binary_predicate([]<Ordered T>(T a, T b) { return a > b; }));
SPIRE_REGISTER_KERNEL("ge", DeviceKind::CPU, binary_predicate([]<Ordered T>(T a, T b) { return a >= b; }));
// Non-short-circuit & and | keep the loops branch-free.
SPIRE_REGISTER_KERNEL("logical_and", DeviceKind::CPU,
                      binary_predicate([](auto a, auto b) { return truthy(a) & truthy(b); }));
SPIRE_REGISTER_KERNEL("logical_or", DeviceKind::CPU,
                      binary_predicate([](auto a, auto b) { return truthy(a) | truthy(b); }));
SPIRE_REGISTER_KERNEL("logical_xor", DeviceKind::CPU,
                      binary_predicate([](auto a, auto b) { return truthy(a) != truthy(b); }));
SPIRE_REGISTER_KERNEL("logical_not", DeviceKind::CPU, unary_predicate([](auto a) { return !truthy(a); }));

template <class T>
bool is_nan(T v) {
  if constexpr (is_complex_v<T>) return is_nan(v.real()) | is_nan(v.imag());
  else if constexpr (std::is_floating_point_v<T>) return v != v;
  else return false;
}
template <class T>
bool is_finite(T v) {
  if constexpr (is_complex_v<T>) return is_finite(v.real()) & is_finite(v.imag());
  else if constexpr (std::is_floating_point_v<T>) return std::abs(v) <= std::numeric_limits<T>::max();
  else return true;
}
SPIRE_REGISTER_KERNEL("isnan", DeviceKind::CPU, unary_predicate([](auto a) { return is_nan(a); }));
SPIRE_REGISTER_KERNEL("isfinite", DeviceKind::CPU, unary_predicate([](auto a) { return is_finite(a); }));

}  // namespace
}  // namespace spire::cpu
