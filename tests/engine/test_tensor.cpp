#include <gtest/gtest.h>

#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

using namespace spire;

TEST(Tensor, BroadcastAddAndSum) {
  Tensor a = from_vector<float>({1, 2, 3}, {3, 1});
  Tensor b = from_vector<float>({10, 20}, {2});
  Tensor c = add(a, b);
  EXPECT_EQ(c.shape(), (Shape{3, 2}));
  EXPECT_EQ(c.to_vector(), (std::vector<double>{11, 21, 12, 22, 13, 23}));
  EXPECT_DOUBLE_EQ(sum(c).item<double>(), 102.0);
}

TEST(Tensor, ReverseModeThroughBroadcast) {
  Tensor a = from_vector<double>({1, 2, 3}, {3, 1}).set_requires_grad();
  Tensor b = from_vector<double>({10, 20}, {2}).set_requires_grad();
  Tensor y = sum(mul(a, b));
  y.backward();
  EXPECT_EQ(a.grad().to_vector(), (std::vector<double>{30, 30, 30}));
  EXPECT_EQ(b.grad().to_vector(), (std::vector<double>{6, 6}));
}
