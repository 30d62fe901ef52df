// Collectives on CUDA tensors, staged through host memory: the inputs are copied to the host, the
// CPU kernel (MPI over the op's communicator) runs, and the results are copied into the outputs.
// Correct on any MPI, CUDA-aware or not, at the cost of two PCIe crossings; NCCL communicators
// (issue 6) replace this with device-to-device transfers. The semantics stay the CPU kernel's, so
// there is nothing to keep in step.
#include "engine/autodiff/mode.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/device.h"

namespace spire::cuda {
namespace {

KernelFn staged(const char* name) {
  return [name](const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& attrs) {
    const KernelFn& cpu = op_def(name).kernels[int(DeviceKind::CPU)];
    SPIRE_CHECK(cpu, DeviceError, name, ": no CPU kernel to stage the CUDA call through");
    NoGradGuard no_grad;  // the copies are plumbing, not part of the recorded computation
    std::vector<Tensor> host_in;
    for (const Tensor& t : in) host_in.push_back(to(t, kCPU));  // packs strided views too
    std::vector<Tensor> host_out;
    for (const Tensor& o : out) host_out.push_back(empty(o.shape(), o.dtype(), kCPU));
    cpu(host_in, host_out, attrs);
    for (size_t k = 0; k < out.size(); ++k)
      copy_bytes(host_out[k].raw_data(), kCPU, out[k].raw_data(), out[k].device(), out[k].nbytes());
  };
}

SPIRE_REGISTER_KERNEL("all_reduce", DeviceKind::CUDA, staged("all_reduce"));
SPIRE_REGISTER_KERNEL("all_gather", DeviceKind::CUDA, staged("all_gather"));
SPIRE_REGISTER_KERNEL("reduce_scatter", DeviceKind::CUDA, staged("reduce_scatter"));
SPIRE_REGISTER_KERNEL("all_to_all", DeviceKind::CUDA, staged("all_to_all"));
SPIRE_REGISTER_KERNEL("broadcast", DeviceKind::CUDA, staged("broadcast"));
SPIRE_REGISTER_KERNEL("collective_permute", DeviceKind::CUDA, staged("collective_permute"));

}  // namespace
}  // namespace spire::cuda
