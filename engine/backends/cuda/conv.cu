// im2col and the gather form of col2im (see conv.h).
#include "engine/backends/cuda/conv.h"
#include "engine/backends/cuda/device_types.cuh"

namespace spire::cuda {
namespace {

struct Dims {
  int64_t KP, L, Lin, cin_g;
};
SPIRE_HD inline Dims dims_of(const ColumnMatrices& m) {
  const ConvGeo& g = m.geo;
  return {g.k[0] * g.k[1] * g.k[2], g.out[0] * g.out[1] * g.out[2], g.in[0] * g.in[1] * g.in[2], m.cin / m.groups};
}

// One thread per column entry, the output position innermost (coalesced writes).
template <class T>
__global__ void im2col_kernel(ColumnMatrices m) {
  const ConvGeo& g = m.geo;
  const Dims z = dims_of(m);
  const int64_t K = z.cin_g * z.KP, total = m.B * m.groups * K * z.L, step = int64_t(gridDim.x) * blockDim.x;
  const T* x = static_cast<const T*>(m.x);
  T* cols = static_cast<T*>(m.cols);
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += step) {
    int64_t l = e % z.L, t = e / z.L;
    int64_t q = t % K;
    t /= K;
    int64_t grp = t % m.groups, b = t / m.groups;
    int64_t c = q / z.KP, kk = q % z.KP;
    int64_t k2 = kk % g.k[2], k1 = (kk / g.k[2]) % g.k[1], k0 = kk / (g.k[2] * g.k[1]);
    int64_t o2 = l % g.out[2], o1 = (l / g.out[2]) % g.out[1], o0 = l / (g.out[2] * g.out[1]);
    int64_t i0 = o0 * g.s[0] - g.p[0] + k0 * g.d[0];
    int64_t i1 = o1 * g.s[1] - g.p[1] + k1 * g.d[1];
    int64_t i2 = o2 * g.s[2] - g.p[2] + k2 * g.d[2];
    T v(0);
    if (i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2]) {
      int64_t plane = (m.n0 + b) * m.cin + grp * z.cin_g + c;
      v = x[plane * z.Lin + (i0 * g.in[1] + i1) * g.in[2] + i2];
    }
    cols[b * m.sb + grp * m.sg + q * m.sq + l] = v;
  }
}

// The output position along one axis whose window, at kernel offset k, covers input index i:
// o * s + k * d - p = i. False when there is none.
SPIRE_HD inline bool source(int64_t i, int64_t k, int64_t s, int64_t p, int64_t d, int64_t out, int64_t& o) {
  int64_t t = i + p - k * d;
  if (t < 0 || t % s != 0) return false;
  o = t / s;
  return o < out;
}

// One thread per input element; its sum runs over kernel offsets in the order the CPU's col2im
// adds them (k0, k1, k2 ascending), starting from zero, so the bits match the CPU's for equal
// column matrices.
template <class T>
__global__ void col2im_kernel(ColumnMatrices m) {
  const ConvGeo& g = m.geo;
  const Dims z = dims_of(m);
  const int64_t total = m.B * m.cin * z.Lin, step = int64_t(gridDim.x) * blockDim.x;
  T* x = static_cast<T*>(m.x) + m.n0 * m.cin * z.Lin;
  const T* cols = static_cast<const T*>(m.cols);
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += step) {
    int64_t pos = e % z.Lin, t = e / z.Lin;
    int64_t ch = t % m.cin, b = t / m.cin;
    int64_t grp = ch / z.cin_g, c = ch % z.cin_g;
    int64_t i2 = pos % g.in[2], i1 = (pos / g.in[2]) % g.in[1], i0 = pos / (g.in[2] * g.in[1]);
    const T* base = cols + b * m.sb + grp * m.sg + c * z.KP * m.sq;
    T acc(0);
    for (int64_t k0 = 0; k0 < g.k[0]; ++k0) {
      int64_t o0;
      if (!source(i0, k0, g.s[0], g.p[0], g.d[0], g.out[0], o0)) continue;
      for (int64_t k1 = 0; k1 < g.k[1]; ++k1) {
        int64_t o1;
        if (!source(i1, k1, g.s[1], g.p[1], g.d[1], g.out[1], o1)) continue;
        for (int64_t k2 = 0; k2 < g.k[2]; ++k2) {
          int64_t o2;
          if (!source(i2, k2, g.s[2], g.p[2], g.d[2], g.out[2], o2)) continue;
          int64_t kk = (k0 * g.k[1] + k1) * g.k[2] + k2, l = (o0 * g.out[1] + o1) * g.out[2] + o2;
          acc += base[kk * m.sq + l];
        }
      }
    }
    x[e] = acc;
  }
}

}  // namespace

cudaError_t launch_im2col(const ColumnMatrices& m) {
  const Dims z = dims_of(m);
  const int64_t total = m.B * m.groups * z.cin_g * z.KP * z.L;
  if (total <= 0) return cudaSuccess;
  const unsigned blocks = blocks_for(total);
  switch (m.elem) {
    case Elem::Float32: im2col_kernel<float><<<blocks, kThreads, 0, current_stream()>>>(m); break;
    case Elem::Float64: im2col_kernel<double><<<blocks, kThreads, 0, current_stream()>>>(m); break;
    case Elem::Complex64: im2col_kernel<c64><<<blocks, kThreads, 0, current_stream()>>>(m); break;
    case Elem::Complex128: im2col_kernel<c128><<<blocks, kThreads, 0, current_stream()>>>(m); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_col2im(const ColumnMatrices& m) {
  const Dims z = dims_of(m);
  const int64_t total = m.B * m.cin * z.Lin;
  if (total <= 0) return cudaSuccess;
  const unsigned blocks = blocks_for(total);
  switch (m.elem) {
    case Elem::Float32: col2im_kernel<float><<<blocks, kThreads, 0, current_stream()>>>(m); break;
    case Elem::Float64: col2im_kernel<double><<<blocks, kThreads, 0, current_stream()>>>(m); break;
    case Elem::Complex64: col2im_kernel<c64><<<blocks, kThreads, 0, current_stream()>>>(m); break;
    case Elem::Complex128: col2im_kernel<c128><<<blocks, kThreads, 0, current_stream()>>>(m); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace spire::cuda
