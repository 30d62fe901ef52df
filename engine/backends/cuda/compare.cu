// Comparisons, logic and float classification on the GPU, as the CPU kernels
// (engine/backends/cpu/compare.cpp): bools are read as bytes and compare as 0 and 1, logic reads any
// nonzero value (a complex one: either part) as true, NaN compares unequal to everything.
#include <cuda/std/limits>

#include "engine/backends/cuda/compare.h"
#include "engine/backends/cuda/elementwise.cuh"

namespace spire::cuda {
namespace {

namespace cs = ::cuda::std;

template <class T> SPIRE_HD bool truthy(T v) { return v != T(0); }

struct Eq { template <class T> SPIRE_HD bool operator()(T a, T b) const { return a == b; } };
struct Ne { template <class T> SPIRE_HD bool operator()(T a, T b) const { return a != b; } };
struct Lt { template <class T> SPIRE_HD bool operator()(T a, T b) const { return a < b; } };
struct Le { template <class T> SPIRE_HD bool operator()(T a, T b) const { return a <= b; } };
struct Gt { template <class T> SPIRE_HD bool operator()(T a, T b) const { return a > b; } };
struct Ge { template <class T> SPIRE_HD bool operator()(T a, T b) const { return a >= b; } };
struct And { template <class T> SPIRE_HD bool operator()(T a, T b) const { return truthy(a) && truthy(b); } };
struct Or { template <class T> SPIRE_HD bool operator()(T a, T b) const { return truthy(a) || truthy(b); } };
struct Xor { template <class T> SPIRE_HD bool operator()(T a, T b) const { return truthy(a) != truthy(b); } };

struct Not { template <class T> SPIRE_HD bool operator()(T a) const { return !truthy(a); } };
struct IsNan {
  template <class T> SPIRE_HD bool operator()(T v) const {
    if constexpr (is_complex_v<T>) return (*this)(v.real()) || (*this)(v.imag());
    else if constexpr (cs::is_floating_point_v<T>) return v != v;
    else return false;
  }
};
struct IsFinite {
  template <class T> SPIRE_HD bool operator()(T v) const {
    if constexpr (is_complex_v<T>) return (*this)(v.real()) && (*this)(v.imag());
    else if constexpr (cs::is_floating_point_v<T>) return cs::fabs(v) <= cs::numeric_limits<T>::max();
    else return true;
  }
};

// The device type an input is read as: bools as bytes, so that any byte value is well defined.
template <class T> struct Loaded { using type = T; };
template <> struct Loaded<bool> { using type = uint8_t; };

template <class Op, bool kOrdered = false>
cudaError_t compare(const Loop<3>& L) {
  return visit_elem(L.elem[1], [&]<class T>() -> cudaError_t {
    using In = typename Loaded<T>::type;
    if constexpr (kOrdered && is_complex_v<T>) return cudaErrorNotSupported;  // no order on complex
    else return launch_map<bool, In, In>(L, Op{});
  });
}

template <class Op>
cudaError_t predicate(const Loop<2>& L) {
  return visit_elem(L.elem[1], [&]<class T>() -> cudaError_t {
    using In = typename Loaded<T>::type;
    return launch_map<bool, In>(L, Op{});
  });
}

}  // namespace

cudaError_t launch_compare(CompareOp op, const Loop<3>& L) {
  switch (op) {
    case CompareOp::Eq: return compare<Eq>(L);
    case CompareOp::Ne: return compare<Ne>(L);
    case CompareOp::Lt: return compare<Lt, true>(L);
    case CompareOp::Le: return compare<Le, true>(L);
    case CompareOp::Gt: return compare<Gt, true>(L);
    case CompareOp::Ge: return compare<Ge, true>(L);
    case CompareOp::LogicalAnd: return compare<And>(L);
    case CompareOp::LogicalOr: return compare<Or>(L);
    case CompareOp::LogicalXor: return compare<Xor>(L);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_predicate(PredicateOp op, const Loop<2>& L) {
  switch (op) {
    case PredicateOp::LogicalNot: return predicate<Not>(L);
    case PredicateOp::IsNan: return predicate<IsNan>(L);
    case PredicateOp::IsFinite: return predicate<IsFinite>(L);
  }
  return cudaErrorInvalidValue;
}

}  // namespace spire::cuda
