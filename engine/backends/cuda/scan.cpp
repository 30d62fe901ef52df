// cumsum and cumprod on CUDA (attrs axis, exclusive, reverse). The input may be any strided view;
// scan.cu reads it in place and writes the contiguous output.
#include "engine/backends/cuda/loop.h"
#include "engine/backends/cuda/scan.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {

ScanGeometry geometry(const Tensor& x, int64_t axis, const char* op) {
  ScanGeometry g;
  SPIRE_CHECK(scan_geometry(int(x.dim()), x.shape().data(), x.strides().data(), int(axis), g), ValueError, op,
              ": cuda: shape ", shape_str(x.shape()), " has more than ", kMaxDims,
              " dimensions that cannot be merged (make it contiguous first)");
  return g;
}

template <bool Product>
void scan_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const char* op = Product ? "cumprod" : "cumsum";
  const Tensor& x = in[0];
  Tensor& y = out[0];
  SPIRE_CHECK(x.dtype() != DType::Bool, DTypeError, op, ": cuda kernel does not take bool (cast to int64 first)");
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  ScanGeometry g = geometry(x, a.get<int64_t>("axis"), op);
  // Chunk totals and prefixes of long scans: freed at return, after the launches in stream order.
  std::vector<Tensor> scratch;
  auto alloc = [&](size_t bytes) -> void* {
    scratch.push_back(empty({int64_t((bytes + 7) / 8)}, DType::Int64, y.device()));
    return scratch.back().raw_data();
  };
  check_launch(launch_scan(Product, elem(x.dtype()), g, a.get<bool>("exclusive"), a.get<bool>("reverse"),
                           x.raw_data(), y.raw_data(), alloc),
               op);
}

SPIRE_REGISTER_KERNEL("cumsum", DeviceKind::CUDA, scan_kernel<false>);
SPIRE_REGISTER_KERNEL("cumprod", DeviceKind::CUDA, scan_kernel<true>);

}  // namespace
}  // namespace spire::cuda
