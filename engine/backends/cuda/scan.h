// Launchers of the cumulative sums and products (cumsum, cumprod), compiled by nvcc.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/backends/cuda/kernel_abi.h"
#include "engine/backends/cuda/reduce.h"  // ScratchFn

namespace spire::cuda {

// A scan along one axis of a strided input into a contiguous output viewed as [outer, n, inner].
// Column q (row-major over the axes other than the scanned one, q = o * inner + i) starts in the
// input at the offset given by the column dimensions (innermost first) and advances by
// axis_stride per element.
struct ScanGeometry {
  int64_t outer = 1, n = 0, inner = 1;
  int nk = 0;
  int64_t ksize[kMaxDims] = {}, kstride[kMaxDims] = {};
  int64_t axis_stride = 0;
};

// The geometry of a scan along `axis` of a strided input (ndim sizes and strides, in elements);
// false if more than kMaxDims other dimensions remain after merging.
bool scan_geometry(int ndim, const int64_t* shape, const int64_t* strides, int axis, ScanGeometry& g);

// out = cumulative sum (or product) along the axis, inclusive or exclusive, from the front or from
// the back (reverse), on the current stream. Every type but bool (cudaErrorInvalidValue).
cudaError_t launch_scan(bool product, Elem elem, const ScanGeometry& g, bool exclusive, bool reverse,
                        const void* in, void* out, const ScratchFn& scratch);

}  // namespace spire::cuda
