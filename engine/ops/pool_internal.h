// The windows of the pooling primitives (engine/ops/pool.cpp), shared with their kernels. Every
// pooling window is a product of per-axis windows: along each spatial axis, output position o reads
// the `count[o]` input positions first[o], first[o] + step, ... that lie inside the input (padding
// is never read), and average pooling divides by the product of the per-axis `divisor[o]` (or by a
// fixed divisor_override). So one N-d kernel serves regular and adaptive pooling alike.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/attrs.h"
#include "engine/core/tensor.h"

namespace spire::pool {

struct AxisWindows {
  int64_t in = 1, out = 1, step = 1;
  std::vector<int64_t> first, count, divisor;
};

struct Windows {
  std::vector<AxisWindows> axes;  // one per spatial axis, outermost first
  int64_t divisor_override = 0;   // 0: the per-axis divisors

  int64_t spatial() const { return int64_t(axes.size()); }
  Shape out_sizes() const;
  int64_t in_plane() const;   // input elements per plane
  int64_t out_plane() const;  // output elements per plane
  // The same windows as 3 axes (missing outer ones of size 1), as the kernels walk them.
  Windows as_3d() const;
};

// The windows of a pooling call on inputs with spatial sizes `in`, from its attributes:
//   regular: kernel, stride, padding, dilation (Ints, one per axis), ceil_mode, count_include_pad,
//            divisor_override (0: none)
//   adaptive: output_size (Ints): torch's windows [floor(o In / Out), ceil((o + 1) In / Out)).
// Errors name `op` and what is wrong (a kernel larger than the padded input, padding more than half
// the kernel, no output).
Windows windows(const char* op, const Attrs& a, const Shape& in);

}  // namespace spire::pool
