// CUDA kernels of fftn, rfftn, irfftn and dct (engine/ops/fft.cpp) with cuFFT. Same definitions and
// normalisations as the CPU's FFTW kernels (engine/backends/cpu/fft.cpp), results equal up to
// rounding.
//
// cuFFT transforms up to three axes at a time, so a transform runs in passes of at most three
// axes. A pass over axes innermost in a dense input, or over consecutive axes of a dense input
// with few indices before them (cuFFT's strided layout), reads the input where it lies (out of
// place into the output), so the common cases (trailing axes, axis 0 of a matrix, spatial axes of
// channels-last data) cost no copy. Other passes first copy their input into a buffer with the
// axes innermost. Axes of length 1 are identities and are never given to cuFFT.
//
// irfftn is defined for any complex input (engine/ops/fft.cpp): the complex inverse over the other
// axes first, then a 1-d C2R along the halved axis, whose input gets zero imaginary parts at DC and
// Nyquist (which makes it the half spectrum of a Hermitian row, for which every C2R algorithm agrees
// on Re(sum_k c_k x_k e^{...}), the op's definition). The DCTs are one R2C or C2R of an even
// extension (fft.cu says which).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/backends/cuda/fft.h"
#include "engine/backends/cuda/plan_cache.h"
#include "engine/backends/cuda/slicing_views.h"
#include "engine/core/op.h"
#include "engine/core/transfer.h"

namespace spire::cuda {
namespace {
using Ints = std::vector<int64_t>;

bool is_double(DType t) { return real_dtype(t) == DType::Float64; }

double scale_for(const std::string& norm, bool inverse, int64_t points) {
  if (norm == "ortho") return 1.0 / std::sqrt(double(points));
  return (norm == "forward") != inverse ? 1.0 / double(points) : 1.0;
}

int64_t points_of(const Shape& logical, const Ints& axes) {
  int64_t n = 1;
  for (int64_t a : axes) n *= logical[a];
  return n;
}

// The permutation that moves `back` (in that order) behind the other axes, which keep their order.
Ints to_back(int64_t ndim, const Ints& back) {
  Ints perm;
  for (int64_t i = 0; i < ndim; ++i)
    if (std::find(back.begin(), back.end(), i) == back.end()) perm.push_back(i);
  perm.insert(perm.end(), back.begin(), back.end());
  return perm;
}
// Whether permuting by perm keeps the memory order of a contiguous tensor of this shape (only axes
// of length 1 move), so a contiguous buffer in permuted order is the tensor's own layout.
bool keeps_order(const Ints& perm, const Shape& shape) {
  int64_t last = -1;
  for (int64_t p : perm) {
    if (shape[p] == 1) continue;
    if (p < last) return false;
    last = p;
  }
  return true;
}
Ints inverse_of(const Ints& perm) {
  Ints inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[size_t(perm[i])] = int64_t(i);
  return inv;
}

// The axes of `axes` longer than 1, in increasing order.
Ints nontrivial_sorted(const Shape& shape, const Ints& axes) {
  Ints out;
  for (int64_t a : axes)
    if (shape[a] > 1) out.push_back(a);
  std::sort(out.begin(), out.end());
  return out;
}

// Sorted axes in passes of at most 3, the innermost pass first.
std::vector<Ints> passes_of(const Ints& sorted) {
  std::vector<Ints> passes;
  for (int64_t end = int64_t(sorted.size()); end > 0; end -= 3)
    passes.emplace_back(sorted.begin() + std::max<int64_t>(0, end - 3), sorted.begin() + end);
  return passes;
}

FftPlanKey key_for(const Tensor& t, FftType type, const Shape& lengths, int64_t batch) {
  return FftPlanKey{t.device().index, type, is_double(t.dtype()), lengths, batch};
}

// Whether cuFFT may read t where it lies: one dense block, aligned to the complex type (an offset
// view of a real tensor can be aligned only to its real type).
bool readable_in_place(const Tensor& t) {
  size_t align = 2 * itemsize(real_dtype(t.dtype()));
  return t.is_contiguous() && reinterpret_cast<uintptr_t>(t.raw_data()) % align == 0;
}

Shape lengths_of(const Shape& s, int64_t last_n) {
  Shape out;
  for (int64_t i = int64_t(s.size()) - last_n; i < int64_t(s.size()); ++i) out.push_back(s[i]);
  return out;
}

// At most this many cuFFT calls for one pass in the strided layout (one per index of the axes
// before the transformed ones); beyond, a transposing copy is cheaper than the launches.
constexpr int64_t kMaxStridedCalls = 16;

// A C2C pass over consecutive axes of a dense src with more axes behind them, done where the data
// lies with cuFFT's strided layout (the axes behind are the batch, innermost), so it needs no
// transposing copies: an FFT over axis 0 of a matrix, or over the spatial axes of channels-last
// data. Returns an undefined tensor where that layout does not apply.
Tensor strided_pass(const Tensor& src, const Ints& axes, bool inverse, Tensor* y, bool& in_y) {
  for (size_t i = 1; i < axes.size(); ++i)
    if (axes[i] != axes[i - 1] + 1) return Tensor();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axes.front(); ++d) outer *= src.shape()[d];
  for (int64_t d = axes.back() + 1; d < src.dim(); ++d) inner *= src.shape()[d];
  if (inner == 1 || outer > kMaxStridedCalls || !readable_in_place(src)) return Tensor();
  in_y = y != nullptr;
  Tensor dst = in_y ? *y : empty(src.shape(), src.dtype(), src.device());
  Shape lengths(src.shape().begin() + axes.front(), src.shape().begin() + axes.back() + 1);
  FftPlanKey key = key_for(src, FftType::C2C, lengths, inner);
  key.stride = inner;
  key.dist = 1;
  int64_t block = numel_of(lengths) * inner * int64_t(src.itemsize());
  char* in = static_cast<char*>(src.raw_data());
  char* out = static_cast<char*>(dst.raw_data());
  for (int64_t o = 0; o < outer; ++o) fft_execute(key, in + o * block, out + o * block, inverse);
  return dst;
}

// One C2C pass over `axes` (at most 3) of src, any strides, logical shape S. The result is returned
// as a view of shape S; it is written into y (and `in_y` set) when y is given and the axes already
// are innermost, otherwise into a new buffer.
Tensor c2c_pass(const Tensor& src, const Ints& axes, bool inverse, Tensor* y, bool& in_y, const char* op) {
  if (Tensor dst = strided_pass(src, axes, inverse, y, in_y); dst.defined()) return dst;
  Ints perm = to_back(src.dim(), axes);
  Tensor sp = permuted_view(src, perm);
  in_y = y != nullptr && keeps_order(perm, src.shape());
  Tensor dst = in_y ? permuted_view(*y, perm) : empty(sp.shape(), src.dtype(), src.device());
  Shape lengths = lengths_of(sp.shape(), int64_t(axes.size()));
  FftPlanKey key = key_for(src, FftType::C2C, lengths, sp.numel() / numel_of(lengths));
  if (readable_in_place(sp)) {
    fft_execute(key, sp.raw_data(), dst.raw_data(), inverse);  // in place when src already is y
  } else {
    copy_view(sp, dst, op);
    fft_execute(key, dst.raw_data(), dst.raw_data(), inverse);
  }
  return permuted_view(dst, inverse_of(perm));
}

// The C2C passes over `axes` (sorted, each longer than 1) starting from cur; the last pass may
// write into y.
Tensor c2c_passes(Tensor cur, const Ints& axes, bool inverse, Tensor* y, bool& in_y, const char* op) {
  std::vector<Ints> passes = passes_of(axes);
  for (size_t i = 0; i < passes.size(); ++i)
    cur = c2c_pass(cur, passes[i], inverse, i + 1 == passes.size() ? y : nullptr, in_y, op);
  return cur;
}

void scale(Tensor& y, double s, const char* op) {
  int64_t n = y.numel() * (is_complex(y.dtype()) ? 2 : 1);
  check_launch(launch_fft_scale(y.raw_data(), n, s, is_double(y.dtype())), op);
}

void fftn_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  const Ints& axes = a.get<Ints>("axes");
  bool inverse = a.get<bool>("inverse");
  Ints work = nontrivial_sorted(x.shape(), axes);
  bool in_y = false;
  Tensor cur = work.empty() ? x : c2c_passes(x, work, inverse, &y, in_y, "fftn");
  if (!in_y) copy_view(cur, y, "fftn");
  scale(y, scale_for(a.get<std::string>("norm"), inverse, points_of(x.shape(), axes)), "fftn");
}
SPIRE_REGISTER_KERNEL("fftn", DeviceKind::CUDA, fftn_kernel);

// R2C over the halved axis and up to two more, innermost; the remaining axes as C2C passes.
void rfftn_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  const Ints& axes = a.get<Ints>("axes");
  int64_t h = axes.back(), nh = x.shape()[h];
  Ints others = nontrivial_sorted(x.shape(), Ints(axes.begin(), axes.end() - 1));
  bool dbl = is_double(x.dtype()), in_y = false;
  Tensor cur;
  if (nh == 1) {
    // One bin along the halved axis, equal to x there: the rest is a complex transform of x.
    check_launch(launch_real_to_complex(make_loop<2>(y, {x}), dbl), "rfftn");
    cur = y;
    in_y = true;
  } else {
    size_t with = std::min<size_t>(2, others.size());
    Ints first(others.end() - with, others.end());
    others.resize(others.size() - with);
    first.push_back(h);
    Ints perm = to_back(x.dim(), first);
    Tensor sp = permuted_view(x, perm);
    Shape ps = sp.shape();
    ps.back() = nh / 2 + 1;
    in_y = others.empty() && keeps_order(perm, x.shape());
    Tensor dst = in_y ? permuted_view(y, perm) : empty(ps, y.dtype(), y.device());
    // An out-of-place R2C leaves its input untouched, so x itself is read where cuFFT can read it;
    // otherwise (strided, or an offset view misaligned for cuFFT) from a fresh, aligned copy.
    Tensor src = sp;
    if (!readable_in_place(sp)) {
      src = empty(sp.shape(), sp.dtype(), sp.device());
      copy_view(sp, src, "rfftn");
    }
    Shape lengths = lengths_of(sp.shape(), int64_t(first.size()));
    fft_execute(key_for(x, FftType::R2C, lengths, sp.numel() / numel_of(lengths)), src.raw_data(), dst.raw_data(),
                false);
    cur = permuted_view(dst, inverse_of(perm));
  }
  if (!others.empty()) cur = c2c_passes(cur, others, false, &y, in_y, "rfftn");
  if (!in_y) copy_view(cur, y, "rfftn");
  scale(y, scale_for(a.get<std::string>("norm"), false, points_of(x.shape(), axes)), "rfftn");
}
SPIRE_REGISTER_KERNEL("rfftn", DeviceKind::CUDA, rfftn_kernel);

void irfftn_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  const Ints& axes = a.get<Ints>("axes");
  int64_t h = axes.back(), n = a.get<int64_t>("n"), m = x.shape()[h];
  Ints others = nontrivial_sorted(x.shape(), Ints(axes.begin(), axes.end() - 1));
  bool dbl = is_double(x.dtype()), unused = false;
  // The complex inverse over the other axes, into buffers of our own (x is never written).
  Tensor cur = others.empty() ? x : c2c_passes(x, others, true, nullptr, unused, "irfftn");
  Ints perm = to_back(x.dim(), {h});
  Tensor sp = permuted_view(cur, perm);
  // The C2R overwrites its input and the edge bins are changed: a buffer of our own, [rows, m],
  // which also takes the normalisation (the C2R is linear), so the output needs no pass of its own.
  Tensor s = !others.empty() && readable_in_place(sp) ? sp : empty(sp.shape(), sp.dtype(), sp.device());
  double norm_scale = scale_for(a.get<std::string>("norm"), true, points_of(y.shape(), axes));
  check_launch(launch_c2r_prepare(make_loop<2>(s.shape(), {s, sp}), m, n % 2 == 0, norm_scale, dbl), "irfftn");
  int64_t rows = s.numel() / m;
  Shape ps = sp.shape();
  ps.back() = n;
  bool direct = keeps_order(perm, y.shape());
  Tensor dst = direct ? permuted_view(y, perm) : empty(ps, y.dtype(), y.device());
  if (n == 1)  // one point: the DC bin's real part
    check_launch(launch_real_part(make_loop<2>(dst, {s}), dbl), "irfftn");
  else
    fft_execute(key_for(y, FftType::C2R, {n}, rows), s.raw_data(), dst.raw_data(), true);
  if (!direct) copy_view(permuted_view(dst, inverse_of(perm)), y, "irfftn");
}
SPIRE_REGISTER_KERNEL("irfftn", DeviceKind::CUDA, irfftn_kernel);

// FFTW's REDFT00 / REDFT10 / REDFT01 (types 1, 2, 3), unnormalised, along one axis: the even
// extension of each row into a scratch buffer, one batched R2C (types 1, 2) or C2R (type 3), and a
// last kernel that takes the result's real part (with twiddles for type 2) into y.
void dct_kernel(const std::vector<Tensor>& in, std::vector<Tensor>& out, const Attrs& a) {
  const Tensor& x = in[0];
  Tensor& y = out[0];
  if (y.numel() == 0) return;
  DeviceGuard guard(y.device());
  int type = int(a.get<int64_t>("type"));
  int64_t axis = a.get<int64_t>("axis"), n = x.shape()[axis];
  bool dbl = is_double(x.dtype());
  // x and y without the transformed axis: the rows, walked by one loop over both.
  Shape rshape, xs, ys;
  for (int64_t d = 0; d < x.dim(); ++d)
    if (d != axis) {
      rshape.push_back(x.shape()[d]);
      xs.push_back(x.strides()[d]);
      ys.push_back(y.strides()[d]);
    }
  Loop<2> rows = make_loop<2>(rshape, {make_view(y, rshape, ys, y.offset()), make_view(x, rshape, xs, x.offset())});
  int64_t nrows = numel_of(rshape);
  DType ct = complex_dtype(x.dtype());
  Tensor buf, res;
  if (type == 3) {
    buf = empty({nrows, n + 1}, ct, y.device());
    res = empty({nrows, 2 * n}, x.dtype(), y.device());
  } else {
    int64_t N = type == 1 ? 2 * (n - 1) : 2 * n;
    buf = empty({nrows, N}, x.dtype(), y.device());
    res = empty({nrows, N / 2 + 1}, ct, y.device());
  }
  check_launch(launch_dct_extend(type, dbl, rows, n, x.strides()[axis], buf.raw_data()), "dct");
  if (type == 3)
    fft_execute(key_for(x, FftType::C2R, {2 * n}, nrows), buf.raw_data(), res.raw_data(), true);
  else
    fft_execute(key_for(x, FftType::R2C, {buf.shape()[1]}, nrows), buf.raw_data(), res.raw_data(), false);
  check_launch(launch_dct_finish(type, dbl, rows, n, y.strides()[axis], res.raw_data()), "dct");
}
SPIRE_REGISTER_KERNEL("dct", DeviceKind::CUDA, dct_kernel);

}  // namespace
}  // namespace spire::cuda
