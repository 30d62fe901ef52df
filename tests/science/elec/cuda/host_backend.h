// A Backend (science/elec/cuda/backend.h) in host memory that runs the cuda platform's per-sample
// bodies (yee_kernels.cuh) in loops: the cuda engine on a machine without a GPU, for the host
// tests. The samples of a kernel are visited in a scrambled order (a stride coprime to the count),
// as a GPU may run its threads in any order: a result that depended on the order would show.
#pragma once
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>

#include "science/elec/cuda/backend.h"
#include "science/elec/cuda/yee_kernels.cuh"

namespace spire::elec::cuda::testing {

// f(t) for every t in [0, n), in the order 0, s, 2s, ... (mod n) with s coprime to n.
template <class F>
void scrambled(int64_t n, F f) {
  if (n <= 0) return;
  int64_t s = n / 2 + 1;
  while (std::gcd(s, n) != 1) ++s;
  int64_t t = 0;
  for (int64_t i = 0; i < n; ++i, t = (t + s) % n) f(t);
}

template <class T>
class HostBackend final : public Backend<T> {
 public:
  std::string name() const override { return "host emulation"; }
  void* allocate(size_t bytes) override { return bytes ? std::calloc(bytes, 1) : nullptr; }
  void release(void* p) override { std::free(p); }
  void upload(void* dst, const void* host, size_t bytes) override {
    if (bytes) std::memcpy(dst, host, bytes);
  }
  void download(void* host, const void* src, size_t bytes) override {
    if (bytes) std::memcpy(host, src, bytes);
  }
  void copy(void* dst, const void* src, size_t bytes) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void update(const StepPlan<T>& p, bool magnetic) override {
    const int64_t n = p.n[0] * p.n[1] * p.n[2];
    // The device's 32-bit index arithmetic (cuda_backend.cu), the device's instantiation.
    scrambled(n, [&](int64_t t) {
      const uint32_t u = uint32_t(t), n2 = uint32_t(p.n[2]), n1 = uint32_t(p.n[1]);
      const uint32_t row = u / n2, x2 = u - row * n2, x0 = row / n1, x1 = row - x0 * n1;
      if (magnetic)
        update_sample<T, true, uint32_t>(p, x0, x1, x2);
      else
        update_sample<T, false, uint32_t>(p, x0, x1, x2);
    });
  }
  void add_sources(const SourceEntries& e, int64_t begin, int64_t end, const double* on, const double* values,
                   const FieldTable<T>& f) override {
    scrambled(end - begin, [&](int64_t t) { add_source<T>(e, begin + t, values, on, f.field); });
  }
  void zero_walls(const WallPlan<T>& w) override {
    for (int p = 0; p < w.count; ++p)
      for (int64_t t = 0; t < w.plane[p]; ++t) w.field[p][wall_index(w.n, w.axis[p], t)] = T(0);
  }
  void energy_chunks(const T* a, const T* b, const double* inv, double inv_uniform, int64_t n, int64_t chunk,
                     double* partial) override {
    const int64_t chunks = (n + chunk - 1) / chunk;
    for (int64_t c = 0; c < chunks; ++c)
      partial[c] = energy_chunk(a, b, inv, inv_uniform, c * chunk, std::min(n, (c + 1) * chunk));
  }
};

}  // namespace spire::elec::cuda::testing
