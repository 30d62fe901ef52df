// CPU kernels for reductions: sum, prod, amax, amin (monoid folds, reduce_dense.h) and
// argmax, argmin (index-carrying folds over one axis).
#include <cmath>
#include <utility>

#include "engine/backends/cpu/reduce_dense.h"
#include "engine/core/op.h"

namespace spire::cpu {
namespace {

// Integers accumulate in int64 (and wrap to the output type once, at the end); floating and complex
// types in their own precision, made accurate by the pairwise trees.
template <class T>
using WideAcc = std::conditional_t<std::is_integral_v<T>, int64_t, T>;

template <template <class> class Monoid, bool Widen>
KernelFn monoid_kernel() {
  return [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
    visit_dtype(in[0].dtype(), [&]<class T>() {
      using Acc = std::conditional_t<Widen, WideAcc<T>, T>;
      if constexpr (!std::is_same_v<T, bool> || !Widen)
        reduce_monoid<Monoid<Acc>, T, T>(in[0], a.get<Axes>("axes"), out[0]);
    });
  };
}

SPIRE_REGISTER_KERNEL("sum", DeviceKind::CPU, (monoid_kernel<SumMonoid, true>()));
SPIRE_REGISTER_KERNEL("prod", DeviceKind::CPU, (monoid_kernel<ProdMonoid, true>()));

template <template <class> class Monoid>
KernelFn extreme_kernel() {
  return [](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
    visit_dtype(in[0].dtype(), [&]<class T>() {
      if constexpr (!is_complex_v<T>) reduce_monoid<Monoid<T>, T, T>(in[0], a.get<Axes>("axes"), out[0]);
    });
  };
}
SPIRE_REGISTER_KERNEL("amax", DeviceKind::CPU, extreme_kernel<MaxMonoid>());
SPIRE_REGISTER_KERNEL("amin", DeviceKind::CPU, extreme_kernel<MinMonoid>());

// The first index of the extreme along one axis; a NaN is more extreme than anything (NumPy).
template <bool Max>
void arg_extreme(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  visit_dtype(in[0].dtype(), [&]<class T>() {
    if constexpr (!is_complex_v<T>) {
      using Acc = std::pair<T, int64_t>;  // (value, index); index -1 before the first element
      auto better = [](T v, T best) {
        if (best != best) return false;
        if (v != v) return true;
        return Max ? v > best : v < best;
      };
      int64_t* o = out[0].data<int64_t>();
      reduce<T, Acc>(
          in[0], Axes{a.get<int64_t>("axis")}, Acc(T(), -1),
          [&](Acc acc, T v, int64_t r) { return acc.second < 0 || better(v, acc.first) ? Acc(v, r) : acc; },
          [&](Acc x, Acc y) {
            if (x.second < 0) return y;
            if (y.second < 0) return x;
            return better(y.first, x.first) ? y : x;
          },
          [o](int64_t i, Acc v) { o[i] = v.second; });
    }
  });
}
SPIRE_REGISTER_KERNEL("argmax", DeviceKind::CPU, arg_extreme<true>);
SPIRE_REGISTER_KERNEL("argmin", DeviceKind::CPU, arg_extreme<false>);

}  // namespace
}  // namespace spire::cpu
