// Moving tensors between devices. The copy is an op ("to_device") so gradients flow back to the
// device the input came from, and forward-mode tangents travel with their primal.
#pragma once
#include <string>

#include "engine/core/tensor.h"
#include "engine/core/transfer.h"

namespace spire {

// x on `device`: x itself when it is already there, else a copy (contiguous unless the source is a
// strided view on a device without a strided-copy kernel, where the layout is kept).
// `non_blocking`: a host<->GPU copy whose host side is page-locked may return before it is done
// (a GPU->CPU copy then lands in page-locked memory): synchronise the stream, or wait for an event
// recorded after it, before reading the result on the host. Otherwise the copy is done on return.
Tensor to(const Tensor& x, Device device, bool non_blocking = false);
Tensor to(const Tensor& x, const std::string& device, bool non_blocking = false);  // "cpu", "cuda:1"
inline Tensor cpu(const Tensor& x) { return to(x, kCPU); }

// A copy of CPU tensor x in page-locked host memory (x itself if it already is), the source of
// asynchronous copies to the GPU. Needs the CUDA backend and a GPU; throws DeviceError otherwise.
// Not differentiable: refuses a tensor that requires grad.
Tensor pin_memory(const Tensor& x);
bool is_pinned(const Tensor& x);

}  // namespace spire
