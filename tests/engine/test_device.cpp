// Moving tensors between devices: the to_device op and the transfer table, on the CPU. The GPU side
// is in tests/cuda. This binary does not link libspire_cuda, so here the CUDA backend is "not built".
#include <gtest/gtest.h>

#include <cstring>

#include "engine/autodiff/forward.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {

const Device kGPU{DeviceKind::CUDA, 0};

TEST(Transfer, CpuToCpuCopiesBytes) {
  EXPECT_TRUE(has_copy(DeviceKind::CPU, DeviceKind::CPU));
  double src[3] = {1.5, -2.0, 3.25}, dst[3] = {0, 0, 0};
  copy_bytes(src, kCPU, dst, kCPU, sizeof src);
  EXPECT_EQ(0, std::memcmp(src, dst, sizeof src));
}

TEST(Transfer, WithoutTheCudaBackendEverythingSaysSo) {
  EXPECT_FALSE(backend_loaded(DeviceKind::CUDA));
  EXPECT_FALSE(cuda_available());
  EXPECT_EQ(cuda_device_count(), 0);
  EXPECT_FALSE(has_copy(DeviceKind::CPU, DeviceKind::CUDA));
  EXPECT_NE(unavailable_reason(DeviceKind::CUDA).find("no cuda backend"), std::string::npos)
      << unavailable_reason(DeviceKind::CUDA);
  double x = 1, y = 0;
  EXPECT_THROW(copy_bytes(&x, kCPU, &y, kGPU, sizeof x), DeviceError);
  Tensor t = from_vector<double>({1, 2}, {2});
  try {
    to(t, "cuda");
    FAIL() << "to(cuda) succeeded without a CUDA backend";
  } catch (const DeviceError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("to_device"), std::string::npos) << m;
    EXPECT_NE(m.find("cuda:0"), std::string::npos) << m;
    EXPECT_NE(m.find("SPIRE_CUDA"), std::string::npos) << m;
  }
  // CPU queries need no backend.
  EXPECT_EQ(device_count(DeviceKind::CPU), 1);
  EXPECT_NO_THROW(synchronize(kCPU));
  EXPECT_EQ(device_description(kCPU), "cpu");
}

TEST(Transfer, DeviceStringsParseOrFailNamingTheChoices) {
  EXPECT_EQ(Device::parse("cuda:1"), (Device{DeviceKind::CUDA, 1}));
  Tensor t = from_vector<double>({1}, {1});
  EXPECT_THROW(to(t, "gpu"), ValueError);
}

TEST(ToDevice, SameDeviceIsTheTensorItself) {
  Tensor x = from_vector<double>({1, 2, 3}, {3});
  EXPECT_TRUE(to(x, kCPU).same(x));
  EXPECT_TRUE(to(x, "cpu").same(x));
}

TEST(ToDevice, TheOpMakesAFreshContiguousCopy) {
  const OpDef& op = op_def("to_device");
  Tensor x = reshape(from_vector<double>({0, 1, 2, 3, 4, 5}, {6}), {2, 3});
  Tensor xt = transpose(x, 0, 1);  // [[0, 3], [1, 4], [2, 5]]
  ASSERT_FALSE(xt.is_contiguous());
  Tensor y = call1(op, {xt}, Attrs{{"device", std::string("cpu")}});
  EXPECT_TRUE(y.is_contiguous());
  EXPECT_NE(y.storage(), x.storage());
  EXPECT_EQ(y.shape(), (Shape{3, 2}));
  EXPECT_EQ(y.to_vector(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  Tensor e = call1(op, {empty({0, 4}, DType::Float32)}, Attrs{{"device", std::string("cpu")}});
  EXPECT_EQ(e.shape(), (Shape{0, 4}));
}

TEST(ToDevice, GradientIsTheCopyBack) {
  const OpDef& op = op_def("to_device");
  Tensor x = from_vector<double>({1, -2, 3}, {3});
  x.set_requires_grad();
  Tensor y = call1(op, {x}, Attrs{{"device", std::string("cpu")}});
  sum(mul(y, y)).backward();  // d/dx sum(x^2) = 2x
  EXPECT_EQ(x.grad().to_vector(), (std::vector<double>{2, -4, 6}));
}

TEST(ToDevice, TangentsTravelWithThePrimal) {
  const OpDef& op = op_def("to_device");
  forward_ad::Level level;
  Tensor x = forward_ad::make_dual(from_vector<double>({1, 2}, {2}), from_vector<double>({0.5, -1}, {2}),
                                   level.get());
  Tensor y = call1(op, {x}, Attrs{{"device", std::string("cpu")}});
  Tensor t = forward_ad::tangent(y, level.get());
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(t.to_vector(), (std::vector<double>{0.5, -1}));
}

}  // namespace
}  // namespace spire
