// Launchers of the convolutions' nvcc side: im2col (input planes to the column matrices the GEMMs
// read) and its adjoint col2im, written as a gather (one thread per input element, summing its
// column entries in a fixed order: no atomics, the CPU's order). Plain C++ signatures (see fill.h).
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/conv_geometry.h"
#include "engine/backends/cuda/kernel_abi.h"

namespace spire::cuda {

using ConvGeo = ConvGeometry;  // every geometry as 3-d (engine/backends/conv_geometry.h)

// Column matrices of samples [n0, n0 + B): for sample b, group g and row q = c * KP + kk (input
// channel c of the group, kernel offset kk, KP = prod(k)), entry l (output position, L = prod(out))
// lives at cols[b * sb + g * sg + q * sq + l]. x holds the conv input [N, Cin, in...] contiguous.
struct ColumnMatrices {
  Elem elem = Elem::Float32;
  ConvGeo geo{};
  void* x = nullptr;     // read by im2col, written by col2im (samples n0 .. n0 + B)
  void* cols = nullptr;  // written by im2col, read by col2im
  int64_t n0 = 0, B = 0, groups = 1, cin = 0;  // cin: all input channels (groups * per group)
  int64_t sb = 0, sg = 0, sq = 0;
};

// cols = im2col(x): zeros where the kernel reaches into the padding.
cudaError_t launch_im2col(const ColumnMatrices& m);
// x[n0 .. n0 + B) = col2im(cols): each input element is the sum, over kernel offsets in ascending
// order, of the one column entry (if any) that read it.
cudaError_t launch_col2im(const ColumnMatrices& m);

}  // namespace spire::cuda
