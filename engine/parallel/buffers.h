// Host-side helpers shared by the communicator backends: the checks every call makes on its
// buffers (device, layout, dtype, the shapes each collective implies) and the local reduction
// that makes Sum and Mean deterministic (ranks' contributions combined in rank order).
//
// Shape or dtype mismatches *across* ranks cannot be detected without extra messages; these checks
// catch what one rank can see: its own buffers against the collective's shape rule.
#pragma once
#include <cstdint>

#include "engine/core/tensor.h"
#include "engine/parallel/communicator.h"

namespace spire::parallel {

// Defined, on `device`, contiguous. `call` and `role` name it in the error ("all_gather output").
void check_buffer(const Tensor& t, Device device, const char* call, const char* role);
// Max/Min refuse complex dtypes; Mean refuses bool and integer dtypes.
void check_reduce_dtype(DType dtype, ReduceOp op, const char* call);
void check_same_dtype(const Tensor& in, const Tensor& out, const char* call);
// The chunk rules of communicator.h, checked on this rank's buffers.
void check_all_gather_shapes(const Tensor& in, const Tensor& out, int size);
void check_reduce_scatter_shapes(const Tensor& in, const Tensor& out, int size);
void check_all_to_all_shapes(const Tensor& in, const Tensor& out, int size);
void check_rank(int r, int size, const char* call, const char* role);

// acc[i] = acc[i] (op) x[i] for n elements of `dtype`; bool sums and maxes are logical or, mins
// logical and; integer sums wrap. Mean combines as Sum (divide afterwards).
void combine(void* acc, const void* x, int64_t n, DType dtype, ReduceOp op);
// acc[i] /= size (the last step of Mean).
void divide(void* acc, int64_t n, DType dtype, int size);

}  // namespace spire::parallel
