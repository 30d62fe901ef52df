// Core pieces: dtype promotion, the caching allocator, views and printing.
#include <gtest/gtest.h>

#include "engine/core/allocator.h"
#include "engine/core/dtype.h"
#include "engine/core/tensor.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/shape.h"

using namespace spire;

TEST(DType, PromotionFollowsTheDocumentedTable) {
  EXPECT_EQ(promote(DType::Bool, DType::Int32), DType::Int32);
  EXPECT_EQ(promote(DType::Int32, DType::Int64), DType::Int64);
  EXPECT_EQ(promote(DType::Int64, DType::Float32), DType::Float32);  // NumPy would say float64
  EXPECT_EQ(promote(DType::Float32, DType::Float64), DType::Float64);
  EXPECT_EQ(promote(DType::Float64, DType::Complex64), DType::Complex128);
  EXPECT_EQ(promote(DType::Float32, DType::Complex64), DType::Complex64);
  for (int a = 0; a < kNumDTypes; ++a)
    for (int b = 0; b < kNumDTypes; ++b) EXPECT_EQ(promote(DType(a), DType(b)), promote(DType(b), DType(a)));
  EXPECT_THROW(dtype_from_name("float16"), DTypeError);
}

TEST(Allocator, FreedBlocksAreReused) {
  Allocator& a = cpu_allocator();
  { Tensor t = empty({1000}, DType::Float64); }
  AllocatorStats before = a.stats();
  { Tensor t = empty({1000}, DType::Float64); }
  AllocatorStats after = a.stats();
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_EQ(after.misses, before.misses);
  void* p = a.allocate(100);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u);
  a.deallocate(p, 100);
}

TEST(Tensor, ViewsShareMemory) {
  Tensor x = from_vector<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  Tensor t = permute(x, {1, 0});
  EXPECT_FALSE(t.is_contiguous());
  EXPECT_EQ(t.storage(), x.storage());
  x.data<float>()[1] = 20;
  EXPECT_EQ(t.to_vector(), (std::vector<double>{1, 4, 20, 5, 3, 6}));
  Tensor r = reshape(t, {6});  // not viewable: copies
  EXPECT_NE(r.storage(), x.storage());
  EXPECT_EQ(r.to_vector(), (std::vector<double>{1, 4, 20, 5, 3, 6}));
  Tensor e = expand(from_vector<float>({7}, {1}), {4});
  EXPECT_EQ(e.strides(), (Shape{0}));
}

TEST(Tensor, PrintsLikeNumPy) {
  Tensor x = from_vector<float>({1, 2.5, -3, 4}, {2, 2});
  EXPECT_EQ(x.str(), "tensor([[ 1., 2.5],\n        [-3.,  4.]])");
  EXPECT_EQ(from_vector<int64_t>({1, 2}, {2}).str(), "tensor([1, 2])");
  EXPECT_EQ(from_vector<double>({0.5}, {}).str(), "tensor(0.5, dtype=float64)");
}

TEST(Tensor, ErrorsNameTheOpAndShapes) {
  Tensor a = zeros({2, 3}), b = zeros({4});
  try {
    add(a, b);
    FAIL();
  } catch (const ShapeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("add"), std::string::npos) << m;
    EXPECT_NE(m.find("[2, 3]"), std::string::npos) << m;
    EXPECT_NE(m.find("[4]"), std::string::npos) << m;
  }
  EXPECT_THROW(reshape(a, {5}), ShapeError);
  EXPECT_THROW(zeros({2}, DType::Int64).set_requires_grad(), DTypeError);
}
