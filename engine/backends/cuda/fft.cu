// The kernels around cuFFT. Each writes every element of its output exactly once; twiddle factors
// are computed in double precision with sincospi (exact arguments k / 2n) and rounded once.
#include "engine/backends/cuda/elementwise.cuh"
#include "engine/backends/cuda/fft.h"

namespace spire::cuda {
namespace {

template <class R>
using cpx = ::cuda::std::complex<R>;

#define SPIRE_GRID_STRIDE(i, n) \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); i += int64_t(gridDim.x) * blockDim.x)

template <class R>
__global__ void scale_kernel(R* p, int64_t n, R s) {
  SPIRE_GRID_STRIDE(i, n) p[i] *= s;
}

// Element i of the loop is row-major position i of the spectra's shape, so i % m is its bin.
template <class R>
__global__ void c2r_prepare_kernel(Loop<2> L, int64_t m, bool nyquist, R s) {
  cpx<R>* dst = static_cast<cpx<R>*>(L.data[0]);
  const cpx<R>* src = static_cast<const cpx<R>*>(L.data[1]);
  SPIRE_GRID_STRIDE(i, L.numel) {
    int64_t off[2] = {i, i};
    if (!L.contiguous) loop_offsets(L, i, off);
    cpx<R> v = src[off[1]];
    int64_t k = i % m;
    bool real_bin = k == 0 || (nyquist && k == m - 1);
    dst[off[0]] = cpx<R>(v.real() * s, real_bin ? R(0) : v.imag() * s);
  }
}

struct ToComplex {
  template <class R>
  __device__ cpx<R> operator()(R v) const { return cpx<R>(v, R(0)); }
};
struct RealPart {
  template <class C>
  __device__ auto operator()(C v) const { return v.real(); }
};

// Row r's bases in x (operand 1) and y (operand 0) of the rows loop.
template <class R>
__device__ inline const R* x_row(const Loop<2>& rows, int64_t r) {
  int64_t off[2];
  loop_offsets(rows, r, off);
  return static_cast<const R*>(rows.data[1]) + off[1];
}
template <class R>
__device__ inline R* y_row(const Loop<2>& rows, int64_t r) {
  int64_t off[2];
  loop_offsets(rows, r, off);
  return static_cast<R*>(rows.data[0]) + off[0];
}

// Type 1: z = x_0 .. x_{n-1}, x_{n-2} .. x_1 (length N = 2(n - 1)); its DFT is real and equals REDFT00.
template <class R>
__global__ void extend1_kernel(Loop<2> rows, int64_t n, int64_t xs, R* buf) {
  int64_t N = 2 * (n - 1);
  SPIRE_GRID_STRIDE(t, rows.numel * N) {
    int64_t r = t / N, j = t % N;
    buf[t] = x_row<R>(rows, r)[(j < n ? j : N - j) * xs];
  }
}

// Type 2: z = x_0 .. x_{n-1}, x_{n-1} .. x_0 (length 2n); Z_k = e^{i pi k / 2n} REDFT10_k.
template <class R>
__global__ void extend2_kernel(Loop<2> rows, int64_t n, int64_t xs, R* buf) {
  int64_t N = 2 * n;
  SPIRE_GRID_STRIDE(t, rows.numel * N) {
    int64_t r = t / N, j = t % N;
    buf[t] = x_row<R>(rows, r)[(j < n ? j : N - 1 - j) * xs];
  }
}

// Type 3: H_k = x_k e^{i pi k / 2n} (k < n), H_n = 0; the unnormalised length-2n C2R of H is
// x_0 + 2 sum_k x_k cos(pi k (2m + 1) / 2n) = REDFT01_m at m < n.
template <class R>
__global__ void extend3_kernel(Loop<2> rows, int64_t n, int64_t xs, cpx<R>* buf) {
  int64_t W = n + 1;
  SPIRE_GRID_STRIDE(t, rows.numel * W) {
    int64_t r = t / W, k = t % W;
    if (k == n) {
      buf[t] = cpx<R>(R(0), R(0));
    } else {
      double v = double(x_row<R>(rows, r)[k * xs]), s, c;
      sincospi(double(k) / double(2 * n), &s, &c);
      buf[t] = cpx<R>(R(v * c), R(v * s));
    }
  }
}

template <class R>
__global__ void finish1_kernel(Loop<2> rows, int64_t n, int64_t ys, const cpx<R>* z) {
  SPIRE_GRID_STRIDE(t, rows.numel * n) {
    int64_t r = t / n, k = t % n;
    y_row<R>(rows, r)[k * ys] = z[t].real();  // bins [rows, n]: N / 2 + 1 = n
  }
}

template <class R>
__global__ void finish2_kernel(Loop<2> rows, int64_t n, int64_t ys, const cpx<R>* z) {
  SPIRE_GRID_STRIDE(t, rows.numel * n) {
    int64_t r = t / n, k = t % n;
    cpx<R> v = z[r * (n + 1) + k];
    double s, c;
    sincospi(double(k) / double(2 * n), &s, &c);
    y_row<R>(rows, r)[k * ys] = R(double(v.real()) * c + double(v.imag()) * s);
  }
}

template <class R>
__global__ void finish3_kernel(Loop<2> rows, int64_t n, int64_t ys, const R* buf) {
  SPIRE_GRID_STRIDE(t, rows.numel * n) {
    int64_t r = t / n, k = t % n;
    y_row<R>(rows, r)[k * ys] = buf[r * 2 * n + k];
  }
}

template <class F>
cudaError_t by_precision(bool dbl, F&& f) {
  return dbl ? f.template operator()<double>() : f.template operator()<float>();
}

}  // namespace

cudaError_t launch_fft_scale(void* p, int64_t n, double s, bool dbl) {
  if (n <= 0 || s == 1.0) return cudaSuccess;
  return by_precision(dbl, [&]<class R>() {
    scale_kernel<R><<<blocks_for(n, 4), kThreads, 0, current_stream()>>>(static_cast<R*>(p), n, R(s));
    return cudaGetLastError();
  });
}

cudaError_t launch_c2r_prepare(const Loop<2>& L, int64_t m, bool nyquist, double s, bool dbl) {
  if (L.numel <= 0 || m <= 0) return cudaSuccess;
  return by_precision(dbl, [&]<class R>() {
    c2r_prepare_kernel<R><<<blocks_for(L.numel), kThreads, 0, current_stream()>>>(L, m, nyquist, R(s));
    return cudaGetLastError();
  });
}

cudaError_t launch_real_to_complex(const Loop<2>& L, bool dbl) {
  return by_precision(dbl, [&]<class R>() { return launch_map<cpx<R>, R>(L, ToComplex{}); });
}

cudaError_t launch_real_part(const Loop<2>& L, bool dbl) {
  return by_precision(dbl, [&]<class R>() { return launch_map<R, cpx<R>>(L, RealPart{}); });
}

cudaError_t launch_dct_extend(int type, bool dbl, const Loop<2>& rows, int64_t n, int64_t x_stride, void* buf) {
  int64_t width = type == 1 ? 2 * (n - 1) : type == 2 ? 2 * n : n + 1;
  int64_t total = rows.numel * width;
  if (total <= 0) return cudaSuccess;
  return by_precision(dbl, [&]<class R>() {
    unsigned blocks = blocks_for(total);
    cudaStream_t s = current_stream();
    if (type == 1) extend1_kernel<R><<<blocks, kThreads, 0, s>>>(rows, n, x_stride, static_cast<R*>(buf));
    else if (type == 2) extend2_kernel<R><<<blocks, kThreads, 0, s>>>(rows, n, x_stride, static_cast<R*>(buf));
    else extend3_kernel<R><<<blocks, kThreads, 0, s>>>(rows, n, x_stride, static_cast<cpx<R>*>(buf));
    return cudaGetLastError();
  });
}

cudaError_t launch_dct_finish(int type, bool dbl, const Loop<2>& rows, int64_t n, int64_t y_stride, const void* buf) {
  int64_t total = rows.numel * n;
  if (total <= 0) return cudaSuccess;
  return by_precision(dbl, [&]<class R>() {
    unsigned blocks = blocks_for(total);
    cudaStream_t s = current_stream();
    if (type == 1) finish1_kernel<R><<<blocks, kThreads, 0, s>>>(rows, n, y_stride, static_cast<const cpx<R>*>(buf));
    else if (type == 2) finish2_kernel<R><<<blocks, kThreads, 0, s>>>(rows, n, y_stride, static_cast<const cpx<R>*>(buf));
    else finish3_kernel<R><<<blocks, kThreads, 0, s>>>(rows, n, y_stride, static_cast<const R*>(buf));
    return cudaGetLastError();
  });
}

}  // namespace spire::cuda

#undef SPIRE_GRID_STRIDE
