// add, sub, mul, div, neg on the GPU, with the CPU kernels' semantics: bools compute in int and
// narrow back (true + true is true), integers wrap on overflow, integer division truncates.
#include "engine/backends/cuda/arithmetic.h"
#include "engine/backends/cuda/elementwise.cuh"
#include "engine/backends/cuda/arithmetic.cuh"

namespace spire::cuda {
namespace {

struct Add {
  template <class T> SPIRE_HD T operator()(T a, T b) const {
    if constexpr (is_integer_v<T>) return wrap_add(a, b);
    else return a + b;
  }
};
struct Sub {
  template <class T> SPIRE_HD T operator()(T a, T b) const {
    if constexpr (is_integer_v<T>) return wrap_sub(a, b);
    else return a - b;
  }
};
struct Mul {
  template <class T> SPIRE_HD T operator()(T a, T b) const {
    if constexpr (is_integer_v<T>) return wrap_mul(a, b);
    else return a * b;
  }
};
struct Div {
  template <class T> SPIRE_HD T operator()(T a, T b) const {
    if constexpr (is_integer_v<T>) return int_div(a, b);
    else return a / b;
  }
};
struct Neg {
  template <class T> SPIRE_HD T operator()(T a) const {
    if constexpr (is_integer_v<T>) return wrap_neg(a);
    else return -a;
  }
};

// Bools (read as bytes) computed in int and narrowed back with != 0, as the CPU's T(f(int, int)).
template <class Op>
struct ViaInt {
  Op op;
  SPIRE_HD bool operator()(uint8_t a, uint8_t b) const { return op(int32_t(a != 0), int32_t(b != 0)) != 0; }
  SPIRE_HD bool operator()(uint8_t a) const { return op(int32_t(a != 0)) != 0; }
};

template <class Op>
cudaError_t binary(const Loop<3>& L) {
  return visit_elem(L.elem[0], [&]<class T>() {
    if constexpr (::cuda::std::is_same_v<T, bool>) return launch_map<bool, uint8_t, uint8_t>(L, ViaInt<Op>{});
    else return launch_map<T, T, T>(L, Op{});
  });
}

}  // namespace

cudaError_t launch_arithmetic(ArithOp op, const Loop<3>& L) {
  switch (op) {
    case ArithOp::Add: return binary<Add>(L);
    case ArithOp::Sub: return binary<Sub>(L);
    case ArithOp::Mul: return binary<Mul>(L);
    case ArithOp::Div: return binary<Div>(L);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_neg(const Loop<2>& L) {
  return visit_elem(L.elem[0], [&]<class T>() {
    if constexpr (::cuda::std::is_same_v<T, bool>) return launch_map<bool, uint8_t>(L, ViaInt<Neg>{});
    else return launch_map<T, T>(L, Neg{});
  });
}

}  // namespace spire::cuda
