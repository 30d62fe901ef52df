// Post-accumulate-grad hooks: they run once per backward() for each leaf reached, after its grad
// holds the new sum, in the order the backward pass reaches the leaves (last layer first).
#include <gtest/gtest.h>

#include "engine/autodiff/backward.h"
#include "engine/autodiff/hooks.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/reduce.h"

using namespace spire;

TEST(GradHooks, RunAfterAccumulationInBackwardOrder) {
  Tensor w1 = ones({3, 3}, DType::Float64), w2 = full({3, 1}, 2.0, DType::Float64);
  w1.set_requires_grad();
  w2.set_requires_grad();
  Tensor x = ones({4, 3}, DType::Float64);
  std::vector<std::string> order;
  std::vector<double> seen;
  autodiff::add_post_accumulate_grad_hook(w1, [&](const Tensor& t) {
    order.push_back("w1");
    seen.push_back(sum(t.grad()).item<double>());
  });
  int64_t id2 = autodiff::add_post_accumulate_grad_hook(w2, [&](const Tensor&) { order.push_back("w2"); });
  auto loss = [&] { return sum(matmul(matmul(x, w1), w2)); };
  loss().backward();
  ASSERT_EQ(order, (std::vector<std::string>{"w2", "w1"}));
  // d/dw1 sum(x w1 w2) = x^T 1 w2^T: every entry 4 * 2 = 8, nine entries.
  EXPECT_DOUBLE_EQ(seen[0], 72.0);
  EXPECT_TRUE(autodiff::remove_post_accumulate_grad_hook(w2, id2));
  EXPECT_FALSE(autodiff::remove_post_accumulate_grad_hook(w2, id2));
  loss().backward();  // accumulates: the hook sees the sum of both passes
  EXPECT_EQ(order.size(), 3u);
  EXPECT_DOUBLE_EQ(seen[1], 144.0);
  // grad() returns gradients without accumulating: no hook runs.
  autodiff::grad({loss()}, {w1});
  EXPECT_EQ(order.size(), 3u);
}

TEST(GradHooks, RefuseNonLeaves) {
  Tensor w = ones({2}, DType::Float64);
  EXPECT_THROW(autodiff::add_post_accumulate_grad_hook(w, [](const Tensor&) {}), ValueError);
  w.set_requires_grad();
  Tensor y = mul(w, w);
  EXPECT_THROW(autodiff::add_post_accumulate_grad_hook(y, [](const Tensor&) {}), ValueError);
}
