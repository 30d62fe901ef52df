// The CUDA backend: loading and registration (any machine), and CPU <-> GPU round trips (GPU only;
// the ctest entry cuda.device is labelled `cuda` and only run where a GPU is present).
#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <vector>

#include "engine/core/allocator.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"
#include "engine/ops/device.h"
#include "engine/ops/elementwise.h"
#include "engine/ops/reduce.h"
#include "engine/ops/shape.h"

namespace spire {
namespace {

// ---- Any machine -------------------------------------------------------------------------------

TEST(CudaBackend, RegistersItselfWhenLoaded) {
  EXPECT_TRUE(backend_loaded(DeviceKind::CUDA));
  EXPECT_TRUE(has_copy(DeviceKind::CPU, DeviceKind::CUDA));
  EXPECT_TRUE(has_copy(DeviceKind::CUDA, DeviceKind::CPU));
  EXPECT_TRUE(has_copy(DeviceKind::CUDA, DeviceKind::CUDA));
  EXPECT_NO_THROW(allocator_for(Device{DeviceKind::CUDA, 0}));
}

TEST(CudaBackend, AvailabilityIsConsistentWithOrWithoutAGpu) {
  int n = cuda_device_count();
  EXPECT_GE(n, 0);
  EXPECT_EQ(cuda_available(), n > 0);
  Tensor x = from_vector<double>({1, 2, 3}, {3});
  if (n == 0) {
    // No GPU or no driver: a clean DeviceError that says so, not a crash.
    try {
      to(x, "cuda");
      FAIL() << "to(cuda) succeeded with no CUDA device";
    } catch (const DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("not available"), std::string::npos) << e.what();
    }
  } else {
    EXPECT_EQ(to(x, "cuda").device(), (Device{DeviceKind::CUDA, 0}));
  }
  // An index past the last device is refused either way.
  EXPECT_THROW(to(x, Device{DeviceKind::CUDA, n}), DeviceError);
}

// ---- GPU ---------------------------------------------------------------------------------------

const Device kGPU{DeviceKind::CUDA, 0};

class CudaDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cuda_available()) << "the cuda.device tests need a GPU (run them with ctest -L cuda "
                                     "on a machine that has one)";
  }
};

TEST_F(CudaDevice, RoundTripKeepsEveryDtypeBitForBit) {
  Tensor f64 = from_vector<double>({1.5, -2.25, 3e-300, 4e300}, {2, 2});
  Tensor f32 = from_vector<float>({1.5f, -2.25f, 7.0f}, {3});
  Tensor i64 = from_vector<int64_t>({int64_t(1) << 62, -5, 0}, {3});
  Tensor z128 = from_vector<c128>({{1, -1}, {0.5, 2}}, {2});
  for (const Tensor& x : {f64, f32, i64, z128}) {
    Tensor g = to(x, kGPU);
    EXPECT_EQ(g.device(), kGPU);
    EXPECT_EQ(g.shape(), x.shape());
    EXPECT_EQ(g.dtype(), x.dtype());
    Tensor back = to(g, kCPU);
    EXPECT_EQ(back.device(), kCPU);
    ASSERT_EQ(back.nbytes(), x.nbytes());
    EXPECT_EQ(0, std::memcmp(back.raw_data(), x.raw_data(), x.nbytes())) << name(x.dtype());
  }
}

TEST_F(CudaDevice, StridedSourcesArriveInLogicalOrder) {
  Tensor x = reshape(from_vector<double>({0, 1, 2, 3, 4, 5}, {6}), {2, 3});
  Tensor xt = transpose(x, 0, 1);  // [[0,3],[1,4],[2,5]], strided on the CPU
  Tensor back = to(to(xt, kGPU), kCPU);
  EXPECT_EQ(back.to_vector(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
  // A strided view on the GPU (no strided-copy kernel there) comes back packed too.
  Tensor gt = transpose(to(x, kGPU), 0, 1);
  EXPECT_EQ(to(gt, kCPU).to_vector(), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST_F(CudaDevice, GpuToGpuCopyAndFill) {
  Tensor g = to(from_vector<double>({1, 2, 3}, {3}), kGPU);
  EXPECT_TRUE(to(g, Device{DeviceKind::CUDA, 0}).same(g));  // already there: no copy
  // The op itself always copies: device to device.
  Tensor h = call1(op_def("to_device"), {g}, Attrs{{"device", std::string("cuda:0")}});
  EXPECT_NE(h.storage(), g.storage());
  EXPECT_EQ(to(h, kCPU).to_vector(), (std::vector<double>{1, 2, 3}));
  Tensor filled = full({1000}, Scalar(2.5), DType::Float64, kGPU);
  std::vector<double> v = to(filled, kCPU).to_vector();
  EXPECT_EQ(v, std::vector<double>(1000, 2.5));
  Tensor z = zeros({3, 5}, DType::Complex64, kGPU);
  for (double e : to(z, kCPU).to_vector()) EXPECT_EQ(e, 0.0);
}

TEST_F(CudaDevice, GradientsFlowBackAcrossTheCopy) {
  Tensor x = from_vector<double>({1, -2, 3}, {3});
  x.set_requires_grad();
  // cpu -> gpu -> cpu, then a loss on the CPU: d/dx sum(x^2) = 2x, delivered on x's device.
  Tensor y = to(to(x, kGPU), kCPU);
  Tensor loss = sum(mul(y, y));
  loss.backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_EQ(x.grad().device(), kCPU);
  EXPECT_EQ(x.grad().to_vector(), (std::vector<double>{2, -4, 6}));
}

TEST_F(CudaDevice, EmptyTensorsMove) {
  Tensor e = empty({0, 3}, DType::Float32);
  Tensor g = to(e, kGPU);
  EXPECT_EQ(g.shape(), (Shape{0, 3}));
  EXPECT_EQ(to(g, kCPU).numel(), 0);
}

}  // namespace
}  // namespace spire
