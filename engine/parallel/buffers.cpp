#include "engine/parallel/buffers.h"

#include <algorithm>
#include <type_traits>

namespace spire::parallel {

void check_buffer(const Tensor& t, Device device, const char* call, const char* role) {
  SPIRE_CHECK(t.defined(), ValueError, call, ": the ", role, " is an undefined tensor");
  SPIRE_CHECK(t.device() == device, DeviceError, call, ": the ", role, " is on ", t.device().str(),
              "; this communicator's buffers live on ", device.str(), " (comm.on(\"", t.device().str(),
              "\") is the communicator of the same ranks for tensors there)");
  SPIRE_CHECK(t.is_contiguous(), ValueError, call, ": the ", role, " (shape ", shape_str(t.shape()),
              ") is not contiguous; pass a contiguous tensor");
}

void check_reduce_dtype(DType dtype, ReduceOp op, const char* call) {
  SPIRE_CHECK(!(is_complex(dtype) && (op == ReduceOp::Max || op == ReduceOp::Min)), ValueError, call,
              ": ", name(op), " is not defined for complex numbers (dtype ", name(dtype),
              "); allowed for complex: sum, mean");
  SPIRE_CHECK(!(op == ReduceOp::Mean && !is_floating(dtype) && !is_complex(dtype)), DTypeError, call,
              ": mean needs a floating or complex dtype, got ", name(dtype), "; use sum and divide");
}

void check_same_dtype(const Tensor& in, const Tensor& out, const char* call) {
  SPIRE_CHECK(in.dtype() == out.dtype(), DTypeError, call, ": input dtype ", name(in.dtype()),
              " differs from output dtype ", name(out.dtype()));
}

namespace {
bool same_trailing(const Shape& a, const Shape& b) {
  return a.size() == b.size() && std::equal(a.begin() + 1, a.end(), b.begin() + 1);
}
}  // namespace

void check_all_gather_shapes(const Tensor& in, const Tensor& out, int size) {
  const Shape &a = in.shape(), &b = out.shape();
  SPIRE_CHECK(!a.empty() && same_trailing(a, b) && b[0] == int64_t(size) * a[0], ShapeError,
              "all_gather: input ", shape_str(a), " needs output [", size, "*n, ...] = ",
              a.empty() ? std::string("(input needs at least one dimension)")
                        : shape_str([&] { Shape s = a; s[0] *= size; return s; }()),
              " on ", size, " ranks, got ", shape_str(b));
}

void check_reduce_scatter_shapes(const Tensor& in, const Tensor& out, int size) {
  const Shape &a = in.shape(), &b = out.shape();
  SPIRE_CHECK(!a.empty() && same_trailing(a, b) && a[0] == int64_t(size) * b[0], ShapeError,
              "reduce_scatter: input [", size, "*n, ...] and output [n, ...] on ", size,
              " ranks; got input ", shape_str(a), " and output ", shape_str(b));
}

void check_all_to_all_shapes(const Tensor& in, const Tensor& out, int size) {
  const Shape &a = in.shape(), &b = out.shape();
  SPIRE_CHECK(!a.empty() && a == b && a[0] % size == 0, ShapeError,
              "all_to_all: input and output must have the same shape [", size,
              "*n, ...] (dimension 0 divisible by ", size, " ranks); got input ", shape_str(a),
              " and output ", shape_str(b));
}

void check_rank(int r, int size, const char* call, const char* role) {
  SPIRE_CHECK(r >= 0 && r < size, ValueError, call, ": ", role, " ", r, " is not a rank of this communicator (ranks 0..",
              size - 1, ")");
}

namespace {

template <class T>
void combine_t(T* acc, const T* x, int64_t n, ReduceOp op) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == ReduceOp::Min)
      for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] && x[i];
    else
      for (int64_t i = 0; i < n; ++i) acc[i] = acc[i] || x[i];
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;  // sums wrap (two's complement) instead of overflowing
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Mean:
        for (int64_t i = 0; i < n; ++i) acc[i] = T(U(acc[i]) + U(x[i]));
        break;
      case ReduceOp::Max: for (int64_t i = 0; i < n; ++i) acc[i] = std::max(acc[i], x[i]); break;
      case ReduceOp::Min: for (int64_t i = 0; i < n; ++i) acc[i] = std::min(acc[i], x[i]); break;
    }
  } else {
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Mean:
        for (int64_t i = 0; i < n; ++i) acc[i] += x[i];
        break;
      case ReduceOp::Max:
        if constexpr (!is_complex_v<T>)
          // NaN propagates, as MPI_MAX on IEEE values does in practice and as torch.max does.
          for (int64_t i = 0; i < n; ++i) acc[i] = (acc[i] != acc[i] || acc[i] > x[i]) ? acc[i] : x[i];
        break;
      case ReduceOp::Min:
        if constexpr (!is_complex_v<T>)
          for (int64_t i = 0; i < n; ++i) acc[i] = (acc[i] != acc[i] || acc[i] < x[i]) ? acc[i] : x[i];
        break;
    }
  }
}

}  // namespace

void combine(void* acc, const void* x, int64_t n, DType dtype, ReduceOp op) {
  switch (dtype) {
    case DType::Bool: return combine_t(static_cast<bool*>(acc), static_cast<const bool*>(x), n, op);
    case DType::Int32: return combine_t(static_cast<int32_t*>(acc), static_cast<const int32_t*>(x), n, op);
    case DType::Int64: return combine_t(static_cast<int64_t*>(acc), static_cast<const int64_t*>(x), n, op);
    case DType::Float32: return combine_t(static_cast<float*>(acc), static_cast<const float*>(x), n, op);
    case DType::Float64: return combine_t(static_cast<double*>(acc), static_cast<const double*>(x), n, op);
    case DType::Complex64: return combine_t(static_cast<c64*>(acc), static_cast<const c64*>(x), n, op);
    case DType::Complex128: return combine_t(static_cast<c128*>(acc), static_cast<const c128*>(x), n, op);
  }
}

void divide(void* acc, int64_t n, DType dtype, int size) {
  auto run = [&](auto* p) {
    using T = std::remove_pointer_t<decltype(p)>;
    const T d = T(size);
    for (int64_t i = 0; i < n; ++i) p[i] /= d;
  };
  switch (dtype) {
    case DType::Float32: return run(static_cast<float*>(acc));
    case DType::Float64: return run(static_cast<double*>(acc));
    case DType::Complex64: return run(static_cast<c64*>(acc));
    case DType::Complex128: return run(static_cast<c128*>(acc));
    default: throw DTypeError(std::string("divide: mean needs a floating or complex dtype, got ") + name(dtype));
  }
}

}  // namespace spire::parallel
