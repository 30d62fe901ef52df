// Op observers and the FLOP counter: counts against the closed-form multiply-add counts of a
// linear map and a convolution, forward and backward.
#include <gtest/gtest.h>

#include "engine/core/observer.h"
#include "engine/ops/conv.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/linalg.h"
#include "engine/ops/random.h"
#include "engine/ops/reduce.h"

using namespace spire;

namespace {
struct Recorder : OpObserver {
  std::vector<std::string> names;
  void on_call(const OpDef& op, const std::vector<Tensor>&, const std::vector<Tensor>&, const Attrs&) override {
    names.push_back(op.name);
  }
};
}  // namespace

TEST(Observer, SeesCallsOnlyWhileInstalled) {
  Recorder r;
  Tensor a = ones({3});
  {
    ObserverScope scope(r);
    Tensor b = exp(a);
  }
  Tensor c = exp(a);
  ASSERT_EQ(r.names.size(), 1u);
  EXPECT_EQ(r.names[0], "exp");
}

TEST(FlopCounter, MatmulForwardAndBackward) {
  // [m, k] @ [k, n]: 2mkn forward; the two gradients are one product of the same size each.
  const int64_t m = 5, k = 7, n = 3;
  Tensor a = normal({m, k}, 0, 1, DType::Float64), b = normal({k, n}, 0, 1, DType::Float64);
  a.set_requires_grad();
  b.set_requires_grad();
  FlopCounter flops;
  {
    ObserverScope scope(flops);
    Tensor y = matmul(a, b);
    EXPECT_DOUBLE_EQ(flops.total(), 2.0 * m * k * n);
    // A dense upstream gradient (sum's would be a broadcast, which matmul multiplies once per row).
    y.backward(normal({m, n}, 0, 1, DType::Float64));
  }
  EXPECT_DOUBLE_EQ(flops.total(), 3 * 2.0 * m * k * n);
  EXPECT_DOUBLE_EQ(flops.by_op().at("matmul"), 3 * 2.0 * m * k * n);
  flops.reset();
  EXPECT_EQ(flops.total(), 0);
}

TEST(FlopCounter, ConvForwardAndBothGradients) {
  // N=2, C_in=4, groups=2, C_out=6, 5x5 input, 3x3 kernel, stride 1, no padding: 3x3 outputs,
  // each a sum over (C_in/groups) * 9 = 18 products.
  Tensor x = normal({2, 4, 5, 5}), w = normal({6, 2, 3, 3});
  x.set_requires_grad();
  w.set_requires_grad();
  const double macs = 2.0 * 6 * 3 * 3 * 18;
  FlopCounter flops;
  ObserverScope scope(flops);
  Tensor y = conv2d(x, w, {.groups = 2});
  EXPECT_DOUBLE_EQ(flops.total(), 2 * macs);
  y.backward(normal(y.shape()));
  auto by = flops.by_op();
  EXPECT_DOUBLE_EQ(by.at("conv_transpose"), 2 * macs);
  EXPECT_DOUBLE_EQ(by.at("conv_weight_grad"), 2 * macs);
  EXPECT_DOUBLE_EQ(flops.total(), 3 * 2 * macs);
}
