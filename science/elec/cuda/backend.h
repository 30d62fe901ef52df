// Where the cuda platform's engine (yee_engine.h) keeps its arrays and runs its per-sample bodies
// (yee_kernels.cuh). The engine is written once over this interface; the CUDA backend
// (cuda_backend.h) allocates device memory and launches one thread per sample on its own stream;
// the host tests give the same engine a backend that runs the same bodies in loops over host
// memory, so the engine's whole sequence (sources, walls, energies, state) is checked against the
// CPU engine on machines without a GPU.
//
// Pointers handed to the kernels and returned by allocate() are the backend's memory; upload,
// download and copy move bytes between it and the host (download waits until the bytes are there;
// everything else is ordered after the work already asked for).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "science/elec/cuda/update_plan.h"
#include "science/elec/cuda/yee_kernels.cuh"

namespace spire::elec::cuda {

// The samples pec walls (tangential E) or pmc walls (tangential H) hold at zero: for each pair,
// the plane at index 0 along `axis` of one component (samples / n[axis] of them).
template <class T>
struct WallPlan {
  int count = 0;
  T* field[6] = {};
  int axis[6] = {};
  int64_t plane[6] = {};
  int64_t n[3] = {1, 1, 1};  // physical extents
};

// The field arrays by int(Component) (null where the problem has none): where source entries add.
template <class T>
struct FieldTable {
  T* field[6] = {};
};

template <class T>
class Backend {
 public:
  virtual ~Backend() = default;
  // "cuda:0 (NVIDIA H100 ...)" or the host emulation's name.
  virtual std::string name() const = 0;
  // `bytes` of zeroed memory (nullptr for 0 bytes).
  virtual void* allocate(size_t bytes) = 0;
  virtual void release(void* p) = 0;
  virtual void upload(void* dst, const void* host, size_t bytes) = 0;
  virtual void download(void* host, const void* src, size_t bytes) = 0;
  virtual void copy(void* dst, const void* src, size_t bytes) = 0;
  // update_sample over every sample of the lattice (plan.n's extents).
  virtual void update(const StepPlan<T>& plan, bool magnetic) = 0;
  // add_source for entries [begin, end): entries in that range hit distinct samples.
  virtual void add_sources(const SourceEntries& entries, int64_t begin, int64_t end, const double* on,
                           const double* values, const FieldTable<T>& fields) = 0;
  virtual void zero_walls(const WallPlan<T>& walls) = 0;
  // partial[c] = energy_chunk over [c chunk, min(n, (c + 1) chunk)) for every chunk c.
  virtual void energy_chunks(const T* a, const T* b, const double* inv, double inv_uniform, int64_t n, int64_t chunk,
                             double* partial) = 0;
};

// An array of T in a backend's memory, released with it.
template <class T, class U>
class Buffer {
 public:
  Buffer() = default;
  Buffer(Backend<U>* backend, size_t n) : backend_(backend), size_(n) {
    data_ = static_cast<T*>(backend->allocate(n * sizeof(T)));
  }
  ~Buffer() {
    if (data_) backend_->release(data_);
  }
  Buffer(Buffer&& o) noexcept : backend_(o.backend_), data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      if (data_) backend_->release(data_);
      backend_ = o.backend_, data_ = o.data_, size_ = o.size_;
      o.data_ = nullptr, o.size_ = 0;
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  void upload(const T* host, size_t n) { backend_->upload(data_, host, n * sizeof(T)); }
  void download(T* host, size_t n) const { backend_->download(host, data_, n * sizeof(T)); }

 private:
  Backend<U>* backend_ = nullptr;
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace spire::elec::cuda
