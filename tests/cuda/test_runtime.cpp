// The CUDA runtime: the caching allocator, page-locked memory, asynchronous copies, streams and
// events. CudaBackend* suites run on any machine (they check what happens without a GPU too);
// CudaRuntime* suites need one (ctest label `cuda`).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/core/allocator.h"
#include "engine/core/op.h"
#include "engine/core/stream.h"
#include "engine/core/transfer.h"
#include "engine/ops/device.h"

namespace spire {
namespace {

const Device kGPU{DeviceKind::CUDA, 0};

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// ---- Any machine -------------------------------------------------------------------------------

TEST(CudaBackendRuntime, RegistersEveryRuntimeHook) {
  const BackendHooks& h = backend_hooks(DeviceKind::CUDA, "test");
  EXPECT_TRUE(h.total_memory && h.host_alloc && h.host_free);
  EXPECT_TRUE(h.stream_create && h.stream_priority_range && h.current_stream && h.set_current_stream);
  EXPECT_TRUE(h.stream_synchronize && h.stream_query && h.stream_wait_event);
  EXPECT_TRUE(h.event_create && h.event_destroy && h.event_record && h.event_synchronize && h.event_query &&
              h.event_elapsed_ms);
}

// Each entry point works where a GPU is present; without one it fails with a DeviceError naming
// itself and saying the device is not available, never a crash or a raw CUDA status.
TEST(CudaBackendRuntime, EveryEntryPointWorksOrSaysWhy) {
  bool gpu = cuda_available();
  EXPECT_EQ(unavailable_reason(DeviceKind::CUDA).empty(), gpu);
  auto expect_clean = [&](auto&& f, const char* what) {
    if (gpu) {
      EXPECT_NO_THROW(f()) << what;
      return;
    }
    try {
      f();
      ADD_FAILURE() << what << " succeeded without a GPU";
    } catch (const DeviceError& e) {
      EXPECT_TRUE(contains(e.what(), "not available")) << what << ": " << e.what();
      EXPECT_TRUE(contains(e.what(), what)) << what << ": " << e.what();
    }
  };
  expect_clean([] { Stream::create(kGPU); }, "Stream");
  expect_clean([] { Stream::current(kGPU); }, "current_stream");
  expect_clean([] { Event e; e.record(kGPU); }, "current_stream");
  expect_clean([] { pin_memory(from_vector<float>({1, 2}, {2})); }, "pin_memory");
  expect_clean([] { to(from_vector<float>({1, 2}, {2}), kGPU, true); }, "to_device");
  // Statistics are answers, not errors: zeros for a device never used.
  AllocatorStats s = allocator_for(kGPU).device_stats(0);
  if (!gpu) {
    EXPECT_EQ(s.allocated, 0u);
    EXPECT_EQ(s.reserved, 0u);
  }
  EXPECT_NO_THROW(allocator_for(kGPU).empty_cache());
}

TEST(CudaBackendRuntime, StreamsBelongToGpus) {
  EXPECT_THROW(Stream::create(kCPU), DeviceError);
  Event e;  // never recorded: done, nothing to wait for
  EXPECT_FALSE(e.recorded());
  EXPECT_TRUE(e.query());
  EXPECT_NO_THROW(e.synchronize());
  Event f(true);
  EXPECT_THROW(e.elapsed_time(f), ValueError);
}

TEST(CudaBackendRuntime, CpuTensorsAreNotPinned) {
  EXPECT_FALSE(is_pinned(from_vector<float>({1}, {1})));
}

// ---- GPU ---------------------------------------------------------------------------------------

class CudaRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(cuda_available()) << "the CudaRuntime tests need a GPU: " << unavailable_reason(DeviceKind::CUDA);
  }
  static AllocatorStats stats() { return allocator_for(kGPU).device_stats(0); }
};

TEST_F(CudaRuntime, FreedBlocksAreReusedAndCounted) {
  const Shape shape{1 << 18};  // 1 MiB of float32
  { Tensor warm = empty(shape, DType::Float32, kGPU); }
  AllocatorStats before = stats();
  size_t held = before.allocated;
  {
    Tensor a = empty(shape, DType::Float32, kGPU);
    EXPECT_EQ(stats().allocated, held + (size_t(1) << 20));
    EXPECT_GE(stats().peak, held + (size_t(1) << 20));
    EXPECT_GE(stats().reserved, stats().allocated);
  }
  EXPECT_EQ(stats().allocated, held);
  AllocatorStats after = stats();
  // Same size, same stream, right after a free: the pool hands the block back without growing.
  EXPECT_EQ(after.misses, before.misses);
  EXPECT_EQ(after.hits, before.hits + 1);
  EXPECT_GE(after.cached, size_t(1) << 20);  // the freed block stays reserved

  allocator_for(kGPU).reset_peak_stats(0);
  EXPECT_EQ(stats().peak, stats().allocated);
  allocator_for(kGPU).empty_cache();
  EXPECT_LE(stats().reserved, after.reserved);
}

TEST_F(CudaRuntime, OutOfMemorySaysWhatWasAskedAndHeld) {
  Tensor keep = empty({1024}, DType::Float32, kGPU);
  try {
    Tensor huge = empty({int64_t(1) << 38}, DType::Float32, kGPU);  // 1 TiB, more than any GPU has
    FAIL() << "a 1 TiB allocation succeeded";
  } catch (const DeviceError& e) {
    std::string m = e.what();
    EXPECT_TRUE(contains(m, "out of memory")) << m;
    EXPECT_TRUE(contains(m, "1.00 TiB")) << m;
    EXPECT_TRUE(contains(m, "in tensors")) << m;
    EXPECT_TRUE(contains(m, "cached")) << m;
    EXPECT_TRUE(contains(m, "in total")) << m;
  }
  // The failure leaves the allocator usable.
  Tensor after = full({16}, Scalar(1.0), DType::Float32, kGPU);
  EXPECT_EQ(to(after, kCPU).to_vector(), std::vector<double>(16, 1.0));
}

TEST_F(CudaRuntime, PinnedAsyncRoundTripIsBitExact) {
  std::vector<double> v(1 << 16);
  for (size_t i = 0; i < v.size(); ++i) v[i] = double(i) * 1.000001 - 3e5 + 1e-300 * double(i % 7);
  Tensor x = from_vector<double>(v, {int64_t(v.size())});
  Tensor p = pin_memory(x);
  EXPECT_TRUE(is_pinned(p));
  EXPECT_FALSE(is_pinned(x));
  EXPECT_TRUE(pin_memory(p).same(p));
  Tensor g = to(p, kGPU, /*non_blocking=*/true);
  Tensor back = to(g, kCPU, /*non_blocking=*/true);
  EXPECT_TRUE(is_pinned(back));  // a non-blocking copy to the host lands in page-locked memory
  Stream::current(kGPU).synchronize();
  ASSERT_EQ(back.nbytes(), x.nbytes());
  EXPECT_EQ(0, std::memcmp(back.raw_data(), x.raw_data(), x.nbytes()));
  // A strided pinned view is packed before it travels.
  Tensor col = make_view(p, {4}, {2}, 1);
  EXPECT_EQ(to(to(col, kGPU, true), kCPU).to_vector(), (std::vector<double>{v[1], v[3], v[5], v[7]}));
}

TEST_F(CudaRuntime, FreeingAPinnedBufferDuringACopyIsSafe) {
  Tensor x = full({1 << 20}, Scalar(3.0), DType::Float64, kCPU);
  Tensor g;
  {
    Tensor p = pin_memory(x);
    g = to(p, kGPU, true);
  }  // p's block is returned while the copy may run; it is not reused before the copy is done
  Tensor q = pin_memory(full({1 << 20}, Scalar(5.0), DType::Float64, kCPU));
  EXPECT_EQ(to(g, kCPU).to_vector(), std::vector<double>(1 << 20, 3.0));
  EXPECT_EQ(q.to_vector()[0], 5.0);
}

TEST_F(CudaRuntime, StreamsAreOrderedByEvents) {
  Stream a = Stream::create(kGPU);
  Stream b = Stream::create(kGPU, -1);
  EXPECT_EQ(a.device(), kGPU);
  Tensor x;
  Event ready;
  {
    StreamGuard on(a);
    EXPECT_TRUE(Stream::current(kGPU) == a);
    x = full({1 << 22}, Scalar(7.0), DType::Float32, kGPU);
    ready.record(a);
  }
  EXPECT_FALSE(Stream::current(kGPU) == a);  // the guard restored the previous stream
  b.wait(ready);
  Tensor y;
  {
    StreamGuard on(b);
    y = to(x, kCPU);  // ordered after the fill on `a` through the event
  }
  EXPECT_EQ(y.to_vector(), std::vector<double>(1 << 22, 7.0));
  b.synchronize();
  EXPECT_TRUE(b.query());
  EXPECT_TRUE(ready.query());
  a.synchronize();
  x = Tensor();  // freed on `a`, where it was allocated
}

TEST_F(CudaRuntime, EventsTimeTheWorkBetweenThem) {
  Event start(true), end(true);
  Stream s = Stream::current(kGPU);
  start.record(s);
  for (int i = 0; i < 20; ++i) Tensor t = full({1 << 24}, Scalar(double(i)), DType::Float32, kGPU);
  end.record(s);
  end.synchronize();
  float ms = start.elapsed_time(end);
  EXPECT_GT(ms, 0.0f);
  EXPECT_LT(ms, 60e3f);
  Event untimed;
  untimed.record(s);
  untimed.synchronize();
  EXPECT_THROW(start.elapsed_time(untimed), ValueError);
}

TEST_F(CudaRuntime, CudaTensorsPrintAndConvert) {
  Tensor g = to(from_vector<double>({1.5, -2}, {2}), kGPU);
  EXPECT_EQ(g.to_vector(), (std::vector<double>{1.5, -2}));
  EXPECT_TRUE(contains(g.str(), "1.5")) << g.str();
  EXPECT_TRUE(contains(g.str(), "cuda:0")) << g.str();
  Tensor one = to(from_vector<float>({4.5f}, {}), kGPU);
  EXPECT_EQ(one.item<double>(), 4.5);
}

}  // namespace
}  // namespace spire
