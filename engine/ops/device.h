// Moving tensors between devices. The copy is an op ("to_device") so gradients flow back to the
// device the input came from, and forward-mode tangents travel with their primal.
#pragma once
#include <string>

#include "engine/core/tensor.h"
#include "engine/core/transfer.h"

namespace spire {

// x on `device`: x itself when it is already there, else a copy (contiguous unless the source is a
// strided view on a device without a strided-copy kernel, where the layout is kept).
Tensor to(const Tensor& x, Device device);
Tensor to(const Tensor& x, const std::string& device);  // "cpu", "cuda", "cuda:1"
inline Tensor cpu(const Tensor& x) { return to(x, kCPU); }

}  // namespace spire
