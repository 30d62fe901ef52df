// The op that moves a tensor to another device.
//
// Dispatch runs a kernel of the INPUT's device and allocates outputs there, which is wrong for a
// copy whose whole point is a different destination. So to_device is a view-style op: its `view`
// function allocates on the target device and calls the copy function the backends registered in
// the transfer table (engine/core/transfer.h). It then works between any pair of devices whose
// backends are loaded, with no kernel per device pair.
#include "engine/ops/device.h"

#include <algorithm>

#include "engine/autodiff/series.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;

// Copies x to `target`. The source is detached first, so the helper ops used here (a contiguous
// copy on the CPU) are not recorded: dispatch records to_device itself.
Tensor transfer(const Tensor& x, Device target) {
  require_device(target, "to_device");
  Tensor src = x.detach();
  // The CPU has a strided-copy kernel: pack there, then move one dense block.
  if (!src.is_contiguous() && src.device().kind == DeviceKind::CPU) src = contiguous(src);
  DeviceGuard guard(target);
  if (src.numel() == 0 || src.is_contiguous()) {
    Tensor out = empty(src.shape(), src.dtype(), target);
    copy_bytes(src.raw_data(), src.device(), out.raw_data(), target, src.nbytes());
    return out;
  }
  // A strided view on a device that may have no strided-copy kernel: move the span of memory it
  // covers and keep its strides; on arrival at the CPU, pack it.
  int64_t lo = 0, hi = 0;  // element offsets relative to raw_data()
  for (int64_t i = 0; i < src.dim(); ++i) {
    int64_t reach = (src.shape()[i] - 1) * src.strides()[i];
    (reach < 0 ? lo : hi) += reach;
  }
  size_t item = src.itemsize();
  Tensor span = empty({hi - lo + 1}, src.dtype(), target);
  copy_bytes(static_cast<const char*>(src.raw_data()) + lo * int64_t(item), src.device(), span.raw_data(),
             target, size_t(hi - lo + 1) * item);
  Tensor out = make_view(span, src.shape(), src.strides(), -lo);
  return target.kind == DeviceKind::CPU ? contiguous(out) : out;
}

SPIRE_DEFINE_OP({
    .name = "to_device",
    .infer = same_as_input,
    .view = [](auto& in, const Attrs& a) {
      return transfer(in[0], Device::parse(a.template get<std::string>("device")));
    },
    // The copy is linear and its adjoint is the copy back.
    .vjp = [](const VjpContext& c) -> std::vector<Tensor> { return {to(c.grads[0], c.inputs[0].device())}; },
    .jvp = [](const JvpContext& c) -> std::vector<Tensor> {
      if (!c.tangents[0].defined()) return {Tensor()};
      return {to(c.tangents[0], c.attrs.get<std::string>("device"))};
    },
    .taylor = jets::linear,
    .batch = [](const BatchContext& c) -> std::vector<Tensor> {
      return {to(c.inputs[0], c.attrs.get<std::string>("device"))};
    },
    .nondiff_inputs = {},
    // Only the CPU is sure to exist where the registry test runs; tests/cuda covers the GPU.
    .samples = [] {
      return std::vector<OpSample>{
          {{sample({2, 3})}, {{"device", std::string("cpu")}}, "cpu to cpu"},
          {{permute(sample({3, 4}, -1, 1, 2), {1, 0})}, {{"device", std::string("cpu")}}, "strided"},
          {{sample({4}, -1, 1, 3, DType::Complex128)}, {{"device", std::string("cpu")}}, "complex"},
      };
    },
});

}  // namespace

Tensor to(const Tensor& x, Device device) {
  static const OpDef& d = op_def("to_device");
  SPIRE_CHECK(x.defined(), ValueError, "to: undefined tensor");
  if (x.device() == device) return x;
  return call1(d, {x}, Attrs{{"device", device.str()}});
}

Tensor to(const Tensor& x, const std::string& device) { return to(x, Device::parse(device)); }

}  // namespace spire
