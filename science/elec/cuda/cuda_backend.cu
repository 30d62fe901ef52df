// The CUDA backend (cuda_backend.h): thin kernels around the bodies of yee_kernels.cuh.
#include "science/elec/cuda/cuda_backend.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "engine/backends/cuda/runtime.h"
#include "engine/core/error.h"
#include "science/elec/cuda/yee_kernels.cuh"

namespace spire::elec::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kEnergyThreads = 64;  // few chunks per block: each thread streams its own 4096 samples
constexpr size_t kStagingLimit = size_t(4) << 20;
constexpr size_t kSlots = 4;

unsigned blocks_for(int64_t n, int threads = kThreads) { return unsigned((n + threads - 1) / threads); }

__device__ inline int64_t thread_index() { return int64_t(blockIdx.x) * blockDim.x + threadIdx.x; }

// One thread per sample: storage index t = (x0 N1 + x1) N2 + x2, consecutive threads along x2.
template <class T, bool kH>
__global__ void __launch_bounds__(kThreads) update_kernel(const StepPlan<T> plan, uint32_t samples) {
  const int64_t t = thread_index();
  if (t >= int64_t(samples)) return;
  const uint32_t u = uint32_t(t), n2 = uint32_t(plan.n[2]), n1 = uint32_t(plan.n[1]);
  const uint32_t row = u / n2, x2 = u - row * n2, x0 = row / n1, x1 = row - x0 * n1;
  update_sample<T, kH, uint32_t>(plan, x0, x1, x2);
}

template <class T>
__global__ void __launch_bounds__(kThreads) source_kernel(const SourceEntries e, int64_t begin, int64_t end,
                                                          const double* on, const double* values,
                                                          const FieldTable<T> f) {
  const int64_t i = begin + thread_index();
  if (i < end) add_source<T>(e, i, values, on, f.field);
}

template <class T>
__global__ void __launch_bounds__(kThreads) wall_kernel(const WallPlan<T> w, int64_t most) {
  const int64_t t = thread_index();
  if (t >= most) return;
  const int64_t n[3] = {w.n[0], w.n[1], w.n[2]};
#pragma unroll
  for (int p = 0; p < 6; ++p)
    if (p < w.count && t < w.plane[p]) w.field[p][wall_index(n, w.axis[p], t)] = T(0);
}

template <class T>
__global__ void __launch_bounds__(kEnergyThreads) energy_kernel(const T* a, const T* b, const double* inv,
                                                                double inv_uniform, int64_t n, int64_t chunk,
                                                                double* partial) {
  const int64_t c = thread_index();
  if (c * chunk >= n) return;
  partial[c] = energy_chunk(a, b, inv, inv_uniform, c * chunk, c * chunk + chunk < n ? c * chunk + chunk : n);
}

template <class T>
class CudaBackend final : public Backend<T> {
 public:
  explicit CudaBackend(int device) : device_(device) {
    int count = 0;
    const cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
      cudaGetLastError();
      throw ConfigError(detail::cat("platform cuda:", device, ": the CUDA runtime found no usable device (",
                                    cudaGetErrorName(err), ": ", cudaGetErrorString(err), ")"));
    }
    SPIRE_CHECK(device >= 0 && device < count, ConfigError, "platform cuda:", device, ": this machine has ", count,
                " CUDA device(s)", count > 0 ? detail::cat(": cuda:0 to cuda:", count - 1) : std::string());
    spire::cuda::ScopedDevice scope(device_);
    cudaDeviceProp prop{};
    SPIRE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_), "cudaGetDeviceProperties (elec)");
    name_ = detail::cat("cuda:", device_, " (", prop.name, ")");
    SPIRE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreateWithFlags (elec)");
    for (Slot& s : slots_)
      SPIRE_CUDA_CHECK(cudaEventCreateWithFlags(&s.done, cudaEventDisableTiming), "cudaEventCreate (elec)");
  }

  ~CudaBackend() override {
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device_);
    cudaStreamSynchronize(stream_);
    for (Slot& s : slots_) {
      if (s.data) cudaFreeHost(s.data);
      cudaEventDestroy(s.done);
    }
    cudaStreamDestroy(stream_);
    cudaSetDevice(previous);
  }

  std::string name() const override { return name_; }

  void* allocate(size_t bytes) override {
    if (!bytes) return nullptr;
    spire::cuda::ScopedDevice scope(device_);
    void* p = nullptr;
    SPIRE_CUDA_CHECK(cudaMalloc(&p, bytes), "cudaMalloc (elec fields)");
    SPIRE_CUDA_CHECK(cudaMemsetAsync(p, 0, bytes, stream_), "cudaMemsetAsync (elec)");
    return p;
  }

  void release(void* p) override {  // never throws: called from destructors
    int previous = 0;
    cudaGetDevice(&previous);
    cudaSetDevice(device_);
    cudaFree(p);
    cudaSetDevice(previous);
  }

  void upload(void* dst, const void* host, size_t bytes) override {
    if (!bytes) return;
    spire::cuda::ScopedDevice scope(device_);
    if (bytes > kStagingLimit) {
      SPIRE_CUDA_CHECK(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (elec upload)");
      SPIRE_CUDA_CHECK(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (elec upload)");
      return;
    }
    // The slot's last copy must have left before it is overwritten.
    Slot& s = slots_[next_];
    next_ = (next_ + 1) % kSlots;
    if (s.used) SPIRE_CUDA_CHECK(cudaEventSynchronize(s.done), "cudaEventSynchronize (elec staging)");
    if (s.capacity < bytes) {
      if (s.data) SPIRE_CUDA_CHECK(cudaFreeHost(s.data), "cudaFreeHost (elec staging)");
      s.data = nullptr;
      s.capacity = std::max(bytes, size_t(64) << 10);
      SPIRE_CUDA_CHECK(cudaMallocHost(&s.data, s.capacity), "cudaMallocHost (elec staging)");
    }
    std::memcpy(s.data, host, bytes);
    SPIRE_CUDA_CHECK(cudaMemcpyAsync(dst, s.data, bytes, cudaMemcpyHostToDevice, stream_), "cudaMemcpyAsync (elec upload)");
    SPIRE_CUDA_CHECK(cudaEventRecord(s.done, stream_), "cudaEventRecord (elec staging)");
    s.used = true;
  }

  void download(void* host, const void* src, size_t bytes) override {
    if (!bytes) return;
    spire::cuda::ScopedDevice scope(device_);
    SPIRE_CUDA_CHECK(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, stream_), "cudaMemcpyAsync (elec download)");
    SPIRE_CUDA_CHECK(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (elec download)");
  }

  void copy(void* dst, const void* src, size_t bytes) override {
    if (!bytes) return;
    spire::cuda::ScopedDevice scope(device_);
    SPIRE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_), "cudaMemcpyAsync (elec copy)");
  }

  void update(const StepPlan<T>& plan, bool magnetic) override {
    const int64_t n = plan.n[0] * plan.n[1] * plan.n[2];
    SPIRE_CHECK(n <= kMaxCudaSamples, ConfigError, "platform cuda: ", n, " samples per component; at most ",
                kMaxCudaSamples);
    spire::cuda::ScopedDevice scope(device_);
    if (magnetic)
      update_kernel<T, true><<<blocks_for(n), kThreads, 0, stream_>>>(plan, uint32_t(n));
    else
      update_kernel<T, false><<<blocks_for(n), kThreads, 0, stream_>>>(plan, uint32_t(n));
    SPIRE_CUDA_CHECK(cudaGetLastError(), magnetic ? "elec H update kernel" : "elec E update kernel");
  }

  void add_sources(const SourceEntries& e, int64_t begin, int64_t end, const double* on, const double* values,
                   const FieldTable<T>& fields) override {
    if (end <= begin) return;
    spire::cuda::ScopedDevice scope(device_);
    source_kernel<T><<<blocks_for(end - begin), kThreads, 0, stream_>>>(e, begin, end, on, values, fields);
    SPIRE_CUDA_CHECK(cudaGetLastError(), "elec source kernel");
  }

  void zero_walls(const WallPlan<T>& w) override {
    int64_t most = 0;
    for (int p = 0; p < w.count; ++p) most = std::max(most, w.plane[p]);
    if (most == 0) return;
    spire::cuda::ScopedDevice scope(device_);
    wall_kernel<T><<<blocks_for(most), kThreads, 0, stream_>>>(w, most);
    SPIRE_CUDA_CHECK(cudaGetLastError(), "elec wall kernel");
  }

  void energy_chunks(const T* a, const T* b, const double* inv, double inv_uniform, int64_t n, int64_t chunk,
                     double* partial) override {
    const int64_t chunks = (n + chunk - 1) / chunk;
    if (chunks == 0) return;
    spire::cuda::ScopedDevice scope(device_);
    energy_kernel<T><<<blocks_for(chunks, kEnergyThreads), kEnergyThreads, 0, stream_>>>(a, b, inv, inv_uniform, n,
                                                                                         chunk, partial);
    SPIRE_CUDA_CHECK(cudaGetLastError(), "elec energy kernel");
  }

 private:
  struct Slot {
    void* data = nullptr;
    size_t capacity = 0;
    cudaEvent_t done = nullptr;
    bool used = false;
  };
  int device_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  std::array<Slot, kSlots> slots_{};
  size_t next_ = 0;
};

}  // namespace

template <class T>
std::unique_ptr<Backend<T>> make_cuda_backend(int device) {
  return std::make_unique<CudaBackend<T>>(device);
}

template std::unique_ptr<Backend<float>> make_cuda_backend<float>(int);
template std::unique_ptr<Backend<double>> make_cuda_backend<double>(int);

}  // namespace spire::elec::cuda
