// The one elementwise kernel family: out = f(in...) over a Loop (any strides, broadcasting, views),
// with a dense fast path. Every elementwise op (arithmetic, unary math, comparisons, casts, where,
// optimizer updates) is a functor handed to launch_map; none has a kernel of its own.
//
//   struct Add { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
//   visit_elem(loop.elem[0], [&]<class T>() { return launch_map<T, T, T>(loop, Add{}); });
//
// Functors are structs with a __device__ operator(): nvcc refuses extended __device__ lambdas
// inside the generic lambdas that visit_elem calls.
//
// Element i of the loop is the row-major position i of the common shape; every operand's address
// follows from its strides. Each output element is written by exactly one thread, so results do
// not depend on the launch geometry.
//
// Two kernels per functor and type list:
// - dense: every operand is one dense row or one value broadcast to every element (x * 2.0, a
//   0-d tensor). When the dense rows are aligned, each thread moves 16 bytes of the widest operand
//   per access (one 128-bit load or store), which is what it takes to run at copy bandwidth.
// - strided: anything else. Positions are split into indices by multiplying with precomputed
//   magic numbers (32-bit, for loops under 2^31 elements) instead of 64-bit division, which costs
//   tens of instructions per dimension on the GPU.
#pragma once
#include <cuda/std/tuple>
#include <utility>

#include "engine/backends/cuda/device_types.cuh"

namespace spire::cuda {
namespace detail {

// Elements per vector access: 16 bytes of the widest operand, so no access exceeds 16 bytes (the
// widest the hardware loads at once). Element sizes are powers of two, so this divides evenly.
template <class... T>
constexpr int vec_width() {
  size_t widest = 1;
  ((widest = sizeof(T) > widest ? sizeof(T) : widest), ...);
  return widest >= 16 ? 1 : int(16 / widest);
}

// V consecutive elements, aligned so that the compiler moves them with one vector instruction.
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

template <int N>
struct DenseArgs {
  void* data[N];
  int64_t step[N];  // 1: a dense row; 0: one value read for every element
  int64_t n;
  bool vec;  // every dense row is aligned for Pack accesses
};

template <class T, int V>
SPIRE_HD inline Pack<T, V> load_pack(const void* p, int64_t step, int64_t j) {
  const T* q = static_cast<const T*>(p);
  if (step == 0) {
    Pack<T, V> r;
    T v = q[0];
#pragma unroll
    for (int e = 0; e < V; ++e) r.v[e] = v;
    return r;
  }
  return reinterpret_cast<const Pack<T, V>*>(q)[j];
}

// The bodies take the thread's first position and the grid's stride as arguments (rather than
// reading blockIdx) so that host tests can run them for every thread of a simulated grid. They
// call functors that may be __device__ only: nv_exec_check_disable lets the host instantiation,
// which the library never calls, exist without them.
#pragma nv_exec_check_disable
template <class Out, class... In, class F, size_t... K>
SPIRE_HD inline void dense_body(const DenseArgs<1 + sizeof...(In)>& a, F& f, int64_t first, int64_t stride,
                                std::index_sequence<K...>) {
  constexpr int V = vec_width<Out, In...>();
  Out* out = static_cast<Out*>(a.data[0]);
  int64_t done = 0;  // elements covered by vector accesses; the scalar loop takes the rest
  if constexpr (V > 1) {
    if (a.vec) {
      const int64_t packs = a.n / V;
      for (int64_t j = first; j < packs; j += stride) {
        ::cuda::std::tuple<Pack<In, V>...> in{load_pack<In, V>(a.data[K + 1], a.step[K + 1], j)...};
        Pack<Out, V> r;
#pragma unroll
        for (int e = 0; e < V; ++e) r.v[e] = f(::cuda::std::get<K>(in).v[e]...);
        reinterpret_cast<Pack<Out, V>*>(out)[j] = r;
      }
      done = packs * V;
    }
  }
  for (int64_t i = done + first; i < a.n; i += stride)
    out[i] = f(static_cast<const In*>(a.data[K + 1])[i * a.step[K + 1]]...);
}

// The functor comes first: a __global__ template's pack must be its last parameter.
template <class F, class Out, class... In>
__global__ void __launch_bounds__(kThreads) map_dense_kernel(DenseArgs<1 + sizeof...(In)> a, F f) {
  dense_body<Out, In...>(a, f, blockIdx.x * int64_t(blockDim.x) + threadIdx.x, int64_t(gridDim.x) * blockDim.x,
                         std::index_sequence_for<In...>{});
}

// n / d as (umulhi(n, magic) + n) >> shift, exact for n, d < 2^31 (Granlund and Montgomery).
struct FastDiv {
  uint32_t divisor, magic, shift;
};

SPIRE_HD inline uint32_t umulhi(uint32_t a, uint32_t b) {
#if defined(__CUDA_ARCH__)
  return __umulhi(a, b);
#else
  return uint32_t((uint64_t(a) * b) >> 32);
#endif
}

inline FastDiv make_fast_div(uint32_t d) {
  uint32_t s = 0;
  while (s < 32 && (uint64_t(1) << s) < d) ++s;
  // Below 2^32 because d > 2^(s-1), so 2^s - d < d.
  uint64_t m = ((uint64_t(1) << 32) * ((uint64_t(1) << s) - d)) / d + 1;
  return {d, uint32_t(m), s};
}

// The strided loop with its dimensions innermost first, so that the unrolled index loops below
// stop at a runtime ndim while every array index stays a compile-time constant (a runtime index
// into a kernel parameter would copy the whole parameter to local memory).
template <int N>
struct StridedArgs {
  void* data[N];
  int64_t numel;
  int ndim;
  bool narrow;  // numel < 2^31: 32-bit positions, FastDiv
  int64_t size[kMaxDims];
  FastDiv div[kMaxDims];
  int64_t stride[kMaxDims][N];
};

template <int N>
SPIRE_HD inline void offsets_narrow(const StridedArgs<N>& a, uint32_t i, int64_t (&off)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
#pragma unroll
  for (int d = 0; d < kMaxDims; ++d) {
    if (d == a.ndim) break;
    uint32_t q = (umulhi(i, a.div[d].magic) + i) >> a.div[d].shift;
    int64_t idx = int64_t(i - q * a.div[d].divisor);
    i = q;
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += idx * a.stride[d][k];
  }
}

template <int N>
SPIRE_HD inline void offsets_wide(const StridedArgs<N>& a, int64_t i, int64_t (&off)[N]) {
#pragma unroll
  for (int k = 0; k < N; ++k) off[k] = 0;
#pragma unroll
  for (int d = 0; d < kMaxDims; ++d) {
    if (d == a.ndim) break;
    int64_t idx = i % a.size[d];
    i /= a.size[d];
#pragma unroll
    for (int k = 0; k < N; ++k) off[k] += idx * a.stride[d][k];
  }
}

#pragma nv_exec_check_disable
template <class Out, class... In, class F, size_t... K>
SPIRE_HD inline void apply_at(void* const* data, const int64_t* off, F& f, std::index_sequence<K...>) {
  static_cast<Out*>(data[0])[off[0]] = f(static_cast<const In*>(data[K + 1])[off[K + 1]]...);
}

#pragma nv_exec_check_disable
template <class Out, class... In, class F>
SPIRE_HD inline void strided_body(const StridedArgs<1 + sizeof...(In)>& a, F& f, int64_t first, int64_t stride) {
  constexpr int N = 1 + sizeof...(In);
  int64_t off[N];
  if (a.narrow) {
    for (int64_t i = first; i < a.numel; i += stride) {
      offsets_narrow(a, uint32_t(i), off);
      apply_at<Out, In...>(a.data, off, f, std::index_sequence_for<In...>{});
    }
  } else {
    for (int64_t i = first; i < a.numel; i += stride) {
      offsets_wide(a, i, off);
      apply_at<Out, In...>(a.data, off, f, std::index_sequence_for<In...>{});
    }
  }
}

template <class F, class Out, class... In>
__global__ void __launch_bounds__(kThreads) map_strided_kernel(StridedArgs<1 + sizeof...(In)> a, F f) {
  strided_body<Out, In...>(a, f, blockIdx.x * int64_t(blockDim.x) + threadIdx.x, int64_t(gridDim.x) * blockDim.x);
}

// The loop as DenseArgs, if it is dense: one dimension along which the output steps by 1 and every
// input by 1 (a row) or 0 (one value for every element).
template <class Out, class... In>
bool plan_dense(const Loop<1 + sizeof...(In)>& L, DenseArgs<1 + sizeof...(In)>& a) {
  constexpr int N = 1 + sizeof...(In);
  constexpr int V = vec_width<Out, In...>();
  if (!L.contiguous && L.ndim != 1) return false;
  a.n = L.numel;
  for (int k = 0; k < N; ++k) {
    a.data[k] = L.data[k];
    a.step[k] = L.contiguous ? 1 : L.strides[k][0];
    if (a.step[k] != 0 && a.step[k] != 1) return false;
  }
  if (a.step[0] != 1 && L.numel != 1) return false;
  // Every dense row must start on a Pack boundary (a view with an odd offset takes the scalar loop).
  const size_t itemsize[N] = {sizeof(Out), sizeof(In)...};
  a.vec = V > 1;
  for (int k = 0; k < N; ++k)
    if (a.step[k] != 0 && reinterpret_cast<uintptr_t>(a.data[k]) % (itemsize[k] * V) != 0) a.vec = false;
  return true;
}

template <int N>
StridedArgs<N> plan_strided(const Loop<N>& L) {
  StridedArgs<N> a{};
  a.numel = L.numel;
  a.ndim = L.ndim;
  a.narrow = L.numel < (int64_t(1) << 31);
  for (int k = 0; k < N; ++k) a.data[k] = L.data[k];
  for (int d = 0; d < L.ndim; ++d) {
    int src = L.ndim - 1 - d;  // innermost first
    a.size[d] = L.sizes[src];
    if (a.narrow) a.div[d] = make_fast_div(uint32_t(L.sizes[src]));
    for (int k = 0; k < N; ++k) a.stride[d][k] = L.strides[k][src];
  }
  return a;
}

// Threads needed: one per Pack (or per element when the scalar loop does it all). Any grid is
// correct (the loops stride over the rest); this one gives every thread about one access.
template <class Out, class... In>
int64_t dense_units(const DenseArgs<1 + sizeof...(In)>& a) {
  return a.vec ? a.n / vec_width<Out, In...>() : a.n;
}

}  // namespace detail

// Runs out[i] = f(in_1[i], ..., in_k[i]) on the current stream. Out and In are the device types of
// the operands (the caller has matched them to loop.elem); f is a functor with a __device__
// operator().
template <class Out, class... In, class F>
cudaError_t launch_map(const Loop<1 + sizeof...(In)>& L, F f) {
  constexpr int N = 1 + sizeof...(In);
  if (L.numel <= 0) return cudaSuccess;
  detail::DenseArgs<N> dense{};
  if (detail::plan_dense<Out, In...>(L, dense)) {
    unsigned blocks = blocks_for(detail::dense_units<Out, In...>(dense));
    detail::map_dense_kernel<F, Out, In...><<<blocks, kThreads, 0, current_stream()>>>(dense, f);
  } else {
    unsigned blocks = blocks_for(L.numel, 4);
    detail::map_strided_kernel<F, Out, In...><<<blocks, kThreads, 0, current_stream()>>>(detail::plan_strided(L), f);
  }
  return cudaGetLastError();
}

}  // namespace spire::cuda
