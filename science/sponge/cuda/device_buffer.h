// A typed array in device memory that grows as needed (cudaMalloc / cudaFree on the current
// device), with copies to and from the host on a stream. Owns its memory; movable, not copyable.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/backends/cuda/runtime.h"

namespace spire::sponge::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t n) { resize(n); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)),
                                            capacity_(std::exchange(o.capacity_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      data_ = std::exchange(o.data_, nullptr), size_ = std::exchange(o.size_, 0), capacity_ = std::exchange(o.capacity_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // n elements; the contents are kept only when no reallocation happens (capacity grows by half
  // again, so a list that keeps growing reallocates rarely).
  void resize(size_t n) {
    if (n > capacity_) {
      release();
      const size_t c = n + n / 2;
      SPIRE_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), c * sizeof(T)), "cudaMalloc (sponge)");
      capacity_ = c;
    }
    size_ = n;
  }
  void upload(const T* host, size_t n, cudaStream_t stream) {
    resize(n);
    if (n) SPIRE_CUDA_CHECK(cudaMemcpyAsync(data_, host, n * sizeof(T), cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync (sponge upload)");
  }
  void upload(const std::vector<T>& host, cudaStream_t stream) { upload(host.data(), host.size(), stream); }
  // Copies the first n elements to `host` and waits for the stream.
  void download(T* host, size_t n, cudaStream_t stream) const {
    if (n) SPIRE_CUDA_CHECK(cudaMemcpyAsync(host, data_, n * sizeof(T), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync (sponge download)");
    SPIRE_CUDA_CHECK(cudaStreamSynchronize(stream), "cudaStreamSynchronize (sponge download)");
  }
  std::vector<T> download(cudaStream_t stream) const {
    std::vector<T> out(size_);
    download(out.data(), size_, stream);
    return out;
  }
  void zero(cudaStream_t stream) {
    if (size_) SPIRE_CUDA_CHECK(cudaMemsetAsync(data_, 0, size_ * sizeof(T), stream), "cudaMemsetAsync (sponge)");
  }
  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr, size_ = capacity_ = 0;
  }
  T* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

}  // namespace spire::sponge::cuda
