// The CUDA backend's loop planning, checked on the host (no GPU needed): for transposed, sliced and
// broadcast operands, the element offsets the kernels compute from a Loop (loop_offsets, the same
// function the device runs) must be the addresses the CPU's strided indexing gives.
#include <gtest/gtest.h>

#include "engine/backends/cuda/loop.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

namespace spire::cuda {
namespace {

// Element offset of t at row-major position i of `shape` (t broadcast to it), from t's own strides.
int64_t offset_of(const Tensor& t, const Shape& shape, int64_t i) {
  int64_t off = 0;
  int64_t nd = int64_t(shape.size()), td = t.dim();
  for (int64_t d = nd - 1; d >= 0; --d) {
    int64_t idx = i % shape[d];
    i /= shape[d];
    int64_t k = d - (nd - td);
    if (k >= 0 && t.shape()[k] != 1) off += idx * t.strides()[k];
  }
  return off;
}

template <int N>
void expect_offsets_match(const Loop<N>& L, const Shape& shape, const std::vector<Tensor>& ops) {
  ASSERT_EQ(L.numel, numel_of(shape));
  for (int64_t i = 0; i < L.numel; ++i) {
    int64_t off[N];
    loop_offsets(L, i, off);
    for (int k = 0; k < N; ++k) {
      ASSERT_EQ(off[k], offset_of(ops[k], shape, i)) << "operand " << k << " at position " << i;
      ASSERT_EQ(L.data[k], ops[k].raw_data());
    }
  }
}

TEST(CudaBackendLoop, TransposedSlicedAndBroadcastOperands) {
  Tensor out = empty({4, 3, 5}, DType::Float32);
  Tensor a = transpose(reshape(arange(0, 60, 1, DType::Float32), {5, 3, 4}), 0, 2);        // [4,3,5], strided
  Tensor b = reshape(arange(0, 5, 1, DType::Float32), {1, 1, 5});                           // broadcast rows
  Tensor c = slice(reshape(arange(0, 120, 1, DType::Float64), {4, 6, 5}), 1, 0, 6, 2);     // every other row
  std::vector<Tensor> ops{out, a, b, c};
  Loop<4> L = make_loop<4>(out.shape(), ops);
  EXPECT_FALSE(L.contiguous);
  EXPECT_EQ(L.elem[3], Elem::Float64);
  expect_offsets_match(L, out.shape(), ops);
}

TEST(CudaBackendLoop, DenseOperandsMergeToOneRow) {
  Tensor out = empty({2, 3, 4}, DType::Float64);
  Tensor a = reshape(arange(0, 24, 1, DType::Float64), {2, 3, 4});
  Loop<2> L = make_loop<2>(out, {a});
  EXPECT_TRUE(L.contiguous);
  EXPECT_EQ(L.ndim, 1);
  EXPECT_EQ(L.sizes[0], 24);
  // A scalar broadcast over everything is one row too, but not dense: its stride is 0.
  Loop<3> M = make_loop<3>(out, {a, full({}, Scalar(2.0), DType::Float64)});
  EXPECT_EQ(M.ndim, 1);
  EXPECT_FALSE(M.contiguous);
  expect_offsets_match(M, out.shape(), {out, a, full({}, Scalar(2.0), DType::Float64)});
}

TEST(CudaBackendLoop, TooManyDimensionsIsAClearError) {
  // Every axis of size 2 and strided by a step that prevents merging.
  Shape shape(kMaxDims + 1, 2);
  // Axis d steps by 4^(n-1-d) elements: twice what merging with the next axis would need.
  Shape strides(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) strides[d] = int64_t(1) << (2 * (shape.size() - 1 - d));
  Tensor base = empty({2 * strides[0]}, DType::Float32);
  Tensor v = make_view(base, shape, strides, 0);
  Tensor out = empty(shape, DType::Float32);
  try {
    make_loop<2>(out, {v});
    FAIL() << "a loop with " << kMaxDims + 1 << " unmergeable dimensions was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("at most"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spire::cuda
