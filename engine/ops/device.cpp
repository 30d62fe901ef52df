// The op that moves a tensor to another device.
//
// Dispatch runs a kernel of the INPUT's device and allocates outputs there, which is wrong for a
// copy whose whole point is a different destination. So to_device is a view-style op: its `view`
// function allocates on the target device and calls the copy function the backends registered in
// the transfer table (engine/core/transfer.h). It then works between any pair of devices whose
// backends are loaded, with no kernel per device pair.
#include "engine/ops/device.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "engine/autodiff/series.h"
#include "engine/ops/rules.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {
using namespace rules;

// A CPU tensor in page-locked memory from the backend that can pin (cudaHostAlloc).
Tensor pinned_empty(const Shape& shape, DType dtype, const char* what) {
  require_device(Device{DeviceKind::CUDA, 0}, what);
  const BackendHooks& h = backend_hooks(DeviceKind::CUDA, what);
  SPIRE_CHECK(h.host_alloc && h.host_free, DeviceError, what, ": the ", h.name,
              " backend cannot page-lock host memory");
  size_t bytes = size_t(numel_of(shape)) * itemsize(dtype);
  void* p = h.host_alloc(bytes);
  std::shared_ptr<void> owner(p, [release = h.host_free](void* q) { release(q); });
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = std::make_shared<Storage>(p, bytes, kCPU, std::move(owner), /*pinned=*/true);
  impl->shape = shape;
  impl->strides = contiguous_strides(shape);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

// Copies x to `target`. The source is detached first, so the helper ops used here (a contiguous
// copy) are not recorded: dispatch records to_device itself. `non_blocking`: the copy may still be
// running when this returns (see copy_bytes); only for a page-locked host side, and a device->host
// copy then lands in page-locked memory so that it can run asynchronously.
Tensor transfer(const Tensor& x, Device target, bool non_blocking) {
  require_device(target, "to_device");
  Tensor src = x.detach();
  // Pack a strided view where it is (the CPU and, once loaded, the GPU have a strided-copy kernel),
  // then move one dense block.
  static const OpDef& copy_op = op_def("copy");
  if (!src.is_contiguous() && copy_op.kernels[int(src.device().kind)]) src = contiguous(src);
  DeviceGuard guard(target);
  if (src.numel() == 0 || src.is_contiguous()) {
    bool async_to_host = non_blocking && target.kind == DeviceKind::CPU && src.device().kind != DeviceKind::CPU;
    Tensor out = async_to_host ? pinned_empty(src.shape(), src.dtype(), "to(cpu, non_blocking=True)")
                               : empty(src.shape(), src.dtype(), target);
    copy_bytes(src.raw_data(), src.device(), out.raw_data(), target, src.nbytes(), non_blocking);
    return out;
  }
  // A strided view on a device without a strided-copy kernel: move the span of memory it covers
  // and keep its strides; on arrival at the CPU, pack it (so this copy is always blocking: the
  // packing reads the bytes at once).
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
      return transfer(in[0], Device::parse(a.template get<std::string>("device")),
                      a.get_or("non_blocking", false));
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

Tensor to(const Tensor& x, Device device, bool non_blocking) {
  static const OpDef& d = op_def("to_device");
  SPIRE_CHECK(x.defined(), ValueError, "to: undefined tensor");
  if (x.device() == device) return x;
  if (!non_blocking) return call1(d, {x}, Attrs{{"device", device.str()}});
  return call1(d, {x}, Attrs{{"device", device.str()}, {"non_blocking", true}});
}

Tensor to(const Tensor& x, const std::string& device, bool non_blocking) {
  return to(x, Device::parse(device), non_blocking);
}

Tensor pin_memory(const Tensor& x) {
  SPIRE_CHECK(x.defined(), ValueError, "pin_memory: undefined tensor");
  SPIRE_CHECK(x.device().kind == DeviceKind::CPU, DeviceError,
              "pin_memory: only CPU tensors can be page-locked; this one is on ", x.device().str());
  SPIRE_CHECK(!x.requires_grad(), AutodiffError,
              "pin_memory: the tensor requires grad, and pinning makes an untracked copy; pin "
              "x.detach() (pinning is for data on its way to the GPU)");
  if (is_pinned(x)) return x;
  Tensor src = contiguous(x.detach());
  Tensor out = pinned_empty(src.shape(), src.dtype(), "pin_memory");
  if (src.nbytes()) std::memcpy(out.raw_data(), src.raw_data(), src.nbytes());
  return out;
}

bool is_pinned(const Tensor& x) {
  return x.defined() && !x.is_batched() && x.device().kind == DeviceKind::CPU && x.storage()->pinned();
}

}  // namespace spire
