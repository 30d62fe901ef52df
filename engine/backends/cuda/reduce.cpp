// The reductions on CUDA: sum, prod, amax, amin over any axes, argmax, argmin over one axis. The
// input (any strides: views, broadcasts, negative steps) is described to the launcher as kept and
// reduced dimensions; reduce.cu does the fixed-order passes.
#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/reduce.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/reduce.h"

namespace spire::cuda {
namespace {

ReduceGeometry geometry(const Tensor& x, const Axes& axes, const std::string& op) {
  ReduceGeometry g;
  SPIRE_CHECK(reduce_geometry(int(x.dim()), x.shape().data(), x.strides().data(), int(axes.size()), axes.data(), g),
              ValueError, op, ": cuda: shape ", shape_str(x.shape()), " has more than ", kMaxDims,
              " kept or reduced dimensions that cannot be merged (make it contiguous first)");
  return g;
}

void run(ReduceOp op, const std::string& name, const Tensor& x, Tensor& y, const Axes& axes) {
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  ReduceGeometry g = geometry(x, axes, name);
  // Partials of long reductions: freed at return, after the launches in stream order.
  std::vector<Tensor> scratch;
  auto alloc = [&](size_t bytes) -> void* {
    scratch.push_back(empty({int64_t((bytes + 7) / 8)}, DType::Int64, y.device()));
    return scratch.back().raw_data();
  };
  check_launch(launch_reduce(op, elem(x.dtype()), g, x.raw_data(), y.raw_data(), alloc), name);
}

template <ReduceOp Op>
void monoid_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  constexpr bool arithmetic = Op == ReduceOp::Sum || Op == ReduceOp::Prod;
  const char* name = Op == ReduceOp::Sum    ? "sum"
                     : Op == ReduceOp::Prod ? "prod"
                     : Op == ReduceOp::Max  ? "amax"
                                            : "amin";
  const DType t = in[0].dtype();
  // As on the CPU: sum and prod take bool only through their public functions (cast to int64),
  // and complex numbers have no order.
  SPIRE_CHECK(arithmetic ? t != DType::Bool : !is_complex(t), DTypeError, name, ": cuda kernel does not take ",
              spire::name(t));
  run(Op, name, in[0], out[0], a.get<Axes>("axes"));
}

template <ReduceOp Op>
void arg_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const char* name = Op == ReduceOp::ArgMax ? "argmax" : "argmin";
  SPIRE_CHECK(!is_complex(in[0].dtype()), DTypeError, name, ": complex numbers have no order, got ",
              spire::name(in[0].dtype()));
  run(Op, name, in[0], out[0], Axes{a.get<int64_t>("axis")});
}

SPIRE_REGISTER_KERNEL("sum", DeviceKind::CUDA, monoid_kernel<ReduceOp::Sum>);
SPIRE_REGISTER_KERNEL("prod", DeviceKind::CUDA, monoid_kernel<ReduceOp::Prod>);
SPIRE_REGISTER_KERNEL("amax", DeviceKind::CUDA, monoid_kernel<ReduceOp::Max>);
SPIRE_REGISTER_KERNEL("amin", DeviceKind::CUDA, monoid_kernel<ReduceOp::Min>);
SPIRE_REGISTER_KERNEL("argmax", DeviceKind::CUDA, arg_kernel<ReduceOp::ArgMax>);
SPIRE_REGISTER_KERNEL("argmin", DeviceKind::CUDA, arg_kernel<ReduceOp::ArgMin>);

}  // namespace
}  // namespace spire::cuda
